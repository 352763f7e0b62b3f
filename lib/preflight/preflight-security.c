/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The security checks. Soft-RoCE (rdma_rxe) is UDP 4791 into the kernel's network stack: the
 * host firewall sees it, and a Soft-RoCE link is open to whoever can reach the netdev unless a
 * rule says otherwise (security.roce-firewall, from the nftables ruleset read with libnftables
 * in its JSON form). Hardware RoCE never reaches the host's stack: the firewall does not see it
 * (security.offload says so, and what protects it instead). */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>

#include "json-util.h"
#include "nftables-dl.h"
#include "preflight.h"
#include "strv.h"

#define ROCE_V2_PORT 4791

/* What a condition says about the probe, a new RoCE v2 packet (UDP dport 4791, ct state new)
 * arriving on the netdev from some source. */
typedef enum Tri {
	TRI_FALSE,   /* never matches it */
	TRI_TRUE,    /* matches it from every source */
	TRI_SOURCE,  /* matches it from some sources (a saddr condition) */
	TRI_UNKNOWN, /* an expression this judge does not follow */
} Tri;

/* Both conditions: FALSE wins, then UNKNOWN, then SOURCE. */
static Tri tri_and(Tri a, Tri b) {
	if (a == TRI_FALSE || b == TRI_FALSE)
		return TRI_FALSE;
	if (a == TRI_UNKNOWN || b == TRI_UNKNOWN)
		return TRI_UNKNOWN;
	if (a == TRI_SOURCE || b == TRI_SOURCE)
		return TRI_SOURCE;
	return TRI_TRUE;
}

typedef struct Probe {
	json_object *items; /* the "nftables" array */
	const char *netdev;
	bool ipv6;
	const char *family, *table; /* of the rule being judged (named sets) */
} Probe;

typedef bool (*elem_test_t)(const Probe *pr, json_object *e, bool *unknown);

static json_object *item_get(json_object *item, const char *kind) {
	json_object *o;

	return json_object_object_get_ex(item, kind, &o) ? o : NULL;
}

static bool port_test(const Probe *pr, json_object *e, bool *unknown) {
	json_object *range, *val;

	if (json_object_is_type(e, json_type_int))
		return json_object_get_int(e) == ROCE_V2_PORT;
	if (json_object_is_type(e, json_type_object) &&
	    json_object_object_get_ex(e, "range", &range) &&
	    json_object_is_type(range, json_type_array) && json_object_array_length(range) == 2) {
		json_object *lo = json_object_array_get_idx(range, 0);
		json_object *hi = json_object_array_get_idx(range, 1);

		if (json_object_is_type(lo, json_type_int) &&
		    json_object_is_type(hi, json_type_int))
			return json_object_get_int(lo) <= ROCE_V2_PORT &&
			       ROCE_V2_PORT <= json_object_get_int(hi);
	}
	if (json_object_is_type(e, json_type_object) &&
	    json_object_object_get_ex(e, "elem", &val) &&
	    json_object_object_get_ex(val, "val", &val))
		return port_test(pr, val, unknown);
	*unknown = true;
	return false;
}

/* iifname patterns: a trailing '*' matches any rest. */
static bool ifname_test(const Probe *pr, json_object *e, bool *unknown) {
	const char *s;
	size_t n;

	if (!json_object_is_type(e, json_type_string)) {
		*unknown = true;
		return false;
	}
	s = json_object_get_string(e);
	n = strlen(s);
	if (n > 0 && s[n - 1] == '*')
		return strncmp(s, pr->netdev, n - 1) == 0;
	return streq(s, pr->netdev);
}

static bool udp_test(const Probe *pr, json_object *e, bool *unknown) {
	if (json_object_is_type(e, json_type_int))
		return json_object_get_int(e) == 17;
	if (json_object_is_type(e, json_type_string))
		return streq(json_object_get_string(e), "udp");
	*unknown = true;
	return false;
}

static bool string_test(json_object *e, const char *want, bool *unknown) {
	if (json_object_is_type(e, json_type_string))
		return streq(json_object_get_string(e), want);
	*unknown = true;
	return false;
}

