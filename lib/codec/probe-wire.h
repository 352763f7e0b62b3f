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
 * only if it comes from the path's peer, both of them (probe_grh_parse()). No I/O. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROBE_WIRE_SIZE	   32
#define PROBE_WIRE_MAGIC   0x52445052U /* "RDPR" */
#define PROBE_WIRE_VERSION 1
#define PROBE_GRH_SIZE	   40 /* what a UD receive gets before the payload */

typedef enum ProbeKind {
	PROBE_REQUEST = 1,
	PROBE_REPLY = 2,
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

/* A received payload: 0 and *ret, or -EBADMSG. */
int probe_wire_parse(const uint8_t *buf, size_t size, ProbeMessage *ret);

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
