/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Plan and its actions: adding one as a rule specifies it, freeing, naming, and what the
 * rules ask of a port's netdev. The rule files (plan.c, plan-*.c) use it; it uses none of them. */
#include <stdio.h>

#include "plan-internal.h"
#include "strv.h"

/* clang-format off */
static const char *const action_phase_table[_PHASE_MAX] = {
	[PHASE_MODULES] = "modules",
	[PHASE_SYSTEM] = "system",
	[PHASE_LINKS] = "links",
	[PHASE_FUNCTION] = "function",
	[PHASE_DEVICE] = "device",
	[PHASE_NETDEV] = "netdev",
	[PHASE_ADDRESSES] = "addresses",
	[PHASE_ROUTING] = "routing",
	[PHASE_CONFIGFS] = "configfs",
	[PHASE_QOS] = "qos",
	[PHASE_ECN] = "ecn",
	[PHASE_COUNTERS] = "counters",
	[PHASE_FIREWALL] = "firewall",
};
/* clang-format on */
DEFINE_STRING_TABLE_LOOKUP(action_phase, ActionPhase)

static void action_done(Action *a) {
	free(a->port_name);
	free(a->device);
	free(a->netdev);
	free(a->current);
	free(a->desired);
	free(a->profile);
	free(a->unsupported);
	free(a->function);
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
	return a->port_name ? a->port_name : a->function ? a->function : "host";
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
	case KEY_ECN_CNP_DSCP:
		v->number = set->ecn_cnp_dscp;
		break;
	case KEY_ECN_CNP_PRIO:
		v->number = set->ecn_cnp_prio;
		break;
	case KEY_ECN_ROCE_NP:
		v->priorities = set->ecn_roce_np;
		break;
	case KEY_ECN_ROCE_RP:
		v->priorities = set->ecn_roce_rp;
		break;
	case KEY_MODULES:
	case KEY_RDMA_NODE_DESCRIPTION: /* the description as expanded for this host and device */
		v->name = strdup_null(s->desired, oom);
		break;
	case KEY_SRIOV_VFS:
	case KEY_SRIOV_AUTOPROBE:
	case KEY_SRIOV_ESWITCH:
	case KEY_SRIOV_VF:
	case KEY_PCI_MAX_READ_REQUEST:
	case KEY_PCI_UPSTREAM_ACS: /* the planner worked the value out (plan-function.c) */
	case KEY_DEVLINK_PARAMS:
	case KEY_DEVLINK_RELOAD:
		if (s->function_value) {
			*v = *s->function_value;
			v->name = strdup_null(s->function_value->name, oom);
		}
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
	case KEY_QOS_PFC_DELAY:
	case KEY_QOS_BUFFER_PRIO:
	case KEY_QOS_BUFFER_SIZE:
	case KEY_QOS_DCBX:
		v->dcb = (DcbDesired){
			.set = set->set & KEYS_QOS,
			.owner = set->qos_owner,
			.trust = set->qos_trust,
			.pfc = set->qos_pfc,
			.pfc_delay = (uint16_t) set->qos_pfc_delay,
			.dcbx = set->qos_dcbx,
		};
		memcpy(v->dcb.buffer_prio, set->qos_buffer_prio, sizeof(v->dcb.buffer_prio));
		memcpy(v->dcb.buffer_size, set->qos_buffer_size, sizeof(v->dcb.buffer_size));
		memcpy(v->dcb.ets_prio_tc, set->ets_prio_tc, sizeof(v->dcb.ets_prio_tc));
		memcpy(v->dcb.ets_tc_bw, set->ets_tc_bw, sizeof(v->dcb.ets_tc_bw));
		memcpy(v->dcb.ets_tsa, set->ets_tsa, sizeof(v->dcb.ets_tsa));
		memcpy(v->dcb.maxrate, set->qos_maxrate, sizeof(v->dcb.maxrate));
		memcpy(v->dcb.dscp_map, set->qos_dscp_map, sizeof(v->dcb.dscp_map));
		break;
	case KEY_NETDEV_PAUSE_AUTONEG:
	case KEY_NETDEV_PAUSE_RX:
	case KEY_NETDEV_PAUSE_TX: /* the three as one PAUSE_SET: the declared ones, -1 the rest */
		v->pause = (PauseChange){
			.autoneg = (set->set & KEY_BIT(KEY_NETDEV_PAUSE_AUTONEG))
					   ? set->pause_autoneg
					   : -1,
			.rx = (set->set & KEY_BIT(KEY_NETDEV_PAUSE_RX)) ? set->pause_rx : -1,
			.tx = (set->set & KEY_BIT(KEY_NETDEV_PAUSE_TX)) ? set->pause_tx : -1,
		};
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
		.function = strdup_null(s->function, &oom),
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
bool plan_has_netdev_action(const Plan *p, const PlanPort *l, Key key, const char *desired) {
	const char *netdev = l->netdev->name;

	/* no other port to have planned it: no scan of every action (4,096 x 4,096 at scale) */
	if (!l->netdev_shared)
		return false;
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == key && streq_ptr(p->actions[i].netdev, netdev) &&
		    streq_ptr(p->actions[i].desired, desired))
			return true;
	return false;
}

/* The rules, one per setting: compare observed with declared, add an action on a difference. */

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
	case KEY_QOS_PFC_DELAY:
		return a->qos_pfc_delay != b->qos_pfc_delay;
	case KEY_QOS_BUFFER_PRIO:
		return memcmp(a->qos_buffer_prio, b->qos_buffer_prio, sizeof(a->qos_buffer_prio)) !=
		       0;
	case KEY_QOS_BUFFER_SIZE:
		return memcmp(a->qos_buffer_size, b->qos_buffer_size, sizeof(a->qos_buffer_size)) !=
		       0;
	case KEY_QOS_DCBX:
		return a->qos_dcbx != b->qos_dcbx;
	case KEY_NETDEV_PAUSE_AUTONEG:
		return a->pause_autoneg != b->pause_autoneg;
	case KEY_NETDEV_PAUSE_RX:
		return a->pause_rx != b->pause_rx;
	case KEY_NETDEV_PAUSE_TX:
		return a->pause_tx != b->pause_tx;
	case KEY_ECN_CNP_DSCP:
		return a->ecn_cnp_dscp != b->ecn_cnp_dscp;
	case KEY_ECN_CNP_PRIO:
		return a->ecn_cnp_prio != b->ecn_cnp_prio;
	default:
		return false;
	}
}

/* Another link on the same netdev whose profiles want a different value for key: applying
 * either would undo the other on every reconcile. Neither is applied; the plan says why.
 * Writes the reason to buf and returns it, or NULL. */
const char *netdev_conflict(const PlanPort *l, Key key, char *buf, size_t size) {
	const HostState *h = l->host;

	/* the common case, and the scan below is of every port (4,096 x 4,096 at scale) */
	if (!l->netdev_shared)
		return NULL;

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