static bool ct_new_test(const Probe *pr, json_object *e, bool *unknown) {
	return string_test(e, "new", unknown);
}

static bool nfproto_test(const Probe *pr, json_object *e, bool *unknown) {
	return string_test(e, pr->ipv6 ? "ipv6" : "ipv4", unknown);
}

static bool ethertype_test(const Probe *pr, json_object *e, bool *unknown) {
	return string_test(e, pr->ipv6 ? "ip6" : "ip", unknown);
}

static bool pkttype_test(const Probe *pr, json_object *e, bool *unknown) {
	return string_test(e, "host", unknown);
}

static json_object *set_find(const Probe *pr, const char *name) {
	size_t n = json_object_array_length(pr->items);

	for (size_t i = 0; i < n; i++) {
		json_object *set = item_get(json_object_array_get_idx(pr->items, i), "set");

		if (set && streq_ptr(json_get_string(set, "name"), name) &&
		    streq_ptr(json_get_string(set, "family"), pr->family) &&
		    streq_ptr(json_get_string(set, "table"), pr->table))
			return set;
	}
	return NULL;
}

/* Whether the right side of a match holds an element the test takes: a value, a list (flags),
 * an anonymous set, a named set (@name). */
static Tri right_contains(const Probe *pr, json_object *right, elem_test_t test) {
	json_object *elems = NULL;
	bool unknown = false;

	if (json_object_is_type(right, json_type_string) &&
	    json_object_get_string(right)[0] == '@') {
		json_object *set = set_find(pr, json_object_get_string(right) + 1);

		if (!set)
			return TRI_UNKNOWN;
		if (!json_object_object_get_ex(set, "elem", &elems))
			return TRI_FALSE; /* an empty set */
	} else if (json_object_is_type(right, json_type_array))
		elems = right;
	else if (!json_object_is_type(right, json_type_object) ||
		 !json_object_object_get_ex(right, "set", &elems)) {
		bool hit = test(pr, right, &unknown);

		return unknown ? TRI_UNKNOWN : hit ? TRI_TRUE : TRI_FALSE;
	}
	if (!json_object_is_type(elems, json_type_array)) {
		bool hit = test(pr, elems, &unknown); /* a set of one, as nft prints some */

		return unknown ? TRI_UNKNOWN : hit ? TRI_TRUE : TRI_FALSE;
	}
	for (size_t i = 0; i < json_object_array_length(elems); i++)
		if (test(pr, json_object_array_get_idx(elems, i), &unknown))
			return TRI_TRUE;
	return unknown ? TRI_UNKNOWN : TRI_FALSE;
}

/* A comparison of the port: == != in, and < > <= >= against a number. */
static Tri port_compare(const Probe *pr, const char *op, json_object *right) {
	int v;

	if (streq(op, "==") || streq(op, "in") || streq(op, "!="))
		return right_contains(pr, right, port_test);
	if (!json_object_is_type(right, json_type_int))
		return TRI_UNKNOWN;
	v = json_object_get_int(right);
	if (streq(op, "<"))
		return ROCE_V2_PORT < v ? TRI_TRUE : TRI_FALSE;
	if (streq(op, ">"))
		return ROCE_V2_PORT > v ? TRI_TRUE : TRI_FALSE;
	if (streq(op, "<="))
		return ROCE_V2_PORT <= v ? TRI_TRUE : TRI_FALSE;
	if (streq(op, ">="))
		return ROCE_V2_PORT >= v ? TRI_TRUE : TRI_FALSE;
	return TRI_UNKNOWN;
}

