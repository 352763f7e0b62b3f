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
 * No I/O. */

#include <stddef.h>
#include <stdint.h>

#define PROBE_WIRE_SIZE	   32
#define PROBE_WIRE_MAGIC   0x52445052U /* "RDPR" */
#define PROBE_WIRE_VERSION 1

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
