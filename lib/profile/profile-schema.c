/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <strings.h>

#include "glob-util.h"
#include "profile-schema.h"
#include "rail.h"
#include "strmap.h"
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

static const char *scalar(const yaml_node_t *node) {
	return (const char *) node->data.scalar.value;
}

static bool scalar_is_null(const yaml_node_t *node) {
	const char *s = NULL;

	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = scalar(node);
	return streq(s, "") || streq(s, "~") || streq(s, "null");
}

static int expect_string(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			 const char **ret) {
	if (node->type != YAML_SCALAR_NODE || scalar_is_null(node))
		return schema_error(ctx, node, "'%s' expects a string, got %s", row->path,
				    scalar_is_null(node) ? "null" : yaml_node_kind(node));
	*ret = scalar(node);
	return 0;
}

/* Integers are plain decimal scalars: "106", not "0x6a" nor the string "106". */
static int expect_integer(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			  long long min, long long max, long long *ret) {
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
static int for_each_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
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

/* The strings of a list as it is parsed: sized once from the node, duplicates found by hash
 * (a list may hold 500,000 items: no scan of the ones before, no realloc per item). */
typedef struct ItemList {
	char **strv;
	size_t n;
	StrMap seen;
} ItemList;

static size_t node_n_items(const yaml_node_t *node) {
	if (node->type != YAML_SEQUENCE_NODE)
		return 1;
	return node->data.sequence.items.top - node->data.sequence.items.start;
}

static int item_list_init(ItemList *l, const yaml_node_t *node) {
	*l = (ItemList){ .strv = calloc(node_n_items(node) + 1, sizeof(char *)) };
	return l->strv ? 0 : -ENOMEM;
}

/* -EEXIST if unique and s is already there. */
static int item_list_add(ItemList *l, const char *s, bool unique) {
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

static void item_list_done(ItemList *l) {
	strv_free(l->strv);
	strmap_done(&l->seen);
	*l = (ItemList){ 0 };
}

static char **item_list_steal(ItemList *l) {
	char **strv = TAKE_PTR(l->strv);

	item_list_done(l);
	return strv;
}

static int glob_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *userdata) {
	const char *s = NULL;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	r = glob_validate(s);
	if (r < 0)
		return schema_error(ctx, node, "'%s': invalid glob '%s': %s", row->path, s,
				    glob_error_to_string(r));
	return item_list_add(userdata, s, false);
}

static int parse_globs(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	_cleanup_(item_list_done) ItemList l = { 0 };
	int r;

	if (node->type == YAML_SEQUENCE_NODE &&
	    node->data.sequence.items.start == node->data.sequence.items.top)
		return schema_error(ctx, node,
				    "'%s' must not be an empty list (it would match nothing)",
				    row->path);
	r = item_list_init(&l, node);
	if (r < 0)
		return r;
	r = for_each_item(ctx, row, node, glob_item, &l);
	if (r < 0)
		return r;
	strv_free(*(char ***) dest);
	*(char ***) dest = item_list_steal(&l);
	return 0;
}

static int port_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *userdata) {
	Match *m = userdata;
	uint32_t *p;
	long long v;
	int r;

	r = expect_integer(ctx, row, node, row->min, row->max, &v);
	if (r < 0)
		return r;
	p = m->ports; /* sized by parse_ports() */
	p[m->n_ports++] = (uint32_t) v;
	return 0;
}

static int parse_ports(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	_cleanup_free_ uint32_t *old = NULL;
	Match *m = dest;
	size_t n_old;
	int r;

	old = TAKE_PTR(m->ports);
	n_old = m->n_ports;
	m->n_ports = 0;
	m->ports = calloc(node_n_items(node), sizeof(uint32_t));
	if (!m->ports) {
		m->ports = TAKE_PTR(old);
		m->n_ports = n_old;
		return -ENOMEM;
	}
	r = for_each_item(ctx, row, node, port_item, m);
	if (r < 0 || m->n_ports == 0) {
		free(m->ports);
		m->ports = TAKE_PTR(old);
		m->n_ports = n_old;
		return r < 0 ? r : schema_error(ctx, node, "'%s' must not be empty", row->path);
	}
	return 0;
}

static bool module_name_valid(const char *s) {
	if (!*s || strlen(s) >= 56) /* MODULE_NAME_LEN - 1 */
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static int module_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		       void *userdata) {
	const char *s = NULL;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (!module_name_valid(s))
		return schema_error(ctx, node, "'%s': '%s' is not a kernel module name", row->path,
				    s);
	r = item_list_add(userdata, s, true);
	if (r == -EEXIST)
		return schema_error(ctx, node, "'%s': module '%s' is listed twice", row->path, s);
	return r;
}

