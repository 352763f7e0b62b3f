/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ethtool pause builders, checked on their bytes against the kernel's UAPI layout
 * (linux/ethtool_netlink.h, linux/genetlink.h), and the parsers on messages laid out as the
 * kernel sends them: ethnl_default_doit() / ethnl_default_notify() with
 * ethnl_fill_reply_header() and pause_fill_reply() (net/ethtool/netlink.c, pause.c), and the
 * controller's ctrl_fill_info() (net/netlink/genetlink.c) for the multicast groups. The requests
 * are what ethtool sends: nl_gpause() and nl_spause() in netlink/pause.c (ETHTOOL_GENL_VERSION,
 * NLM_F_REQUEST | NLM_F_ACK, the header nest with the name alone, then the u8s). Then the
 * exchanges against the running kernel, without privilege. */
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>
#include <stddef.h>

#include "devlink.h"
#include "ethtool-pause-talk.h"
#include "macro.h"
#include "netlink-io.h"
#include "tests.h"
#include "test-nlmsg.h"

#define _alignas_ __attribute__((aligned(8)))

/* ETHTOOL_A_PAUSE_STATS_SRC (u32, with ETHTOOL_FLAG_STATS) and ETHTOOL_A_HEADER_PHY_INDEX, both in
 * 6.12's headers: 6.1's (here) end below them. */
#define ETHTOOL_A_PAUSE_STATS_SRC_612  6
#define ETHTOOL_A_HEADER_PHY_INDEX_612 4

/* The UAPI numbers the bytes below rely on. */
TEST(uapi) {
	CHECK_STREQ(ETHTOOL_GENL_NAME, "ethtool");
	CHECK_STREQ(ETHTOOL_MCGRP_MONITOR_NAME, "monitor");
	CHECK_INTEQ(ETHTOOL_GENL_VERSION, 1);
	CHECK_INTEQ(ETHTOOL_MSG_PAUSE_GET, 21);
	CHECK_INTEQ(ETHTOOL_MSG_PAUSE_SET, 22);
	CHECK_INTEQ(ETHTOOL_MSG_PAUSE_GET_REPLY, 22);
	CHECK_INTEQ(ETHTOOL_MSG_PAUSE_NTF, 23);
	CHECK_INTEQ(ETHTOOL_A_HEADER_DEV_INDEX, 1);
	CHECK_INTEQ(ETHTOOL_A_HEADER_DEV_NAME, 2);
	CHECK_INTEQ(ETHTOOL_A_HEADER_FLAGS, 3);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_HEADER, 1);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_AUTONEG, 2);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_RX, 3);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_TX, 4);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_STATS, 5);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 2);
	CHECK_INTEQ(ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 3);
	CHECK_INTEQ(NLA_F_NESTED, 0x8000);
	CHECK_INTEQ(GENL_MIN_ID, 16);
	CHECK_INTEQ(CTRL_ATTR_MCAST_GROUPS, 7);
	CHECK_INTEQ(CTRL_ATTR_MCAST_GRP_NAME, 1);
	CHECK_INTEQ(CTRL_ATTR_MCAST_GRP_ID, 2);
	CHECK_INTEQ(IFNAMSIZ, 16);
}

/* The fixed part of a PAUSE_GET/SET of eth0 to family 0x15: 36 bytes. nlmsg_len and the command
 * are filled by the caller. */
static size_t request_prefix(uint8_t *buf, size_t total, uint8_t cmd) {
	static const uint8_t prefix[] = {
		0x00, 0x00, 0x00, 0x00, /* nlmsg_len */
		0x15, 0x00,		/* the ethtool family's id, as resolved */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x01, 0x00, 0x00, /* genlmsghdr: cmd, ETHTOOL_GENL_VERSION (1), reserved */
		0x10, 0x00, 0x01, 0x80, /* nla_len 16, ETHTOOL_A_PAUSE_HEADER | NLA_F_NESTED */
		0x09, 0x00, 0x02, 0x00, /* nla_len 9, ETHTOOL_A_HEADER_DEV_NAME */
		'e',  't',  'h',  '0',	0x00, 0x00, 0x00, 0x00, /* "eth0\0", 3 bytes of padding */
	};

	memset(buf, 0, total);
	memcpy(buf, prefix, sizeof(prefix));
	buf[0] = (uint8_t) total;
	buf[16] = cmd;
	return sizeof(prefix);
}

