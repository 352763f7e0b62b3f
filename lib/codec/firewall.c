/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad's nftables table (firewall.h): the parser of its JSON listing, the builders of the
 * command batches that make it and of the netlink request that asks whether it exists. No I/O. */
#include <arpa/inet.h>
#include <json-c/json.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <sys/socket.h>

#include "firewall.h"
#include "json-util.h"

static void chain_done(FirewallChain *c) {
	free(c->name);
	free(c->allow);
	free(c->iifname);
}

void firewall_state_done(FirewallState *s) {
	for (size_t i = 0; i < s->n_chains; i++)
		chain_done(&s->chains[i]);
	free(s->chains);
	*s = (FirewallState){ 0 };
}

const FirewallChain *firewall_chain_find(const FirewallState *s, const char *name) {
	for (size_t i = 0; name && i < s->n_chains; i++)
		if (streq(s->chains[i].name, name))
			return &s->chains[i];
	return NULL;
}

static json_object *member(json_object *o, const char *key) {
	json_object *v;

	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v)
		       ? v
		       : NULL;
}

/* {"accept": null}: a member whose value is null */
static bool has_member(json_object *o, const char *key) {
	return json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, NULL);
}

static bool is_ours(json_object *o) {
	return streq_ptr(json_get_string(o, "family"), FIREWALL_FAMILY) &&
	       streq_ptr(json_get_string(o, "table"), FIREWALL_TABLE);
}

/* {"match": {"op": "==", "left": LEFT, "right": RIGHT}}: left and right, or false. */
static bool match_parts(json_object *e, json_object **left, json_object **right) {
	json_object *m = member(e, "match");
	const char *op = json_get_string(m, "op");

	if (!m || !streq_ptr(op, "==") || !member(m, "left") || !member(m, "right"))
		return false;
	*left = member(m, "left");
	*right = member(m, "right");
	return true;
}

/* A saddr's right side: "192.0.2.7" or {"prefix": {"addr": "192.0.2.0", "len": 24}}. */
static bool prefix_parse(json_object *right, int family, Address *ret) {
	json_object *p = member(right, "prefix");
	const char *s = p ? json_get_string(p, "addr") : NULL;
	json_object *len = member(p, "len");
	Address a;

	if (!p && json_object_is_type(right, json_type_string))
		s = json_object_get_string(right);
	if (!s || address_from_string(s, &a) < 0 || strchr(s, '/') || a.family != family)
		return false;
	if (p) {
		if (!json_object_is_type(len, json_type_int) || json_object_get_int(len) < 0 ||
		    json_object_get_int(len) > a.prefixlen)
			return false;
		a.prefixlen = (uint8_t) json_object_get_int(len);
	}
	*ret = a;
	return true;
}

typedef enum RuleShape {
	RULE_OTHER,
	RULE_ACCEPT,
	RULE_DROP,
} RuleShape;

/* One rule's "expr": rdmad's accept (iifname, saddr, dport, accept) or drop (iifname, dport,
 * drop) in that order, or another. */
