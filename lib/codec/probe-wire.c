/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "probe-wire.h"

static void put32(uint8_t *p, uint32_t v) {
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v) {
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *p) {
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p) {
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

void probe_wire_build(const ProbeMessage *m, uint8_t buf[PROBE_WIRE_SIZE]) {
	memset(buf, 0, PROBE_WIRE_SIZE);
	put32(buf, PROBE_WIRE_MAGIC);
	buf[4] = PROBE_WIRE_VERSION;
	buf[5] = (uint8_t) m->kind;
	put32(buf + 8, m->sender);
	put32(buf + 12, m->path);
	put64(buf + 16, m->seq);
	put64(buf + 24, m->sent_ns);
}

int probe_wire_parse(const uint8_t *buf, size_t size, ProbeMessage *ret) {
	ProbeMessage m;

	if (size != PROBE_WIRE_SIZE || get32(buf) != PROBE_WIRE_MAGIC ||
	    buf[4] != PROBE_WIRE_VERSION || (buf[5] != PROBE_REQUEST && buf[5] != PROBE_REPLY) ||
	    buf[6] != 0 || buf[7] != 0)
		return -EBADMSG;
	m = (ProbeMessage){
		.kind = (ProbeKind) buf[5],
		.sender = get32(buf + 8),
		.path = get32(buf + 12),
		.seq = get64(buf + 16),
		.sent_ns = get64(buf + 24),
	};
	*ret = m;
	return 0;
}