TEST(get_bytes) {
	/* `ethtool -a eth0` */
	uint8_t expected[36];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	request_prefix(expected, sizeof(expected), ETHTOOL_MSG_PAUSE_GET);
	CHECK(ethtool_pause_get_new(0x15, "eth0", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	/* a name as long as the kernel has them (15): the message is sized to it */
	m = NULL;
	CHECK(ethtool_pause_get_new(0x15, "enp202s0f1np1v0", &m) == 0);
	/* header 16, genl 4, nest 4 + DEV_NAME 4 + 16 */
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 4 + 4 + 4 + 16);
	nlmsg_free(m);

	/* names the kernel cannot have */
	CHECK(ethtool_pause_get_new(0x15, "", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, NULL, &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, "enp202s0f1np1v01", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, "eth/0", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, "eth 0", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, "eth:0", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(0x15, "..", &untouched) == -EINVAL);
	/* no family resolved (0), a netlink control type, the last one below GENL_MIN_ID */
	CHECK(ethtool_pause_get_new(0, "eth0", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(NLMSG_ERROR, "eth0", &untouched) == -EINVAL);
	CHECK(ethtool_pause_get_new(GENL_MIN_ID - 1, "eth0", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(set_bytes) {
	/* `ethtool -A eth0 autoneg off rx on tx off` */
	uint8_t expected[36 + 24];
	struct nl_msg *m = NULL;
	size_t o;

	o = request_prefix(expected, sizeof(expected), ETHTOOL_MSG_PAUSE_SET);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, /* AUTONEG: u8 0, padding */
		       0x05, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* RX: u8 1 */
		       0x05, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, /* TX: u8 0 */
	       },
	       24);
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ .autoneg = 0, .rx = 1, .tx = 0 },
				    &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(set_bytes_some) {
	/* `ethtool -A eth0 rx off`: the one attribute, nothing of what is left alone */
	uint8_t expected[36 + 8], expected2[36 + 16];
	struct nl_msg *m = NULL;
	size_t o;

	o = request_prefix(expected, sizeof(expected), ETHTOOL_MSG_PAUSE_SET);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, /* RX: u8 0 */
	       },
	       8);
	CHECK(ethtool_pause_set_new(0x15, "eth0",
				    &(PauseChange){ .autoneg = -1, .rx = 0, .tx = -1 }, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	/* `ethtool -A eth0 autoneg on tx on`: in the attributes' order */
	o = request_prefix(expected2, sizeof(expected2), ETHTOOL_MSG_PAUSE_SET);
	memcpy(expected2 + o,
	       (const uint8_t[]){
		       0x05, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, /* AUTONEG: u8 1 */
		       0x05, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, /* TX: u8 1 */
	       },
	       16);
	m = NULL;
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ .autoneg = 1, .rx = -1, .tx = 1 },
				    &m) == 0);
	check_bytes(m, expected2, sizeof(expected2));
	nlmsg_free(m);
}

TEST(set_refused) {
	struct nl_msg *untouched = (struct nl_msg *) 0x1;
	const PauseChange rx_off = { .autoneg = -1, .rx = 0, .tx = -1 };

	/* nothing to set: the kernel would ACK it and do nothing */
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ -1, -1, -1 }, &untouched) ==
	      -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, "eth0", NULL, &untouched) == -EINVAL);
	/* values that are not -1, 0 or 1, set or not beside good ones */
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ -1, 2, -1 }, &untouched) ==
	      -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ 0, 0, -2 }, &untouched) ==
	      -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ INT8_MIN, 1, 1 }, &untouched) ==
	      -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, "eth0", &(PauseChange){ 1, 1, INT8_MAX }, &untouched) ==
	      -EINVAL);
	/* a good change to a bad name or no family */
	CHECK(ethtool_pause_set_new(0x15, "", &rx_off, &untouched) == -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, NULL, &rx_off, &untouched) == -EINVAL);
	CHECK(ethtool_pause_set_new(0x15, "0123456789abcdef", &rx_off, &untouched) == -EINVAL);
	CHECK(ethtool_pause_set_new(0, "eth0", &rx_off, &untouched) == -EINVAL);
	CHECK(ethtool_pause_set_new(NLMSG_DONE, "eth0", &rx_off, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* A PAUSE_GET reply about eth0 (ifindex 2) as the kernel lays it out: genlmsg_put_reply() with
 * the family's version and no flags, ethnl_fill_reply_header() (a nest with NLA_F_NESTED: the
 * index, the name), then pause_fill_reply()'s three u8s, each padded to 4 bytes. A NIC with
 * global pause on and pause autonegotiation off. */
static const uint8_t pause_reply[] = {
	0x44, 0x00, 0x00, 0x00, /* nlmsg_len 68 */
	0x15, 0x00, 0x00, 0x00, /* the ethtool family, no flags */
	0x2a, 0x00, 0x00, 0x00, /* seq */
	0x10, 0x20, 0x00, 0x00, /* pid */
	0x16, 0x01, 0x00, 0x00, /* ETHTOOL_MSG_PAUSE_GET_REPLY, version 1 */
	0x18, 0x00, 0x01, 0x80, /* nla_len 24, PAUSE_HEADER | NLA_F_NESTED */
	0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, /* HEADER_DEV_INDEX: u32 2 */
	0x09, 0x00, 0x02, 0x00, 'e',  't',  'h',  '0',	/* HEADER_DEV_NAME "eth0" */
	0x00, 0x00, 0x00, 0x00,				/* the NUL, 3 bytes of padding */
	0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, /* PAUSE_AUTONEG: u8 0 */
	0x05, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* PAUSE_RX: u8 1 */
	0x05, 0x00, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, /* PAUSE_TX: u8 1 */
};

#define HEADER_OFFSET  20 /* of the header nest in pause_reply */
#define NAME_OFFSET    32 /* of HEADER_DEV_NAME */
#define AUTONEG_OFFSET 44 /* of PAUSE_AUTONEG; RX and TX follow, 8 bytes apart */

static int pause_parse_bytes(const uint8_t *bytes, size_t size, size_t len, char *ifname,
			     PauseParams *p) {
	uint8_t buf[256] _alignas_;

	memcpy(buf, bytes, size);
	return ethtool_pause_parse((const struct nlmsghdr *) buf, len, ifname, p);
}

#define UNTOUCHED_PARAMS ((PauseParams){ .autoneg = true, .rx = false, .tx = false })

static void check_untouched(const char *ifname, const PauseParams *p) {
	CHECK_STREQ(ifname, "untouched");
	CHECK(p->autoneg && !p->rx && !p->tx);
}

TEST(parse_reply) {
	char ifname[IFNAMSIZ] = "untouched";
	PauseParams p = UNTOUCHED_PARAMS;
	uint8_t buf[sizeof(pause_reply)];

	CHECK_INTEQ(sizeof(pause_reply), 68);
	CHECK_INTEQ(pause_parse_bytes(pause_reply, sizeof(pause_reply), sizeof(pause_reply), ifname,
				      &p),
		    0);
	CHECK_STREQ(ifname, "eth0");
	CHECK(!p.autoneg && p.rx && p.tx);

	/* and every value the other way */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[AUTONEG_OFFSET + 4] = 0x01;
	buf[AUTONEG_OFFSET + 12] = 0x00;
	buf[AUTONEG_OFFSET + 20] = 0x00;
	CHECK_INTEQ(pause_parse_bytes(buf, sizeof(buf), sizeof(buf), ifname, &p), 0);
	CHECK(p.autoneg && !p.rx && !p.tx);

	/* the last u8's padding left out of nlmsg_len */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[0] = sizeof(buf) - 3;
	p = UNTOUCHED_PARAMS;
	CHECK_INTEQ(pause_parse_bytes(buf, sizeof(buf), sizeof(buf) - 3, ifname, &p), 0);
	CHECK(!p.autoneg && p.rx && p.tx);
}

TEST(parse_ntf) {
	/* what the monitor group gets after `ethtool -A enp3s0f0np0 rx off tx off`
	 * (ethnl_default_notify(): ethnl_bcastmsg_put(), its own sequence number, pid 0), for a
	 * name that needs no padding */
	static const uint8_t ntf[] = {
		0x48, 0x00, 0x00, 0x00, /* nlmsg_len 72 */
		0x15, 0x00, 0x00, 0x00, /* the ethtool family, no flags */
		0x07, 0x00, 0x00, 0x00, /* ethnl_bcast_seq */
		0x00, 0x00, 0x00, 0x00, /* pid 0: the kernel */
		0x17, 0x01, 0x00, 0x00, /* ETHTOOL_MSG_PAUSE_NTF, version 1 */
		0x1c, 0x00, 0x01, 0x80, /* nla_len 28, PAUSE_HEADER */
		0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, /* HEADER_DEV_INDEX: u32 5 */
		0x10, 0x00, 0x02, 0x00,				/* nla_len 16, HEADER_DEV_NAME */
		'e',  'n',  'p',  '3',	's',  '0',  'f',  '0',
		'n',  'p',  '0',  0x00,				/* "enp3s0f0np0\0" */
		0x05, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, /* PAUSE_AUTONEG: u8 0 */
		0x05, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, /* PAUSE_RX: u8 0 */
		0x05, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, /* PAUSE_TX: u8 0 */
	};
	char ifname[IFNAMSIZ] = "untouched";
	PauseParams p = UNTOUCHED_PARAMS;

	CHECK_INTEQ(sizeof(ntf), 72);
	CHECK_INTEQ(pause_parse_bytes(ntf, sizeof(ntf), sizeof(ntf), ifname, &p), 0);
	CHECK_STREQ(ifname, "enp3s0f0np0");
	CHECK(!p.autoneg && !p.rx && !p.tx);
}

/* With ETHTOOL_FLAG_STATS (`ethtool -I -a`), a kernel after 6.1 adds ETHTOOL_A_PAUSE_STATS_SRC and
 * the ETHTOOL_A_PAUSE_STATS nest (u64 frame counts) after the three u8s (6.1: the nest alone);
 * 6.12's header may carry ETHTOOL_A_HEADER_PHY_INDEX. All skipped, as is an attribute no kernel
 * has yet. */
TEST(parse_unknown_attributes) {
	uint8_t buf[sizeof(pause_reply) + 8 + 8 + 28 + 8] _alignas_;
	char ifname[IFNAMSIZ] = "untouched";
	PauseParams p = UNTOUCHED_PARAMS;
	size_t o = 0;

	/* the header, with PHY_INDEX after the name */
	memcpy(buf, pause_reply, AUTONEG_OFFSET);
	o = AUTONEG_OFFSET;
	memcpy(buf + o,
	       (const uint8_t[]){
		       0x08,
		       0x00,
		       ETHTOOL_A_HEADER_PHY_INDEX_612,
		       0x00,
		       0x01,
		       0x00,
		       0x00,
		       0x00,
	       },
	       8);
	o += 8;
	buf[HEADER_OFFSET] += 8;
	/* the three u8s */
	memcpy(buf + o, pause_reply + AUTONEG_OFFSET, 24);
	o += 24;
	memcpy(buf + o,
	       (const uint8_t[]){
		       0x08, 0x00, ETHTOOL_A_PAUSE_STATS_SRC_612,
		       0x00, /* STATS_SRC: u32 0, */
		       0x00, 0x00, 0x00,
		       0x00, /* aggregate */
		       0x1c, 0x00, 0x05,
		       0x80, /* nla_len 28, PAUSE_STATS | NLA_F_NESTED */
		       0x0c, 0x00, 0x02,
		       0x00, /* STAT_TX_FRAMES: u64 */
		       0x39, 0x30, 0x00,
		       0x00, 0x00, 0x00,
		       0x00, 0x00, /* 12345 */
		       0x0c, 0x00, 0x03,
		       0x00, /* STAT_RX_FRAMES: u64 */
		       0x00, 0x00, 0x00,
		       0x00, 0x01, 0x00,
		       0x00, 0x00, /* 2^32 */
		       0x08, 0x00, 0x40,
		       0x00, 0xff, 0xff,
		       0xff, 0xff, /* attribute 64: unknown */
	       },
	       44);
	o += 44;
	CHECK_INTEQ(o, sizeof(buf));
	buf[0] = (uint8_t) sizeof(buf);
	CHECK_INTEQ(pause_parse_bytes(buf, sizeof(buf), sizeof(buf), ifname, &p), 0);
	CHECK_STREQ(ifname, "eth0");
	CHECK(!p.autoneg && p.rx && p.tx);

	/* a 6.1 kernel's statistics: the nest alone, before nothing else */
	memcpy(buf, pause_reply, sizeof(pause_reply));
	memcpy(buf + sizeof(pause_reply),
	       (const uint8_t[]){
		       0x10,
		       0x00,
		       0x05,
		       0x80, /* nla_len 16, PAUSE_STATS | NLA_F_NESTED */
		       0x0c,
		       0x00,
		       0x02,
		       0x00, /* STAT_TX_FRAMES: u64 0 */
		       0x00,
		       0x00,
		       0x00,
		       0x00,
		       0x00,
		       0x00,
		       0x00,
		       0x00,
	       },
	       16);
	buf[0] = sizeof(pause_reply) + 16;
	p = UNTOUCHED_PARAMS;
	CHECK_INTEQ(pause_parse_bytes(buf, sizeof(buf), sizeof(pause_reply) + 16, ifname, &p), 0);
	CHECK(!p.autoneg && p.rx && p.tx);
}

/* Each mutation of pause_reply must be refused, with nothing written. */
static void check_refused(const uint8_t *buf, size_t len) {
	char ifname[IFNAMSIZ] = "untouched";
	PauseParams p = UNTOUCHED_PARAMS;

	CHECK_INTEQ(pause_parse_bytes(buf, len, len, ifname, &p), -EBADMSG);
	check_untouched(ifname, &p);
}

TEST(parse_missing) {
	uint8_t buf[sizeof(pause_reply)];

	/* no autoneg, no rx, no tx: each becomes an attribute not asked for (7) */
	for (size_t i = 0; i < 3; i++) {
		memcpy(buf, pause_reply, sizeof(buf));
		buf[AUTONEG_OFFSET + 8 * i + 2] = 0x07;
		check_refused(buf, sizeof(buf));
	}
	/* ... or is not there at all: the reply ends before tx */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[0] = sizeof(buf) - 8;
	check_refused(buf, sizeof(buf) - 8);
	/* no header */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[HEADER_OFFSET + 2] = 0x08;
	check_refused(buf, sizeof(buf));
	/* a header without the name: DEV_NAME becomes an attribute not asked for (7) */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[NAME_OFFSET + 2] = 0x07;
	check_refused(buf, sizeof(buf));
	/* an index alone: the nest ends before the name */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[HEADER_OFFSET] = 12;
	buf[HEADER_OFFSET + 12 + 2] = 0x07; /* and the orphaned name is not a pause attribute */
	check_refused(buf, sizeof(buf));
}

TEST(parse_malformed) {
	uint8_t buf[sizeof(pause_reply)];

	/* truncated: what was received is shorter than nlmsg_len, or than a header */
	check_refused(pause_reply, sizeof(pause_reply) - 1);
	check_refused(pause_reply, 12);
	{
		char ifname[IFNAMSIZ] = "untouched";
		PauseParams p = UNTOUCHED_PARAMS;

		CHECK_INTEQ(pause_parse_bytes(pause_reply, sizeof(pause_reply),
					      sizeof(pause_reply) - 8, ifname, &p),
			    -EBADMSG);
		check_untouched(ifname, &p);
	}
	/* an attribute rdmad skips, cut short: nla_parse() alone would stop before it */
	{
		uint8_t longer[sizeof(pause_reply) + 16] _alignas_;

		memcpy(longer, pause_reply, sizeof(pause_reply));
		memcpy(longer + sizeof(pause_reply),
		       (const uint8_t[]){
			       0x10,
			       0x00,
			       0x05,
			       0x80, /* nla_len 16, PAUSE_STATS */
			       0x0c,
			       0x00,
			       0x02,
			       0x00, /* STAT_TX_FRAMES: u64 0 */
			       0x00,
			       0x00,
			       0x00,
			       0x00,
			       0x00,
			       0x00,
			       0x00,
			       0x00,
		       },
		       16);
		longer[0] = sizeof(longer) - 4;
		check_refused(longer, sizeof(longer) - 4);
		longer[0] = sizeof(longer) - 14;
		check_refused(longer, sizeof(longer) - 14);
	}
	/* nlmsg_len without the genlmsghdr */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[0] = 18;
	check_refused(buf, sizeof(buf));
	/* nlmsg_len cut in the tx attribute, after its header */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[0] = sizeof(buf) - 4;
	check_refused(buf, sizeof(buf) - 4);
	/* ... in its header */
	buf[0] = sizeof(buf) - 6;
	check_refused(buf, sizeof(buf) - 6);
	/* an attribute longer than the message */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[AUTONEG_OFFSET + 8] = 0x40;
	check_refused(buf, sizeof(buf));
	/* the name's attribute longer than the header nest around it */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[NAME_OFFSET] = 0x0d;
	check_refused(buf, sizeof(buf));
	/* the header nest shorter than its contents: cut in the name */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[HEADER_OFFSET] = 20;
	check_refused(buf, sizeof(buf));
	/* a u16, an empty value: not the kernel's u8 */
	for (size_t i = 0; i < 3; i++) {
		memcpy(buf, pause_reply, sizeof(buf));
		buf[AUTONEG_OFFSET + 8 * i] = 0x06;
		check_refused(buf, sizeof(buf));
	}
	memcpy(buf, pause_reply, sizeof(buf));
	buf[AUTONEG_OFFSET + 16] = 0x04;
	check_refused(buf, sizeof(buf));
	/* a value pause_fill_reply()'s !! never sends */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[AUTONEG_OFFSET + 4] = 0x02;
	check_refused(buf, sizeof(buf));
	memcpy(buf, pause_reply, sizeof(buf));
	buf[AUTONEG_OFFSET + 20] = 0xff;
	check_refused(buf, sizeof(buf));
	/* a name without its NUL, bytes after the NUL */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[NAME_OFFSET + 8] = '1';
	check_refused(buf, sizeof(buf));
	memcpy(buf, pause_reply, sizeof(buf));
	buf[NAME_OFFSET] = 0x0a; /* "eth0\0\0" */
	check_refused(buf, sizeof(buf));
	/* another command (the request's number, EEE_GET_REPLY), a netlink control message */
	memcpy(buf, pause_reply, sizeof(buf));
	buf[16] = ETHTOOL_MSG_PAUSE_GET;
	check_refused(buf, sizeof(buf));
	buf[16] = ETHTOOL_MSG_EEE_GET_REPLY;
	check_refused(buf, sizeof(buf));
	memcpy(buf, pause_reply, sizeof(buf));
	buf[4] = NLMSG_ERROR;
	check_refused(buf, sizeof(buf));
}

/* pause_reply with name (n bytes, its NUL included or not) as the header's DEV_NAME, the
 * attributes around it moved to fit. Returns the message's length. */
static size_t reply_with_name(uint8_t *buf, const char *name, size_t n) {
	size_t attr = NLA_HDRLEN + NLA_ALIGN(n), o = NAME_OFFSET;

	memcpy(buf, pause_reply, NAME_OFFSET);
	buf[o] = (uint8_t) (NLA_HDRLEN + n);
	buf[o + 1] = 0x00;
	buf[o + 2] = ETHTOOL_A_HEADER_DEV_NAME;
	buf[o + 3] = 0x00;
	memset(buf + o + 4, 0, attr - 4);
	memcpy(buf + o + 4, name, n);
	o += attr;
	memcpy(buf + o, pause_reply + AUTONEG_OFFSET, 24);
	o += 24;
	buf[0] = (uint8_t) o;
	buf[HEADER_OFFSET] = (uint8_t) (NLA_HDRLEN + 8 + attr);
	return o;
}

TEST(parse_names) {
	uint8_t buf[128] _alignas_;
	char ifname[IFNAMSIZ] = "untouched";
	PauseParams p = UNTOUCHED_PARAMS;
	size_t len;

	/* IFNAMSIZ - 1 characters: the longest name a netdev can have (a VF of a PF in slot 175) */
	len = reply_with_name(buf, "enp175s0f1np1v1", IFNAMSIZ);
	CHECK_INTEQ(ethtool_pause_parse((const struct nlmsghdr *) buf, len, ifname, &p), 0);
	CHECK_STREQ(ifname, "enp175s0f1np1v1");
	CHECK(!p.autoneg && p.rx && p.tx);
	/* one more; an empty name; no NUL; bytes after the NUL */
	len = reply_with_name(buf, "enp175s0f1np1v10", IFNAMSIZ + 1);
	check_refused(buf, len);
	len = reply_with_name(buf, "", 1);
	check_refused(buf, len);
	len = reply_with_name(buf, "eth0", 4);
	check_refused(buf, len);
	len = reply_with_name(buf, "eth0\0\0\0", 7);
	check_refused(buf, len);
	len = reply_with_name(buf, "eth0\0x", 6);
	check_refused(buf, len);
	/* the helper itself, on the name pause_reply has */
	len = reply_with_name(buf, "eth0", 5);
	CHECK_INTEQ(len, sizeof(pause_reply));
	CHECK(memcmp(buf, pause_reply, len) == 0);
}

/* The controller's answer about "ethtool" on 6.1, as ctrl_fill_info() lays it out: NAME, ID,
 * VERSION, HDRSIZE, MAXATTR (0: ethtool's policies are per command), the OPS nest (one op here;
 * the kernel lists them all), then the MCAST_GROUPS nest: one nest per group, typed by its index
 * + 1, each with the group's ID then its NAME. Neither nest has NLA_F_NESTED
 * (nla_nest_start_noflag()). */
static const uint8_t ethtool_family_reply[] = {
	0x74, 0x00, 0x00, 0x00,				/* nlmsg_len 116 */
	0x10, 0x00, 0x00, 0x00,				/* GENL_ID_CTRL, no flags */
	0x2a, 0x00, 0x00, 0x00,				/* seq */
	0x10, 0x20, 0x00, 0x00,				/* pid */
	0x01, 0x02, 0x00, 0x00,				/* CTRL_CMD_NEWFAMILY, nlctrl's version 2 */
	0x0c, 0x00, 0x02, 0x00,				/* nla_len 12, CTRL_ATTR_FAMILY_NAME */
	'e',  't',  'h',  't',	'o',  'o',  'l',  0x00, /* "ethtool\0" */
	0x06, 0x00, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, /* CTRL_ATTR_FAMILY_ID: u16 0x15, pad */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* CTRL_ATTR_VERSION: u32 1 */
	0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, /* CTRL_ATTR_HDRSIZE: u32 0 */
	0x08, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, /* CTRL_ATTR_MAXATTR: u32 0 */
	0x18, 0x00, 0x06, 0x00,				/* nla_len 24, CTRL_ATTR_OPS */
	0x14, 0x00, 0x01, 0x00,				/* nla_len 20, op #1 */
	0x08, 0x00, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00, /* CTRL_ATTR_OP_ID: PAUSE_GET */
	0x08, 0x00, 0x02, 0x00, 0x0e, 0x00, 0x00, 0x00, /* CTRL_ATTR_OP_FLAGS: do, dump, pol */
	0x1c, 0x00, 0x07, 0x00,				/* nla_len 28, CTRL_ATTR_MCAST_GROUPS */
	0x18, 0x00, 0x01, 0x00,				/* nla_len 24, group #1 */
	0x08, 0x00, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, /* CTRL_ATTR_MCAST_GRP_ID: u32 6 */
	0x0c, 0x00, 0x01, 0x00,				/* nla_len 12, CTRL_ATTR_MCAST_GRP_NAME */
	'm',  'o',  'n',  'i',	't',  'o',  'r',  0x00, /* "monitor\0" */
};

#define GROUPS_OFFSET 88 /* of CTRL_ATTR_MCAST_GROUPS in ethtool_family_reply */

static int group_parse_bytes(const uint8_t *bytes, size_t size, size_t len, const char *group,
			     uint32_t *id) {
	uint8_t buf[256] _alignas_;

	memcpy(buf, bytes, size);
	return genl_mcast_group_parse((const struct nlmsghdr *) buf, len, group, id);
}

TEST(mcast_group_ethtool) {
	uint8_t buf[sizeof(ethtool_family_reply)] _alignas_;
	uint32_t id = 77;
	uint16_t family = 0;

	CHECK_INTEQ(sizeof(ethtool_family_reply), 116);
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), "monitor", &id),
		    0);
	CHECK_INTEQ(id, 6);
	/* the same answer gives the family's id */
	memcpy(buf, ethtool_family_reply, sizeof(buf));
	CHECK_INTEQ(genl_family_parse((const struct nlmsghdr *) buf, sizeof(buf), &family), 0);
	CHECK_INTEQ(family, 0x15);

	/* names compared whole */
	id = 77;
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), "monito", &id),
		    -ENOENT);
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), "monitors", &id),
		    -ENOENT);
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), "", &id),
		    -EINVAL);
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), NULL, &id),
		    -EINVAL);
	CHECK_INTEQ(group_parse_bytes(ethtool_family_reply, sizeof(ethtool_family_reply),
				      sizeof(ethtool_family_reply), "sixteen-chars-xx", &id),
		    -EINVAL);
	/* a family without groups: ctrl_fill_info() leaves the nest out */
	memcpy(buf, ethtool_family_reply, sizeof(buf));
	buf[0] = GROUPS_OFFSET;
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), GROUPS_OFFSET, "monitor", &id), -ENOENT);
	CHECK_INTEQ(id, 77);
}

