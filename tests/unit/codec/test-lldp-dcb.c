/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A switch port's LLDPDU on its bytes (lldp-dcb.h): the 802.1Qaz ETS, PFC and Application
 * Priority TLVs and 802.3's maximum frame size, as a switch sends them (tcpdump 4.99 -vv, an
 * independent decoder, reads switch_pdu's bytes in a frame as the comments below say), a round
 * trip through the builder, and what is refused. */
#include <errno.h>
#include <string.h>

#include "lldp-dcb.h"
#include "macro.h"
#include "tests.h"

/* Chassis 00:11:22:33:44:55, port "Ethernet1/1", TTL 120; ETS: willing 0, CBS 0, 8 TCs,
 * priority 3 in TC 3, the others in TC 0, 50/50 percent, every TC ETS; PFC: cap 8, on
 * priority 3; APP: DSCP 26 -> 3, DSCP 48 -> 6; maximum frame size 9216. */
static const uint8_t switch_pdu[] = {
	0x02, 0x07, 0x04, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, /* chassis: MAC */
	0x04, 0x0c, 0x05, 'E',	't',  'h',  'e',  'r',	'n',
	'e',  't',  '1',  '/',	'1',  0x06, 0x02, 0x00, 0x78, /* TTL 120 */
	0xfe, 0x19, 0x00, 0x80, 0xc2, 0x09, 0x00,	      /* ETS configuration */
	0x00, 0x03, 0x00, 0x00,				      /* priority assignment: 3 -> TC 3 */
	50,   0,    0,	  50,	0,    0,    0,	  0,	      /* TC bandwidth */
	2,    2,    2,	  2,	2,    2,    2,	  2,	      /* TSA: ETS */
	0xfe, 0x06, 0x00, 0x80, 0xc2, 0x0b, 0x08, 0x08,	      /* PFC: cap 8, priority 3 */
	0xfe, 0x0b, 0x00, 0x80, 0xc2, 0x0c, 0x00,	      /* APP */
	0x65, 0x00, 0x1a,				      /* 3, DSCP, 26 */
	0xc5, 0x00, 0x30,				      /* 6, DSCP, 48 */
	0xfe, 0x06, 0x00, 0x12, 0x0f, 0x04, 0x24, 0x00,	      /* maximum frame size 9216 */
	0x00, 0x00,					      /* End */
};

TEST(switch_pdu) {
	LldpDcb d;

	CHECK_INTEQ(lldp_dcb_parse(switch_pdu, sizeof(switch_pdu), &d), 0);
	CHECK(d.has_chassis && d.chassis.subtype == 4 && d.chassis.len == 6 &&
	      d.chassis.id[5] == 0x55);
	CHECK(d.has_port && d.port.subtype == 5 && d.port.len == 11 &&
	      memcmp(d.port.id, "Ethernet1/1", 11) == 0);
	CHECK(d.has_ttl && d.ttl == 120);
	CHECK(d.has_ets && !d.ets.willing && !d.ets.cbs);
	CHECK_INTEQ(d.ets.max_tcs, 8); /* 0 on the wire */
	for (unsigned i = 0; i < 8; i++)
		CHECK_INTEQ(d.ets.prio_tc[i], i == 3 ? 3 : 0);
	CHECK(d.ets.tc_bw[0] == 50 && d.ets.tc_bw[3] == 50 && d.ets.tc_bw[1] == 0);
	CHECK(d.ets.tsa[0] == 2 && d.ets.tsa[7] == 2);
	CHECK(!d.has_ets_reco);
	CHECK(d.has_pfc && !d.pfc.willing && !d.pfc.mbc && d.pfc.cap == 8 && d.pfc.enable == 0x08);
	CHECK(d.has_app);
	CHECK_INTEQ(d.n_apps, 2);
	CHECK(d.apps[0].priority == 3 && d.apps[0].selector == LLDP_APP_SEL_DSCP &&
	      d.apps[0].protocol == 26);
	CHECK(d.apps[1].priority == 6 && d.apps[1].protocol == 48);
	CHECK_INTEQ(lldp_dcb_dscp_priority(&d, 26), 3);
	CHECK_INTEQ(lldp_dcb_dscp_priority(&d, 48), 6);
	CHECK_INTEQ(lldp_dcb_dscp_priority(&d, 24), -ENOENT);
	CHECK(d.has_max_frame && d.max_frame == 9216);
}

/* The builder writes the same bytes back. */
TEST(build) {
	uint8_t buf[1500];
	LldpDcb d;

	CHECK_INTEQ(lldp_dcb_parse(switch_pdu, sizeof(switch_pdu), &d), 0);
	CHECK_INTEQ(lldp_dcb_build(&d, buf, sizeof(buf)), (int) sizeof(switch_pdu));
	CHECK(memcmp(buf, switch_pdu, sizeof(switch_pdu)) == 0);
	CHECK_INTEQ(lldp_dcb_build(&d, buf, sizeof(switch_pdu) - 1), -ENOBUFS);
}

