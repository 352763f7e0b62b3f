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

bool gid_in_subnet(const uint8_t g[16], int family, const uint8_t subnet[16], uint8_t prefixlen) {
	const uint8_t *a = g;
	unsigned full, rest;

	if (family == AF_INET) {
		if (!gid_is_v4_mapped(g) || prefixlen > 32)
			return false;
		a = g + 12;
	} else if (family != AF_INET6 || prefixlen > 128 || gid_is_v4_mapped(g))
		return false;
	full = prefixlen / 8;
	rest = prefixlen % 8;
	if (memcmp(a, subnet, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ subnet[full]) & (uint8_t) (0xff << (8 - rest))) == 0;
}

static const Gid *gid_first(const HostPort *p, GidType type, GidFamily family, const GidChoice *c) {
	for (size_t i = 0; i < p->n_gids; i++) { /* sorted by index */
		const Gid *g = &p->gids[i];

		if (g->type == type && (family < 0 || gid_family(g->raw) == family) &&
		    (!c || c->subnet_family == 0 ||
		     gid_in_subnet(g->raw, c->subnet_family, c->subnet, c->subnet_prefixlen)))
			return g;
	}
	return NULL;
}

int gid_chosen(const HostPort *p, const GidChoice *c, const Gid **ret) {
	GidType type = c->type < 0 ? GID_TYPE_ROCE_V2 : c->type;
	const Gid *g;

	if (p->link_layer == LINK_LAYER_INFINIBAND)
		g = gid_first(p, GID_TYPE_IB, _GID_FAMILY_INVALID, NULL);
	else if (c->family >= 0)
		g = gid_first(p, type, c->family, c);
	else {
		g = gid_first(p, type, GID_FAMILY_IPV4, c);
		if (!g)
			g = gid_first(p, type, GID_FAMILY_IPV6, c);
	}
	if (!g)
		return -ENODATA;
	*ret = g;
	return 0;
}

void gid_choice_describe(const GidChoice *c, char buf[GID_CHOICE_STRING_MAX]) {
	char net[INET6_ADDRSTRLEN], in[INET6_ADDRSTRLEN + 8] = "";

	if (c->subnet_family && inet_ntop(c->subnet_family, c->subnet, net, sizeof(net)))
		snprintf(in, sizeof(in), " in %s/%u", net, c->subnet_prefixlen);
	snprintf(buf, GID_CHOICE_STRING_MAX, "%s %s%s",
		 c->type < 0 ? "RoCE v2" : gid_type_to_string(c->type),
		 c->family >= 0			? gid_family_to_string(c->family)
		 : c->subnet_family == AF_INET	? "ipv4"
		 : c->subnet_family == AF_INET6 ? "ipv6"
						: "IPv4 or global IPv6",
		 in);
}

int gid_preferred(const HostPort *p, GidType type, GidFamily family, const Gid **ret) {
	GidChoice c = { .type = type, .family = family };

	return gid_chosen(p, &c, ret);
}
