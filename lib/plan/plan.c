/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

#include "plan-internal.h"
#include "settings-format.h"
#include "strv.h"

/* roce.mode and roce.tos live in rdma_cm's configfs directory: a kernel without configfs has
 * none to set them in. */
#define NO_CONFIGFS "this kernel has no configfs (built without CONFIG_CONFIGFS_FS)"

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
	if (l->host->configfs_absent)
		return plan_port_add(p, l, PHASE_CONFIGFS, key, NULL, desired, NO_CONFIGFS);
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
	if (l->host->configfs_absent)
		return plan_port_add(p, l, PHASE_CONFIGFS, key, NULL, want, NO_CONFIGFS);
	snprintf(cur, sizeof(cur), "%u", port->roce_tos);
	return plan_port_add(p, l, PHASE_CONFIGFS, key, port->has_roce_tos ? cur : NULL, want,
			     NULL);
}

static int rule_netdev_up(Plan *p, const PlanPort *l, Key key) {
	const char *desired = l->settings->netdev_up ? "up" : "down";

	char conflict[160];

	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, desired, netdev_missing(l));
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, desired, conflict);
	if (l->netdev->up == l->settings->netdev_up || plan_has_netdev_action(p, l, key, desired))
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
	if (l->netdev->mtu == l->settings->netdev_mtu || plan_has_netdev_action(p, l, key, want))
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
		if (present || plan_has_netdev_action(p, l, key, want))
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
	if (have == want || plan_has_netdev_action(p, l, key, des))
		return 0;
	setting_format_priorities(have, cur);
	return plan_port_add(p, l, PHASE_ECN, key, cur, des, NULL);
}

/* ecn.cnp-dscp, ecn.cnp-prio: what the CNPs the port sends as notification point carry. */
static int rule_ecn_cnp(Plan *p, const PlanPort *l, Key key) {
	unsigned want =
		key == KEY_ECN_CNP_DSCP ? l->settings->ecn_cnp_dscp : l->settings->ecn_cnp_prio;
	char cur[16], des[16], conflict[160], why[192];
	unsigned have;

	snprintf(des, sizeof(des), "%u", want);
	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des, netdev_missing(l));
	if (!l->netdev->cnp_supported) {
		snprintf(why, sizeof(why),
			 "no ecn/roce_np/cnp_dscp or cnp_802p_prio in the netdev's sysfs: %s%s has "
			 "no "
			 "interface for the CNP's %s (mlx5 has, not on VFs)",
			 l->netdev->driver ? "the driver " : "this netdev",
			 l->netdev->driver ? l->netdev->driver : "",
			 key == KEY_ECN_CNP_DSCP ? "DSCP" : "priority");
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des, why);
	}
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_ECN, key, NULL, des, conflict);
	have = key == KEY_ECN_CNP_DSCP ? l->netdev->cnp_dscp : l->netdev->cnp_prio;
	if (have == want || plan_has_netdev_action(p, l, key, des))
		return 0;
	snprintf(cur, sizeof(cur), "%u", have);
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
	{ KEY_NETDEV_PAUSE_AUTONEG, rule_netdev_pause },
	{ KEY_NETDEV_PAUSE_RX,  rule_netdev_pause },
	{ KEY_NETDEV_PAUSE_TX,  rule_netdev_pause },
	{ KEY_ROCE_MODE,        rule_roce_mode },
	{ KEY_ROCE_TOS,         rule_roce_tos },
	{ KEY_QOS_DCBX,         rule_qos_dcbx },
	{ KEY_QOS_PFC,          rule_qos_pfc },
	{ KEY_QOS_PFC_DELAY,    rule_qos_pfc },
	{ KEY_QOS_BUFFER_PRIO,  rule_qos_buffer },
	{ KEY_QOS_BUFFER_SIZE,  rule_qos_buffer },
	{ KEY_QOS_ETS_PRIO_TC,  rule_qos_ets },
	{ KEY_QOS_ETS_TC_BW,    rule_qos_ets },
	{ KEY_QOS_ETS_TSA,      rule_qos_ets },
	{ KEY_QOS_MAXRATE,      rule_qos_maxrate },
	{ KEY_QOS_DSCP_MAP,     rule_qos_dscp_map },
	{ KEY_QOS_TRUST,        rule_qos_trust },
	{ KEY_ECN_ROCE_NP,      rule_ecn },
	{ KEY_ECN_ROCE_RP,      rule_ecn },
	{ KEY_ECN_CNP_DSCP,     rule_ecn_cnp },
	{ KEY_ECN_CNP_PRIO,     rule_ecn_cnp },
	{ KEY_COUNTERS_OPTIONAL, rule_counters_optional },
	{ KEY_SECURITY_ROCE_ALLOW_FROM, rule_roce_allow_from },
	{ KEY_RDMA_NODE_DESCRIPTION, rule_node_description },
	/* clang-format on */
};

static int netdev_name_compare(const void *a, const void *b) {
	return strcmp(*(const char *const *) a, *(const char *const *) b);
}

/* The netdev names of every observed port, sorted: which of them two ports share. */
static int port_netdevs_sorted(const HostState *h, const char ***ret, size_t *ret_n) {
	const char **l;
	size_t n = 0;

	for (size_t i = 0; i < h->n_devices; i++)
		n += h->devices[i].n_ports;
	l = calloc(n ? n : 1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++)
			if (h->devices[i].ports[k].netdev)
				l[n++] = h->devices[i].ports[k].netdev;
	qsort(l, n, sizeof(char *), netdev_name_compare);
	*ret = l;
	*ret_n = n;
	return 0;
}

