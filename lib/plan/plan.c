/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>

#include "plan-internal.h"
#include "settings-format.h"
#include "strv.h"

static const char *const action_phase_table[_PHASE_MAX] = {
	[PHASE_MODULES] = "modules",
	[PHASE_SYSTEM] = "system",
	[PHASE_LINKS] = "links",
	[PHASE_NETDEV] = "netdev",
	[PHASE_ADDRESSES] = "addresses",
	[PHASE_ROUTING] = "routing",
	[PHASE_CONFIGFS] = "configfs",
	[PHASE_QOS] = "qos",
	[PHASE_ECN] = "ecn",
	[PHASE_COUNTERS] = "counters",
	[PHASE_FIREWALL] = "firewall",
};
DEFINE_STRING_TABLE_LOOKUP(action_phase, ActionPhase)

static void action_done(Action *a) {
	free(a->port_name);
	free(a->device);
	free(a->netdev);
	free(a->current);
	free(a->desired);
	free(a->profile);
	free(a->unsupported);
	free(a->value.name);
	free(a->value.lower);
	strv_free(a->value.counters);
	free(a->value.allow);
}

Plan *plan_free(Plan *p) {
	if (!p)
		return NULL;
	for (size_t i = 0; i < p->n_actions; i++)
		action_done(&p->actions[i]);
	free(p->actions);
	free(p);
	return NULL;
}

size_t plan_pending(const Plan *p) {
	size_t n = 0;

	for (size_t i = 0; i < p->n_actions; i++)
		if (!p->actions[i].unsupported)
			n++;
	return n;
}

const char *action_subject(const Action *a) {
	return a->port_name ? a->port_name : "host";
}

const char *action_setting(const Action *a) {
	return key_to_string(a->key);
}

static char *strdup_null(const char *s, bool *oom) {
	char *c;

	if (!s)
		return NULL;
	c = strdup(s);
	if (!c)
		*oom = true;
	return c;
}

static void action_value_fill(ActionValue *v, const ActionSpec *s, bool *oom) {
	const PortSettings *set = s->plink ? s->plink->settings : NULL;

	switch (s->key) {
	case KEY_ROCE_MODE:
		v->roce_mode = set->roce_mode;
		break;
	case KEY_ROCE_TOS:
		v->number = set->roce_tos;
		break;
	case KEY_NETDEV_UP:
		v->flag = set->netdev_up;
		break;
	case KEY_NETDEV_MTU:
		v->number = set->netdev_mtu;
		break;
	case KEY_NETDEV_ADDRESSES:
		(void) address_from_string(s->desired, &v->address); /* formatted by the planner */
		break;
	case KEY_ECN_ROCE_NP:
		v->priorities = set->ecn_roce_np;
		break;
	case KEY_ECN_ROCE_RP:
		v->priorities = set->ecn_roce_rp;
		break;
	case KEY_MODULES:
		v->name = strdup_null(s->desired, oom);
		break;
	case KEY_LINKS:
		v->name = strdup_null(s->device_name, oom);
		v->lower = strdup_null(s->lower, oom);
		v->link_type = s->device_type;
		v->remove = s->remove;
		break;
	case KEY_SYSTEM_NETNS_MODE:
		v->netns_mode = s->netns_mode;
		break;
	case KEY_NETDEV_RAIL_ROUTING:
		if (s->rail)
			v->rail = *s->rail;
		break;
	case KEY_SECURITY_ROCE_ALLOW_FROM:
		v->firewall_op = s->firewall_op;
		if (s->firewall_op == FIREWALL_OP_CHAIN && set && set->n_roce_allow_from > 0) {
			v->allow = malloc(sizeof(Address) * set->n_roce_allow_from);
			if (!v->allow)
				*oom = true;
			else {
				memcpy(v->allow, set->roce_allow_from,
				       sizeof(Address) * set->n_roce_allow_from);
				v->n_allow = set->n_roce_allow_from;
			}
		}
		break;
	case KEY_COUNTERS_OPTIONAL:
		v->counters = strv_copy(set->counters_optional);
		if (!v->counters)
			*oom = true;
		break;
	case KEY_QOS_TRUST:
	case KEY_QOS_PFC:
	case KEY_QOS_DSCP_MAP:
	case KEY_QOS_ETS_PRIO_TC:
	case KEY_QOS_ETS_TC_BW:
	case KEY_QOS_ETS_TSA:
	case KEY_QOS_MAXRATE:
		v->dcb = (DcbDesired){
			.set = set->set & KEYS_QOS,
			.trust = set->qos_trust,
			.pfc = set->qos_pfc,
		};
		memcpy(v->dcb.ets_prio_tc, set->ets_prio_tc, sizeof(v->dcb.ets_prio_tc));
		memcpy(v->dcb.ets_tc_bw, set->ets_tc_bw, sizeof(v->dcb.ets_tc_bw));
		memcpy(v->dcb.ets_tsa, set->ets_tsa, sizeof(v->dcb.ets_tsa));
		memcpy(v->dcb.maxrate, set->qos_maxrate, sizeof(v->dcb.maxrate));
		memcpy(v->dcb.dscp_map, set->qos_dscp_map, sizeof(v->dcb.dscp_map));
		break;
	default:
		break;
	}
}

