/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dcbnl builders, checked on their bytes against the kernel's UAPI layout (linux/dcbnl.h), and
 * the parsers on replies laid out as net/dcb/dcbnl.c's dcbnl_ieee_fill() and dcbnl_ieee_set()
 * send them. The requests are what iproute2's dcb(8) sends (dcb_prepare(): NLM_F_REQUEST |
 * NLM_F_ACK, struct dcbmsg, DCB_ATTR_IFNAME, then the DCB_ATTR_IEEE nest). */
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stddef.h>

#include "dcbnl.h"
#include "tests.h"
#include "test-nlmsg.h"

#define _alignas_ __attribute__((aligned(8)))

/* The UAPI numbers and struct layouts the bytes below rely on. */
TEST(uapi) {
	CHECK_INTEQ(RTM_GETDCB, 78);
	CHECK_INTEQ(RTM_SETDCB, 79);
	CHECK_INTEQ(RTNLGRP_DCB, 23);
	CHECK_INTEQ(DCB_CMD_IEEE_SET, 20);
	CHECK_INTEQ(DCB_CMD_IEEE_GET, 21);
	CHECK_INTEQ(DCB_CMD_IEEE_DEL, 27);
	CHECK_INTEQ(DCB_ATTR_IFNAME, 1);
	CHECK_INTEQ(DCB_ATTR_IEEE, 13);
	CHECK_INTEQ(DCB_ATTR_DCBX, 14);
	CHECK_INTEQ(DCB_ATTR_IEEE_ETS, 1);
	CHECK_INTEQ(DCB_ATTR_IEEE_PFC, 2);
	CHECK_INTEQ(DCB_ATTR_IEEE_APP_TABLE, 3);
	CHECK_INTEQ(DCB_ATTR_IEEE_MAXRATE, 7);
	CHECK_INTEQ(DCB_ATTR_IEEE_APP, 1);
	CHECK_INTEQ(IEEE_8021QAZ_APP_SEL_DSCP, 5);
	CHECK_INTEQ(sizeof(struct dcbmsg), 4);
	CHECK_INTEQ(offsetof(struct dcbmsg, cmd), 1);
	/* struct ieee_ets: 59 bytes of u8, no padding */
	CHECK_INTEQ(sizeof(struct ieee_ets), 59);
	CHECK_INTEQ(offsetof(struct ieee_ets, willing), 0);
	CHECK_INTEQ(offsetof(struct ieee_ets, cbs), 2);
	CHECK_INTEQ(offsetof(struct ieee_ets, tc_tx_bw), 3);
	CHECK_INTEQ(offsetof(struct ieee_ets, tc_rx_bw), 11);
	CHECK_INTEQ(offsetof(struct ieee_ets, tc_tsa), 19);
	CHECK_INTEQ(offsetof(struct ieee_ets, prio_tc), 27);
	CHECK_INTEQ(offsetof(struct ieee_ets, tc_reco_bw), 35);
	CHECK_INTEQ(offsetof(struct ieee_ets, reco_prio_tc), 51);
	/* struct ieee_pfc: u8 x3, a pad byte, u16 delay, 2 pad bytes, u64 counters */
	CHECK_INTEQ(sizeof(struct ieee_pfc), 136);
	CHECK_INTEQ(offsetof(struct ieee_pfc, pfc_en), 1);
	CHECK_INTEQ(offsetof(struct ieee_pfc, mbc), 2);
	CHECK_INTEQ(offsetof(struct ieee_pfc, delay), 4);
	CHECK_INTEQ(offsetof(struct ieee_pfc, requests), 8);
	CHECK_INTEQ(offsetof(struct ieee_pfc, indications), 72);
	CHECK_INTEQ(sizeof(struct ieee_maxrate), 64);
	CHECK_INTEQ(sizeof(struct dcb_app), 4);
	CHECK_INTEQ(offsetof(struct dcb_app, priority), 1);
	CHECK_INTEQ(offsetof(struct dcb_app, protocol), 2);
	CHECK_INTEQ(DCB_CMD_SDCBX, 23);
	CHECK_INTEQ(DCB_ATTR_DCB_BUFFER, 10);
	/* struct dcbnl_buffer: u8 prio2buffer[8], u32 buffer_size[8], u32 total_size */
	CHECK_INTEQ(sizeof(struct dcbnl_buffer), 44);
	CHECK_INTEQ(offsetof(struct dcbnl_buffer, buffer_size), 8);
	CHECK_INTEQ(offsetof(struct dcbnl_buffer, total_size), 40);
}