/* ETS recommendation: its first octet reserved; willing set and max TCs 3 in a configuration. */
TEST(ets_fields) {
	static const uint8_t pdu[] = {
		0xfe, 0x19, 0x00, 0x80, 0xc2, 0x09, 0xc3, 0x12, 0x34, 0x56, 0x70, /* 1..7 */
		10,   20,   30,	  40,	0,    0,    0,	  0,	0,    1,    2,	  255,	0, 0, 0,
		0,    0xfe, 0x19, 0x00, 0x80, 0xc2, 0x0a, 0xff, 0x00, 0x00, 0x00, 0x07, 0, 0, 0,
		0,    0,    0,	  0,	100,  0,    0,	  0,	0,    0,    0,	  0,	2,
	};
	LldpDcb d;

	CHECK_INTEQ(lldp_dcb_parse(pdu, sizeof(pdu), &d), 0);
	CHECK(d.ets.willing && d.ets.cbs && d.ets.max_tcs == 3);
	for (unsigned i = 0; i < 8; i++)
		CHECK_INTEQ(d.ets.prio_tc[i], (i + 1) % 8);
	CHECK(d.ets.tsa[0] == 0 && d.ets.tsa[2] == 2 && d.ets.tsa[3] == 255);
	CHECK(d.has_ets_reco && !d.ets_reco.willing && d.ets_reco.prio_tc[7] == 7 &&
	      d.ets_reco.tc_bw[7] == 100 && d.ets_reco.tsa[7] == 2);
}

/* Through liblldpctl's unknown TLVs: an OUI, a subtype and the information string. */
TEST(org) {
	static const uint8_t pfc[] = { 0x88, 0x28 }, oui[] = { 0x00, 0x80, 0xc2 },
			     other[] = { 0x00, 0x12, 0xbb };
	LldpDcb d = { 0 };

	CHECK_INTEQ(lldp_dcb_parse_org(&d, oui, 11, pfc, sizeof(pfc)), 1);
	CHECK(d.pfc.willing && !d.pfc.mbc && d.pfc.cap == 8 && d.pfc.enable == 0x28);
	CHECK_INTEQ(lldp_dcb_parse_org(&d, oui, 11, pfc, sizeof(pfc)), -EBADMSG); /* a second */
	CHECK_INTEQ(lldp_dcb_parse_org(&d, oui, 7, pfc, sizeof(pfc)), 0);	  /* not DCB */
	CHECK_INTEQ(lldp_dcb_parse_org(&d, other, 11, pfc, sizeof(pfc)), 0);	  /* LLDP-MED */
	CHECK_INTEQ(lldp_dcb_parse_org(&d, oui, 12, pfc, sizeof(pfc)), -EBADMSG); /* 1 + 3n */
}

TEST(refused) {
	uint8_t pdu[sizeof(switch_pdu)];
	LldpDcb d;

	/* a TLV past the end */
	CHECK_INTEQ(lldp_dcb_parse(switch_pdu, 10, &d), -EBADMSG);
	/* PFC of 3 bytes */
	memcpy(pdu, switch_pdu, sizeof(pdu));
	pdu[55] = 0x07;
	CHECK_INTEQ(lldp_dcb_parse(pdu, sizeof(pdu), &d), -EBADMSG);
	/* a second TTL */
	{
		static const uint8_t two[] = { 0x06, 0x02, 0, 1, 0x06, 0x02, 0, 2 };

		CHECK_INTEQ(lldp_dcb_parse(two, sizeof(two), &d), -EBADMSG);
	}
	/* an End with a length, an empty chassis ID, an organizational TLV without its header */
	{
		static const uint8_t end[] = { 0x00, 0x01, 0x00 }, id[] = { 0x02, 0x01, 0x04 },
				     org[] = { 0xfe, 0x03, 0x00, 0x80, 0xc2 };

		CHECK_INTEQ(lldp_dcb_parse(end, sizeof(end), &d), -EBADMSG);
		CHECK_INTEQ(lldp_dcb_parse(id, sizeof(id), &d), -EBADMSG);
		CHECK_INTEQ(lldp_dcb_parse(org, sizeof(org), &d), -EBADMSG);
	}
	/* what follows End is not read */
	memcpy(pdu, switch_pdu, sizeof(pdu));
	pdu[sizeof(pdu) - 2] = 0x00;
	CHECK_INTEQ(lldp_dcb_parse(pdu, sizeof(pdu), &d), 0);
	{
		uint8_t longer[sizeof(switch_pdu) + 3];

		memcpy(longer, switch_pdu, sizeof(switch_pdu));
		memcpy(longer + sizeof(switch_pdu), (uint8_t[]){ 0x06, 0x09, 0x00 }, 3);
		CHECK_INTEQ(lldp_dcb_parse(longer, sizeof(longer), &d), 0);
	}
}

TESTS_MAIN(TEST_ENTRY(switch_pdu), TEST_ENTRY(build), TEST_ENTRY(ets_fields), TEST_ENTRY(org),
	   TEST_ENTRY(refused))
