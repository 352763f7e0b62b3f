/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include "probe-wire.h"

/* The IPv4 header's checksum, over its 20 bytes with the checksum field as it is: 0 when it
 * holds (RFC 1071). */
static uint16_t ipv4_checksum(const uint8_t *h) {
	uint32_t sum = 0;

	for (size_t i = 0; i < 20; i += 2)
		sum += (uint32_t) (h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t) ~sum;
}

/* ::ffff:a.b.c.d */
static void gid_from_ipv4(const uint8_t *addr, uint8_t gid[16]) {
	memset(gid, 0, 10);
	gid[10] = gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

static void put32(uint8_t *p, uint32_t v) {
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v) {
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static void put16(uint8_t *p, uint16_t v) {
	p[0] = (uint8_t) (v >> 8);
	p[1] = (uint8_t) v;
}

static uint16_t get16(const uint8_t *p) {
	return (uint16_t) (p[0] << 8 | p[1]);
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

int probe_wire_kind(const uint8_t *buf, size_t size) {
	if (size != PROBE_WIRE_SIZE || get32(buf) != PROBE_WIRE_MAGIC)
		return -EBADMSG;
	if (buf[4] == PROBE_WIRE_VERSION && (buf[5] == PROBE_REQUEST || buf[5] == PROBE_REPLY))
		return buf[5];
	if (buf[4] == PROBE_WIRE_VERSION_SETTINGS &&
	    (buf[5] == PROBE_SETTINGS_REQUEST || buf[5] == PROBE_SETTINGS_REPLY))
		return buf[5];
	return -EBADMSG;
}

static bool roce_mtu_valid(uint16_t mtu) {
	return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

bool probe_settings_valid(const ProbeLinkSettings *s) {
	/* each field: known and in range, or unknown and 0 */
	const struct {
		unsigned bit;
		unsigned value;
		bool valid;
	} f[] = {
		{ PROBE_KNOWN_NETDEV_MTU, s->netdev_mtu, s->netdev_mtu >= 68 },
		{ PROBE_KNOWN_ROCE_MTU, s->roce_mtu, roce_mtu_valid(s->roce_mtu) },
		{ PROBE_KNOWN_ROCE_MODE, s->roce_mode, s->roce_mode == 1 || s->roce_mode == 2 },
		{ PROBE_KNOWN_TOS, s->tos, true },
		{ PROBE_KNOWN_TRUST, s->trust,
		  s->trust == PROBE_TRUST_PCP || s->trust == PROBE_TRUST_DSCP },
		{ PROBE_KNOWN_PRIORITY, s->priority, s->priority <= 7 },
		{ PROBE_KNOWN_PFC, s->pfc, true },
		{ PROBE_KNOWN_ECN, s->ecn, true },
		{ PROBE_KNOWN_CNP_DSCP, s->cnp_dscp, s->cnp_dscp <= 63 },
		{ PROBE_KNOWN_CNP_PRIORITY, s->cnp_priority, s->cnp_priority <= 7 },
	};

	if (s->known & ~PROBE_KNOWN_ALL)
		return false;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if ((s->known & f[i].bit) ? !f[i].valid : f[i].value != 0)
			return false;
	return true;
}

void probe_wire_build_settings(const ProbeSettingsMessage *m, uint8_t buf[PROBE_WIRE_SIZE]) {
	const ProbeLinkSettings *s = &m->settings;

	memset(buf, 0, PROBE_WIRE_SIZE);
	put32(buf, PROBE_WIRE_MAGIC);
	buf[4] = PROBE_WIRE_VERSION_SETTINGS;
	buf[5] = (uint8_t) m->kind;
	put16(buf + 6, s->known);
	put32(buf + 8, m->sender);
	put32(buf + 12, m->path);
	put16(buf + 16, s->netdev_mtu);
	put16(buf + 18, s->roce_mtu);
	buf[20] = s->roce_mode;
	buf[21] = s->tos;
	buf[22] = s->trust;
	buf[23] = s->priority;
	buf[24] = s->pfc;
	buf[25] = s->ecn;
	buf[26] = s->cnp_dscp;
	buf[27] = s->cnp_priority;
	put32(buf + 28, m->seq);
}

int probe_wire_parse_settings(const uint8_t *buf, size_t size, ProbeSettingsMessage *ret) {
	ProbeSettingsMessage m;
	int k = probe_wire_kind(buf, size);

	if (k != PROBE_SETTINGS_REQUEST && k != PROBE_SETTINGS_REPLY)
		return -EBADMSG;
	m = (ProbeSettingsMessage){
		.kind = (ProbeKind) k,
		.sender = get32(buf + 8),
		.path = get32(buf + 12),
		.seq = get32(buf + 28),
		.settings = {
			.known = get16(buf + 6),
			.netdev_mtu = get16(buf + 16),
			.roce_mtu = get16(buf + 18),
			.roce_mode = buf[20],
			.tos = buf[21],
			.trust = buf[22],
			.priority = buf[23],
			.pfc = buf[24],
			.ecn = buf[25],
			.cnp_dscp = buf[26],
			.cnp_priority = buf[27],
		},
	};
	if (!probe_settings_valid(&m.settings))
		return -EBADMSG;
	*ret = m;
	return 0;
}

int probe_grh_parse(const uint8_t grh[PROBE_GRH_SIZE], ProbeGrh *ret) {
	const uint8_t *ip4 = grh + 20;
	bool ipv4 = (ip4[0] >> 4) == 4 && (ip4[0] & 0xf) == 5 && ipv4_checksum(ip4) == 0;
	ProbeGrh g = { 0 };

	if ((grh[0] >> 4) == 6 && !ipv4) {
		uint32_t vtf = get32(grh);

		g.traffic_class = (uint8_t) (vtf >> 20);
		g.flow_label = vtf & 0xfffff;
		memcpy(g.sgid, grh + 8, 16);
		memcpy(g.dgid, grh + 24, 16);
	} else if (ipv4) {
		g.traffic_class = ip4[1];
		gid_from_ipv4(ip4 + 12, g.sgid);
		gid_from_ipv4(ip4 + 16, g.dgid);
	} else
		return -EBADMSG;
	*ret = g;
	return 0;
}

bool probe_peer_equal(const ProbePeer *a, const ProbePeer *b) {
	return a->qpn == b->qpn && memcmp(a->gid, b->gid, sizeof(a->gid)) == 0;
}