static RuleShape rule_parse(json_object *expr, const char **ret_iifname, Address *ret_allow) {
	size_t n = json_object_is_type(expr, json_type_array) ? json_object_array_length(expr) : 0;
	const char *iifname = NULL;
	bool has_saddr = false, has_port = false;
	Address a = { 0 };

	if (n < 3 || n > 4)
		return RULE_OTHER;
	for (size_t i = 0; i + 1 < n; i++) {
		json_object *e = json_object_array_get_idx(expr, i), *left, *right, *x;
		const char *proto;

		if (!match_parts(e, &left, &right))
			return RULE_OTHER;
		if ((x = member(left, "meta")) && streq_ptr(json_get_string(x, "key"), "iifname") &&
		    i == 0 && json_object_is_type(right, json_type_string)) {
			iifname = json_object_get_string(right);
			continue;
		}
		x = member(left, "payload");
		proto = json_get_string(x, "protocol");
		if (!x || !proto)
			return RULE_OTHER;
		if (i == 1 && n == 4 && streq_ptr(json_get_string(x, "field"), "saddr") &&
		    (streq(proto, "ip") || streq(proto, "ip6")) &&
		    prefix_parse(right, streq(proto, "ip") ? AF_INET : AF_INET6, &a)) {
			has_saddr = true;
			continue;
		}
		if (i == n - 2 && streq(proto, "udp") &&
		    streq_ptr(json_get_string(x, "field"), "dport") &&
		    json_object_is_type(right, json_type_int) &&
		    json_object_get_int(right) == ROCE_V2_UDP_PORT) {
			has_port = true;
			continue;
		}
		return RULE_OTHER;
	}
	if (!iifname || !has_port)
		return RULE_OTHER;
	*ret_iifname = iifname;
	if (n == 4 && has_saddr && has_member(json_object_array_get_idx(expr, 3), "accept")) {
		*ret_allow = a;
		return RULE_ACCEPT;
	}
	if (n == 3 && has_member(json_object_array_get_idx(expr, 2), "drop"))
		return RULE_DROP;
	return RULE_OTHER;
}

static int rule_add(FirewallChain *c, json_object *rule) {
	const char *iifname = NULL;
	Address a;
	RuleShape shape = rule_parse(member(rule, "expr"), &iifname, &a);

	/* after the drop rule nothing is rdmad's */
	if (shape == RULE_OTHER || c->drop_last) {
		c->n_other++;
		c->drop_last = false;
		return 0;
	}
	if (!c->iifname && !c->iifname_mixed) {
		c->iifname = strdup(iifname);
		if (!c->iifname)
			return -ENOMEM;
	} else if (!c->iifname_mixed && !streq(c->iifname, iifname)) {
		c->iifname_mixed = true;
		free(c->iifname);
		c->iifname = NULL;
	}
	if (shape == RULE_DROP) {
		c->drop_last = true;
		return 0;
	}
	Address *x = realloc(c->allow, sizeof(Address) * (c->n_allow + 1));

	if (!x)
		return -ENOMEM;
	c->allow = x;
	c->allow[c->n_allow++] = a;
	return 0;
}

static int chain_add(FirewallState *s, json_object *chain) {
	const char *name = json_get_string(chain, "name");
	json_object *prio = member(chain, "prio");
	FirewallChain *c;

	if (!name)
		return -EBADMSG;
	c = realloc(s->chains, sizeof(FirewallChain) * (s->n_chains + 1));
	if (!c)
		return -ENOMEM;
	s->chains = c;
	c = &s->chains[s->n_chains];
	*c = (FirewallChain){ .name = strdup(name) };
	if (!c->name)
		return -ENOMEM;
	s->n_chains++;
	c->base_ok = streq_ptr(json_get_string(chain, "type"), "filter") &&
		     streq_ptr(json_get_string(chain, "hook"), "input") &&
		     json_object_is_type(prio, json_type_int) &&
		     json_object_get_int(prio) == FIREWALL_PRIORITY &&
		     streq_ptr(json_get_string(chain, "policy"), "accept");
	return 0;
}

