/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The primitives of the value parsers: errors at a node, scalars, integers in a row's range,
 * lists (sized once, duplicates found by hash), booleans and the choices of a string table. */
#include <stdarg.h>

#include "profile-values.h"
#include "strv.h"

int schema_error(SchemaContext *ctx, const yaml_node_t *node, const char *format, ...) {
	_cleanup_free_ char *m = NULL;
	va_list ap;
	int r;

	if (diagnostics_full(ctx->diags, ctx->file)) /* only counted: no need to format it */
		return diagnostics_add(ctx->diags, ctx->file, 0, 0, "-") < 0 ? -ENOMEM : -EINVAL;
	va_start(ap, format);
	r = vasprintf(&m, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = diagnostics_add(ctx->diags, ctx->file, node->start_mark.line + 1,
			    node->start_mark.column + 1, "%s", m);
	return r < 0 ? r : -EINVAL;
}

const char *yaml_node_kind(const yaml_node_t *node) {
	switch (node->type) {
	case YAML_SCALAR_NODE:
		if (node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
			return "a string";
		if (node->data.scalar.length == 0 ||
		    streq((const char *) node->data.scalar.value, "~") ||
		    streq((const char *) node->data.scalar.value, "null"))
			return "null (nothing)";
		return "a scalar";
	case YAML_SEQUENCE_NODE:
		return "a list";
	case YAML_MAPPING_NODE:
		return "a mapping";
	default:
		return "nothing";
	}
}

const char *scalar(const yaml_node_t *node) {
	return (const char *) node->data.scalar.value;
}

static bool scalar_is_null(const yaml_node_t *node) {
	const char *s = NULL;

	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = scalar(node);
	return streq(s, "") || streq(s, "~") || streq(s, "null");
}

int expect_string(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, const char **ret) {
	if (node->type != YAML_SCALAR_NODE || scalar_is_null(node))
		return schema_error(ctx, node, "'%s' expects a string, got %s", row->path,
				    scalar_is_null(node) ? "null" : yaml_node_kind(node));
	*ret = scalar(node);
	return 0;
}

/* Integers are plain decimal scalars: "106", not "0x6a" nor the string "106". */
int expect_integer(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, long long min,
		   long long max, long long *ret) {
	const char *s = NULL;
	char *end;
	long long v;

	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return schema_error(ctx, node, "'%s' expects an integer, got %s", row->path,
				    yaml_node_kind(node));
	s = scalar(node);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end || errno == ERANGE || !(*s == '-' || (*s >= '0' && *s <= '9')))
		return schema_error(ctx, node, "'%s' expects an integer, got '%s'", row->path, s);
	/* YAML 1.1 reads 052 as octal (42), other readers as 52: refuse the ambiguity. */
	if (s[*s == '-'] == '0' && s[(*s == '-') + 1] != 0)
		return schema_error(ctx, node,
				    "'%s': '%s' has a leading zero, which YAML 1.1 reads as octal; "
				    "write the decimal number without it",
				    row->path, s);
	if (v < min || v > max)
		return schema_error(ctx, node, "'%s' must be in %lld..%lld, got %lld", row->path,
				    min, max, v);
	*ret = v;
	return 0;
}

/* A scalar or a list of scalars: calls f for each. */
int for_each_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		  int (*f)(SchemaContext *, const SchemaKey *, yaml_node_t *, void *),
		  void *userdata) {
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return f(ctx, row, node, userdata);

	for (yaml_node_item_t *i = node->data.sequence.items.start;
	     i < node->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(ctx->document, *i);

		if (item->type != YAML_SCALAR_NODE) {
			ret = schema_error(ctx, item, "'%s' expects a list of scalars, got %s",
					   row->path, yaml_node_kind(item));
			continue;
		}
		r = f(ctx, row, item, userdata);
		if (r < 0)
			ret = r;
	}
	return ret;
}

size_t node_n_items(const yaml_node_t *node) {
	if (node->type != YAML_SEQUENCE_NODE)
		return 1;
	return node->data.sequence.items.top - node->data.sequence.items.start;
}

int item_list_init(ItemList *l, const yaml_node_t *node) {
	*l = (ItemList){ .strv = calloc(node_n_items(node) + 1, sizeof(char *)) };
	return l->strv ? 0 : -ENOMEM;
}