int plan_add(Plan *p, const ActionSpec *s) {
	bool oom = false;
	Action a;
	int r;

	r = GREEDY_REALLOC(p->actions, p->n_alloc, p->n_actions + 1);
	if (r < 0)
		return r;
	a = (Action){
		.phase = s->phase,
		.key = s->key,
		.port_name = strdup_null(s->port_name, &oom),
		.device = s->plink ? strdup_null(s->plink->device->name, &oom) : NULL,
		.port = s->plink ? s->plink->port->port : 0,
		.netdev = strdup_null(s->plink ? s->plink->port->netdev : s->netdev, &oom),
		.ifindex = s->plink && s->plink->netdev ? s->plink->netdev->ifindex : s->ifindex,
		.current = strdup_null(s->current, &oom),
		.desired = strdup_null(s->desired, &oom),
		.profile = strdup_null(s->profile, &oom),
		.unsupported = strdup_null(s->unsupported, &oom),
	};
	action_value_fill(&a.value, s, &oom);
	if (oom) {
		action_done(&a);
		return -ENOMEM;
	}
	p->actions[p->n_actions++] = a;
	return 0;
}

/* A link-scoped action for key, declared by the link's settings. */
int plan_port_add(Plan *p, const PlanPort *l, ActionPhase phase, Key key, const char *current,
		  const char *desired, const char *unsupported) {
	return plan_add(p, &(ActionSpec){
				   .phase = phase,
				   .key = key,
				   .port_name = l->name,
				   .plink = l,
				   .current = current,
				   .desired = desired,
				   .profile = l->settings->origin[key],
				   .unsupported = unsupported,
			   });
}

/* Two links can share a netdev (ports of one device on a bond, rxe next to a hardware device):
 * plan each netdev setting once. */
bool plan_has_netdev_action(const Plan *p, Key key, const char *netdev, const char *desired) {
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == key && streq_ptr(p->actions[i].netdev, netdev) &&
		    streq_ptr(p->actions[i].desired, desired))
			return true;
	return false;
}

/* The rules, one per setting: compare observed with declared, add an action on a difference. */

static int rule_roce_mode(Plan *p, const PlanPort *l, Key key) {
	const char *desired = roce_mode_to_string(l->settings->roce_mode);
	const HostPort *port = l->port;

	if (port->link_layer != LINK_LAYER_ETHERNET)
		return plan_port_add(p, l, PHASE_CONFIGFS, key, NULL, desired,
				     "not a RoCE port (link layer is not Ethernet)");
	if (l->settings->roce_mode == ROCE_MODE_V1 && streq_ptr(l->device->driver, "rdma_rxe"))
		return plan_port_add(p, l, PHASE_CONFIGFS, key, NULL, desired,
				     "Soft-RoCE (rxe) implements RoCE v2 only");
	if (port->has_roce_mode && port->roce_mode == l->settings->roce_mode)
		return 0;
	return plan_port_add(p, l, PHASE_CONFIGFS, key,
			     port->has_roce_mode ? roce_mode_to_string(port->roce_mode) : NULL,
			     desired, NULL);
}

static int rule_roce_tos(Plan *p, const PlanPort *l, Key key) {
	const HostPort *port = l->port;
	char cur[16], want[16];

	snprintf(want, sizeof(want), "%u", l->settings->roce_tos);
	if (port->link_layer != LINK_LAYER_ETHERNET)
		return plan_port_add(p, l, PHASE_CONFIGFS, key, NULL, want,
				     "not a RoCE port (link layer is not Ethernet)");
	if (port->has_roce_tos && port->roce_tos == l->settings->roce_tos)
		return 0;
	snprintf(cur, sizeof(cur), "%u", port->roce_tos);
	return plan_port_add(p, l, PHASE_CONFIGFS, key, port->has_roce_tos ? cur : NULL, want,
			     NULL);
}

const char *netdev_missing(const PlanPort *l) {
	if (!l->port->netdev)
		return "the link has no netdev";
	if (!l->netdev)
		return "the link's netdev is not in /sys/class/net";
	return NULL;
}