int firewall_state_parse(const char *json, FirewallState *ret) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	FirewallState s = { 0 };
	json_object *items;
	size_t n;
	int r = 0;

	root = json_tokener_parse(json);
	items = member(root, "nftables");
	if (!json_object_is_type(items, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(items);
	/* chains first: a rule names its chain */
	for (size_t pass = 0; pass < 2 && r >= 0; pass++)
		for (size_t i = 0; i < n && r >= 0; i++) {
			json_object *item = json_object_array_get_idx(items, i), *o;
			FirewallChain *c;

			if (pass == 0 && (o = member(item, "table"))) {
				if (streq_ptr(json_get_string(o, "family"), FIREWALL_FAMILY) &&
				    streq_ptr(json_get_string(o, "name"), FIREWALL_TABLE))
					s.table = true;
			} else if (pass == 0 && (o = member(item, "chain"))) {
				if (is_ours(o))
					r = chain_add(&s, o);
			} else if (pass == 1 && (o = member(item, "rule"))) {
				if (!is_ours(o))
					continue;
				c = (FirewallChain *) firewall_chain_find(
					&s, json_get_string(o, "chain"));
				if (c)
					r = rule_add(c, o);
			} else if (pass == 0 && !has_member(item, "metainfo") &&
				   !has_member(item, "rule") &&
				   json_object_is_type(item, json_type_object)) {
				/* a set, map, flowtable ... in rdmad's table (no
				 * json_object_object_foreach: a GNU statement expression) */
				struct json_object_iterator it = json_object_iter_begin(item),
							    end = json_object_iter_end(item);

				for (; !json_object_iter_equal(&it, &end);
				     json_object_iter_next(&it))
					if (is_ours(json_object_iter_peek_value(&it)))
						s.n_other++;
			}
		}
	if (r < 0) {
		firewall_state_done(&s);
		return r;
	}
	*ret = s;
	return 0;
}

bool firewall_chain_converged(const FirewallChain *c, const char *netdev, const Address *allow,
			      size_t n_allow) {
	if (!c || !c->base_ok || c->n_other > 0 || !c->drop_last || c->n_allow != n_allow ||
	    !streq_ptr(c->iifname, netdev))
		return false;
	for (size_t i = 0; i < n_allow; i++)
		if (!address_equal(&c->allow[i], &allow[i]))
			return false;
	return true;
}

static int allow_write(FILE *f, const Address *allow, size_t n_allow) {
	if (n_allow == 0) {
		fprintf(f, "udp/%d dropped", ROCE_V2_UDP_PORT);
		return 0;
	}
	fprintf(f, "udp/%d from", ROCE_V2_UDP_PORT);
	for (size_t i = 0; i < n_allow; i++) {
		_cleanup_free_ char *a = address_to_string(&allow[i]);

		if (!a)
			return -ENOMEM;
		fprintf(f, " %s", a);
	}
	fputs(", others dropped", f);
	return 0;
}

char *firewall_allow_format(const Address *allow, size_t n_allow) {
	char *s = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);
	int r;

	if (!f)
		return NULL;
	r = allow_write(f, allow, n_allow);
	if (fclose(f) != 0 || r < 0) {
		free(s);
		return NULL;
	}
	return s;
}

char *firewall_chain_describe(const FirewallState *s, const char *netdev) {
	const FirewallChain *c = firewall_chain_find(s, netdev);
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int r = 0;

	if (!s->table)
		return strdup("absent (no table " FIREWALL_FAMILY " " FIREWALL_TABLE ")");
	if (!c)
		return strdup("absent");
	f = open_memstream(&text, &size);
	if (!f)
		return NULL;
	if (c->drop_last)
		r = allow_write(f, c->allow, c->n_allow);
	else if (c->n_allow > 0) {
		fprintf(f, "udp/%d from", ROCE_V2_UDP_PORT);
		for (size_t i = 0; r >= 0 && i < c->n_allow; i++) {
			_cleanup_free_ char *a = address_to_string(&c->allow[i]);

			if (!a)
				r = -ENOMEM;
			else
				fprintf(f, " %s", a);
		}
		fputs(", no drop rule last", f);
	}
	if (c->drop_last || c->n_allow > 0) {
		if (c->iifname_mixed)
			fputs(" (rules on other netdevs)", f);
		else if (!streq_ptr(c->iifname, netdev))
			fprintf(f, " (on %s)", strna(c->iifname));
	} else
		fputs("no rule of rdmad's", f);
	if (c->n_other > 0)
		fprintf(f, ", %u rule%s not rdmad's", c->n_other, c->n_other == 1 ? "" : "s");
	if (!c->base_ok)
		fprintf(f, ", not a filter input chain at priority %d with policy accept",
			FIREWALL_PRIORITY);
	if (fclose(f) != 0 || r < 0) {
		free(text);
		return NULL;
	}
	return text;
}