static int parse_modules(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	_cleanup_(item_list_done) ItemList l = { 0 };
	int r;

	r = item_list_init(&l, node); /* an empty list is a valid, empty, declaration */
	if (r < 0)
		return r;
	r = for_each_item(ctx, row, node, module_item, &l);
	if (r < 0)
		return r;
	strv_free(*(char ***) dest);
	*(char ***) dest = item_list_steal(&l);
	return 0;
}

/* A hw counter name as drivers spell them: lower-case letters, digits and '_' ("np_cnp_sent",
 * "cc_rx_ce_pkts"), shorter than HW_COUNTER_NAME_MAX. */
static bool counter_name_valid(const char *s) {
	size_t n = strlen(s);

	if (n == 0 || n >= HW_COUNTER_NAME_MAX)
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
			return false;
	return true;
}

static int counter_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			void *userdata) {
	const char *s = NULL;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (!counter_name_valid(s))
		return schema_error(
			ctx, node,
			"'%s': '%s' is not a hw counter name (lower-case letters, digits "
			"and '_', as `rdma statistic mode supported` lists them)",
			row->path, s);
	r = item_list_add(userdata, s, true);
	if (r == -EEXIST)
		return schema_error(ctx, node, "'%s': counter '%s' is listed twice", row->path, s);
	return r;
}

/* counters.optional: the whole set of optional counters to enable ([] disables them all). */
static int parse_counters(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	_cleanup_(item_list_done) ItemList l = { 0 };
	int r;

	r = item_list_init(&l, node); /* an empty list is a valid, empty, declaration */
	if (r < 0)
		return r;
	r = for_each_item(ctx, row, node, counter_item, &l);
	if (r < 0)
		return r;
	strv_free(*(char ***) dest);
	*(char ***) dest = item_list_steal(&l);
	return 0;
}

static int parse_unsigned(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	long long v;
	int r;

	r = expect_integer(ctx, row, node, row->min, row->max, &v);
	if (r < 0)
		return r;
	*(unsigned *) dest = (unsigned) v;
	return 0;
}

static int parse_bool(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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
	static int parse_##name(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,       \
				void *dest) {                                                      \
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

typedef struct AddressList {
	Address *items; /* sized by parse_addresses() */
	size_t n;
	StrMap seen; /* family, address and prefix length: the bytes address_equal() compares */
} AddressList;

static int address_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			void *userdata) {
	AddressList *l = userdata;
	uint8_t key[sizeof(int) + 16 + 1];
	const char *s = NULL;
	Address a;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if (!strchr(s, '/'))
		return schema_error(ctx, node,
				    "'%s': '%s' has no prefix length (write %s/24 or %s/64)",
				    row->path, s, s, s);
	r = address_from_string(s, &a);
	if (r < 0)
		return schema_error(ctx, node,
				    "'%s': '%s' is not an IPv4 or IPv6 address with a "
				    "prefix length",
				    row->path, s);
	memset(key, 0, sizeof(key));
	memcpy(key, &a.family, sizeof(a.family));
	memcpy(key + sizeof(a.family), a.addr, sizeof(a.addr));
	key[sizeof(key) - 1] = a.prefixlen;
	r = strmap_add(&l->seen, key, sizeof(key), l->n, NULL);
	if (r == -EEXIST)
		return schema_error(ctx, node, "'%s': '%s' is listed twice", row->path, s);
	if (r < 0)
		return r;
	l->items[l->n++] = a;
	return 0;
}

static int parse_addresses(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			   void *dest) {
	PortSettings *s = dest;
	AddressList l = { 0 };
	int r;

	l.items = calloc(node_n_items(node), sizeof(Address));
	if (!l.items)
		return -ENOMEM;
	r = for_each_item(ctx, row, node, address_item, &l);
	strmap_done(&l.seen);
	if (r < 0) {
		free(l.items);
		return r;
	}
	free(s->addresses);
	s->addresses = l.items;
	s->n_addresses = l.n;
	return 0;
}

/* security.roce-allow-from: a list of prefixes ("192.0.2.0/24", "2001:db8::/32"; an address
 * alone is one host), each once and without host bits. An empty list is valid: every
 * source is dropped. */
