/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rail routing's pieces: the table rule, the rtnetlink messages on their bytes (as iproute2's
 * `ip rule`/`ip route` send them), their parsers, and the state directory's record. */
#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rail-netlink.h"
#include "rail-record.h"
#include "tests.h"
#include "test-nlmsg.h"

static RailRule rule4(const char *src, uint32_t table) {
	RailRule r = { .family = AF_INET,
		       .src_len = 32,
		       .table = table,
		       .priority = RAIL_RULE_PRIORITY };

	CHECK(inet_pton(AF_INET, src, r.src) == 1);
	return r;
}

static RailRoute route4(const char *dst, uint8_t len, const char *src, int oif, uint32_t table) {
	RailRoute r = { .family = AF_INET,
			.dst_len = len,
			.has_prefsrc = true,
			.oif = oif,
			.table = table,
			.protocol = RAIL_ROUTE_PROTOCOL };

	CHECK(inet_pton(AF_INET, dst, r.dst) == 1);
	CHECK(inet_pton(AF_INET, src, r.prefsrc) == 1);
	return r;
}

TEST(tables) {
	CHECK(!rail_table_valid(0));
	CHECK(rail_table_valid(1));
	CHECK(rail_table_valid(252));
	CHECK(!rail_table_valid(RT_TABLE_DEFAULT));
	CHECK(!rail_table_valid(RT_TABLE_MAIN));
	CHECK(!rail_table_valid(RT_TABLE_LOCAL));
	CHECK(rail_table_valid(256));
	CHECK(rail_table_valid(UINT32_C(4294967294)));
	CHECK(!rail_table_valid(UINT32_C(4294967295)));
	CHECK_INTEQ(rail_table_auto(0), 0);
	CHECK_INTEQ(rail_table_auto(-1), 0);
	CHECK_INTEQ(rail_table_auto(2), 10002);
	CHECK(rail_table_valid(rail_table_auto(INT32_MAX)));
	for (RailSysctl s = 0; s < _RAIL_SYSCTL_MAX; s++)
		CHECK_INTEQ(rail_sysctl_from_string(rail_sysctl_to_string(s)), s);
	CHECK_INTEQ(rail_sysctl_desired(RAIL_SYSCTL_ARP_IGNORE), 1);
	CHECK_INTEQ(rail_sysctl_desired(RAIL_SYSCTL_ARP_ANNOUNCE), 2);
	CHECK_INTEQ(rail_sysctl_desired(RAIL_SYSCTL_RP_FILTER), 2);
}

TEST(newrule_bytes) {
	/* `ip rule add from 192.0.2.1 lookup 10002 priority 32000` */
	static const uint8_t expected[] = {
		0x34, 0x00, 0x00, 0x00, /* nlmsg_len 52 */
		0x20, 0x00,		/* RTM_NEWRULE */
		0x05, 0x06,		/* NLM_F_REQUEST | NLM_F_ACK | NLM_F_EXCL | NLM_F_CREATE */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x02, 0x00, 0x20, 0x00, /* AF_INET, dst_len 0, src_len 32, tos 0 */
		0x00, 0x00, 0x00, 0x01, /* table RT_TABLE_UNSPEC (>= 256), res1, res2, FR_ACT_TO_TBL
					 */
		0x00, 0x00, 0x00, 0x00, /* flags */
		0x08, 0x00, 0x02, 0x00, 0xc0, 0x00, 0x02, 0x01, /* FRA_SRC 192.0.2.1 */
		0x08, 0x00, 0x06, 0x00, 0x00, 0x7d, 0x00, 0x00, /* FRA_PRIORITY 32000 */
		0x08, 0x00, 0x0f, 0x00, 0x12, 0x27, 0x00, 0x00, /* FRA_TABLE 10002 */
	};
	RailRule r = rule4("192.0.2.1", 10002), back;
	struct nl_msg *m = NULL;

	CHECK_INTEQ(rail_rule_new(true, &r, &m), 0);
	check_bytes(m, expected, sizeof(expected));
	CHECK_INTEQ(rail_rule_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &back), 0);
	CHECK(rail_rule_equal(&r, &back));
	nlmsg_free(m);
}

TEST(delrule_small_table) {
	RailRule r = rule4("192.0.2.2", 100), back;
	struct nl_msg *m = NULL;
	struct fib_rule_hdr *frh;

	CHECK_INTEQ(rail_rule_new(false, &r, &m), 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_type, RTM_DELRULE);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	frh = nlmsg_data(nlmsg_hdr(m));
	CHECK_INTEQ(frh->table, 100); /* below 256 in the header too, as iproute2 sends it */
	nlmsg_hdr(m)->nlmsg_type = RTM_NEWRULE; /* as a dump shows it */
	CHECK_INTEQ(rail_rule_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &back), 0);
	CHECK(rail_rule_equal(&r, &back));
	nlmsg_free(m);

	r.table = RT_TABLE_MAIN;
	CHECK_INTEQ(rail_rule_new(true, &r, &m), -EINVAL);
	r.table = 100;
	r.family = AF_PACKET;
	CHECK_INTEQ(rail_rule_new(true, &r, &m), -EINVAL);
}

