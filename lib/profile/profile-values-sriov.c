/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The value parsers of the device-level keys: sriov.vf (a list of mappings keyed by index) and
 * pci.max-read-request; the check of sriov.vf's indexes against sriov.vfs once the whole profile
 * is read (schema_check_profile()). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "profile-values.h"

/* "aa:bb:cc:dd:ee:ff" (n = 6) or a GUID "00:11:22:33:44:55:66:77" (n = 8), as ip-link(8) spells
 * them: two hex digits per byte, ':' between. */
static bool hex_bytes_parse(const char *s, uint8_t *ret, size_t n) {
	uint8_t b[8];

	if (strlen(s) != n * 3 - 1)
		return false;
	for (size_t i = 0; i < n; i++) {
		const char *c = s + i * 3;
		char hex[3] = { c[0], c[1], 0 }, *end;

		if (!isxdigit((unsigned char) c[0]) || !isxdigit((unsigned char) c[1]) ||
		    (i + 1 < n && c[2] != ':'))
			return false;
		b[i] = (uint8_t) strtoul(hex, &end, 16);
	}
	memcpy(ret, b, n);
	return true;
}

static int parse_vf_mac(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			uint8_t ret[static 6]) {
	uint8_t mac[6];
	const char *s = NULL;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (!hex_bytes_parse(s, mac, 6))
		return schema_error(ctx, node,
				    "'%s': mac '%s' is not a MAC address like "
				    "02:00:00:00:00:01",
				    row->path, s);
	/* the drivers refuse a group address for a VF (is_valid_ether_addr()) */
	if (mac[0] & 1)
		return schema_error(
			ctx, node,
			"'%s': mac '%s' is a multicast address; a VF needs a unicast one",
			row->path, s);
	memcpy(ret, mac, sizeof(mac));
	return 0;
}

static int parse_vf_guid(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			 uint64_t *ret) {
	const char *s = NULL;
	uint8_t b[8];
	uint64_t g = 0;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (!hex_bytes_parse(s, b, 8))
		return schema_error(ctx, node,
				    "'%s': '%s' is not a GUID like 00:11:22:33:44:55:66:77",
				    row->path, s);
	for (size_t i = 0; i < 8; i++)
		g = g << 8 | b[i];
	*ret = g;
	return 0;
}

/* The fields of an entry, in the order ip-link(8) names them. */
static const char *const vf_fields[] = {
	"index",       "mac",	     "vlan",	 "qos",	     "vlan-protocol", "trust",
	"spoof-check", "link-state", "max-rate", "min-rate", "node-guid",     "port-guid",
};
enum { FIELD_INDEX = 0, FIELD_VLAN = 2 }; /* their positions in vf_fields */