/* ---- builders ---------------------------------------------------------------------------- */

static bool isempty(const char *s) {
	return !s || !*s;
}

static bool netdev_name_ok(const char *s) {
	size_t n = s ? strlen(s) : 0;

	if (n == 0 || n >= IF_NAMESIZE)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '"' || s[i] == '\\' || (unsigned char) s[i] < 0x20 || s[i] == '/')
			return false;
	return true;
}

/* {"nftables": [...]} and its array */
static json_object *batch_new(json_object **ret_items) {
	json_object *root = json_object_new_object();

	if (!root || json_add_array(root, "nftables", ret_items) < 0) {
		json_object_put(root);
		return NULL;
	}
	return root;
}

/* {VERB: {KIND: {"family": "inet", "table"|"name": "rdmad", ...}}}; *ret borrowed */
static int command_add(json_object *items, const char *verb, const char *kind, const char *chain,
		       json_object **ret) {
	json_object *cmd, *obj;
	int r;

	r = json_add_object(items, NULL, &cmd);
	if (r >= 0)
		r = json_add_object(cmd, verb, &cmd);
	if (r >= 0)
		r = json_add_object(cmd, kind, &obj);
	if (r >= 0)
		r = json_add_string(obj, "family", FIREWALL_FAMILY);
	if (r >= 0)
		r = json_add_string(obj, streq(kind, "table") ? "name" : "table", FIREWALL_TABLE);
	if (r >= 0 && streq(kind, "chain"))
		r = json_add_string(obj, "name", chain);
	if (r >= 0 && streq(kind, "rule"))
		r = json_add_string(obj, "chain", chain);
	if (r < 0)
		return r;
	if (ret)
		*ret = obj;
	return 0;
}

/* {"match": {"op": "==", "left": {OUTER: {...}} , "right": ...}}; takes right */
static int match_add(json_object *expr, json_object *left, json_object *right) {
	json_object *e, *m;
	int r;

	if (!left || !right) {
		json_object_put(left);
		json_object_put(right);
		return -ENOMEM;
	}
	r = json_add_object(expr, NULL, &e);
	if (r >= 0)
		r = json_add_object(e, "match", &m);
	if (r >= 0)
		r = json_add_string(m, "op", "==");
	if (r < 0 || json_object_object_add(m, "left", left) < 0) {
		json_object_put(left);
		json_object_put(right);
		return r < 0 ? r : -ENOMEM;
	}
	if (json_object_object_add(m, "right", right) < 0) {
		json_object_put(right);
		return -ENOMEM;
	}
	return 0;
}

