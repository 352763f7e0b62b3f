/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The value parsers of the qos: keys (priorities, the DSCP map, ETS and buffer arrays, maxrate,
 * the DCBX mode) and the checks across them once a profile is parsed (ETS bandwidth against TSA,
 * the DCBX mode against qos.owner). */

#include <linux/dcbnl.h>

#include "profile-values.h"

static int priority_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			 void *userdata) {
	uint8_t *mask = userdata;
	long long v;
	int r;

	r = expect_integer(ctx, row, node, 0, N_PRIO - 1, &v);
	if (r < 0)
		return r;
	if (*mask & (1u << v))
		return schema_error(ctx, node, "'%s': priority %lld is listed twice", row->path, v);
	*mask |= (uint8_t) (1u << v);
	return 0;
}

/* A set of priorities; the ones not listed are disabled, so [] disables all. */
int parse_priorities(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	uint8_t mask = 0;
	int r;

	r = for_each_item(ctx, row, node, priority_item, &mask);
	if (r < 0)
		return r;
	*(uint8_t *) dest = mask;
	return 0;
}

int parse_dscp_map(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	int8_t map[N_DSCP];
	int r, ret = 0;

	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node,
				    "'%s' expects a mapping of DSCP (0..63) to "
				    "priority (0..7), got %s",
				    row->path, yaml_node_kind(node));
	memset(map, -1, sizeof(map));
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(ctx->document, p->key);
		yaml_node_t *v = yaml_document_get_node(ctx->document, p->value);
		long long dscp, prio;

		r = expect_integer(ctx, row, k, 0, N_DSCP - 1, &dscp);
		if (r >= 0 && map[dscp] >= 0)
			r = schema_error(ctx, k, "'%s': DSCP %lld is mapped twice", row->path,
					 dscp);
		if (r >= 0)
			r = expect_integer(ctx, row, v, 0, N_PRIO - 1, &prio);
		if (r < 0) {
			ret = r;
			continue;
		}
		map[dscp] = (int8_t) prio;
	}
	if (ret < 0)
		return ret;
	memcpy(dest, map, sizeof(map));
	return 0;
}

/* Exactly eight integers in [row->min, row->max]. */
static int parse_eight(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		       long long ret[8]) {
	size_t n;
	int r, ret_r = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of 8 integers, got %s",
				    row->path, yaml_node_kind(node));
	n = node->data.sequence.items.top - node->data.sequence.items.start;
	if (n != 8)
		return schema_error(
			ctx, node, "'%s' expects 8 entries (one per %s), got %zu", row->path,
			row->key == KEY_QOS_ETS_PRIO_TC || row->key == KEY_QOS_BUFFER_PRIO
				? "priority"
			: row->key == KEY_QOS_BUFFER_SIZE ? "buffer"
							  : "traffic class",
			n);
	for (size_t i = 0; i < 8; i++) {
		yaml_node_t *item =
			yaml_document_get_node(ctx->document, node->data.sequence.items.start[i]);

		r = expect_integer(ctx, row, item, row->min, row->max, &ret[i]);
		if (r < 0)
			ret_r = r;
	}
	return ret_r;
}

int parse_u8_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	long long v[8] = { 0 };
	int r;

	r = parse_eight(ctx, row, node, v);
	if (r < 0)
		return r;
	/* The sum depends on qos.ets.tsa, which may come later in the document: checked by
	 * schema_check_profile(). */
	if (row->key == KEY_QOS_ETS_TC_BW)
		ctx->ets_tc_bw = node;
	for (size_t i = 0; i < 8; i++)
		((uint8_t *) dest)[i] = (uint8_t) v[i];
	return 0;
}

/* qos.buffer.size: bytes per receive buffer, as `dcb buffer set ... buffer-size` takes them. */
int parse_u32_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	long long v[8] = { 0 };
	int r;

	r = parse_eight(ctx, row, node, v);
	if (r < 0)
		return r;
	for (size_t i = 0; i < 8; i++)
		((uint32_t *) dest)[i] = (uint32_t) v[i];
	return 0;
}