/* Stores the field in vf and sets its VF_BIT() only when the value is valid. */
static int parse_vf_field(SchemaContext *ctx, const SchemaKey *row, size_t field, yaml_node_t *node,
			  SriovVf *vf) {
	uint64_t guid = 0;
	uint8_t mac[6];
	long long v = 0;
	bool b = false;
	int r = 0, e = 0;

	switch (field) {
	case 0:
		r = expect_integer(ctx, row, node, row->min, row->max, &v);
		if (r >= 0)
			vf->index = (uint32_t) v;
		return r;
	case 1:
		r = parse_vf_mac(ctx, row, node, mac);
		if (r >= 0) {
			memcpy(vf->mac, mac, sizeof(mac));
			vf->set |= VF_BIT(VF_MAC);
		}
		return r;
	case 2: /* 0: no VLAN, as `ip link set ... vf N vlan 0` */
		r = expect_integer(ctx, row, node, 0, 4095, &v);
		if (r >= 0) {
			vf->vlan = (uint16_t) v;
			vf->set |= VF_BIT(VF_VLAN);
		}
		return r;
	case 3:
		r = expect_integer(ctx, row, node, 0, 7, &v);
		if (r >= 0) {
			vf->qos = (uint8_t) v;
			vf->set |= VF_BIT(VF_QOS);
		}
		return r;
	case 4:
		r = parse_vlan_protocol(ctx, row, node, &e);
		if (r >= 0) {
			vf->vlan_proto = vlan_protocol_to_ethertype((VlanProtocol) e);
			vf->set |= VF_BIT(VF_VLAN_PROTO);
		}
		return r;
	case 5:
	case 6:
		r = parse_bool(ctx, row, node, &b);
		if (r < 0)
			return r;
		if (field == 5)
			vf->trust = b;
		else
			vf->spoof_check = b;
		vf->set |= VF_BIT(field == 5 ? VF_TRUST : VF_SPOOF_CHECK);
		return 0;
	case 7:
		r = parse_vf_link_state(ctx, row, node, &e);
		if (r >= 0) {
			vf->link_state = (VfLinkState) e;
			vf->set |= VF_BIT(VF_LINK_STATE);
		}
		return r;
	case 8:
	case 9: /* Mbit/s: ifla_vf_rate's unit */
		r = expect_integer(ctx, row, node, 0, UINT32_MAX, &v);
		if (r < 0)
			return r;
		if (field == 8)
			vf->max_rate = (uint32_t) v;
		else
			vf->min_rate = (uint32_t) v;
		vf->set |= VF_BIT(field == 8 ? VF_MAX_RATE : VF_MIN_RATE);
		return 0;
	case 10:
	case 11:
		r = parse_vf_guid(ctx, row, node, &guid);
		if (r < 0)
			return r;
		if (field == 10)
			vf->node_guid = guid;
		else
			vf->port_guid = guid;
		vf->set |= VF_BIT(field == 10 ? VF_NODE_GUID : VF_PORT_GUID);
		return 0;
	}
	return -EINVAL;
}

/* One entry: {index: 0, mac: 02:00:00:00:00:01, vlan: 100, trust: true, ...}, into vf. Every
 * problem of the entry is reported, and what is valid is kept in vf even when -EINVAL is
 * returned: *has_index says whether vf->index was read, so that the checks across entries
 * (duplicates, sriov.vfs) still look at an entry whose index is fine and a field is not. The
 * checks across its own fields leave out the fields that were refused. */
static int parse_vf_entry(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, SriovVf *vf,
			  bool *has_index) {
	yaml_node_t *values[ELEMENTSOF(vf_fields)] = { 0 };
	char path[64], what[32];
	SchemaKey field_row = *row;
	bool index_ok = false;
	int r, ret = 0;

	*vf = (SriovVf){
		.line = node->start_mark.line + 1,
		.column = node->start_mark.column + 1,
	};
	*has_index = false;
	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node,
				    "'%s' entries are mappings like {index: 0, mac: "
				    "02:00:00:00:00:01}, got %s",
				    row->path, yaml_node_kind(node));
	/* An unknown key is reported and the known ones still read. */
	r = mapping_fields(ctx, row, node, vf_fields, ELEMENTSOF(vf_fields),
			   "index, mac, vlan, qos, vlan-protocol, trust, spoof-check, link-state, "
			   "max-rate, min-rate, node-guid or port-guid",
			   values);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		ret = r;
	if (!values[FIELD_INDEX]) {
		r = schema_error(ctx, node, "'%s': entry has no 'index'", row->path);
		if (r == -ENOMEM)
			return r;
		ret = r;
	}
	for (size_t i = 0; i < ELEMENTSOF(vf_fields); i++) {
		if (!values[i])
			continue;
		snprintf(path, sizeof(path), "%s.%s", row->path, vf_fields[i]);
		field_row.path = path;
		r = parse_vf_field(ctx, &field_row, i, values[i], vf);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ret = r;
		else if (i == FIELD_INDEX)
			index_ok = true;
	}
	*has_index = index_ok;

	if (index_ok)
		snprintf(what, sizeof(what), "VF %u", vf->index);
	else
		snprintf(what, sizeof(what), "the entry");
	/* A vlan declared but refused is not a missing one: said once, at its value. */
	if ((vf->set & (VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO))) && !values[FIELD_VLAN]) {
		r = schema_error(ctx, node,
				 "'%s': %s sets qos or vlan-protocol without a vlan (the kernel "
				 "takes the three together)",
				 row->path, what);
		if (r == -ENOMEM)
			return r;
		ret = r;
	}
	if ((vf->set & VF_BIT(VF_MAX_RATE)) && (vf->set & VF_BIT(VF_MIN_RATE)) && vf->max_rate &&
	    vf->min_rate > vf->max_rate) {
		r = schema_error(ctx, node,
				 "'%s': %s's min-rate %u is above its max-rate %u (Mbit/s)",
				 row->path, what, vf->min_rate, vf->max_rate);
		if (r == -ENOMEM)
			return r;
		ret = r;
	}
	return ret;
}