static Tri match_eval(const Probe *pr, json_object *match) {
	json_object *left, *right, *o;
	const char *op = json_get_string(match, "op");
	elem_test_t test = NULL;
	Tri t;

	if (!op)
		op = "==";
	if (!json_object_object_get_ex(match, "left", &left) ||
	    !json_object_object_get_ex(match, "right", &right))
		return TRI_UNKNOWN;

	if (json_object_object_get_ex(left, "payload", &o)) {
		const char *proto = strempty(json_get_string(o, "protocol"));
		const char *field = strempty(json_get_string(o, "field"));

		if (streq(proto, "udp") || streq(proto, "th")) {
			if (!streq(field, "dport"))
				return TRI_UNKNOWN;
			t = port_compare(pr, op, right);
			if (streq(op, "!=") && t != TRI_UNKNOWN)
				t = t == TRI_TRUE ? TRI_FALSE : TRI_TRUE;
			return t;
		}
		/* Another transport's or network's header implies that protocol: never the
		 * probe. */
		if (streq(proto, "tcp") || streq(proto, "sctp") || streq(proto, "dccp") ||
		    streq(proto, "udplite") || streq(proto, "icmp") || streq(proto, "icmpv6") ||
		    streq(proto, "igmp") || streq(proto, "esp") || streq(proto, "ah") ||
		    streq(proto, "comp") || streq(proto, "arp"))
			return TRI_FALSE;
		if (streq(proto, "ip") || streq(proto, "ip6")) {
			if (streq(proto, "ip6") != pr->ipv6)
				return TRI_FALSE;
			if (streq(field, "saddr"))
				return TRI_SOURCE;
			if (streq(field, pr->ipv6 ? "nexthdr" : "protocol"))
				test = udp_test;
			else
				return TRI_UNKNOWN;
		} else if (streq(proto, "ether") && streq(field, "saddr"))
			return TRI_SOURCE;
		else
			return TRI_UNKNOWN;
	} else if (json_object_object_get_ex(left, "meta", &o)) {
		const char *key = strempty(json_get_string(o, "key"));

		if (streq(key, "l4proto"))
			test = udp_test;
		else if (streq(key, "iifname") || streq(key, "iif"))
			test = ifname_test;
		else if (streq(key, "nfproto"))
			test = nfproto_test;
		else if (streq(key, "protocol"))
			test = ethertype_test;
		else if (streq(key, "pkttype"))
			test = pkttype_test;
		else
			return TRI_UNKNOWN;
	} else if (json_object_object_get_ex(left, "ct", &o) &&
		   streq_ptr(json_get_string(o, "key"), "state"))
		test = ct_new_test;
	else
		return TRI_UNKNOWN;

	if (!streq(op, "==") && !streq(op, "in") && !streq(op, "!="))
		return TRI_UNKNOWN;
	t = right_contains(pr, right, test);
	if (streq(op, "!=") && t != TRI_UNKNOWN)
		t = t == TRI_TRUE ? TRI_FALSE : TRI_TRUE;
	return t;
}

typedef enum Verdict {
	VERDICT_NONE,
	VERDICT_ACCEPT,
	VERDICT_DROP,
	VERDICT_JUMP,
	VERDICT_GOTO,
	VERDICT_RETURN,
	VERDICT_UNKNOWN, /* queue, a verdict map on another key: userspace or data decides */
} Verdict;

/* The verdict of a verdict map on the port (udp dport vmap { 4791 : drop }). */
static Verdict vmap_verdict(const Probe *pr, json_object *vmap, json_object **ret_target) {
	json_object *key, *data, *elems, *o;

	if (!json_object_object_get_ex(vmap, "key", &key) ||
	    !json_object_object_get_ex(key, "payload", &o) ||
	    !streq_ptr(json_get_string(o, "field"), "dport") ||
	    !(streq_ptr(json_get_string(o, "protocol"), "udp") ||
	      streq_ptr(json_get_string(o, "protocol"), "th")) ||
	    !json_object_object_get_ex(vmap, "data", &data) ||
	    !json_object_object_get_ex(data, "set", &elems) ||
	    !json_object_is_type(elems, json_type_array))
		return VERDICT_UNKNOWN;
	for (size_t i = 0; i < json_object_array_length(elems); i++) {
		json_object *pair = json_object_array_get_idx(elems, i), *v;
		bool unknown = false;

		if (!json_object_is_type(pair, json_type_array) ||
		    json_object_array_length(pair) != 2)
			return VERDICT_UNKNOWN;
		if (!port_test(pr, json_object_array_get_idx(pair, 0), &unknown)) {
			if (unknown)
				return VERDICT_UNKNOWN;
			continue;
		}
		v = json_object_array_get_idx(pair, 1);
		if (json_object_object_get_ex(v, "accept", NULL))
			return VERDICT_ACCEPT;
		if (json_object_object_get_ex(v, "drop", NULL))
			return VERDICT_DROP;
		if (json_object_object_get_ex(v, "jump", &o) ||
		    json_object_object_get_ex(v, "goto", &o)) {
			*ret_target = o;
			return json_object_object_get_ex(v, "jump", NULL) ? VERDICT_JUMP
									  : VERDICT_GOTO;
		}
		return VERDICT_UNKNOWN;
	}
	return VERDICT_NONE;
}

