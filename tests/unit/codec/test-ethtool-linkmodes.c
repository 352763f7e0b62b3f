/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ethtool link modes: the LINKMODES_GET request on its bytes (what `ethtool eth0` sends:
 * the header nest with the name and ETHTOOL_FLAG_COMPACT_BITSETS), the mode table against the
 * UAPI's bit numbers, and the parser on replies laid out as linkmodes_fill_reply() lays them:
 * a ConnectX-6 Dx port that supports 200GbE trained at 100G on 4 lanes, a link down, a
 * verbose bitset. Then a read of lo on the running kernel (no link modes: EOPNOTSUPP). */
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>

#include "ethtool-linkmodes.h"
#include "ethtool-pause-talk.h"
#include "macro.h"
#include "netlink-io.h"
#include "tests.h"
#include "test-nlmsg.h"

#define FAMILY 0x14

TEST(uapi) {
	uint32_t speed, lanes;
	const char *name;

	CHECK_INTEQ(ETHTOOL_MSG_LINKMODES_GET, 4);
	CHECK_INTEQ(ETHTOOL_MSG_LINKMODES_GET_REPLY, 4);
	CHECK_INTEQ(ETHTOOL_MSG_LINKMODES_NTF, 5);
	CHECK_INTEQ(ETHTOOL_A_LINKMODES_OURS, 3);
	CHECK_INTEQ(ETHTOOL_A_LINKMODES_SPEED, 5);
	CHECK_INTEQ(ETHTOOL_A_LINKMODES_LANES, 9);
	CHECK_INTEQ(ETHTOOL_A_BITSET_SIZE, 2);
	CHECK_INTEQ(ETHTOOL_A_BITSET_VALUE, 4);
	CHECK_INTEQ(ETHTOOL_A_BITSET_MASK, 5);
	CHECK_INTEQ(ETHTOOL_A_HEADER_FLAGS, 3);
	CHECK_INTEQ(ETHTOOL_FLAG_COMPACT_BITSETS, 1);
	/* the table against the UAPI's numbers */
	CHECK_INTEQ(
		link_mode_lookup(ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT, &speed, &lanes, &name),
		0);
	CHECK_INTEQ(speed, 200000);
	CHECK_INTEQ(lanes, 4);
	CHECK_STREQ(name, "200000baseCR4_Full");
	CHECK_INTEQ(
		link_mode_lookup(ETHTOOL_LINK_MODE_400000baseCR8_Full_BIT, &speed, &lanes, &name),
		0);
	CHECK_INTEQ(lanes, 8);
	CHECK_INTEQ(link_mode_lookup(ETHTOOL_LINK_MODE_10000baseR_FEC_BIT, &speed, &lanes, &name),
		    0);
	CHECK_INTEQ(speed, 10000);
	CHECK_INTEQ(lanes, 1);
	CHECK_INTEQ(link_mode_lookup(ETHTOOL_LINK_MODE_1000baseT_Full_BIT, &speed, &lanes, &name),
		    0);
	CHECK_INTEQ(lanes, 1);
	CHECK_INTEQ(link_mode_lookup(ETHTOOL_LINK_MODE_Autoneg_BIT, &speed, &lanes, &name),
		    -ENOENT);
	CHECK_INTEQ(link_mode_lookup(ETHTOOL_LINK_MODE_FEC_RS_BIT, &speed, &lanes, &name), -ENOENT);
}