static int vf_compare(const void *a, const void *b) {
	const SriovVf *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

/* The entries whose index was read go into the profile even when another entry, or another
 * field of theirs, was refused (the profile is refused then too): schema_check_sriov() checks
 * their indexes against sriov.vfs, which may come later in the document. */
int parse_sriov_vf(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	PortSettings *s = dest;
	_cleanup_free_ SriovVf *vfs = NULL;
	size_t n = 0;
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list, got %s", row->path,
				    yaml_node_kind(node));
	vfs = calloc(node_n_items(node) + 1, sizeof(SriovVf));
	if (!vfs)
		return -ENOMEM;
	for (yaml_node_item_t *i = node->data.sequence.items.start;
	     i < node->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(ctx->document, *i);
		bool has_index;
		SriovVf vf;

		r = parse_vf_entry(ctx, row, item, &vf, &has_index);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ret = r;
		if (!has_index)
			continue;
		r = 0;
		for (size_t k = 0; k < n; k++)
			if (vfs[k].index == vf.index)
				r = schema_error(ctx, item,
						 "'%s': VF %u is declared twice (first at line %u)",
						 row->path, vf.index, vfs[k].line);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ret = r;
			continue;
		}
		vfs[n++] = vf;
	}
	qsort(vfs, n, sizeof(SriovVf), vf_compare);
	free(s->sriov_vf);
	s->sriov_vf = TAKE_PTR(vfs);
	s->n_sriov_vf = n;
	ctx->sriov_vf = node;
	return ret;
}

/* pci.max-read-request: what the Device Control register's 3-bit field can say, 128 << n. */
int parse_max_read_request(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			   void *dest) {
	long long v;
	int r;

	r = expect_integer(ctx, row, node, row->min, row->max, &v);
	if (r < 0)
		return r;
	if (v & (v - 1))
		return schema_error(
			ctx, node,
			"'%s': %lld is not a size PCIe can ask for: 128, 256, 512, 1024, "
			"2048 or 4096 bytes",
			row->path, v);
	*(unsigned *) dest = (unsigned) v;
	return 0;
}

/* A VF index at or past the sriov.vfs the same profile declares names a VF that will not
 * exist: said at the entry. (Against the device's sriov_totalvfs, the planner says it.) */
int schema_check_sriov(SchemaContext *ctx) {
	const PortSettings *s = &ctx->profile->settings;
	int ret = 0;

	if (!ctx->sriov_vf || !(s->set & KEY_BIT(KEY_SRIOV_VFS)))
		return 0;
	for (size_t i = 0; i < s->n_sriov_vf; i++) {
		const SriovVf *vf = &s->sriov_vf[i];

		if (vf->index < s->sriov_vfs)
			continue;
		/* the entry's own position: the list node is where the diagnostic would be
		 * otherwise, and the entry is what is wrong */
		ret = diagnostics_add(ctx->diags, ctx->file, vf->line, vf->column,
				      "'sriov.vf': VF %u is past 'sriov.vfs: %u' (VFs are numbered "
				      "from 0)",
				      vf->index, s->sriov_vfs);
		if (ret < 0)
			return ret;
		ret = -EINVAL;
	}
	return ret;
}