static int allow_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		      void *userdata) {
	AddressList *l = userdata;
	_cleanup_free_ char *canon = NULL;
	Address a, *p;
	const char *s = NULL;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	r = address_from_string(s, &a);
	if (r < 0)
		return schema_error(ctx, node,
				    "'%s': '%s' is not an IPv4 or IPv6 prefix (192.0.2.0/24, "
				    "2001:db8::/32) or address",
				    row->path, s);
	if (!address_is_prefix(&a)) {
		Address net = a;
		unsigned len = a.family == AF_INET ? 4 : 16;

		for (unsigned bit = a.prefixlen; bit < len * 8; bit++)
			net.addr[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
		canon = address_to_string(&net);
		return schema_error(ctx, node,
				    "'%s': '%s' has host bits set: did you mean %s?", row->path, s,
				    strna(canon));
	}
	for (size_t i = 0; i < l->n; i++)
		if (address_equal(&l->items[i], &a))
			return schema_error(ctx, node, "'%s': '%s' is listed twice", row->path, s);
	p = realloc(l->items, sizeof(Address) * (l->n + 1));
	if (!p)
		return -ENOMEM;
	l->items = p;
	l->items[l->n++] = a;
	return 0;
}

static int parse_roce_allow_from(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
				 void *dest) {
	PortSettings *s = dest;
	AddressList l = { 0 };
	int r;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of prefixes, got %s",
				    row->path, yaml_node_kind(node));
	r = for_each_item(ctx, row, node, allow_item, &l);
	if (r < 0) {
		free(l.items);
		return r;
	}
	free(s->roce_allow_from);
	s->roce_allow_from = l.items;
	s->n_roce_allow_from = l.n;
	return 0;
}

/* true (a table rdmad picks), false (none), or a table number. */
static int parse_rail_routing(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			      void *dest) {
	PortSettings *s = dest;
	long long v;
	int r;

	if (node->type == YAML_SCALAR_NODE && node->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	    (streq(scalar(node), "true") || streq(scalar(node), "false"))) {
		s->rail_routing = streq(scalar(node), "true");
		s->rail_table = 0;
		return 0;
	}
	if (node->type != YAML_SCALAR_NODE || node->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return schema_error(ctx, node,
				    "'%s' expects true, false or a routing table number, got %s",
				    row->path, yaml_node_kind(node));
	r = expect_integer(ctx, row, node, row->min, row->max, &v);
	if (r < 0)
		return r;
	if (!rail_table_valid((uint64_t) v))
		return schema_error(ctx, node,
				    "'%s': table %lld is reserved (253 default, 254 main, 255 "
				    "local); use true or another number",
				    row->path, v);
	s->rail_routing = true;
	s->rail_table = (uint32_t) v;
	return 0;
}

static int gid_requirement_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
				void *userdata) {
	GidRequirement g;
	int r;

	r = parse_gid_requirement(ctx, row, node, &g);
	if (r < 0)
		return r;
	*(uint32_t *) userdata |= UINT32_C(1) << g;
	return 0;
}

static int parse_gid_requirements(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
				  void *dest) {
	uint32_t mask = 0;
	int r;

	r = for_each_item(ctx, row, node, gid_requirement_item, &mask);
	if (r < 0)
		return r;
	*(uint32_t *) dest = mask;
	return 0;
}