static bool netdev_value_differs(const PortSettings *a, const PortSettings *b, Key key) {
	switch (key) {
	case KEY_NETDEV_UP:
		return a->netdev_up != b->netdev_up;
	case KEY_NETDEV_MTU:
		return a->netdev_mtu != b->netdev_mtu;
	case KEY_NETDEV_RAIL_ROUTING:
		return a->rail_routing != b->rail_routing || a->rail_table != b->rail_table;
	case KEY_SECURITY_ROCE_ALLOW_FROM:
		return a->n_roce_allow_from != b->n_roce_allow_from ||
		       (a->n_roce_allow_from > 0 &&
			memcmp(a->roce_allow_from, b->roce_allow_from,
			       sizeof(Address) * a->n_roce_allow_from) != 0);
	case KEY_ECN_ROCE_NP:
		return a->ecn_roce_np != b->ecn_roce_np;
	case KEY_ECN_ROCE_RP:
		return a->ecn_roce_rp != b->ecn_roce_rp;
	case KEY_QOS_TRUST:
		return a->qos_trust != b->qos_trust;
	case KEY_QOS_PFC:
		return a->qos_pfc != b->qos_pfc;
	case KEY_QOS_DSCP_MAP:
		return memcmp(a->qos_dscp_map, b->qos_dscp_map, sizeof(a->qos_dscp_map)) != 0;
	case KEY_QOS_ETS_PRIO_TC:
		return memcmp(a->ets_prio_tc, b->ets_prio_tc, sizeof(a->ets_prio_tc)) != 0;
	case KEY_QOS_ETS_TC_BW:
		return memcmp(a->ets_tc_bw, b->ets_tc_bw, sizeof(a->ets_tc_bw)) != 0;
	case KEY_QOS_ETS_TSA:
		return memcmp(a->ets_tsa, b->ets_tsa, sizeof(a->ets_tsa)) != 0;
	case KEY_QOS_MAXRATE:
		return memcmp(a->qos_maxrate, b->qos_maxrate, sizeof(a->qos_maxrate)) != 0;
	default:
		return false;
	}
}

/* Another link on the same netdev whose profiles want a different value for key: applying
 * either would undo the other on every reconcile. Neither is applied; the plan says why.
 * Writes the reason to buf and returns it, or NULL. */
const char *netdev_conflict(const PlanPort *l, Key key, char *buf, size_t size) {
	const HostState *h = l->host;

	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostDevice *d = &h->devices[i];
			const HostPort *port = &d->ports[k];
			PortSettings other;
			PortFacts f;
			bool differs;

			if (port == l->port || !streq_ptr(port->netdev, l->port->netdev))
				continue;
			host_port_facts(d, port, &f);
			if (config_settings_for_port(l->config, &f, &other, NULL) <= 0)
				continue;
			differs = (other.set & KEY_BIT(key)) &&
				  netdev_value_differs(&other, l->settings, key);
			if (differs)
				snprintf(buf, size,
					 "%s/%u on the same netdev wants another value (%s)",
					 d->name, port->port, other.origin[key]);
			port_settings_done(&other);
			if (differs)
				return buf;
		}
	return NULL;
}

static int rule_netdev_up(Plan *p, const PlanPort *l, Key key) {
	const char *desired = l->settings->netdev_up ? "up" : "down";

	char conflict[160];

	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, desired, netdev_missing(l));
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, desired, conflict);
	if (l->netdev->up == l->settings->netdev_up ||
	    plan_has_netdev_action(p, key, l->netdev->name, desired))
		return 0;
	return plan_port_add(p, l, PHASE_NETDEV, key, l->netdev->up ? "up" : "down", desired, NULL);
}

static int rule_netdev_mtu(Plan *p, const PlanPort *l, Key key) {
	char cur[16], want[16], conflict[160];

	snprintf(want, sizeof(want), "%u", l->settings->netdev_mtu);
	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, want, netdev_missing(l));
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, want, conflict);
	if (l->netdev->mtu == l->settings->netdev_mtu ||
	    plan_has_netdev_action(p, key, l->netdev->name, want))
		return 0;
	snprintf(cur, sizeof(cur), "%u", l->netdev->mtu);
	return plan_port_add(p, l, PHASE_NETDEV, key, cur, want, NULL);
}

