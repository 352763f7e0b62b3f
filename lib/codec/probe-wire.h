/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe's datagram, carried in one UD send (after the 40-byte GRH a receive gets first):
 * a request, and the reply that echoes it. 32 bytes in network byte order:
 *
 *   0  magic "RDPR"      4  version (1)   5  kind (1 request, 2 reply)   6  reserved (0)
 *   8  sender (the requesting prober's instance, random at its start)
 *  12  path (the requester's index of the path)
 *  16  sequence number   24  send time (the requester's CLOCK_MONOTONIC, ns; echoed)
 *
 * A reply is the request with its kind changed: the responder keeps no state for it. Whatever
 * else arrives (another size, magic, version or kind, a nonzero reserved field) is refused.
 *
 * Who sent a datagram is not in it: the 40 bytes a UD receive gets first (the GRH) carry the
 * source and destination GIDs, and the work completion the source QP number. A reply counts
 * only if it comes from the path's peer, both of them (probe_grh_parse()).
 *
 * Version 2 (issue 44) adds one exchange of the same size, so that a prober of version 1 reads
 * it as a stranger's datagram (another version: refused, nothing else) and keeps answering and
 * being answered with version 1's probes, which a prober of version 2 still sends:
 *
 *   0  magic "RDPR"      4  version (2)   5  kind (3 settings request, 4 settings reply)
 *   6  known (the fields below that the sender could tell, PROBE_KNOWN_*)
 *   8  sender (the requester's instance)      12  path (the requester's index of the path)
 *  16  netdev MTU        18  active RoCE MTU (256..4096)   20  RoCE mode (1, 2)
 *  21  rdma_cm's default ToS   22  trust (1 pcp, 2 dscp)   23  the priority RoCE's DSCP maps to
 *  24  PFC-enabled priorities  25  ECN-enabled priorities (bit n: priority n)
 *  26  CNP DSCP          27  CNP priority      28  sequence number (the reply echoes it)
 *
 * A request carries the requester's link's settings, a reply the answering link's: one
 * exchange tells both sides. A field not known is 0; a value out of its range, an unknown bit of
 * known, or an unknown field's nonzero value is refused. No I/O. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_WIRE_SIZE	   32
#define PROBE_WIRE_MAGIC   0x52445052U /* "RDPR" */
#define PROBE_WIRE_VERSION 1
#define PROBE_GRH_SIZE	   40 /* what a UD receive gets before the payload */

#define PROBE_WIRE_VERSION_SETTINGS 2

typedef enum ProbeKind {
	PROBE_REQUEST = 1,
	PROBE_REPLY = 2,
	PROBE_SETTINGS_REQUEST = 3, /* version 2 */
	PROBE_SETTINGS_REPLY = 4,   /* version 2 */
} ProbeKind;

typedef struct ProbeMessage {
	ProbeKind kind;
	uint32_t sender;
	uint32_t path;
	uint64_t seq;
	uint64_t sent_ns;
} ProbeMessage;

/* The bytes of m into buf (PROBE_WIRE_SIZE of them). */
void probe_wire_build(const ProbeMessage *m, uint8_t buf[PROBE_WIRE_SIZE]);

/* A received payload of version 1: 0 and *ret, or -EBADMSG. */
int probe_wire_parse(const uint8_t *buf, size_t size, ProbeMessage *ret);

/* Which message a payload is (its version and kind, the rest unread), or -EBADMSG. */
int probe_wire_kind(const uint8_t *buf, size_t size);

enum {
	PROBE_KNOWN_NETDEV_MTU = 1 << 0,
	PROBE_KNOWN_ROCE_MTU = 1 << 1,
	PROBE_KNOWN_ROCE_MODE = 1 << 2,
	PROBE_KNOWN_TOS = 1 << 3,
	PROBE_KNOWN_TRUST = 1 << 4,
	PROBE_KNOWN_PRIORITY = 1 << 5,
	PROBE_KNOWN_PFC = 1 << 6,
	PROBE_KNOWN_ECN = 1 << 7,
	PROBE_KNOWN_CNP_DSCP = 1 << 8,
	PROBE_KNOWN_CNP_PRIORITY = 1 << 9,
	PROBE_KNOWN_ALL = (1 << 10) - 1,
};

enum {
	PROBE_TRUST_PCP = 1,
	PROBE_TRUST_DSCP = 2,
};

/* A link's RoCE settings as its prober tells them. */
typedef struct ProbeLinkSettings {
	uint16_t known; /* PROBE_KNOWN_* */
	uint16_t netdev_mtu, roce_mtu;
	uint8_t roce_mode, tos, trust, priority, pfc, ecn, cnp_dscp, cnp_priority;
} ProbeLinkSettings;

typedef struct ProbeSettingsMessage {
	ProbeKind kind; /* PROBE_SETTINGS_REQUEST or _REPLY */
	uint32_t sender;
	uint32_t path;
	uint32_t seq;
	ProbeLinkSettings settings;
} ProbeSettingsMessage;

/* The bytes of m into buf; m's settings as probe_settings_valid() wants them. */
void probe_wire_build_settings(const ProbeSettingsMessage *m, uint8_t buf[PROBE_WIRE_SIZE]);
/* A received payload of version 2: 0 and *ret, or -EBADMSG. */
int probe_wire_parse_settings(const uint8_t *buf, size_t size, ProbeSettingsMessage *ret);
/* Whether s is what the wire may carry: known fields in range, the others 0. */
bool probe_settings_valid(const ProbeLinkSettings *s);

/* What a UD receive's first 40 bytes say of the datagram: its source and destination GIDs, its
 * traffic class and flow label. An IPv6 GRH (InfiniBand, RoCE v1, RoCE v2 over IPv6) has them in
 * its own fields; for RoCE v2 over IPv4 the device puts the IPv4 header in the last 20 bytes, and
 * its addresses are read as IPv4-mapped GIDs (::ffff:a.b.c.d), the GIDs of IPv4 addresses. The
 * two are told apart as libibverbs tells them (ibv_init_ah_from_wc()): an IPv6 version nibble,
 * unless the last 20 bytes are an IPv4 header whose checksum holds. */
typedef struct ProbeGrh {
	uint8_t sgid[16], dgid[16];
	uint8_t traffic_class;
	uint32_t flow_label;
} ProbeGrh;

/* 0 and *ret, or -EBADMSG: neither an IPv6 GRH nor an IPv4 header. */
int probe_grh_parse(const uint8_t grh[PROBE_GRH_SIZE], ProbeGrh *ret);

/* Who sent a datagram, or who a path's peer is: a GID and a QP number. */
typedef struct ProbePeer {
	uint8_t gid[16];
	uint32_t qpn;
} ProbePeer;

bool probe_peer_equal(const ProbePeer *a, const ProbePeer *b);