static bool netdev_shared(const char **sorted, size_t n, const char *netdev) {
	const char **at;
	size_t i;

	if (!netdev)
		return false;
	at = bsearch(&netdev, sorted, n, sizeof(char *), netdev_name_compare);
	if (!at)
		return false;
	i = (size_t) (at - sorted);
	return (i > 0 && streq(sorted[i - 1], netdev)) ||
	       (i + 1 < n && streq(sorted[i + 1], netdev));
}

static int plan_port(Plan *p, const Config *c, const HostState *h, const HostDevice *d,
		     const HostPort *port, bool shared) {
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
		.netdev_shared = shared,
		.settings = &s,
	};
	snprintf(l.name, sizeof(l.name), "%s/%u", d->name, port->port);
	for (size_t i = 0; i < ELEMENTSOF(link_rules) && r >= 0; i++)
		if (s.set & KEY_BIT(link_rules[i].key))
			r = link_rules[i].rule(p, &l, link_rules[i].key);
	port_settings_done(&s);
	return r;
}

/* Stable counting sort by phase: within a phase, actions keep the order they were planned in
 * (host first, then links by device and port). In place, one swap per action that moves: a
 * plan of thousands of links is megabytes of actions (an Action is some 600 bytes), and a copy
 * of it into a new allocation costs its page faults in the daemon's event loop. A plan already
 * in order (one phase, as a host-wide MTU change) is left as it is. */
int plan_order(Plan *p) {
	_cleanup_free_ size_t *dest = NULL;
	size_t start[_PHASE_MAX] = { 0 }, next = 0;
	bool ordered = true;

	for (size_t i = 0; i < p->n_actions; i++) {
		assert(p->actions[i].phase >= 0 && p->actions[i].phase < _PHASE_MAX);
		start[p->actions[i].phase]++;
		if (i > 0 && p->actions[i].phase < p->actions[i - 1].phase)
			ordered = false;
	}
	if (ordered)
		return 0;
	for (ActionPhase phase = 0; phase < _PHASE_MAX; phase++) {
		size_t n = start[phase];

		start[phase] = next;
		next += n;
	}
	dest = calloc(p->n_actions, sizeof(size_t));
	if (!dest)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_actions; i++)
		dest[i] = start[p->actions[i].phase]++;
	/* each swap puts the action at i where it belongs */
	for (size_t i = 0; i < p->n_actions; i++)
		while (dest[i] != i) {
			size_t j = dest[i];

			SWAP(p->actions[i], p->actions[j]);
			SWAP(dest[i], dest[j]);
		}
	return 0;
}

struct PlanBuilder {
	const Config *c;
	const HostState *h;
	Plan *p;
	const char **netdevs; /* of every port, sorted: which ones two ports share */
	size_t n_netdevs;
	size_t device, port; /* the next port to plan */
	bool done;
};

PlanBuilder *plan_builder_free(PlanBuilder *b) {
	if (!b)
		return NULL;
	plan_free(b->p);
	free(b->netdevs);
	free(b);
	return NULL;
}

int plan_builder_new(const Config *c, const HostState *h, PlanBuilder **ret) {
	_cleanup_(plan_builder_freep) PlanBuilder *b = NULL;
	int r;

	b = calloc(1, sizeof(PlanBuilder));
	if (!b)
		return -ENOMEM;
	*b = (PlanBuilder){ .c = c, .h = h };
	b->p = calloc(1, sizeof(Plan));
	if (!b->p)
		return -ENOMEM;
	if (!h->partial) {
		r = plan_host(b->p, c, h);
		if (r < 0)
			return r;
		/* rdmad's rail routing that no profile declares as it is any more */
		r = plan_rails_removed(b->p, c, h);
		if (r < 0)
			return r;
		/* chains of rdmad's nftables table that no profile declares any more */
		r = plan_firewall_removed(b->p, c, h);
		if (r < 0)
			return r;
		/* sriov.*, pci.*: functions are observed on full passes only */
		r = plan_functions(b->p, c, h);
		if (r < 0)
			return r;
	}
	r = port_netdevs_sorted(h, &b->netdevs, &b->n_netdevs);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(b);
	return 0;
}

int plan_builder_step(PlanBuilder *b) {
	const HostState *h = b->h;
	const HostPort *port;
	int r;

	while (b->device < h->n_devices && b->port >= h->devices[b->device].n_ports) {
		b->device++;
		b->port = 0;
	}
	if (b->device == h->n_devices) {
		b->done = true;
		return 1;
	}
	port = &h->devices[b->device].ports[b->port++];
	r = plan_port(b->p, b->c, h, &h->devices[b->device], port,
		      netdev_shared(b->netdevs, b->n_netdevs, port->netdev));
	return r < 0 ? r : 0;
}

int plan_builder_finish(PlanBuilder *b, Plan **ret) {
	int r;

	if (!b->done)
		return -EBUSY;
	r = plan_order(b->p);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(b->p);
	return 0;
}

int plan_compute(const Config *c, const HostState *h, Plan **ret) {
	_cleanup_(plan_builder_freep) PlanBuilder *b = NULL;
	int r;

	r = plan_builder_new(c, h, &b);
	while (r >= 0 && (r = plan_builder_step(b)) == 0)
		;
	if (r < 0)
		return r;
	return plan_builder_finish(b, ret);
}