/* A rule: its condition on the probe, its verdict, and the chain a jump or goto names. */
static Verdict rule_eval(const Probe *pr, json_object *rule, Tri *ret_cond,
			 const char **ret_target) {
	json_object *expr, *target = NULL;
	Tri cond = TRI_TRUE;
	Verdict v = VERDICT_NONE;

	*ret_target = NULL;
	if (!json_object_object_get_ex(rule, "expr", &expr) ||
	    !json_object_is_type(expr, json_type_array)) {
		*ret_cond = TRI_UNKNOWN;
		return VERDICT_NONE;
	}
	for (size_t i = 0; i < json_object_array_length(expr) && v == VERDICT_NONE; i++) {
		json_object *s = json_object_array_get_idx(expr, i), *o;

		if (json_object_object_get_ex(s, "match", &o))
			cond = tri_and(cond, match_eval(pr, o));
		else if (json_object_object_get_ex(s, "accept", NULL))
			v = VERDICT_ACCEPT;
		else if (json_object_object_get_ex(s, "drop", NULL) ||
			 json_object_object_get_ex(s, "reject", NULL))
			v = VERDICT_DROP;
		else if (json_object_object_get_ex(s, "jump", &target))
			v = VERDICT_JUMP;
		else if (json_object_object_get_ex(s, "goto", &target))
			v = VERDICT_GOTO;
		else if (json_object_object_get_ex(s, "return", NULL))
			v = VERDICT_RETURN;
		else if (json_object_object_get_ex(s, "queue", NULL))
			v = VERDICT_UNKNOWN;
		else if (json_object_object_get_ex(s, "vmap", &o))
			v = vmap_verdict(pr, o, &target);
		else if (json_object_object_get_ex(s, "limit", NULL) ||
			 json_object_object_get_ex(s, "quota", NULL) ||
			 json_object_object_get_ex(s, "xt", NULL))
			cond = tri_and(cond, TRI_UNKNOWN);
		/* counter, log, meta/ct set, notrack: no say in the verdict */
	}
	*ret_cond = cond;
	if (target)
		*ret_target = json_get_string(target, "target");
	return v;
}

typedef enum Outcome {
	OUTCOME_FALLTHROUGH, /* end of chain, or return */
	OUTCOME_ACCEPT,	     /* every source still undecided is accepted */
	OUTCOME_DROP,	     /* every source still undecided is dropped */
} Outcome;

typedef struct Walk {
	bool some_accepted, some_dropped, maybe_accepted;
	long drop_handle;   /* the rule that dropped some or all sources, or -1 */
	long accept_handle; /* the rule that accepted every source, or -1 */
	long maybe_handle;  /* a rule not followed that may accept */
} Walk;