/* gids.publish: {roce: v1|v2, family: ipv4|ipv6|link-local, subnet: PREFIX}, each optional. */
static int parse_gid_publish(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			     void *dest) {
	GidChoice c = GID_CHOICE_DEFAULT;
	yaml_node_t *subnet = NULL;
	int r, ret = 0;

	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node,
				    "'%s' expects a mapping of roce, family and subnet, got %s",
				    row->path, yaml_node_kind(node));
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(ctx->document, p->key);
		yaml_node_t *v = yaml_document_get_node(ctx->document, p->value);
		const char *name = k->type == YAML_SCALAR_NODE ? scalar(k) : "", *s = NULL;
		Address a;

		r = expect_string(ctx, row, v, &s);
		if (r < 0)
			;
		else if (streq(name, "roce")) {
			c.type = streq(s, "v1") ? GID_TYPE_ROCE_V1
				 : streq(s, "v2") ? GID_TYPE_ROCE_V2
						  : _GID_TYPE_INVALID;
			if (c.type < 0)
				r = schema_error(ctx, v, "'%s.roce': expects v1 or v2, got '%s'",
						 row->path, s);
		} else if (streq(name, "family")) {
			c.family = gid_family_from_string(s);
			if (c.family < 0)
				r = schema_error(ctx, v,
						 "'%s.family': expects ipv4, ipv6 or link-local, "
						 "got '%s'",
						 row->path, s);
		} else if (streq(name, "subnet")) {
			if (address_from_string(s, &a) < 0 || !strchr(s, '/'))
				r = schema_error(ctx, v,
						 "'%s.subnet': '%s' is not an IPv4 or IPv6 prefix "
						 "(192.0.2.0/24, 2001:db8::/64)",
						 row->path, s);
			else if (!address_is_prefix(&a))
				r = schema_error(ctx, v,
						 "'%s.subnet': '%s' has host bits set: a subnet is "
						 "its network address and length",
						 row->path, s);
			else {
				c.subnet_family = a.family;
				memcpy(c.subnet, a.addr, sizeof(c.subnet));
				c.subnet_prefixlen = a.prefixlen;
				subnet = v;
			}
		} else
			r = schema_error(ctx, k, "'%s': unknown key '%s' (roce, family, subnet)",
					 row->path, name);
		if (r < 0)
			ret = r;
	}
	if (ret < 0)
		return ret;
	if (subnet && c.family >= 0 &&
	    (c.subnet_family == AF_INET) != (c.family == GID_FAMILY_IPV4))
		return schema_error(ctx, subnet, "'%s.subnet': an %s subnet, but family is %s",
				    row->path, c.subnet_family == AF_INET ? "IPv4" : "IPv6",
				    gid_family_to_string(c.family));
	*(GidChoice *) dest = c;
	return 0;
}

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
static int parse_priorities(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			    void *dest) {
	uint8_t mask = 0;
	int r;

	r = for_each_item(ctx, row, node, priority_item, &mask);
	if (r < 0)
		return r;
	*(uint8_t *) dest = mask;
	return 0;
}

static int parse_dscp_map(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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
			row->key == KEY_QOS_ETS_PRIO_TC ? "priority" : "traffic class", n);
	for (size_t i = 0; i < 8; i++) {
		yaml_node_t *item =
			yaml_document_get_node(ctx->document, node->data.sequence.items.start[i]);

		r = expect_integer(ctx, row, item, row->min, row->max, &ret[i]);
		if (r < 0)
			ret_r = r;
	}
	return ret_r;
}

static int parse_u8_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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

