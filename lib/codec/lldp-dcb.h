/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a switch port says of its DCB configuration in LLDP (issue 44): the LLDPDU's TLVs, as
 * IEEE 802.1AB-2016 clause 8 frames them (7 bits of type, 9 of length), and of them:
 *
 *   type 1 Chassis ID, 2 Port ID (subtype, then the ID), 3 Time To Live, 0 End of LLDPDU;
 *   type 127, OUI 00-80-C2 (IEEE 802.1), IEEE 802.1Q-2018 Annex D (802.1Qaz):
 *     subtype  9 ETS Configuration (D.2.8): willing, CBS, max TCs (0 means 8), the priority
 *                assignment table (a nibble a priority, priority 0 first), TC bandwidth (a byte
 *                a TC, percent), TSA (a byte a TC: 0 strict, 1 CBS, 2 ETS, 255 vendor);
 *     subtype 10 ETS Recommendation (D.2.9): a reserved octet, then the same three tables;
 *     subtype 11 PFC Configuration (D.2.10): willing, MBC, PFC capability, the PFC enable bitmap
 *                (bit n: priority n);
 *     subtype 12 Application Priority (D.2.11): a reserved octet, then 3-octet entries:
 *                priority (3 bits), reserved (2), selector (3 bits), protocol ID (16 bits);
 *   type 127, OUI 00-12-0F (IEEE 802.3), subtype 4 Maximum Frame Size (802.3-2018 79.3.4).
 *
 * Other TLVs are passed over. A TLV of these with the wrong length, a TLV past the end of the
 * buffer, or a second one of a kind makes the LLDPDU refused (-EBADMSG): a switch that says two
 * things says nothing rdmad can compare. Builders write the same bytes. No I/O. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LLDP_ID_MAX   255 /* a Chassis or Port ID's bytes, its subtype not counted */
#define LLDP_APPS_MAX 168 /* (511 - 5) / 3 entries fit one Application Priority TLV */

enum {
	LLDP_APP_SEL_ETHERTYPE = 1,
	LLDP_APP_SEL_TCP = 2, /* TCP and SCTP port */
	LLDP_APP_SEL_UDP = 3, /* UDP and DCCP port */
	LLDP_APP_SEL_TCP_UDP = 4,
	LLDP_APP_SEL_DSCP = 5, /* protocol: a DSCP, 0..63 */
};

typedef struct LldpId {
	uint8_t subtype;
	uint8_t len;
	uint8_t id[LLDP_ID_MAX];
} LldpId;

typedef struct LldpEts {
	bool willing, cbs;  /* cbs and willing: configuration only */
	uint8_t max_tcs;    /* 1..8 (the wire's 0 is 8); configuration only */
	uint8_t prio_tc[8]; /* a priority's traffic class, 0..15 */
	uint8_t tc_bw[8];   /* percent */
	uint8_t tsa[8];
} LldpEts;

typedef struct LldpPfc {
	bool willing, mbc;
	uint8_t cap;	/* how many priorities may have PFC at once, 0..15 */
	uint8_t enable; /* bit n: PFC on priority n */
} LldpPfc;

typedef struct LldpApp {
	uint8_t priority; /* 0..7 */
	uint8_t selector; /* 0..7, LLDP_APP_SEL_* */
	uint16_t protocol;
} LldpApp;

typedef struct LldpDcb {
	LldpId chassis, port;
	bool has_chassis, has_port, has_ttl;
	uint16_t ttl;
	bool has_ets, has_ets_reco, has_pfc, has_app, has_max_frame;
	LldpEts ets, ets_reco;
	LldpPfc pfc;
	LldpApp apps[LLDP_APPS_MAX];
	size_t n_apps;
	uint16_t max_frame;
} LldpDcb;

/* An LLDPDU (the frame's payload after EtherType 0x88CC): 0 and *ret, or -EBADMSG. The End TLV
 * ends it; so does the buffer's end. */
int lldp_dcb_parse(const uint8_t *pdu, size_t size, LldpDcb *ret);

/* One organizationally specific TLV's information string (after its OUI and subtype), as
 * liblldpctl hands over a TLV it does not decode: recorded in *dcb if it is one of the above
 * (1), passed over if not (0), -EBADMSG if it is one and malformed or a second of its kind. */
int lldp_dcb_parse_org(LldpDcb *dcb, const uint8_t oui[3], uint8_t subtype, const uint8_t *info,
		       size_t size);

/* The TLVs of what dcb has, in the order above and then End, into buf: the bytes written, or
 * -ENOBUFS if size is too small (1500 bytes always do). */
int lldp_dcb_build(const LldpDcb *dcb, uint8_t *buf, size_t size);

/* The priority the Application table gives a DSCP (selector 5): 0..7, or -ENOENT. A table with
 * several entries for one DSCP: the highest of their priorities. */
int lldp_dcb_dscp_priority(const LldpDcb *dcb, uint8_t dscp);