TEST(rule_ipv6) {
	RailRule r = { .family = AF_INET6,
		       .src_len = 128,
		       .table = 10003,
		       .priority = RAIL_RULE_PRIORITY },
		 back;
	_cleanup_free_ char *s = NULL;
	struct nl_msg *m = NULL;

	CHECK(inet_pton(AF_INET6, "2001:db8::2", r.src) == 1);
	CHECK_INTEQ(rail_rule_new(true, &r, &m), 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 12 + 20 + 8 + 8);
	CHECK_INTEQ(rail_rule_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &back), 0);
	CHECK(rail_rule_equal(&r, &back));
	s = rail_rule_to_string(&back);
	CHECK_STREQ(s, "from 2001:db8::2 lookup 10003");
	nlmsg_free(m);
}

TEST(delroute_bytes) {
	/* `ip route del 192.0.2.0/24 dev if3 src 192.0.2.1 table 100 proto 211 scope link` */
	static const uint8_t expected[] = {
		0x3c, 0x00, 0x00, 0x00, /* nlmsg_len 60 */
		0x19, 0x00,		/* RTM_DELROUTE */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x02, 0x18, 0x00, 0x00, /* AF_INET, dst_len 24, src_len 0, tos 0 */
		0x64, 0xd3, 0xfd, 0x01, /* table 100, proto 211, RT_SCOPE_LINK, RTN_UNICAST */
		0x00, 0x00, 0x00, 0x00, /* flags */
		0x08, 0x00, 0x01, 0x00, 0xc0, 0x00, 0x02, 0x00, /* RTA_DST 192.0.2.0 */
		0x08, 0x00, 0x07, 0x00, 0xc0, 0x00, 0x02, 0x01, /* RTA_PREFSRC 192.0.2.1 */
		0x08, 0x00, 0x04, 0x00, 0x03, 0x00, 0x00, 0x00, /* RTA_OIF 3 */
		0x08, 0x00, 0x0f, 0x00, 0x64, 0x00, 0x00, 0x00, /* RTA_TABLE 100 */
	};
	RailRoute r = route4("192.0.2.0", 24, "192.0.2.1", 3, 100);
	struct nl_msg *m = NULL;

	CHECK_INTEQ(rail_route_new(false, &r, &m), 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	r.oif = 0;
	CHECK_INTEQ(rail_route_new(true, &r, &m), -EINVAL);
}

TEST(newroute_parse) {
	RailRoute r = route4("192.0.2.0", 24, "192.0.2.1", 7, 10007), back;
	_cleanup_free_ char *s = NULL;
	struct nl_msg *m = NULL;
	struct rtmsg *rtm;
	size_t len;

	CHECK_INTEQ(rail_route_new(true, &r, &m), 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_flags,
		    NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL);
	len = nlmsg_hdr(m)->nlmsg_len;
	CHECK_INTEQ(rail_route_parse(nlmsg_hdr(m), len, &back), 0);
	CHECK(rail_route_equal(&r, &back));
	s = rail_route_to_string(&back, "veth0");
	CHECK_STREQ(s, "192.0.2.0/24 dev veth0 src 192.0.2.1 table 10007");
	/* what is not a unicast route through one device is not rdmad's */
	rtm = nlmsg_data(nlmsg_hdr(m));
	rtm->rtm_type = RTN_LOCAL;
	CHECK_INTEQ(rail_route_parse(nlmsg_hdr(m), len, &back), -ENODATA);
	rtm->rtm_type = RTN_UNICAST;
	/* cut short: malformed */
	CHECK_INTEQ(rail_route_parse(nlmsg_hdr(m), len - 4, &back), -EBADMSG);
	nlmsg_hdr(m)->nlmsg_type = RTM_NEWRULE;
	CHECK_INTEQ(rail_route_parse(nlmsg_hdr(m), len, &back), -EBADMSG);
	nlmsg_free(m);
}

TEST(rule_parse_others) {
	RailRule r = rule4("192.0.2.1", 10002), back;
	struct nl_msg *m = NULL;
	struct fib_rule_hdr *frh;

	/* an iif selector: not one of rdmad's rules */
	CHECK_INTEQ(rail_rule_new(true, &r, &m), 0);
	CHECK(nla_put_string(m, FRA_IIFNAME, "lo") == 0);
	CHECK_INTEQ(rail_rule_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &back), -ENODATA);
	nlmsg_free(m);
	/* blackhole, not a lookup */
	CHECK_INTEQ(rail_rule_new(true, &r, &m), 0);
	frh = nlmsg_data(nlmsg_hdr(m));
	frh->action = FR_ACT_BLACKHOLE;
	CHECK_INTEQ(rail_rule_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &back), -ENODATA);
	nlmsg_free(m);
}