TEST(tsa) {
	CHECK_INTEQ(ets_tsa_to_kernel(ETS_TSA_STRICT), 0);
	CHECK_INTEQ(ets_tsa_to_kernel(ETS_TSA_CBS), 1);
	CHECK_INTEQ(ets_tsa_to_kernel(ETS_TSA_ETS), 2);
	CHECK_INTEQ(ets_tsa_to_kernel(ETS_TSA_VENDOR), 255);
	for (EtsTsa t = 0; t < _ETS_TSA_MAX; t++)
		CHECK_INTEQ(ets_tsa_from_kernel(ets_tsa_to_kernel(t)), t);
	CHECK_INTEQ(ets_tsa_from_kernel(3), _ETS_TSA_INVALID);
}

TEST(ieee_get_bytes) {
	/* `dcb ets show dev eth0` */
	static const uint8_t expected[] = {
		0x20, 0x00, 0x00, 0x00, /* nlmsg_len 32 */
		0x4e, 0x00,		/* RTM_GETDCB (78) */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x15, 0x00, 0x00, /* struct dcbmsg: AF_UNSPEC, DCB_CMD_IEEE_GET (21), pad */
		0x09, 0x00, 0x01, 0x00, /* nla_len 9, DCB_ATTR_IFNAME */
		'e',  't',  'h',  '0',	0x00, 0x00, 0x00, 0x00, /* "eth0\0", 3 bytes of padding */
	};
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(dcbnl_ieee_get_new("eth0", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(dcbnl_ieee_get_new("", &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_get_new("sixteen-chars-xx", &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_get_new("a/b", &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_get_new(NULL, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* The fixed part of an IEEE_SET/DEL of "eth0": header, dcbmsg, IFNAME, the DCB_ATTR_IEEE nest
 * header; 36 bytes. nlmsg_len and the nest's length are filled by the caller. */
static size_t set_prefix(uint8_t *buf, size_t total, uint8_t cmd) {
	static const uint8_t prefix[] = {
		0x00, 0x00, 0x00, 0x00, /* nlmsg_len */
		0x4f, 0x00,		/* RTM_SETDCB (79) */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00, 0x00, 0x00, /* struct dcbmsg: AF_UNSPEC, cmd, pad */
		0x09, 0x00, 0x01, 0x00, /* nla_len 9, DCB_ATTR_IFNAME */
		'e',  't',  'h',  '0',	0x00, 0x00, 0x00, 0x00, /* "eth0\0" + padding */
		0x00, 0x00, 0x0d, 0x00,				/* nla_len, DCB_ATTR_IEEE (13) */
	};

	memset(buf, 0, total);
	memcpy(buf, prefix, sizeof(prefix));
	buf[0] = (uint8_t) total;
	buf[1] = (uint8_t) (total >> 8);
	buf[17] = cmd;
	buf[32] = (uint8_t) (total - 32);
	buf[33] = (uint8_t) ((total - 32) >> 8);
	return sizeof(prefix);
}

/* libnl marks a nest it starts with NLA_F_NESTED (0x8000): the kernel takes both (nla_type()
 * masks the flag; dcbnl parses with nla_parse_nested_deprecated()). */
static void set_nested_flag(uint8_t *type_hi) {
	*type_hi |= 0x80;
}

TEST(ieee_set_pfc_bytes) {
	/* `dcb pfc set dev eth0 prio-pfc 3:on` on a port that had pfc-cap 8, delay 0x1234 and
	 * counters: all of it is sent back as read (read-modify-write), but pfc_en. */
	uint8_t expected[36 + 4 + 136];
	struct ieee_pfc pfc;
	struct nl_msg *m = NULL;
	size_t o;

	memset(&pfc, 0, sizeof(pfc)); /* the padding too: it is sent */
	pfc.pfc_cap = 8;
	pfc.pfc_en = 0x08;
	pfc.mbc = 1;
	pfc.delay = 0x1234;

	pfc.requests[7] = 0x0102030405060708ULL;
	o = set_prefix(expected, sizeof(expected), DCB_CMD_IEEE_SET);
	set_nested_flag(&expected[35]);
	expected[o] = 0x8c;	/* nla_len 140 */
	expected[o + 2] = 0x02; /* DCB_ATTR_IEEE_PFC */
	o += 4;
	expected[o + 0] = 8;	/* pfc_cap */
	expected[o + 1] = 0x08; /* pfc_en: priority 3 */
	expected[o + 2] = 1;	/* mbc */
	expected[o + 4] = 0x34; /* delay, little endian */
	expected[o + 5] = 0x12;
	for (int i = 0; i < 8; i++) /* requests[7] */
		expected[o + 8 + 7 * 8 + i] = (uint8_t) (8 - i);

	CHECK(dcbnl_ieee_set_new("eth0", &(DcbChange){ .pfc = &pfc }, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(ieee_set_ets_maxrate_apps_bytes) {
	/* ETS, MAXRATE and two DSCP app entries in one SET, in the kernel's order */
	uint8_t expected[36 + 64 + 68 + 4 + 2 * 8];
	struct ieee_ets ets = { .willing = 1, .ets_cap = 8 };
	struct ieee_maxrate rate = { .tc_maxrate = { [3] = 25000000 } };
	const struct dcb_app apps[] = { dcb_app_dscp(26, 3), dcb_app_dscp(48, 6) };
	struct nl_msg *m = NULL;
	size_t o;

	ets.tc_tx_bw[0] = 50;
	ets.tc_tx_bw[3] = 50;
	ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	ets.tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
	ets.prio_tc[3] = 3;
	ets.reco_prio_tc[7] = 7;

	o = set_prefix(expected, sizeof(expected), DCB_CMD_IEEE_SET);
	set_nested_flag(&expected[35]);
	/* ETS: nla_len 63, padded to 64 */
	expected[o] = 63;
	expected[o + 2] = 0x01;
	expected[o + 4 + 0] = 1;      /* willing, kept as read */
	expected[o + 4 + 1] = 8;      /* ets_cap */
	expected[o + 4 + 3 + 0] = 50; /* tc_tx_bw[0] */
	expected[o + 4 + 3 + 3] = 50; /* tc_tx_bw[3] */
	expected[o + 4 + 19 + 0] = 2; /* tc_tsa[0] = ets */
	expected[o + 4 + 19 + 3] = 2; /* tc_tsa[3] = ets */
	expected[o + 4 + 27 + 3] = 3; /* prio_tc[3] */
	expected[o + 4 + 51 + 7] = 7; /* reco_prio_tc[7] */
	o += 64;
	/* MAXRATE: nla_len 68; tc_maxrate[3] = 25000000 kbit/s = 0x017d7840 */
	expected[o] = 68;
	expected[o + 2] = 0x07;
	expected[o + 4 + 24 + 0] = 0x40;
	expected[o + 4 + 24 + 1] = 0x78;
	expected[o + 4 + 24 + 2] = 0x7d;
	expected[o + 4 + 24 + 3] = 0x01;
	o += 68;
	/* APP_TABLE: nla_len 20, two DCB_ATTR_IEEE_APP of struct dcb_app */
	expected[o] = 20;
	expected[o + 2] = 0x03;
	set_nested_flag(&expected[o + 3]);
	o += 4;
	{
		static const uint8_t app_bytes[] = {
			0x08, 0x00, 0x01, 0x00, 0x05, 0x03, 0x1a, 0x00, /* sel 5, prio 3, dscp 26 */
			0x08, 0x00, 0x01, 0x00, 0x05, 0x06, 0x30, 0x00, /* sel 5, prio 6, dscp 48 */
		};
		memcpy(expected + o, app_bytes, sizeof(app_bytes));
	}

	CHECK(dcbnl_ieee_set_new(
		      "eth0",
		      &(DcbChange){ .ets = &ets, .maxrate = &rate, .apps = apps, .n_apps = 2 },
		      &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(ieee_set_empty) {
	struct nl_msg *untouched = (struct nl_msg *) 0x1;
	struct ieee_pfc pfc = { 0 };

	CHECK(dcbnl_ieee_set_new("eth0", &(DcbChange){ 0 }, &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_set_new("eth0", NULL, &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_set_new("eth0", &(DcbChange){ .n_apps = 1 }, &untouched) == -EINVAL);
	CHECK(dcbnl_ieee_set_new("", &(DcbChange){ .pfc = &pfc }, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(ieee_del_bytes) {
	/* `dcb app del dev eth0 dscp-prio 26:4` */
	uint8_t expected[36 + 4 + 8];
	const struct dcb_app app = dcb_app_dscp(26, 4);
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;
	size_t o;

	o = set_prefix(expected, sizeof(expected), DCB_CMD_IEEE_DEL);
	set_nested_flag(&expected[35]);
	expected[o] = 12; /* APP_TABLE */
	expected[o + 2] = 0x03;
	set_nested_flag(&expected[o + 3]);
	memcpy(expected + o + 4,
	       (const uint8_t[]){ 0x08, 0x00, 0x01, 0x00, 0x05, 0x04, 0x1a, 0x00 }, 8);

	CHECK(dcbnl_ieee_del_new("eth0", &app, 1, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(dcbnl_ieee_del_new("eth0", &app, 0, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* A whole DSCP app table at its largest: 64 DSCP values x 8 priorities. libnl's default message
 * (a page) holds ~500 entries; the builders size the message to what it carries. */
TEST(ieee_app_table_whole) {
	struct dcb_app apps[N_DSCP * N_PRIO];
	struct nl_msg *m = NULL;

	for (size_t i = 0; i < ELEMENTSOF(apps); i++)
		apps[i] = dcb_app_dscp((uint8_t) (i / N_PRIO), (uint8_t) (i % N_PRIO));
	CHECK(dcbnl_ieee_del_new("eth0", apps, ELEMENTSOF(apps), &m) == 0);
	/* header 16, dcbmsg 4, IFNAME 12, IEEE 4, APP_TABLE 4, 8 per entry */
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 4 + 12 + 4 + 4 + 8 * ELEMENTSOF(apps));
	nlmsg_free(m);
	m = NULL;
	CHECK(dcbnl_ieee_set_new("eth0", &(DcbChange){ .apps = apps, .n_apps = ELEMENTSOF(apps) },
				 &m) == 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 4 + 12 + 4 + 4 + 8 * ELEMENTSOF(apps));
	nlmsg_free(m);
}

TEST(ieee_set_buffer_bytes) {
	/* `dcb buffer set dev eth0 prio-buffer 3:1 buffer-size 1:130944` on a port whose total is
	 * 262016 (sent back as read) */
	uint8_t expected[36 + 4 + 44];
	struct dcbnl_buffer b = { .total_size = 262016 };
	struct nl_msg *m = NULL;
	size_t o;

	b.prio2buffer[3] = 1;
	b.buffer_size[1] = 130944;
	o = set_prefix(expected, sizeof(expected), DCB_CMD_IEEE_SET);
	set_nested_flag(&expected[35]);
	expected[o] = 48;	/* nla_len 4 + 44 */
	expected[o + 2] = 0x0a; /* DCB_ATTR_DCB_BUFFER */
	o += 4;
	expected[o + 3] = 1;		     /* prio2buffer[3] */
	expected[o + 8 + 4] = 130944 & 0xff; /* buffer_size[1], little endian */
	expected[o + 8 + 5] = (130944 >> 8) & 0xff;
	expected[o + 8 + 6] = (130944 >> 16) & 0xff;
	expected[o + 40] = 262016 & 0xff; /* total_size */
	expected[o + 41] = (262016 >> 8) & 0xff;
	expected[o + 42] = (262016 >> 16) & 0xff;
	CHECK(dcbnl_ieee_set_new("eth0", &(DcbChange){ .buffer = &b }, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(dcbx_set_bytes) {
	/* `dcb dcbx set dev eth0 host ieee`: a u8 DCB_ATTR_DCBX after the name, no nest */
	uint8_t expected[40];
	struct nl_msg *m = NULL;

	set_prefix(expected, sizeof(expected), DCB_CMD_SDCBX);
	memcpy(expected + 32,
	       (const uint8_t[]){ 0x05, 0x00, 0x0e, 0x00, /* nla_len 5, DCB_ATTR_DCBX (14) */
				  0x09, 0x00, 0x00, 0x00 /* HOST | VER_IEEE, padding */ },
	       8);
	CHECK(dcbnl_dcbx_set_new("eth0", DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	CHECK(dcbnl_dcbx_set_new("", DCB_CAP_DCBX_HOST, &m) == -EINVAL);
}

/* dcbnl_setdcbx()'s answer: the driver's u8 result in DCB_ATTR_DCBX, nonzero for a refusal. */
TEST(dcbx_reply_parse) {
	uint8_t buf[28] _alignas_ = {
		0x1c, 0x00, 0x00, 0x00, 0x4f, 0x00, 0x05, 0x00, 0x2a, 0x00,
		0x00, 0x00, 0x10, 0x20, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00, /* DCB_CMD_SDCBX (23) */
		0x05, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x00, 0x00, /* DCB_ATTR_DCBX: 1, refused */
	};
	int error = 77;

	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) == 0);
	CHECK_INTEQ(error, -EINVAL);
	buf[24] = 0;
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) == 0);
	CHECK_INTEQ(error, 0);
	buf[22] = 0x0d; /* DCB_ATTR_IEEE instead: not SDCBX's answer */
	error = 77;
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	CHECK_INTEQ(error, 77);
}

/* An IEEE_GET reply laid out as dcbnl_ieee_fill() does: IFNAME, the IEEE nest (ETS, MAXRATE,
 * PFC, APP_TABLE), then DCBX. Built with libnl's attribute writers, without nest flags, as
 * the kernel's nla_nest_start_noflag(). */
static struct nl_msg *reply_new(int type, uint8_t cmd, bool with_dcbx) {
	struct dcbmsg d = { .cmd = cmd };
	struct ieee_ets ets = { .ets_cap = 8, .willing = 0 };
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 0x18, .delay = 32 };
	struct ieee_maxrate rate = { .tc_maxrate = { [6] = 100000 } };
	struct dcbnl_buffer buffer = { .prio2buffer = { [3] = 1 },
				       .buffer_size = { 65536, 131072 } };
	const struct dcb_app apps[] = {
		dcb_app_dscp(26, 3),
		dcb_app_dscp(26, 4),
		{ .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE, .priority = 3, .protocol = 0x8915 },
	};
	struct nl_msg *m = nlmsg_alloc_simple(type, 0);
	struct nlattr *ieee, *table;

	ets.tc_tx_bw[0] = 100;
	ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	ets.prio_tc[3] = 3;
	CHECK(nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO) == 0);
	CHECK(nla_put_string(m, DCB_ATTR_IFNAME, "dcbsim0") == 0);
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	CHECK(nla_put(m, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets) == 0);
	CHECK(nla_put(m, DCB_ATTR_IEEE_MAXRATE, sizeof(rate), &rate) == 0);
	CHECK(nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc) == 0);
	CHECK(nla_put(m, DCB_ATTR_DCB_BUFFER, sizeof(buffer), &buffer) == 0);
	table = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	for (size_t i = 0; i < ELEMENTSOF(apps); i++)
		CHECK(nla_put(m, DCB_ATTR_IEEE_APP, sizeof(apps[i]), &apps[i]) == 0);
	nla_nest_end(m, table);
	nla_nest_end(m, ieee);
	ieee->nla_type &= ~NLA_F_NESTED;
	table->nla_type &= ~NLA_F_NESTED;
	if (with_dcbx)
		CHECK(nla_put_u8(m, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) == 0);
	return m;
}

static int parse_msg(struct nl_msg *m, size_t len, char *ifname, DcbState *s) {
	return dcbnl_ieee_parse(nlmsg_hdr(m), len, ifname, s);
}

TEST(ieee_parse) {
	struct nl_msg *m = reply_new(RTM_GETDCB, DCB_CMD_IEEE_GET, true);
	size_t len = nlmsg_hdr(m)->nlmsg_len;
	char ifname[DCBNL_IFNAME_MAX] = "untouched";
	DcbState s;

	CHECK(parse_msg(m, len, ifname, &s) == 0);
	CHECK_STREQ(ifname, "dcbsim0");
	CHECK(s.has_ets && s.has_pfc && s.has_maxrate && s.has_dcbx);
	CHECK_INTEQ(s.ets.ets_cap, 8);
	CHECK_INTEQ(s.ets.tc_tx_bw[0], 100);
	CHECK_INTEQ(s.ets.prio_tc[3], 3);
	CHECK_INTEQ(s.pfc.pfc_en, 0x18);
	CHECK_INTEQ(s.pfc.delay, 32);
	CHECK_INTEQ(s.maxrate.tc_maxrate[6], 100000);
	CHECK_INTEQ(s.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	CHECK(s.has_buffer);
	CHECK_INTEQ(s.buffer.prio2buffer[3], 1);
	CHECK_INTEQ(s.buffer.buffer_size[1], 131072);
	CHECK_INTEQ(s.dscp_prio[26], 0x18); /* 26:3 and 26:4 coexist */
	CHECK_INTEQ(s.dscp_prio[0], 0);
	CHECK_INTEQ(s.n_other_apps, 1);

	/* truncated: nothing is written */
	strcpy(ifname, "untouched");
	CHECK(parse_msg(m, len - 1, ifname, &s) == -EBADMSG);
	CHECK(parse_msg(m, 12, ifname, &s) == -EBADMSG);
	CHECK_STREQ(ifname, "untouched");
	nlmsg_free(m);

	/* the RTNLGRP_DCB message of a SET: the same state */
	m = reply_new(RTM_SETDCB, DCB_CMD_IEEE_SET, false);
	CHECK(parse_msg(m, nlmsg_hdr(m)->nlmsg_len, ifname, &s) == 0);
	CHECK(!s.has_dcbx);
	CHECK_INTEQ(s.pfc.pfc_en, 0x18);
	nlmsg_free(m);

	/* a CEE reply is not an IEEE state, nor is a GET typed as a SET */
	m = reply_new(RTM_GETDCB, DCB_CMD_CEE_GET, true);
	CHECK(parse_msg(m, nlmsg_hdr(m)->nlmsg_len, ifname, &s) == -EBADMSG);
	nlmsg_free(m);
	m = reply_new(RTM_SETDCB, DCB_CMD_IEEE_GET, true);
	CHECK(parse_msg(m, nlmsg_hdr(m)->nlmsg_len, ifname, &s) == -EBADMSG);
	nlmsg_free(m);
}

/* A driver without some ops: only what it has is there; an empty app table. */
TEST(ieee_parse_partial) {
	struct dcbmsg d = { .cmd = DCB_CMD_IEEE_GET };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETDCB, 0);
	struct ieee_pfc pfc = { .pfc_en = 0x01 };
	char ifname[DCBNL_IFNAME_MAX];
	struct nlattr *ieee;
	DcbState s;

	nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO);
	nla_put_string(m, DCB_ATTR_IFNAME, "eth1");
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	nla_put(m, DCB_ATTR_IEEE_ETS, 20, &pfc); /* shorter than struct ieee_ets */
	nla_nest_end(m, ieee);
	CHECK(parse_msg(m, nlmsg_hdr(m)->nlmsg_len, ifname, &s) == -EBADMSG);
	nlmsg_free(m);

	m = nlmsg_alloc_simple(RTM_GETDCB, 0);
	nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO);
	nla_put_string(m, DCB_ATTR_IFNAME, "eth1");
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	nla_put(m, 42, 4, "abc"); /* a newer kernel's attribute */
	nla_nest_end(m, ieee);
	CHECK(parse_msg(m, nlmsg_hdr(m)->nlmsg_len, ifname, &s) == 0);
	CHECK_STREQ(ifname, "eth1");
	CHECK(s.has_pfc && !s.has_ets && !s.has_maxrate && !s.has_dcbx && !s.has_buffer);
	CHECK_INTEQ(s.pfc.pfc_en, 1);
	nlmsg_free(m);
}

/* dcbnl_ieee_set()'s answer: the driver's error as a signed byte in a u8 DCB_ATTR_IEEE. */
static const uint8_t set_reply_einval[] = {
	0x1c, 0x00, 0x00, 0x00, /* nlmsg_len 28 */
	0x4f, 0x00, 0x05, 0x00, /* RTM_SETDCB, the request's flags */
	0x2a, 0x00, 0x00, 0x00, /* seq */
	0x10, 0x20, 0x00, 0x00, /* pid */
	0x00, 0x14, 0x00, 0x00, /* struct dcbmsg: DCB_CMD_IEEE_SET (20) */
	0x05, 0x00, 0x0d, 0x00, /* nla_len 5, DCB_ATTR_IEEE */
	0xea, 0x00, 0x00, 0x00, /* (s8) -22 = -EINVAL */
};

TEST(set_reply_parse) {
	uint8_t buf[sizeof(set_reply_einval)] _alignas_;
	int error = 77;

	memcpy(buf, set_reply_einval, sizeof(buf));
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) == 0);
	CHECK_INTEQ(error, -EINVAL);

	buf[24] = 0x00; /* success */
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) == 0);
	CHECK_INTEQ(error, 0);

	buf[17] = DCB_CMD_IEEE_DEL;
	buf[24] = (uint8_t) -ENOENT;
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) == 0);
	CHECK_INTEQ(error, -ENOENT);

	buf[24] = 0x05; /* not an errno the kernel sends */
	error = 77;
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	CHECK_INTEQ(error, 77);

	/* not an answer to a SET or DEL */
	error = 77;
	memcpy(buf, set_reply_einval, sizeof(buf));
	buf[17] = DCB_CMD_IEEE_GET;
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	memcpy(buf, set_reply_einval, sizeof(buf));
	buf[4] = 0x4e; /* RTM_GETDCB */
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	memcpy(buf, set_reply_einval, sizeof(buf));
	buf[20] = 0x06; /* a u16: not the kernel's u8 */
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	memcpy(buf, set_reply_einval, sizeof(buf));
	buf[22] = 0x0e; /* no DCB_ATTR_IEEE */
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf), &error) ==
	      -EBADMSG);
	memcpy(buf, set_reply_einval, sizeof(buf));
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, sizeof(buf) - 4, &error) ==
	      -EBADMSG);
	CHECK(dcbnl_set_reply_parse((const struct nlmsghdr *) buf, 18, &error) == -EBADMSG);
	CHECK_INTEQ(error, 77);
}

TEST(ifname_parse) {
	struct nl_msg *m = reply_new(RTM_SETDCB, DCB_CMD_IEEE_DEL, false);
	char ifname[DCBNL_IFNAME_MAX] = "";
	uint8_t buf[sizeof(set_reply_einval)] _alignas_;

	CHECK(dcbnl_ifname_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, ifname) == 0);
	CHECK_STREQ(ifname, "dcbsim0");
	nlmsg_free(m);

	memcpy(buf, set_reply_einval, sizeof(buf));
	CHECK(dcbnl_ifname_parse((const struct nlmsghdr *) buf, sizeof(buf), ifname) == -ENODATA);
	buf[4] = 0x10; /* RTM_NEWLINK */
	CHECK(dcbnl_ifname_parse((const struct nlmsghdr *) buf, sizeof(buf), ifname) == -EBADMSG);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(ieee_set_buffer_bytes), TEST_ENTRY(dcbx_set_bytes),
	   TEST_ENTRY(dcbx_reply_parse), TEST_ENTRY(ieee_app_table_whole), TEST_ENTRY(tsa),
	   TEST_ENTRY(ieee_get_bytes), TEST_ENTRY(ieee_set_pfc_bytes),
	   TEST_ENTRY(ieee_set_ets_maxrate_apps_bytes), TEST_ENTRY(ieee_set_empty),
	   TEST_ENTRY(ieee_del_bytes), TEST_ENTRY(ieee_parse), TEST_ENTRY(ieee_parse_partial),
	   TEST_ENTRY(set_reply_parse), TEST_ENTRY(ifname_parse))