static int parse_tsa_array(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			   void *dest) {
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
static int parse_maxrate(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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

int schema_check_profile(SchemaContext *ctx) {
	_cleanup_free_ char *error = NULL;
	int r;

	if (!ctx->ets_tc_bw)
		return 0;
	r = port_settings_validate(&ctx->profile->settings, &error);
	if (r == -EINVAL)
		return schema_error(ctx, ctx->ets_tc_bw, "%s", error);
	return r;
}

/* links: [{name: rxe0, type: rxe, netdev: veth0}, ...] */
static int parse_soft_device(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			     SoftDevice *ret) {
	static const char *const fields[] = { "name", "type", "netdev" };
	yaml_node_t *values[ELEMENTSOF(fields)] = { 0 };
	_cleanup_free_ char *name = NULL, *netdev = NULL;
	SoftDeviceType type = _SOFT_DEVICE_INVALID;
	const char *s = NULL;
	int r;

	if (node->type != YAML_MAPPING_NODE)
		return schema_error(ctx, node,
				    "'%s' entries are mappings like {name: rxe0, type: "
				    "rxe, netdev: eth0}, got %s",
				    row->path, yaml_node_kind(node));
	for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(ctx->document, p->key);
		size_t i;

		if (k->type != YAML_SCALAR_NODE)
			return schema_error(ctx, k, "'%s': keys must be strings", row->path);
		for (i = 0; i < ELEMENTSOF(fields); i++)
			if (streq(scalar(k), fields[i]))
				break;
		if (i == ELEMENTSOF(fields))
			return schema_error(ctx, k,
					    "'%s': unknown key '%s', expected name, type "
					    "and netdev",
					    row->path, scalar(k));
		if (values[i])
			return schema_error(ctx, k, "'%s': duplicate key '%s'", row->path,
					    scalar(k));
		values[i] = yaml_document_get_node(ctx->document, p->value);
	}
	for (size_t i = 0; i < ELEMENTSOF(fields); i++)
		if (!values[i])
			return schema_error(ctx, node, "'%s': entry has no '%s'", row->path,
					    fields[i]);

	r = expect_string(ctx, row, values[0], &s);
	if (r < 0)
		return r;
	/* The validator apply uses: what check accepts, the kernel is sent. */
	if (!rdma_device_name_valid(s))
		return schema_error(ctx, values[0],
				    "'%s': '%s' is not a valid RDMA device name (1-63 printable "
				    "characters, no space, '/' or '%%', not . or ..)",
				    row->path, s);
	name = strdup(s);
	r = parse_soft_device_type(ctx, row, values[1], &type);
	if (r < 0)
		return r;
	r = expect_string(ctx, row, values[2], &s);
	if (r < 0)
		return r;
	if (!netdev_name_valid(s))
		return schema_error(ctx, values[2],
				    "'%s': '%s' is not a valid netdev name (1-15 printable "
				    "characters, no space, '/', ':' or '%%', not . or ..)",
				    row->path, s);
	netdev = strdup(s);
	if (!name || !netdev)
		return -ENOMEM;
	*ret = (SoftDevice){
		.name = TAKE_PTR(name),
		.type = type,
		.netdev = TAKE_PTR(netdev),
		.line = node->start_mark.line + 1,
		.column = node->start_mark.column + 1,
	};
	return 0;
}

static int parse_links(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
		       void *dest _unused_) {
	Profile *p = ctx->profile;
	_cleanup_(strmap_done) StrMap names = { 0 };
	SoftDevice *links;
	size_t n = 0;
	int r, ret = 0;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list, got %s", row->path,
				    yaml_node_kind(node));
	links = calloc(node->data.sequence.items.top - node->data.sequence.items.start + 1,
		       sizeof(SoftDevice));
	if (!links)
		return -ENOMEM;
	for (yaml_node_item_t *i = node->data.sequence.items.start;
	     i < node->data.sequence.items.top; i++) {
		yaml_node_t *item = yaml_document_get_node(ctx->document, *i);
		SoftDevice l = { 0 };

		r = parse_soft_device(ctx, row, item, &l);
		if (r < 0) {
			ret = r;
			continue;
		}
		r = strmap_add(&names, l.name, strlen(l.name), n, NULL);
		if (r == -EEXIST)
			ret = schema_error(ctx, item, "'%s': link '%s' is declared twice",
					   row->path, l.name);
		else if (r < 0)
			ret = r;
		links[n++] = l;
	}
	if (ret < 0) {
		soft_devices_free(links, n);
		return ret;
	}
	soft_devices_free(p->soft_devices, p->n_soft_devices);
	p->soft_devices = links;
	p->n_soft_devices = n;
	return 0;
}

#define PROFILE_FIELD(f) offsetof(Profile, f)