/* qos.dcbx: [host, ieee]: who runs the DCBX agent (the host, through dcbnl and lldpad, or the
 * NIC's firmware) and the version it speaks, as `dcb dcbx set` takes them. One of each. */
int parse_dcbx(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	static const struct {
		const char *word;
		uint8_t bit;
	} words[] = {
		{ "host", DCB_CAP_DCBX_HOST },
		{ "lld-managed", DCB_CAP_DCBX_LLD_MANAGED },
		{ "ieee", DCB_CAP_DCBX_VER_IEEE },
		{ "cee", DCB_CAP_DCBX_VER_CEE },
	};
	const uint8_t modes = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED;
	uint8_t bits = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node,
				    "'%s' expects a list of a mode (host or lld-managed) and a "
				    "version (ieee or cee), got %s",
				    row->path, yaml_node_kind(node));
	for (yaml_node_item_t *i = node->data.sequence.items.start;
	     i < node->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(ctx->document, *i);
		const char *s = NULL;
		size_t k;
		int r;

		r = expect_string(ctx, row, item, &s);
		if (r < 0)
			return r;
		for (k = 0; k < ELEMENTSOF(words); k++)
			if (streq(s, words[k].word))
				break;
		if (k == ELEMENTSOF(words))
			return schema_error(
				ctx, item, "'%s': unknown word '%s' (host, lld-managed, ieee, cee)",
				row->path, s);
		if (bits & ((words[k].bit & modes) ? modes : (uint8_t) ~modes))
			return schema_error(ctx, item, "'%s': '%s' is a second %s", row->path, s,
					    (words[k].bit & modes) ? "mode" : "version");
		bits |= words[k].bit;
	}
	if (!(bits & modes) || !(bits & (uint8_t) ~modes))
		return schema_error(ctx, node,
				    "'%s' needs a mode (host or lld-managed) and a version (ieee "
				    "or cee)",
				    row->path);
	*(uint8_t *) dest = bits;
	ctx->qos_dcbx = node;
	return 0;
}

int parse_tsa_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	EtsTsa t[8];
	size_t n;
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of 8 algorithms, got %s",
				    row->path, yaml_node_kind(node));
	n = node->data.sequence.items.top - node->data.sequence.items.start;
	if (n != 8)
		return schema_error(ctx, node,
				    "'%s' expects 8 entries (one per traffic class), got %zu",
				    row->path, n);
	for (size_t i = 0; i < 8; i++) {
		r = parse_ets_tsa(
			ctx, row,
			yaml_document_get_node(ctx->document, node->data.sequence.items.start[i]),
			&t[i]);
		if (r < 0)
			ret = r;
	}
	if (ret < 0)
		return ret;
	memcpy(dest, t, sizeof(t));
	return 0;
}

__extension__ typedef unsigned __int128 uint128_t;

/* "25Gbit", "100Mbit", "2.5Gbit", "0": in kbit/s, the unit of struct ieee_maxrate (iproute2's
 * dcb_maxrate.c converts the same way). Decimal (SI) prefixes, as tc(8) reads them. */
static int rate_from_string(const char *s, uint64_t *ret) {
	static const struct {
		const char *unit;
		uint64_t bits;
	} units[] = {
		{ "bit", 1 },
		{ "kbit", UINT64_C(1000) },
		{ "mbit", UINT64_C(1000000) },
		{ "gbit", UINT64_C(1000000000) },
		{ "tbit", UINT64_C(1000000000000) },
	};
	uint128_t whole = 0, frac = 0, scale = 1, bits;
	const char *p = s;
	size_t n_whole = 0, n_frac = 0;

	if (streq(s, "0")) {
		*ret = 0;
		return 0;
	}
	for (; *p >= '0' && *p <= '9' && n_whole < 16; p++, n_whole++)
		whole = whole * 10 + (unsigned) (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && n_frac < 9; p++, n_frac++) {
			frac = frac * 10 + (unsigned) (*p - '0');
			scale *= 10;
		}
	if (n_whole == 0 || (p[-1] == '.'))
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		if (strcasecmp(p, units[i].unit) != 0)
			continue;
		if ((frac * units[i].bits) % scale != 0)
			return -EINVAL;
		bits = whole * units[i].bits + frac * units[i].bits / scale;
		if (bits % 1000 != 0)
			return -ERANGE; /* not a whole number of kbit/s */
		if (bits / 1000 > UINT64_MAX)
			return -EINVAL;
		*ret = (uint64_t) (bits / 1000);
		return 0;
	}
	return -EINVAL;
}