static Outcome chain_walk(const Probe *pr, const char *chain, Tri outer, unsigned depth, Walk *w) {
	size_t n = json_object_array_length(pr->items);

	if (depth > 16) { /* the kernel refuses loops; deep nesting is not followed */
		w->maybe_accepted = true;
		return OUTCOME_FALLTHROUGH;
	}
	for (size_t i = 0; i < n; i++) {
		json_object *rule = item_get(json_object_array_get_idx(pr->items, i), "rule"), *h;
		const char *target;
		long handle;
		Verdict v;
		Tri cond;

		if (!rule || !streq_ptr(json_get_string(rule, "family"), pr->family) ||
		    !streq_ptr(json_get_string(rule, "table"), pr->table) ||
		    !streq_ptr(json_get_string(rule, "chain"), chain))
			continue;
		handle = json_object_object_get_ex(rule, "handle", &h) ? json_object_get_int64(h)
								       : -1;
		v = rule_eval(pr, rule, &cond, &target);
		cond = tri_and(outer, cond);
		if (cond == TRI_FALSE || v == VERDICT_NONE)
			continue;
		switch (v) {
		case VERDICT_ACCEPT:
			if (cond == TRI_TRUE) {
				w->accept_handle = handle;
				return OUTCOME_ACCEPT;
			}
			if (cond == TRI_SOURCE)
				w->some_accepted = true;
			else if (!w->maybe_accepted) {
				w->maybe_accepted = true;
				w->maybe_handle = handle;
			}
			break;
		case VERDICT_DROP:
			if (cond != TRI_UNKNOWN && w->drop_handle < 0)
				w->drop_handle = handle;
			if (cond == TRI_TRUE)
				return OUTCOME_DROP;
			if (cond == TRI_SOURCE)
				w->some_dropped = true;
			break;
		case VERDICT_JUMP:
		case VERDICT_GOTO: {
			Outcome o;

			if (!target) {
				w->maybe_accepted = true;
				w->maybe_handle = handle;
				break;
			}
			o = chain_walk(pr, target, cond, depth + 1, w);
			if (cond != TRI_TRUE) {
				if (o == OUTCOME_ACCEPT && cond == TRI_SOURCE)
					w->some_accepted = true;
				else if (o == OUTCOME_DROP && cond == TRI_SOURCE)
					w->some_dropped = true;
				else if (o == OUTCOME_ACCEPT && !w->maybe_accepted) {
					w->maybe_accepted = true;
					w->maybe_handle = handle;
				}
				break;
			}
			if (o != OUTCOME_FALLTHROUGH || v == VERDICT_GOTO)
				return o;
			break;
		}
		case VERDICT_RETURN:
			if (cond == TRI_TRUE)
				return OUTCOME_FALLTHROUGH;
			/* Some sources leave the chain here: what follows holds for the others
			 * only, which this judge does not tell apart. */
			outer = TRI_UNKNOWN;
			break;
		default:
			if (!w->maybe_accepted) {
				w->maybe_accepted = true;
				w->maybe_handle = handle;
			}
			break;
		}
	}
	return OUTCOME_FALLTHROUGH;
}

typedef enum Judgement {
	JUDGEMENT_OPEN,
	JUDGEMENT_UNDECIDED,
	JUDGEMENT_RESTRICTED,
} Judgement;

/* Whether base chain c (at a hook the probe passes) restricts it; *ret_why says how. */
static Judgement base_chain_judge(Probe *pr, json_object *c, char *why, size_t size) {
	const char *table = strna(json_get_string(c, "table"));
	const char *name = strna(json_get_string(c, "name"));
	const char *policy = json_get_string(c, "policy");
	Walk w = { .drop_handle = -1, .accept_handle = -1, .maybe_handle = -1 };
	Outcome o;

	pr->table = table;
	o = chain_walk(pr, name, TRI_TRUE, 0, &w);
	if (o == OUTCOME_FALLTHROUGH)
		o = streq_ptr(policy, "drop") ? OUTCOME_DROP : OUTCOME_ACCEPT;
	if (o == OUTCOME_ACCEPT && !w.some_dropped) {
		if (w.accept_handle >= 0)
			snprintf(why, size, "table %s %s chain %s: rule handle %ld accepts it",
				 pr->family, table, name, w.accept_handle);
		else
			snprintf(why, size,
				 "table %s %s chain %s: no rule restricts it, policy accept",
				 pr->family, table, name);
		return JUDGEMENT_OPEN;
	}
	if (w.maybe_accepted) {
		snprintf(why, size,
			 "table %s %s chain %s: rule handle %ld may accept it (not followed)",
			 pr->family, table, name, w.maybe_handle);
		return JUDGEMENT_UNDECIDED;
	}
	if (w.drop_handle >= 0)
		snprintf(why, size, "table %s %s chain %s (rule handle %ld drops %s)", pr->family,
			 table, name, w.drop_handle,
			 w.some_dropped || w.some_accepted ? "some sources" : "it");
	else
		snprintf(why, size, "table %s %s chain %s (policy drop%s)", pr->family, table, name,
			 w.some_accepted ? ", rules accept some sources" : "");
	return JUDGEMENT_RESTRICTED;
}

