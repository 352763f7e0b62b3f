/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/status-gids.c: the status's compact GID table gives back the host model's GIDs, netdev
 * names included, and tells a change of any of them. */
#include "gid.h"
#include "status-gids.h"
#include "tests.h"

static Gid gid(uint32_t index, GidType type, const char *addr, const char *netdev) {
	Gid g = { .index = index, .type = type };

	CHECK(gid_parse(addr, g.raw) == 0);
	snprintf(g.netdev, sizeof(g.netdev), "%s", netdev);
	return g;
}

static void table(Gid *g) {
	g[0] = gid(0, GID_TYPE_ROCE_V1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "eth0");
	g[1] = gid(1, GID_TYPE_ROCE_V2, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "eth0");
	g[2] = gid(3, GID_TYPE_ROCE_V2, "0000:0000:0000:0000:0000:ffff:0a00:0a02", "eth0.100");
	g[3] = gid(5, GID_TYPE_ROCE_V2, "0000:0000:0000:0000:0000:ffff:0a00:1402", "mv-long-name1");
	g[4] = gid(7, GID_TYPE_IB, "fe80:0000:0000:0000:0002:c903:0000:1111", "");
	g[5] = gid(65535, GID_TYPE_ROCE_V2, "0000:0000:0000:0000:0000:ffff:0a00:0a03", "eth0.100");
}

TEST(round_trip) {
	Gid in[6], out;
	GidTable t;

	table(in);
	CHECK(gid_table_copy(&t, in, 6, "eth0") == 0);
	CHECK_INTEQ(t.n, 6);
	/* the port's netdev is not stored; the others once each */
	CHECK_INTEQ(t.netdevs ? 2 : 0, 2);
	CHECK_STREQ(t.netdevs[0], "eth0.100");
	CHECK_STREQ(t.netdevs[1], "mv-long-name1");
	CHECK(t.netdevs[2] == NULL);
	for (size_t i = 0; i < 6; i++) {
		gid_table_get(&t, i, "eth0", &out);
		CHECK_INTEQ(out.index, in[i].index);
		CHECK_INTEQ(out.type, in[i].type);
		CHECK(memcmp(out.raw, in[i].raw, 16) == 0);
		CHECK_STREQ(out.netdev, in[i].netdev);
	}
	gid_table_done(&t);
	CHECK(t.gids == NULL && t.n == 0 && t.netdevs == NULL);
}

TEST(expand) {
	_cleanup_free_ Gid *all = NULL;
	Gid in[6];
	GidTable t;
	size_t n;

	table(in);
	CHECK(gid_table_copy(&t, in, 6, "eth0") == 0);
	CHECK(gid_table_expand(&t, "eth0", &all, &n) == 0);
	CHECK_INTEQ(n, 6);
	CHECK(memcmp(all, in, sizeof(in)) == 0);
	gid_table_done(&t);

	CHECK(gid_table_copy(&t, NULL, 0, "eth0") == 0);
	free(all);
	CHECK(gid_table_expand(&t, "eth0", &all, &n) == 0);
	CHECK(all == NULL);
	CHECK_INTEQ(n, 0);
}

TEST(port_without_netdev) {
	/* an IB port without IPoIB: its GIDs name no netdev, and none is invented */
	Gid in = gid(0, GID_TYPE_IB, "fe80:0000:0000:0000:0002:c903:0000:1111", ""), out;
	GidTable t;

	CHECK(gid_table_copy(&t, &in, 1, NULL) == 0);
	gid_table_get(&t, 0, NULL, &out);
	CHECK_STREQ(out.netdev, "");
	CHECK(t.netdevs == NULL);
	gid_table_done(&t);
}

TEST(equal) {
	Gid in[6];
	GidTable a, b;

	table(in);
	CHECK(gid_table_copy(&a, in, 6, "eth0") == 0);
	CHECK(gid_table_copy(&b, in, 6, "eth0") == 0);
	CHECK(gid_table_equal(&a, &b));
	gid_table_done(&b);

	in[3].raw[15] ^= 1; /* an address */
	CHECK(gid_table_copy(&b, in, 6, "eth0") == 0);
	CHECK(!gid_table_equal(&a, &b));
	gid_table_done(&b);
	in[3].raw[15] ^= 1;

	snprintf(in[3].netdev, sizeof(in[3].netdev), "mv-other"); /* a netdev's name */
	CHECK(gid_table_copy(&b, in, 6, "eth0") == 0);
	CHECK(!gid_table_equal(&a, &b));
	gid_table_done(&b);
	snprintf(in[3].netdev, sizeof(in[3].netdev), "mv-long-name1");

	in[1].type = GID_TYPE_ROCE_V1; /* a type */
	CHECK(gid_table_copy(&b, in, 6, "eth0") == 0);
	CHECK(!gid_table_equal(&a, &b));
	gid_table_done(&b);
	in[1].type = GID_TYPE_ROCE_V2;

	CHECK(gid_table_copy(&b, in, 5, "eth0") == 0); /* a GID gone */
	CHECK(!gid_table_equal(&a, &b));
	gid_table_done(&b);
	gid_table_done(&a);
}

TEST(out_of_range) {
	Gid in[6], many[260];
	GidTable t = { .n = 99 };

	table(in);
	in[5].index = 65536;
	CHECK_INTEQ(gid_table_copy(&t, in, 6, "eth0"), -ERANGE);
	CHECK_INTEQ(t.n, 99); /* untouched */

	/* 254 netdevs besides the port's fit, the 255th does not */
	for (size_t i = 0; i < 260; i++)
		many[i] = gid(i, GID_TYPE_ROCE_V2, "0000:0000:0000:0000:0000:ffff:0a00:0a02", "");
	for (size_t i = 0; i < 254; i++)
		snprintf(many[i].netdev, sizeof(many[i].netdev), "vlan%zu", i);
	CHECK(gid_table_copy(&t, many, 260, "eth0") == 0);
	gid_table_done(&t);
	snprintf(many[254].netdev, sizeof(many[254].netdev), "vlan254");
	CHECK_INTEQ(gid_table_copy(&t, many, 260, "eth0"), -ERANGE);
}

TESTS_MAIN(TEST_ENTRY(round_trip), TEST_ENTRY(expand), TEST_ENTRY(port_without_netdev),
	   TEST_ENTRY(equal), TEST_ENTRY(out_of_range))