/* qos.maxrate: [25Gbit, 0, 0, 0, 0, 0, 0, 0], one rate per traffic class, 0 for no limit. */
int parse_maxrate(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	uint64_t rates[N_TC];
	size_t n;
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of 8 rates, got %s", row->path,
				    yaml_node_kind(node));
	n = node->data.sequence.items.top - node->data.sequence.items.start;
	if (n != N_TC)
		return schema_error(ctx, node,
				    "'%s' expects 8 entries (one per traffic class), got %zu",
				    row->path, n);
	for (size_t i = 0; i < N_TC; i++) {
		yaml_node_t *item =
			yaml_document_get_node(ctx->document, node->data.sequence.items.start[i]);
		const char *s = NULL;

		r = expect_string(ctx, row, item, &s);
		if (r >= 0) {
			r = rate_from_string(s, &rates[i]);
			if (r == -ERANGE)
				r = schema_error(ctx, item,
						 "'%s': '%s' is not a whole number of kbit/s, "
						 "the kernel's unit",
						 row->path, s);
			else if (r < 0)
				r = schema_error(ctx, item,
						 "'%s' expects a rate like 25Gbit, 100Mbit or 0 "
						 "(no limit), got '%s'",
						 row->path, s);
		}
		if (r < 0)
			ret = r;
	}
	if (ret < 0)
		return ret;
	memcpy(dest, rates, sizeof(rates));
	return 0;
}

/* Global pause and PFC declared together: the NIC would ignore PFC (or refuse it). A warning,
 * not an error: the profile says what it says, and preflight reads what the port does. */
static int check_pause_pfc(SchemaContext *ctx) {
	const PortSettings *s = &ctx->profile->settings;
	bool pause = ((s->set & KEY_BIT(KEY_NETDEV_PAUSE_RX)) && s->pause_rx) ||
		     ((s->set & KEY_BIT(KEY_NETDEV_PAUSE_TX)) && s->pause_tx);

	if (!pause || !(s->set & KEY_BIT(KEY_QOS_PFC)) || s->qos_pfc == 0)
		return 0;
	return diagnostics_warn(ctx->diags, ctx->file, 0, 0,
				"netdev.pause turns global pause on together with qos.pfc: a NIC "
				"with global pause on pauses the whole link and ignores PFC; "
				"declare netdev.pause {rx: false, tx: false} for lossless RoCE") < 0
		       ? -ENOMEM
		       : 0;
}

/* One of port_settings_validate()'s checks, its problem said at node. */
static int check_settings(SchemaContext *ctx, const yaml_node_t *node,
			  int (*validate)(const PortSettings *, char **)) {
	_cleanup_free_ char *error = NULL;
	int r;

	if (!node)
		return 0; /* the key the check needs is not in this profile, or was refused */
	r = validate(&ctx->profile->settings, &error);
	if (r == -EINVAL)
		return schema_error(ctx, node, "%s", error);
	return r;
}

int schema_check_profile(SchemaContext *ctx) {
	int r, ret = 0;

	r = check_pause_pfc(ctx);
	if (r < 0)
		return r;
	/* Every check runs, whatever the others found. */
	r = schema_check_sriov(ctx);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	r = schema_check_devlink(ctx);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	r = check_settings(ctx, ctx->qos_dcbx, port_settings_validate_dcbx);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	/* A refused qos.ets.tsa is not "no tsa": tc-bw would be summed over the wrong classes. */
	r = check_settings(ctx, (ctx->refused & KEY_BIT(KEY_QOS_ETS_TSA)) ? NULL : ctx->ets_tc_bw,
			   port_settings_validate_ets);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	return ret;
}