TEST(get_bytes) {
	static const uint8_t expected[] = {
		0x2c,	0x00, 0x00, 0x00, /* nlmsg_len 44 */
		FAMILY, 0x00, 0x05, 0x00, /* NLM_F_REQUEST | NLM_F_ACK */
		0x00,	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x04,	0x01, 0x00, 0x00, /* LINKMODES_GET, version 1 */
		0x18,	0x00, 0x01, 0x80, /* HEADER, NLA_F_NESTED */
		0x09,	0x00, 0x02, 0x00, 'e',	't',  'h',  '0',
		0x00,	0x00, 0x00, 0x00,			  /* DEV_NAME */
		0x08,	0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* FLAGS: COMPACT_BITSETS */
	};
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK_INTEQ(ethtool_linkmodes_get_new(FAMILY, "eth0", &m), 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	CHECK_INTEQ(ethtool_linkmodes_get_new(0, "eth0", &untouched), -EINVAL);
	CHECK_INTEQ(ethtool_linkmodes_get_new(FAMILY, "", &untouched), -EINVAL);
	CHECK_INTEQ(ethtool_linkmodes_get_new(FAMILY, "sixteen-chars-xx", &untouched), -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* linkmodes_fill_reply(): the header, AUTONEG, OURS (compact: SIZE, VALUE, MASK), SPEED,
 * LANES, DUPLEX. */
static struct nl_msg *reply_new(const char *ifname, const unsigned *supported, size_t n,
				uint32_t speed, uint32_t lanes, bool verbose) {
	struct genlmsghdr g = { .cmd = ETHTOOL_MSG_LINKMODES_GET_REPLY, .version = 1 };
	struct nl_msg *m = nlmsg_alloc();
	uint32_t words[4] = { 0 };
	struct nlattr *nest;

	for (size_t i = 0; i < n; i++)
		words[supported[i] / 32] |= UINT32_C(1) << (supported[i] % 32);
	CHECK(m && nlmsg_put(m, 0, 1, FAMILY, 0, 0));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	nest = nla_nest_start(m, ETHTOOL_A_LINKMODES_HEADER);
	CHECK(nla_put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, 4) == 0);
	CHECK(nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, ifname) == 0);
	nla_nest_end(m, nest);
	CHECK(nla_put_u8(m, ETHTOOL_A_LINKMODES_AUTONEG, 1) == 0);
	nest = nla_nest_start(m, ETHTOOL_A_LINKMODES_OURS);
	CHECK(nla_put_u32(m, ETHTOOL_A_BITSET_SIZE, 100) == 0);
	if (verbose) {
		struct nlattr *bits = nla_nest_start(m, ETHTOOL_A_BITSET_BITS), *bit;

		bit = nla_nest_start(m, ETHTOOL_A_BITSET_BITS_BIT);
		CHECK(nla_put_u32(m, ETHTOOL_A_BITSET_BIT_INDEX, supported[0]) == 0);
		nla_nest_end(m, bit);
		nla_nest_end(m, bits);
	} else {
		CHECK(nla_put(m, ETHTOOL_A_BITSET_VALUE, sizeof(words), words) == 0);
		CHECK(nla_put(m, ETHTOOL_A_BITSET_MASK, sizeof(words), words) == 0);
	}
	nla_nest_end(m, nest);
	CHECK(nla_put_u32(m, ETHTOOL_A_LINKMODES_SPEED, speed) == 0);
	if (lanes)
		CHECK(nla_put_u32(m, ETHTOOL_A_LINKMODES_LANES, lanes) == 0);
	CHECK(nla_put_u8(m, ETHTOOL_A_LINKMODES_DUPLEX, DUPLEX_FULL) == 0);
	return m;
}

static int parse(struct nl_msg *m, char *name, LinkModes *l) {
	return ethtool_linkmodes_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, name, l);
}

TEST(parse_cx6dx) {
	/* 25G, 50G on 1 and 2 lanes, 100G on 2 and 4 lanes, 200G on 4 */
	const unsigned modes[] = {
		ETHTOOL_LINK_MODE_25000baseCR_Full_BIT,
		ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT,
		ETHTOOL_LINK_MODE_50000baseCR_Full_BIT,
		ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT,
		ETHTOOL_LINK_MODE_100000baseCR2_Full_BIT,
		ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT,
		ETHTOOL_LINK_MODE_Autoneg_BIT,
		ETHTOOL_LINK_MODE_FEC_RS_BIT,
	};
	struct nl_msg *m = reply_new("ens1f0np0", modes, ELEMENTSOF(modes), 100000, 4, false);
	char name[IFNAMSIZ];
	LinkModes l;

	CHECK_INTEQ(parse(m, name, &l), 0);
	CHECK_STREQ(name, "ens1f0np0");
	CHECK_INTEQ(l.speed, 100000);
	CHECK_INTEQ(l.lanes, 4);
	CHECK_INTEQ(l.n_supported, 6);
	CHECK_INTEQ(l.max_speed, 200000);
	CHECK_INTEQ(l.max_lanes, 4);
	CHECK_STREQ(l.max_mode, "200000baseCR4_Full");
	nlmsg_free(m);
}

TEST(parse_down_and_refused) {
	const unsigned modes[] = { ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT };
	struct nl_msg *m = reply_new("eth1", modes, 1, (uint32_t) SPEED_UNKNOWN, 0, false);
	LinkModes l = { .speed = 7 };
	char name[IFNAMSIZ];

	CHECK_INTEQ(parse(m, name, &l), 0);
	CHECK_INTEQ(l.speed, 0); /* no link */
	CHECK_INTEQ(l.lanes, 0);
	CHECK_INTEQ(l.max_speed, 100000);
	nlmsg_free(m);
	l.speed = 7;
	m = reply_new("eth1", modes, 1, 100000, 4, true);
	CHECK_INTEQ(parse(m, name, &l), -EPROTO);
	CHECK_INTEQ(ethtool_linkmodes_parse(nlmsg_hdr(m), 10, name, &l), -EBADMSG);
	nlmsg_free(m);
	CHECK_INTEQ(l.speed, 7);
}

/* lo has no get_link_ksettings: the kernel refuses (or there is no ethtool netlink). */
TEST(live) {
	struct nl_sock *sk = NULL;
	uint16_t family;
	LinkModes l;
	int r;

	CHECK_INTEQ(netlink_open(NETLINK_GENERIC, &sk), 0);
	r = ethtool_family_resolve(sk, &family, NULL);
	CHECK(r == 0 || r == -ENOENT);
	if (r == 0) {
		r = ethtool_linkmodes_read(sk, family, "lo", &l);
		printf("# lo: %d (%s)\n", r, strerror(-r));
		CHECK(r == -EOPNOTSUPP || (r == 0 && l.n_supported == 0));
	}
	nl_socket_free(sk);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(get_bytes), TEST_ENTRY(parse_cx6dx),
	   TEST_ENTRY(parse_down_and_refused), TEST_ENTRY(live))
