/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The value parsers of the probe keys (issue 29): a duration, the peers' addresses. probe.mesh
 * is a choice (profile-parse.c), probe.port an integer. */

#include <arpa/inet.h>
#include <sys/socket.h>

#include "profile-values.h"

/* "500ms" or "1s": digits, then the unit, which is never implied (a bare 500 could be either). */
int parse_duration_ms(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	unsigned long long v = 0, ms;
	const char *s = NULL, *c;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	for (c = s; *c >= '0' && *c <= '9'; c++)
		if (v <= UINT32_MAX) /* past it, out of range whatever the unit: no overflow */
			v = v * 10 + (unsigned long long) (*c - '0');
	if (c == s || !(streq(c, "ms") || streq(c, "s")))
		return schema_error(ctx, node,
				    "'%s' expects a duration such as 500ms or 1s, got '%s'",
				    row->path, s);
	ms = streq(c, "s") ? v * 1000 : v;
	if (ms < (unsigned long long) row->min || ms > (unsigned long long) row->max)
		return schema_error(ctx, node, "'%s' must be between %lldms and %llds, got '%s'",
				    row->path, row->min, row->max / 1000, s);
	*(unsigned *) dest = (unsigned) ms;
	return 0;
}

static int peer_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *userdata) {
	char text[INET6_ADDRSTRLEN];
	const char *s = NULL;
	Address a;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (strchr(s, '/') || address_from_string(s, &a) < 0)
		return schema_error(ctx, node,
				    "'%s': '%s' is not an IPv4 or IPv6 address (a peer's link, as "
				    "its prober answers on it; host names are not resolved)",
				    row->path, s);
	/* canonical, so that 2001:db8::1 and 2001:0db8::1 are one peer */
	if (!inet_ntop(a.family, a.addr, text, sizeof(text)))
		return -EINVAL;
	r = item_list_add(userdata, text, true);
	if (r == -EEXIST)
		return schema_error(ctx, node, "'%s': '%s' is listed twice", row->path, s);
	return r;
}

/* probe.peers: the addresses of remote links whose prober answers; [] probes none. */
int parse_probe_peers(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of addresses, got %s",
				    row->path, yaml_node_kind(node));
	if (node_n_items(node) > (size_t) row->max)
		return schema_error(ctx, node, "'%s' lists %zu peers, at most %lld", row->path,
				    node_n_items(node), row->max);
	return parse_item_list(ctx, row, node, peer_item, dest);
}