/* {OUTER: {K1: V1, K2: V2}} (k2 NULL: one member) */
static json_object *selector_new(const char *outer, const char *k1, const char *v1, const char *k2,
				 const char *v2) {
	json_object *o = json_object_new_object(), *in;

	if (!o || json_add_object(o, outer, &in) < 0 || json_add_string(in, k1, v1) < 0 ||
	    (k2 && json_add_string(in, k2, v2) < 0)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static json_object *prefix_new(const Address *a) {
	char buf[INET6_ADDRSTRLEN];
	json_object *o, *p;

	if (!inet_ntop(a->family, a->addr, buf, sizeof(buf)))
		return NULL;
	if (a->prefixlen == (a->family == AF_INET ? 32 : 128))
		return json_object_new_string(buf);
	o = json_object_new_object();
	if (!o || json_add_object(o, "prefix", &p) < 0 || json_add_string(p, "addr", buf) < 0 ||
	    json_add_int(p, "len", a->prefixlen) < 0) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

/* iifname "NETDEV" [ip|ip6 saddr PREFIX] udp dport 4791 accept|drop */
static int rule_new(json_object *items, const char *netdev, const Address *allow) {
	json_object *rule, *expr, *verdict;
	int r;

	r = command_add(items, "add", "rule", netdev, &rule);
	if (r >= 0)
		r = json_add_array(rule, "expr", &expr);
	if (r >= 0)
		r = match_add(expr, selector_new("meta", "key", "iifname", NULL, NULL),
			      json_object_new_string(netdev));
	if (r >= 0 && allow)
		r = match_add(expr,
			      selector_new("payload", "protocol",
					   allow->family == AF_INET ? "ip" : "ip6", "field",
					   "saddr"),
			      prefix_new(allow));
	if (r >= 0)
		r = match_add(expr, selector_new("payload", "protocol", "udp", "field", "dport"),
			      json_object_new_int(ROCE_V2_UDP_PORT));
	if (r >= 0)
		r = json_add_object(expr, NULL, &verdict);
	if (r >= 0 && json_object_object_add(verdict, allow ? "accept" : "drop", NULL) < 0)
		r = -ENOMEM;
	return r;
}

static int batch_finish(json_object *root, char **ret) {
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN);
	char *copy = s ? strdup(s) : NULL;

	if (!copy)
		return -ENOMEM;
	*ret = copy;
	return 0;
}

int firewall_chain_batch(const FirewallState *live, const char *netdev, const Address *allow,
			 size_t n_allow, char **ret) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	const FirewallChain *c = live ? firewall_chain_find(live, netdev) : NULL;
	json_object *items, *chain;
	int r;

	if (!netdev_name_ok(netdev))
		return -EINVAL;
	root = batch_new(&items);
	if (!root)
		return -ENOMEM;
	r = command_add(items, "add", "table", NULL, NULL);
	if (r >= 0 && c)
		r = command_add(items, "flush", "chain", netdev, NULL);
	/* a base chain's hook and priority cannot be changed: made again, in the same
	 * transaction (packets see the old chain or the new one) */
	if (r >= 0 && c && !c->base_ok)
		r = command_add(items, "delete", "chain", netdev, NULL);
	if (r >= 0 && (!c || !c->base_ok)) {
		r = command_add(items, "add", "chain", netdev, &chain);
		if (r >= 0)
			r = json_add_string(chain, "type", "filter");
		if (r >= 0)
			r = json_add_string(chain, "hook", "input");
		if (r >= 0)
			r = json_add_int(chain, "prio", FIREWALL_PRIORITY);
		if (r >= 0)
			r = json_add_string(chain, "policy", "accept");
	}
	for (size_t i = 0; r >= 0 && i < n_allow; i++)
		r = rule_new(items, netdev, &allow[i]);
	if (r >= 0)
		r = rule_new(items, netdev, NULL);
	if (r < 0)
		return r;
	return batch_finish(root, ret);
}

int firewall_chain_delete_batch(const char *netdev, char **ret) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_object *items;
	int r;

	/* any chain in rdmad's table may go, whatever its name */
	if (isempty(netdev))
		return -EINVAL;
	root = batch_new(&items);
	if (!root)
		return -ENOMEM;
	r = command_add(items, "flush", "chain", netdev, NULL);
	if (r >= 0)
		r = command_add(items, "delete", "chain", netdev, NULL);
	if (r < 0)
		return r;
	return batch_finish(root, ret);
}

int firewall_table_delete_batch(char **ret) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_object *items;
	int r;

	root = batch_new(&items);
	if (!root)
		return -ENOMEM;
	r = command_add(items, "delete", "table", NULL, NULL);
	if (r < 0)
		return r;
	return batch_finish(root, ret);
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int firewall_table_get_new(struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	/* what nf_tables_gettable() reads: the family, and the table by name */
	struct nfgenmsg g = { .nfgen_family = NFPROTO_INET, .version = NFNETLINK_V0 };

	_Static_assert(NFPROTO_INET == 1, "FIREWALL_FAMILY is inet");
	m = nlmsg_alloc_size(NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(g)) +
			     nla_total_size(sizeof(FIREWALL_TABLE)));
	if (!m ||
	    !nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_GETTABLE,
		       0, NLM_F_REQUEST | NLM_F_ACK))
		return -ENOMEM;
	if (nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, NFTA_TABLE_NAME, FIREWALL_TABLE) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}