TEST(mcast_group_several) {
	/* a family with three groups (as nl80211 has several), "monitor" the second; only the
	 * groups after its name and id */
	static const uint8_t reply[] = {
		0x74, 0x00, 0x00, 0x00, /* nlmsg_len 116 */
		0x10, 0x00, 0x00, 0x00, /* GENL_ID_CTRL */
		0x01, 0x00, 0x00, 0x00, /* seq */
		0x10, 0x20, 0x00, 0x00, /* pid */
		0x01, 0x02, 0x00, 0x00, /* CTRL_CMD_NEWFAMILY, version 2 */
		0x09, 0x00, 0x02, 0x00, 't',  'e',  's',  't',
		0x00, 0x00, 0x00, 0x00,				/* FAMILY_NAME "test", padded */
		0x06, 0x00, 0x01, 0x00, 0x1e, 0x00, 0x00, 0x00, /* FAMILY_ID: u16 0x1e */
		0x4c, 0x00, 0x07, 0x00,				/* nla_len 76, MCAST_GROUPS */
		0x18, 0x00, 0x01, 0x00,				/* nla_len 24, group #1 */
		0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00, /* GRP_ID: 4 */
		0x0b, 0x00, 0x01, 0x00, 'c',  'o',  'n',  'f',
		'i',  'g',  0x00, 0x00,				/* GRP_NAME "config", padded */
		0x18, 0x00, 0x02, 0x00,				/* nla_len 24, group #2 */
		0x08, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00, /* GRP_ID: 5 */
		0x0c, 0x00, 0x01, 0x00, 'm',  'o',  'n',  'i',
		't',  'o',  'r',  0x00,				/* GRP_NAME "monitor" */
		0x18, 0x00, 0x03, 0x00,				/* nla_len 24, group #3 */
		0x08, 0x00, 0x02, 0x00, 0x06, 0x00, 0x00, 0x00, /* GRP_ID: 6 */
		0x09, 0x00, 0x01, 0x00, 's',  'c',  'a',  'n',
		0x00, 0x00, 0x00, 0x00, /* GRP_NAME "scan", padded */
	};
	uint8_t buf[sizeof(reply)];
	uint32_t id = 77;

	CHECK_INTEQ(sizeof(reply), 116);
	CHECK_INTEQ(group_parse_bytes(reply, sizeof(reply), sizeof(reply), "monitor", &id), 0);
	CHECK_INTEQ(id, 5);
	CHECK_INTEQ(group_parse_bytes(reply, sizeof(reply), sizeof(reply), "config", &id), 0);
	CHECK_INTEQ(id, 4);
	CHECK_INTEQ(group_parse_bytes(reply, sizeof(reply), sizeof(reply), "scan", &id), 0);
	CHECK_INTEQ(id, 6);
	id = 77;
	CHECK_INTEQ(group_parse_bytes(reply, sizeof(reply), sizeof(reply), "mlme", &id), -ENOENT);
	/* the id after the name, as another kernel might order them */
	memcpy(buf, reply, sizeof(buf));
	memcpy(buf + 72,
	       (const uint8_t[]){
		       0x0c, 0x00, 0x01, 0x00, 'm',  'o',  'n',	 'i',  't',  'o',
		       'r',  0x00, 0x08, 0x00, 0x02, 0x00, 0x05, 0x00, 0x00, 0x00,
	       },
	       20);
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), 0);
	CHECK_INTEQ(id, 5);

	/* a name twice: the first group's */
	memcpy(buf, reply, sizeof(buf));
	memcpy(buf + 56,
	       (const uint8_t[]){ 0x0c, 0x00, 0x01, 0x00, 'm', 'o', 'n', 'i', 't', 'o', 'r', 0x00 },
	       12);
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), 0);
	CHECK_INTEQ(id, 4);

	/* a malformed group is refused whether or not it is the one asked for */
	id = 77;
	memcpy(buf, reply, sizeof(buf));
	buf[98] = 0x03; /* group #3's id becomes an attribute not asked for */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[112] = 'x'; /* group #3's name without its NUL */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[58] = 0x03; /* group #1's name becomes an attribute not asked for */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[68] = 0x14; /* group #2's nest cut in its name */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[76] = 0x00; /* group #2's id 0: no group */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[72] = 0x06; /* group #2's id a u16 */
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	/* the groups nest cut in group #3 */
	memcpy(buf, reply, sizeof(buf));
	buf[40] = 0x40;
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	/* the message cut short, not the controller's, not its answer */
	CHECK_INTEQ(group_parse_bytes(reply, sizeof(reply), sizeof(reply) - 1, "monitor", &id),
		    -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[0] = sizeof(reply) - 8;
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf) - 8, "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[4] = 0x15;
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	memcpy(buf, reply, sizeof(buf));
	buf[16] = CTRL_CMD_GETFAMILY;
	CHECK_INTEQ(group_parse_bytes(buf, sizeof(buf), sizeof(buf), "monitor", &id), -EBADMSG);
	CHECK_INTEQ(id, 77);
}