/* -EEXIST if unique and s is already there. */
int item_list_add(ItemList *l, const char *s, bool unique) {
	char *copy;
	int r;

	if (unique) {
		r = strmap_add(&l->seen, s, strlen(s), l->n, NULL);
		if (r < 0)
			return r;
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	l->strv[l->n++] = copy;
	return 0;
}

void item_list_done(ItemList *l) {
	strv_free(l->strv);
	strmap_done(&l->seen);
	*l = (ItemList){ 0 };
}

char **item_list_steal(ItemList *l) {
	char **strv = TAKE_PTR(l->strv);

	item_list_done(l);
	return strv;
}

int parse_item_list(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		    int (*item)(SchemaContext *, const SchemaKey *, yaml_node_t *, void *),
		    void *dest) {
	_cleanup_(item_list_done) ItemList l = { 0 };
	int r;

	r = item_list_init(&l, node); /* an empty list is a valid, empty, declaration */
	if (r < 0)
		return r;
	r = for_each_item(ctx, row, node, item, &l);
	if (r < 0)
		return r;
	strv_free(*(char ***) dest);
	*(char ***) dest = item_list_steal(&l);
	return 0;
}

int parse_unsigned(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	long long v;
	int r;

	r = expect_integer(ctx, row, node, row->min, row->max, &v);
	if (r < 0)
		return r;
	*(unsigned *) dest = (unsigned) v;
	return 0;
}

int parse_bool(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	const char *s = node->type == YAML_SCALAR_NODE ? scalar(node) : NULL;

	if (!s || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE ||
	    !(streq(s, "true") || streq(s, "false")))
		return schema_error(ctx, node, "'%s' expects true or false, got %s%s%s", row->path,
				    s ? "'" : "", s ? s : yaml_node_kind(node), s ? "'" : "");
	*(bool *) dest = streq(s, "true");
	return 0;
}

/* Enumerations: one parser per string table, listing the choices when the value is wrong. */
static int parse_choice(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, int *dest,
			int (*from_string)(const char *), const char *(*to_string)(int), int n) {
	_cleanup_free_ char *choices = NULL;
	const char *s = NULL;
	size_t len = 0;
	int r, v;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	v = from_string(s);
	if (v >= 0) {
		*dest = v;
		return 0;
	}
	for (int i = 0; i < n; i++)
		len += strlen(to_string(i)) + 2;
	choices = calloc(len + 1, 1);
	if (!choices)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		if (i > 0)
			strcat(choices, ", ");
		strcat(choices, to_string(i));
	}
	return schema_error(ctx, node, "'%s': unknown value '%s', expected one of: %s", row->path,
			    s, choices);
}

#define DEFINE_CHOICE_PARSER(name, type, max)                                                      \
	static int name##_from_string_int(const char *s) {                                         \
		return (int) name##_from_string(s);                                                \
	}                                                                                          \
	static const char *name##_to_string_int(int i) {                                           \
		return name##_to_string((type) i);                                                 \
	}                                                                                          \
	int parse_##name(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,              \
			 void *dest) {                                                             \
		int v, r;                                                                          \
		r = parse_choice(ctx, row, node, &v, name##_from_string_int, name##_to_string_int, \
				 max);                                                             \
		if (r >= 0)                                                                        \
			*(type *) dest = (type) v;                                                 \
		return r;                                                                          \
	}

DEFINE_CHOICE_PARSER(roce_mode, RoceMode, _ROCE_MODE_MAX)
DEFINE_CHOICE_PARSER(qos_trust, QosTrust, _QOS_TRUST_MAX)
DEFINE_CHOICE_PARSER(qos_owner, QosOwner, _QOS_OWNER_MAX)
DEFINE_CHOICE_PARSER(netns_mode, NetnsMode, _NETNS_MODE_MAX)
DEFINE_CHOICE_PARSER(ets_tsa, EtsTsa, _ETS_TSA_MAX)
DEFINE_CHOICE_PARSER(gid_requirement, GidRequirement, _GID_REQUIREMENT_MAX)
DEFINE_CHOICE_PARSER(soft_device_type, SoftDeviceType, _SOFT_DEVICE_MAX)
DEFINE_CHOICE_PARSER(eswitch_mode, EswitchMode, _ESWITCH_MODE_MAX)
DEFINE_CHOICE_PARSER(pci_acs, PciAcs, _PCI_ACS_MAX)
DEFINE_CHOICE_PARSER(vf_link_state, VfLinkState, _VF_LINK_STATE_MAX)
DEFINE_CHOICE_PARSER(vlan_protocol, VlanProtocol, _VLAN_PROTOCOL_MAX)
DEFINE_CHOICE_PARSER(probe_mesh, ProbeMesh, _PROBE_MESH_MAX)
DEFINE_CHOICE_PARSER(devlink_reload, DevlinkReload, _DEVLINK_RELOAD_MAX)

int mapping_fields(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		   const char *const *fields, size_t n, const char *expected,
		   yaml_node_t **values) {
	int r, ret = 0;

	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(ctx->document, p->key);

		if (k->type != YAML_SCALAR_NODE)
			r = schema_error(ctx, k, "'%s': keys must be strings", row->path);
		else {
			size_t i;

			for (i = 0; i < n; i++)
				if (streq(scalar(k), fields[i]))
					break;
			if (i == n)
				r = schema_error(ctx, k, "'%s': unknown key '%s', expected %s",
						 row->path, scalar(k), expected);
			else if (values[i])
				r = schema_error(ctx, k, "'%s': duplicate key '%s'", row->path,
						 scalar(k));
			else {
				values[i] = yaml_document_get_node(ctx->document, p->value);
				r = 0;
			}
		}
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			ret = r; /* the other keys are still looked at, and their values kept */
	}
	return ret;
}
