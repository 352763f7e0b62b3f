/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <stdio.h>

#include "gid.h"

static int hexval(char c) {
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int gid_parse(const char *s, uint8_t ret[16]) {
	uint8_t g[16];

	for (size_t i = 0; i < 8; i++) {
		int v[4];

		for (size_t j = 0; j < 4; j++) {
			v[j] = hexval(s[i * 5 + j]);
			if (v[j] < 0)
				return -EINVAL;
		}
		if (s[i * 5 + 4] != (i == 7 ? '\0' : ':'))
			return -EINVAL;
		g[2 * i] = (uint8_t) (v[0] << 4 | v[1]);
		g[2 * i + 1] = (uint8_t) (v[2] << 4 | v[3]);
	}
	memcpy(ret, g, 16);
	return 0;
}

void gid_format(const uint8_t g[16], char buf[GID_STRING_MAX]) {
	static const char hex[] = "0123456789abcdef";
	char *p = buf;

	for (size_t i = 0; i < 16; i++) {
		if (i > 0 && i % 2 == 0)
			*p++ = ':';
		*p++ = hex[g[i] >> 4];
		*p++ = hex[g[i] & 15];
	}
	*p = 0;
}

bool gid_is_zero(const uint8_t g[16]) {
	for (size_t i = 0; i < 16; i++)
		if (g[i])
			return false;
	return true;
}

static bool gid_is_v4_mapped(const uint8_t g[16]) {
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(g, prefix, sizeof(prefix)) == 0;
}

bool gid_to_ipv4(const uint8_t g[16], char *buf, size_t size) {
	if (!gid_is_v4_mapped(g))
		return false;
	return inet_ntop(AF_INET, g + 12, buf, size) != NULL;
}

GidFamily gid_family(const uint8_t g[16]) {
	if (gid_is_v4_mapped(g))
		return GID_FAMILY_IPV4;
	if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80)
		return GID_FAMILY_LINK_LOCAL;
	return GID_FAMILY_IPV6;
}

bool gid_satisfies(const Gid *g, GidRequirement req) {
	bool v2 = req >= GID_REQUIREMENT_ROCE_V2_IPV4;
	int fam = (int) req - (v2 ? GID_REQUIREMENT_ROCE_V2_IPV4 : GID_REQUIREMENT_ROCE_V1_IPV4);

	if (g->type != (v2 ? GID_TYPE_ROCE_V2 : GID_TYPE_ROCE_V1))
		return false;
	switch (fam) {
	case 0:
		return gid_family(g->raw) == GID_FAMILY_IPV4;
	case 1:
		return gid_family(g->raw) == GID_FAMILY_IPV6;
	case 2:
		return gid_family(g->raw) == GID_FAMILY_LINK_LOCAL;
	default:
		return true;
	}
}

uint32_t gids_unmet(const HostPort *p, uint32_t required) {
	uint32_t unmet = required;

	for (size_t i = 0; i < p->n_gids && unmet; i++)
		for (GidRequirement r = 0; r < _GID_REQUIREMENT_MAX; r++)
			if ((unmet & (UINT32_C(1) << r)) && gid_satisfies(&p->gids[i], r))
				unmet &= ~(UINT32_C(1) << r);
	return unmet;
}

static const Gid *gid_first(const HostPort *p, GidType type, GidFamily family) {
	for (size_t i = 0; i < p->n_gids; i++) /* sorted by index */
		if (p->gids[i].type == type && (family < 0 || gid_family(p->gids[i].raw) == family))
			return &p->gids[i];
	return NULL;
}

int gid_preferred(const HostPort *p, GidType type, GidFamily family, const Gid **ret) {
	const Gid *g;

	if (p->link_layer == LINK_LAYER_INFINIBAND)
		g = gid_first(p, GID_TYPE_IB, _GID_FAMILY_INVALID);
	else {
		if (type < 0)
			type = GID_TYPE_ROCE_V2;
		if (family >= 0)
			g = gid_first(p, type, family);
		else {
			g = gid_first(p, type, GID_FAMILY_IPV4);
			if (!g)
				g = gid_first(p, type, GID_FAMILY_IPV6);
		}
	}
	if (!g)
		return -ENODATA;
	*ret = g;
	return 0;
}
