/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The value parsers of globs, ports, modules, counters, addresses, the firewall and rail keys,
 * GID requirements and publishing, and the links: section. */
#include <arpa/inet.h>

#include "glob-util.h"
#include "profile-values.h"
#include "rail.h"
#include "strv.h"

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

int parse_globs(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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

int parse_ports(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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

int parse_modules(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	return parse_item_list(ctx, row, node, module_item, dest);
}

/* rdma.node-description: a format of at most row->max bytes whose only escapes are %h (the host
 * name), %d (the device name) and %%, printable ASCII (the kernel stores the bytes as given, and
 * SMPs carry them to the subnet manager and ibnetdiscover). */
int parse_node_description(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
			   void *dest) {
	const char *s = NULL;
	char *copy;
	int r;

	r = expect_string(ctx, row, node, &s);
	if (r < 0)
		return r;
	if ((long long) strlen(s) > row->max)
		return schema_error(ctx, node,
				    "'%s': %zu bytes, more than the %lld the kernel keeps (the "
				    "expanded text is cut there too)",
				    row->path, strlen(s), row->max);
	for (const char *c = s; *c; c++) {
		if (*c < 0x20 || *c > 0x7e)
			return schema_error(ctx, node,
					    "'%s': byte 0x%02x at offset %zu: only printable ASCII",
					    row->path, (unsigned char) *c, (size_t) (c - s));
		if (*c != '%')
			continue;
		c++;
		if (*c != 'h' && *c != 'd' && *c != '%')
			return schema_error(
				ctx, node,
				"'%s': '%%%.1s' at offset %zu: the escapes are %%h (host "
				"name), %%d (device name) and %%%%",
				row->path, c, (size_t) (c - s - 1));
	}
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	free(*(char **) dest);
	*(char **) dest = copy;
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
int parse_counters(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	return parse_item_list(ctx, row, node, counter_item, dest);
}

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

int parse_addresses(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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
static int allow_item(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *userdata) {
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
		return schema_error(ctx, node, "'%s': '%s' has host bits set: did you mean %s?",
				    row->path, s, strna(canon));
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

int parse_roce_allow_from(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
	PortSettings *s = dest;
	AddressList l = { 0 };
	int r;

	if (node->type != YAML_SEQUENCE_NODE)
		return schema_error(ctx, node, "'%s' expects a list of prefixes, got %s", row->path,
				    yaml_node_kind(node));
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
int parse_rail_routing(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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

int parse_gid_requirements(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node,
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
int parse_gid_publish(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest) {
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
			c.type = streq(s, "v1")	  ? GID_TYPE_ROCE_V1
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
	r = mapping_fields(ctx, row, node, fields, ELEMENTSOF(fields), "name, type and netdev",
			   values);
	if (r < 0)
		return r;
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
	/* The kernel takes such a name; the commands it is given to would not. */
	if (s[0] == '-')
		return schema_error(ctx, values[0],
				    "'%s': '%s' starts with '-', which a command (rdma, ip, "
				    "rdmad's helper) would read as an option",
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
	if (s[0] == '-')
		return schema_error(ctx, values[2],
				    "'%s': netdev '%s' starts with '-', which a command (rdma, ip, "
				    "rdmad's helper) would read as an option",
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

int parse_links(SchemaContext *ctx, const SchemaKey *row, yaml_node_t *node, void *dest _unused_) {
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