/* The profile language, one row per key. Sections are rows without a parser. */
/* clang-format off */
static const SchemaKey schema_table[] = {
	/* path               key                      parser                  offset                                   min  max */
	{ "match",            _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "match.device",     KEY_MATCH_DEVICE,        parse_globs,            PROFILE_FIELD(match.device),             0, 0 },
	{ "match.driver",     KEY_MATCH_DRIVER,        parse_globs,            PROFILE_FIELD(match.driver),             0, 0 },
	{ "match.netdev",     KEY_MATCH_NETDEV,        parse_globs,            PROFILE_FIELD(match.netdev),             0, 0 },
	{ "match.pci",        KEY_MATCH_PCI,           parse_globs,            PROFILE_FIELD(match.pci),                0, 0 },
	{ "match.port",       KEY_MATCH_PORT,          parse_ports,            PROFILE_FIELD(match),                    1, 255 },
	{ "modules",          KEY_MODULES,             parse_modules,          PROFILE_FIELD(modules),                  0, 0 },
	{ "roce",             _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "roce.mode",        KEY_ROCE_MODE,           parse_roce_mode,        PROFILE_FIELD(settings.roce_mode),       0, 0 },
	{ "roce.tos",         KEY_ROCE_TOS,            parse_unsigned,         PROFILE_FIELD(settings.roce_tos),        0, 255 },
	{ "netdev",           _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "netdev.up",        KEY_NETDEV_UP,           parse_bool,             PROFILE_FIELD(settings.netdev_up),       0, 0 },
	{ "netdev.mtu",       KEY_NETDEV_MTU,          parse_unsigned,         PROFILE_FIELD(settings.netdev_mtu),      68, 65535 },
	{ "netdev.addresses", KEY_NETDEV_ADDRESSES,    parse_addresses,        PROFILE_FIELD(settings),                 0, 0 },
	{ "netdev.rail-routing", KEY_NETDEV_RAIL_ROUTING, parse_rail_routing,  PROFILE_FIELD(settings),                 1, RAIL_TABLE_MAX },
	{ "gids",             _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "gids.require",     KEY_GIDS_REQUIRE,        parse_gid_requirements, PROFILE_FIELD(settings.gids_require),    0, 0 },
	{ "gids.publish",     KEY_GIDS_PUBLISH,        parse_gid_publish,      PROFILE_FIELD(settings.gids_publish),    0, 0 },
	{ "qos",              _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "qos.owner",        KEY_QOS_OWNER,           parse_qos_owner,        PROFILE_FIELD(settings.qos_owner),       0, 0 },
	{ "qos.trust",        KEY_QOS_TRUST,           parse_qos_trust,        PROFILE_FIELD(settings.qos_trust),       0, 0 },
	{ "qos.pfc",          KEY_QOS_PFC,             parse_priorities,       PROFILE_FIELD(settings.qos_pfc),         0, 0 },
	{ "qos.dscp-map",     KEY_QOS_DSCP_MAP,        parse_dscp_map,         PROFILE_FIELD(settings.qos_dscp_map),    0, 0 },
	{ "qos.ets",          _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "qos.ets.prio-tc",  KEY_QOS_ETS_PRIO_TC,     parse_u8_array,         PROFILE_FIELD(settings.ets_prio_tc),     0, N_TC - 1 },
	{ "qos.ets.tc-bw",    KEY_QOS_ETS_TC_BW,       parse_u8_array,         PROFILE_FIELD(settings.ets_tc_bw),       0, 100 },
	{ "qos.ets.tsa",      KEY_QOS_ETS_TSA,         parse_tsa_array,        PROFILE_FIELD(settings.ets_tsa),         0, 0 },
	{ "qos.maxrate",      KEY_QOS_MAXRATE,         parse_maxrate,          PROFILE_FIELD(settings.qos_maxrate),     0, 0 },
	{ "ecn",              _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "ecn.roce-np",      KEY_ECN_ROCE_NP,         parse_priorities,       PROFILE_FIELD(settings.ecn_roce_np),     0, 0 },
	{ "ecn.roce-rp",      KEY_ECN_ROCE_RP,         parse_priorities,       PROFILE_FIELD(settings.ecn_roce_rp),     0, 0 },
	{ "counters",         _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "counters.optional", KEY_COUNTERS_OPTIONAL,  parse_counters,         PROFILE_FIELD(settings.counters_optional), 0, 0 },
	{ "security",         _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "security.roce-allow-from", KEY_SECURITY_ROCE_ALLOW_FROM, parse_roce_allow_from, PROFILE_FIELD(settings), 0, 0 },
	{ "links",            KEY_LINKS,               parse_links,            0,                                       0, 0 },
	{ "system",           _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "system.netns-mode", KEY_SYSTEM_NETNS_MODE,  parse_netns_mode,       PROFILE_FIELD(netns_mode),               0, 0 },
};
/* clang-format on */

const SchemaKey *schema_find(const char *path) {
	for (size_t i = 0; i < ELEMENTSOF(schema_table); i++)
		if (streq(schema_table[i].path, path))
			return &schema_table[i];
	return NULL;
}

const SchemaKey *schema_keys(size_t *ret_n) {
	*ret_n = ELEMENTSOF(schema_table);
	return schema_table;
}

static size_t edit_distance(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(size_t) * (lb + 1));
	}
	return prev[lb];
}

const char *schema_suggest(const char *parent, const char *name) {
	size_t plen = parent ? strlen(parent) : 0, best = SIZE_MAX;
	const char *found = NULL;

	for (size_t i = 0; i < ELEMENTSOF(schema_table); i++) {
		const char *path = schema_table[i].path, *leaf;
		size_t d;

		if (parent) {
			if (strncmp(path, parent, plen) != 0 || path[plen] != '.')
				continue;
			leaf = path + plen + 1;
		} else
			leaf = path;
		if (strchr(leaf, '.'))
			continue;
		d = edit_distance(name, leaf);
		/* Close enough: a typo or two, not a different word. */
		if (d < best && d <= (strlen(leaf) <= 3 ? 1 : 2)) {
			best = d;
			found = leaf;
		}
	}
	return found;
}