/* Whether chain item c is a filter base chain the probe passes on its way in: prerouting or
 * input of ip, ip6 or inet, or ingress (netdev, inet) of the netdev. *ret_dev_unknown: an
 * ingress chain whose device the JSON does not name (nft 1.0.6 leaves it out). */
static bool chain_applies(const Probe *pr, json_object *c, bool *ret_dev_unknown) {
	const char *family = json_get_string(c, "family"), *hook = json_get_string(c, "hook");
	json_object *dev;

	*ret_dev_unknown = false;
	if (!family || !hook || !streq_ptr(json_get_string(c, "type"), "filter"))
		return false;
	if (streq(hook, "ingress")) {
		if (!streq(family, "netdev") && !streq(family, "inet"))
			return false;
		if (!json_object_object_get_ex(c, "dev", &dev)) {
			*ret_dev_unknown = true;
			return true;
		}
		if (json_object_is_type(dev, json_type_string))
			return streq(json_object_get_string(dev), pr->netdev);
		for (size_t i = 0;
		     json_object_is_type(dev, json_type_array) && i < json_object_array_length(dev);
		     i++)
			if (streq_ptr(json_object_get_string(json_object_array_get_idx(dev, i)),
				      pr->netdev))
				return true;
		return false;
	}
	if (!streq(hook, "prerouting") && !streq(hook, "input"))
		return false;
	return streq(family, "inet") || streq(family, pr->ipv6 ? "ip6" : "ip");
}

/* All base chains: the probe gets in only if each accepts it. */
static Judgement probe_judge(Probe *pr, char *why, size_t size) {
	Judgement worst = JUDGEMENT_OPEN;
	size_t n = json_object_array_length(pr->items);
	bool said = false;

	snprintf(why, size, "no base chain filters it");
	for (size_t i = 0; i < n; i++) {
		json_object *c = item_get(json_object_array_get_idx(pr->items, i), "chain");
		char buf[256];
		bool dev_unknown;
		Judgement j;

		if (!c || !chain_applies(pr, c, &dev_unknown))
			continue;
		pr->family = json_get_string(c, "family");
		j = base_chain_judge(pr, c, buf, sizeof(buf));
		if (j == JUDGEMENT_RESTRICTED && dev_unknown) {
			j = JUDGEMENT_UNDECIDED;
			snprintf(why, size, "%s restricts it, but its device is not named", buf);
			worst = j;
			continue;
		}
		if (j == JUDGEMENT_RESTRICTED) {
			snprintf(why, size, "%s", buf);
			return j;
		}
		if (j == JUDGEMENT_UNDECIDED) {
			snprintf(why, size, "%s", buf);
			worst = j;
		} else if (worst == JUDGEMENT_OPEN && !said) {
			snprintf(why, size, "%s", buf);
			said = true;
		}
	}
	return worst;
}