TEST(dump_bytes) {
	static const uint8_t rules[] = {
		0x1c, 0x00, 0x00, 0x00, 0x22, 0x00, 0x01, 0x03, /* 28, RTM_GETRULE, REQUEST|DUMP */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, pid */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* AF_UNSPEC, ... */
		0x00, 0x00, 0x00, 0x00,
	};
	static const uint8_t routes[] = {
		0x1c, 0x00, 0x00, 0x00, 0x1a, 0x00, 0x01, 0x03, /* 28, RTM_GETROUTE, REQUEST|DUMP */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* seq, pid */
		0x00, 0x00, 0x00, 0x00, 0x00, 0xd3, 0x00, 0x00, /* AF_UNSPEC, ..., proto 211 */
		0x00, 0x00, 0x00, 0x00,
	};
	struct nl_msg *m = NULL;

	CHECK_INTEQ(rail_rule_dump_new(AF_UNSPEC, &m), 0);
	check_bytes(m, rules, sizeof(rules));
	nlmsg_free(m);
	CHECK_INTEQ(rail_route_dump_new(AF_UNSPEC, RAIL_ROUTE_PROTOCOL, &m), 0);
	check_bytes(m, routes, sizeof(routes));
	nlmsg_free(m);
}

TEST(record) {
	char dir[] = "/tmp/rdmad-test-rail-XXXXXX";
	RailRecord rec, back, *l = NULL;
	char path[128];
	size_t n = 0;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INTEQ(rail_record_read(dir, "veth0", &back), -ENOENT);
	CHECK_INTEQ(rail_records_list(dir, &l, &n), 0);
	CHECK_INTEQ(n, 0);
	CHECK_INTEQ(rail_record_init(&rec, "veth0"), 0);
	CHECK_INTEQ(rail_record_add_table(&rec, 10002), 0);
	CHECK_INTEQ(rail_record_add_table(&rec, 10002), 0);
	CHECK_INTEQ(rail_record_add_table(&rec, 100), 0);
	rec.saved[RAIL_SYSCTL_RP_FILTER] = 1;
	CHECK_INTEQ(rail_record_write(dir, &rec), 0);
	CHECK_INTEQ(rail_record_read(dir, "veth0", &back), 0);
	CHECK_INTEQ(back.n_tables, 2);
	CHECK(rail_record_has_table(&back, 100) && rail_record_has_table(&back, 10002));
	CHECK_INTEQ(back.saved[RAIL_SYSCTL_RP_FILTER], 1);
	CHECK_INTEQ(back.saved[RAIL_SYSCTL_ARP_IGNORE], -1);
	rail_record_done(&back);
	snprintf(path, sizeof(path), "%s/rails/veth0", dir);
	f = fopen(path, "r");
	if (f) {
		char buf[256] = "";
		size_t k = fread(buf, 1, sizeof(buf) - 1, f);

		buf[k] = 0;
		CHECK_STREQ(buf, "table 10002\ntable 100\nsysctl rp_filter 1\n");
		fclose(f);
	}

	/* one that does not parse is skipped by the list, refused by read */
	snprintf(path, sizeof(path), "%s/rails/veth9", dir);
	f = fopen(path, "w");
	fputs("table 254\n", f);
	fclose(f);
	CHECK_INTEQ(rail_record_read(dir, "veth9", &back), -EBADMSG);
	CHECK_INTEQ(rail_records_list(dir, &l, &n), 0);
	CHECK_INTEQ(n, 1);
	CHECK_STREQ(l[0].netdev, "veth0");
	rail_records_free(l, n);
	unlink(path);

	/* nothing left in it: the file goes */
	rail_record_remove_table(&rec, 100);
	rail_record_remove_table(&rec, 10002);
	rec.saved[RAIL_SYSCTL_RP_FILTER] = -1;
	CHECK_INTEQ(rail_record_write(dir, &rec), 0);
	CHECK_INTEQ(rail_record_read(dir, "veth0", &back), -ENOENT);
	rail_record_done(&rec);
	snprintf(path, sizeof(path), "%s/rails", dir);
	rmdir(path);
	rmdir(dir);
}

TESTS_MAIN(TEST_ENTRY(tables), TEST_ENTRY(newrule_bytes), TEST_ENTRY(delrule_small_table),
	   TEST_ENTRY(rule_ipv6), TEST_ENTRY(delroute_bytes), TEST_ENTRY(newroute_parse),
	   TEST_ENTRY(rule_parse_others), TEST_ENTRY(dump_bytes), TEST_ENTRY(record))