/* One action per declared address that is missing; addresses not declared are left alone. */
static int rule_netdev_addresses(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	int r;

	for (size_t i = 0; i < s->n_addresses; i++) {
		_cleanup_free_ char *want = address_to_string(&s->addresses[i]);
		bool present = false;

		if (!want)
			return -ENOMEM;
		if (netdev_missing(l)) {
			r = plan_port_add(p, l, PHASE_ADDRESSES, key, NULL, want,
					  netdev_missing(l));
			if (r < 0)
				return r;
			continue;
		}
		for (size_t j = 0; j < l->netdev->n_addresses; j++)
			if (address_equal(&l->netdev->addresses[j], &s->addresses[i]))
				present = true;
		if (present || plan_has_netdev_action(p, key, l->netdev->name, want))
			continue;
		r = plan_port_add(p, l, PHASE_ADDRESSES, key, NULL, want, NULL);
		if (r < 0)
			return r;
	}
	return 0;
}

static int rule_ecn(Plan *p, const PlanPort *l, Key key) {
	uint8_t want = key == KEY_ECN_ROCE_NP ? l->settings->ecn_roce_np : l->settings->ecn_roce_rp;
	char cur[32], des[32], conflict[160];
	uint8_t have;

	setting_format_priorities(want, des);
	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des, netdev_missing(l));
	if (!l->netdev->ecn_supported)
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des,
				     "no ecn/ in the netdev's sysfs (a VF, or no mlx5 ECN sysfs)");
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des, conflict);
	have = key == KEY_ECN_ROCE_NP ? l->netdev->ecn_roce_np : l->netdev->ecn_roce_rp;
	if (have == want || plan_has_netdev_action(p, key, l->netdev->name, des))
		return 0;
	setting_format_priorities(have, cur);
	return plan_port_add(p, l, PHASE_ECN, key, cur, des, NULL);
}

static const HwCounter *hw_counter_find(const HostPort *port, const char *name) {
	for (size_t i = 0; i < port->n_hw_counters; i++)
		if (streq(port->hw_counters[i].name, name))
			return &port->hw_counters[i];
	return NULL;
}

/* The port's optional counters as a comma list: the enabled ones only, or all it offers. */
static char *optional_counters_format(const HostPort *port, bool enabled_only) {
	_cleanup_strv_free_ char **l = NULL;

	l = calloc(1, sizeof(char *));
	if (!l)
		return NULL;
	for (size_t i = 0; i < port->n_hw_counters; i++) {
		const HwCounter *c = &port->hw_counters[i];

		if (c->optional && (c->enabled || !enabled_only) && strv_extend(&l, c->name) < 0)
			return NULL;
	}
	return setting_format_counters(l);
}

/* counters.optional: the kernel's STAT_SET replaces the whole set of a port's enabled optional
 * counters, so the declared list is that whole set. Equal sets (in any order): nothing to do. */
static int rule_counters_optional(Plan *p, const PlanPort *l, Key key) {
	char *const *want = l->settings->counters_optional;
	_cleanup_free_ char *des = NULL, *cur = NULL, *offered = NULL;
	const HostPort *port = l->port;
	char reason[512];
	size_t n_want = 0, n_enabled = 0, n_optional = 0;

	des = setting_format_counters(want);
	if (!des)
		return -ENOMEM;
	if (!port->hw_counters_observed) {
		if (port->hw_counters_error == 0)
			snprintf(reason, sizeof(reason),
				 "hw counters not read (RDMA netlink is kernel-global: not under a "
				 "fixture root)");
		else
			snprintf(reason, sizeof(reason),
				 "cannot read the port's hw counters (NLDEV STAT_GET_STATUS): %s",
				 port->hw_counters_error == -EINVAL
					 ? "the device has no hw counters, or the kernel (< 5.17) "
					   "has no optional counters"
					 : strerror(-port->hw_counters_error));
		return plan_port_add(p, l, PHASE_COUNTERS, key, NULL, des, reason);
	}
	for (size_t i = 0; i < port->n_hw_counters; i++)
		if (port->hw_counters[i].optional) {
			n_optional++;
			n_enabled += port->hw_counters[i].enabled;
		}
	offered = optional_counters_format(port, false);
	if (!offered)
		return -ENOMEM;
	STRV_FOREACH (w, want) {
		const HwCounter *c = hw_counter_find(port, *w);

		n_want++;
		if (c && c->optional)
			continue;
		if (n_optional == 0)
			snprintf(reason, sizeof(reason),
				 "%s: the device offers no optional counters (%zu hw counters, "
				 "none optional)",
				 *w, port->n_hw_counters);
		else if (c)
			snprintf(
				reason, sizeof(reason),
				"%s is always on, not optional; the device's optional counters: %s",
				*w, offered);
		else
			snprintf(reason, sizeof(reason),
				 "the device has no counter %s; its optional counters: %s", *w,
				 offered);
		return plan_port_add(p, l, PHASE_COUNTERS, key, NULL, des, reason);
	}
	/* every declared name is a distinct optional counter: equal sets have equal sizes */
	if (n_enabled == n_want) {
		bool same = true;

		STRV_FOREACH (w, want)
			if (!hw_counter_find(port, *w)->enabled)
				same = false;
		if (same)
			return 0;
	}
	cur = optional_counters_format(port, true);
	if (!cur)
		return -ENOMEM;
	return plan_port_add(p, l, PHASE_COUNTERS, key, cur, des, NULL);
}