int preflight_firewall_judge(const char *json, const char *netdev, PreflightStatus *ret_status,
			     char **ret_seen) {
	_cleanup_(json_object_putp) json_object *root = json_tokener_parse(json);
	char why4[320], why6[320];
	Judgement j4, j6;
	Probe pr = { .netdev = netdev };
	PreflightStatus status;
	char *seen;
	int r;

	if (!root || !json_object_object_get_ex(root, "nftables", &pr.items) ||
	    !json_object_is_type(pr.items, json_type_array))
		return -EBADMSG;
	j4 = probe_judge(&pr, why4, sizeof(why4));
	pr.ipv6 = true;
	j6 = probe_judge(&pr, why6, sizeof(why6));

	if (j4 == JUDGEMENT_OPEN || j6 == JUDGEMENT_OPEN) {
		status = PREFLIGHT_WARN;
		r = asprintf(&seen, "UDP 4791 (RoCE v2) on %s is open to every %s source (%s)",
			     netdev,
			     j4 == j6		    ? "IPv4 and IPv6"
			     : j4 == JUDGEMENT_OPEN ? "IPv4"
						    : "IPv6",
			     j4 == JUDGEMENT_OPEN ? why4 : why6);
	} else if (j4 == JUDGEMENT_UNDECIDED || j6 == JUDGEMENT_UNDECIDED) {
		status = PREFLIGHT_WARN;
		r = asprintf(&seen,
			     "could not tell whether UDP 4791 (RoCE v2) on %s is restricted: %s",
			     netdev, j4 == JUDGEMENT_UNDECIDED ? why4 : why6);
	} else {
		status = PREFLIGHT_OK;
		if (streq(why4, why6))
			r = asprintf(&seen, "UDP 4791 (RoCE v2) on %s is restricted by %s", netdev,
				     why4);
		else
			r = asprintf(
				&seen,
				"UDP 4791 (RoCE v2) on %s is restricted: IPv4 by %s, IPv6 by %s",
				netdev, why4, why6);
	}
	if (r < 0)
		return -ENOMEM;
	*ret_status = status;
	*ret_seen = seen;
	return 0;
}

/* libnftables' JSON of "list ruleset", or -errno with nft's own words in *ret_error (or the
 * dynamic loader's, with -EOPNOTSUPP or -ELIBBAD, when libnftables cannot be loaded). */
static int ruleset_read(char **ret, char **ret_error) {
	struct nft_ctx *ctx;
	char *s;
	int r = 0;

	r = dlopen_nftables(ret_error);
	if (r < 0)
		return r;
	ctx = sym_nft_ctx_new(NFT_CTX_DEFAULT);
	if (!ctx)
		return -ENOMEM;
	sym_nft_ctx_output_set_flags(ctx, NFT_CTX_OUTPUT_JSON);
	if (sym_nft_ctx_buffer_output(ctx) < 0 || sym_nft_ctx_buffer_error(ctx) < 0)
		r = -ENOMEM;
	else if (sym_nft_run_cmd_from_buffer(ctx, "list ruleset") != 0) {
		const char *e = sym_nft_ctx_get_error_buffer(ctx);

		*ret_error = strdup(e && *e ? e : "nft failed");
		r = *ret_error ? -EIO : -ENOMEM;
	} else {
		s = strdup(strempty(sym_nft_ctx_get_output_buffer(ctx)));
		if (!s)
			r = -ENOMEM;
		else
			*ret = s;
	}
	sym_nft_ctx_free(ctx);
	return r;
}