/* The exchanges against the running kernel, with or without privilege: a kernel without
 * ethtool netlink (CONFIG_ETHTOOL_NETLINK off) knows no such family; one with it has the
 * monitor group, and answers a PAUSE_GET of lo (no get_pauseparam) with EOPNOTSUPP and one of a
 * netdev that does not exist with ENODEV (PAUSE_GET needs no privilege). A PAUSE_SET is refused
 * before any driver is asked: EPERM without CAP_NET_ADMIN, else what the GET gets. */
TEST(live) {
	struct nl_sock *sk = NULL;
	PauseParams p = UNTOUCHED_PARAMS;
	const PauseChange rx_off = { .autoneg = -1, .rx = 0, .tx = -1 };
	uint16_t family = 0, family2 = 0;
	uint32_t monitor = 0;
	int r;

	CHECK_INTEQ(netlink_open(NETLINK_GENERIC, &sk), 0);
	r = ethtool_family_resolve(sk, &family, &monitor);
	printf("# ethtool family: %d (%s), id %u, monitor group %u\n", r,
	       r < 0 ? strerror(-r) : "ok", family, monitor);
	CHECK(r == 0 || r == -ENOENT);
	if (r == 0) {
		CHECK(family >= GENL_MIN_ID);
		CHECK(monitor > 0);
		CHECK_INTEQ(ethtool_family_resolve(sk, &family2, NULL), 0);
		CHECK_INTEQ(family2, family);
		CHECK_INTEQ(ethtool_pause_read(sk, family, "lo", &p), -EOPNOTSUPP);
		CHECK_INTEQ(ethtool_pause_read(sk, family, "rdmad-none0", &p), -ENODEV);
		r = ethtool_pause_write(sk, family, "lo", &rx_off);
		CHECK(r == -EOPNOTSUPP || r == -EPERM);
		r = ethtool_pause_write(sk, family, "rdmad-none0", &rx_off);
		CHECK(r == -ENODEV || r == -EPERM);
	} else
		family = 0x15; /* refused before it is used */
	/* refused before anything is sent: the socket stays usable */
	CHECK_INTEQ(ethtool_pause_read(sk, family, "", &p), -EINVAL);
	CHECK_INTEQ(ethtool_pause_write(sk, family, "lo", &(PauseChange){ -1, -1, -1 }), -EINVAL);
	CHECK(p.autoneg && !p.rx && !p.tx);
	r = ethtool_family_resolve(sk, &family, NULL);
	CHECK(r == 0 || r == -ENOENT);
	nl_socket_free(sk);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(get_bytes), TEST_ENTRY(set_bytes),
	   TEST_ENTRY(set_bytes_some), TEST_ENTRY(set_refused), TEST_ENTRY(parse_reply),
	   TEST_ENTRY(parse_ntf), TEST_ENTRY(parse_unknown_attributes), TEST_ENTRY(parse_missing),
	   TEST_ENTRY(parse_malformed), TEST_ENTRY(parse_names), TEST_ENTRY(mcast_group_ethtool),
	   TEST_ENTRY(mcast_group_several), TEST_ENTRY(live))