typedef int (*plan_rule_t)(Plan *p, const PlanPort *l, Key key);

/* Per-link settings in the order they are applied. gids.require is not here: GIDs are not
 * written, they are a readiness condition the daemon waits for. */
static const struct {
	Key key;
	plan_rule_t rule;
} link_rules[] = {
	/* clang-format off */
	{ KEY_NETDEV_UP,        rule_netdev_up },
	{ KEY_NETDEV_MTU,       rule_netdev_mtu },
	{ KEY_NETDEV_ADDRESSES, rule_netdev_addresses },
	{ KEY_NETDEV_RAIL_ROUTING, rule_rail_routing },
	{ KEY_ROCE_MODE,        rule_roce_mode },
	{ KEY_ROCE_TOS,         rule_roce_tos },
	{ KEY_QOS_PFC,          rule_qos_pfc },
	{ KEY_QOS_ETS_PRIO_TC,  rule_qos_ets },
	{ KEY_QOS_ETS_TC_BW,    rule_qos_ets },
	{ KEY_QOS_ETS_TSA,      rule_qos_ets },
	{ KEY_QOS_MAXRATE,      rule_qos_maxrate },
	{ KEY_QOS_DSCP_MAP,     rule_qos_dscp_map },
	{ KEY_QOS_TRUST,        rule_qos_trust },
	{ KEY_ECN_ROCE_NP,      rule_ecn },
	{ KEY_ECN_ROCE_RP,      rule_ecn },
	{ KEY_COUNTERS_OPTIONAL, rule_counters_optional },
	{ KEY_SECURITY_ROCE_ALLOW_FROM, rule_roce_allow_from },
	/* clang-format on */
};

static int plan_port(Plan *p, const Config *c, const HostState *h, const HostDevice *d,
		     const HostPort *port) {
	PortSettings s;
	PlanPort l;
	PortFacts f;
	int r = 0;

	host_port_facts(d, port, &f);
	r = config_settings_for_port(c, &f, &s, NULL);
	if (r <= 0)
		return r;
	l = (PlanPort){
		.config = c,
		.host = h,
		.device = d,
		.port = port,
		.netdev = host_netdev_find(h, port->netdev),
		.settings = &s,
	};
	snprintf(l.name, sizeof(l.name), "%s/%u", d->name, port->port);
	for (size_t i = 0; i < ELEMENTSOF(link_rules) && r >= 0; i++)
		if (s.set & KEY_BIT(link_rules[i].key))
			r = link_rules[i].rule(p, &l, link_rules[i].key);
	port_settings_done(&s);
	return r;
}

/* Stable bucket sort by phase: within a phase, actions keep the order they were planned in
 * (host first, then links by device and port). */
static int plan_sort(Plan *p) {
	Action *sorted;
	size_t n = 0;

	if (p->n_actions < 2)
		return 0;
	sorted = malloc(sizeof(Action) * p->n_alloc);
	if (!sorted)
		return -ENOMEM;
	for (ActionPhase phase = 0; phase < _PHASE_MAX; phase++)
		for (size_t i = 0; i < p->n_actions; i++)
			if (p->actions[i].phase == phase)
				sorted[n++] = p->actions[i];
	free(p->actions);
	p->actions = sorted;
	return 0;
}

int plan_compute(const Config *c, const HostState *h, Plan **ret) {
	_cleanup_(plan_freep) Plan *p = NULL;
	int r;

	p = calloc(1, sizeof(Plan));
	if (!p)
		return -ENOMEM;
	if (!h->partial) {
		r = plan_host(p, c, h);
		if (r < 0)
			return r;
		/* rdmad's rail routing that no profile declares as it is any more */
		r = plan_rails_removed(p, c, h);
		if (r < 0)
			return r;
		/* chains of rdmad's nftables table that no profile declares any more */
		r = plan_firewall_removed(p, c, h);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			r = plan_port(p, c, h, &h->devices[i], &h->devices[i].ports[k]);
			if (r < 0)
				return r;
		}
	r = plan_sort(p);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(p);
	return 0;
}