static int firewall_row(Preflight *p, const PreflightInput *in, const char *netdev,
			const char *ruleset, const char *nft_error, int nft_r) {
	const char *legacy = host_module_loaded(in->host, "ip_tables") ||
					     host_module_loaded(in->host, "ip6_tables")
				     ? " Legacy iptables rules (ip_tables is loaded) are not read."
				     : "";
	_cleanup_free_ char *seen = NULL, *fix = NULL;
	PreflightStatus status;
	int r;

	if (!streq_ptr(in->root, "/"))
		return preflight_add(
			p, "security.roce-firewall", netdev, PREFLIGHT_WARN,
			"rdmactl preflight on the host itself",
			"not checked: the nftables ruleset is the running kernel's, not "
			"that of %s",
			strna(in->root));
	if (nft_r == -EOPNOTSUPP || nft_r == -ELIBBAD)
		return preflight_add(p, "security.roce-firewall", netdev, PREFLIGHT_WARN,
				     "apt install libnftables1",
				     "not checked: reading the nftables ruleset needs %s: %s.%s",
				     NFTABLES_SONAME, strna(nft_error), legacy);
	if (nft_r < 0) {
		bool perm = geteuid() != 0 || (nft_error && strstr(nft_error, "not permitted"));
		const char *e = strna(nft_error);

		return preflight_add(p, "security.roce-firewall", netdev, PREFLIGHT_WARN,
				     perm ? "sudo rdmactl preflight" : "nft list ruleset",
				     "could not read the nftables ruleset: %.*s.%s",
				     perm ? (int) strlen("run as root (it needs CAP_NET_ADMIN)")
					  : (int) strcspn(e, "\n"),
				     perm ? "run as root (it needs CAP_NET_ADMIN)" : e, legacy);
	}
	r = preflight_firewall_judge(ruleset, netdev, &status, &seen);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return preflight_add(p, "security.roce-firewall", netdev, PREFLIGHT_WARN,
				     "nft list ruleset (judge it by hand)",
				     "could not make sense of the nftables ruleset (libnftables "
				     "JSON).%s",
				     legacy);
	if (status != PREFLIGHT_OK &&
	    asprintf(&fix,
		     "declare who may connect in an nftables rule (e.g. nft add rule inet filter "
		     "input iifname %s udp dport 4791 ip saddr != 192.0.2.0/24 drop)",
		     netdev) < 0)
		return -ENOMEM;
	return preflight_add(p, "security.roce-firewall", netdev, status, fix, "%s.%s", seen,
			     legacy);
}

static int offload_row(Preflight *p, const PreflightInput *in, const HostDevice *d,
		       const HostPort *port) {
	_cleanup_free_ char *subject = preflight_port_subject(d, port);
	bool shared = in->host->has_netns_mode && in->host->netns_mode == NETNS_MODE_SHARED;

	if (!subject)
		return -ENOMEM;
	return preflight_add(
		p, "security.offload", subject, shared ? PREFLIGHT_WARN : PREFLIGHT_OK,
		shared ? "system: {netns-mode: exclusive} (rdma system set netns exclusive)" : NULL,
		"RoCE traffic of %s is handled by the NIC: the host firewall (nftables, iptables) "
		"never sees it; restrict it with switch ACLs, and keep the device to one network "
		"namespace with RDMA netns exclusive mode (%s)",
		d->name,
		!in->host->has_netns_mode ? "the mode could not be read"
		: shared		  ? "the mode is shared: every network namespace can use it"
					  : "the mode is exclusive");
}

int preflight_security(Preflight *p, const PreflightInput *in) {
	_cleanup_strv_free_ char **done = NULL;
	_cleanup_free_ char *ruleset = NULL, *nft_error = NULL;
	bool read = false;
	int nft_r = 0, r;

	for (size_t i = 0; i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];
		bool soft = streq_ptr(d->driver, "rdma_rxe");

		if (streq_ptr(d->driver, "siw"))
			continue; /* iWARP over the host's TCP: its firewall sees it */
		for (size_t j = 0; j < d->n_ports; j++) {
			const HostPort *port = &d->ports[j];

			if (port->link_layer != LINK_LAYER_ETHERNET ||
			    !preflight_wants_port(in, d, port))
				continue;
			if (!soft) {
				r = offload_row(p, in, d, port);
				if (r < 0)
					return r;
				continue;
			}
			if (!port->netdev || strv_contains(done, port->netdev))
				continue;
			if (!read && streq_ptr(in->root, "/")) {
				nft_r = ruleset_read(&ruleset, &nft_error);
				if (nft_r == -ENOMEM)
					return nft_r;
				read = true;
			}
			r = firewall_row(p, in, port->netdev, ruleset, nft_error, nft_r);
			if (r >= 0)
				r = strv_extend(&done, port->netdev);
			if (r < 0)
				return r;
		}
	}
	return 0;
}
