/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's rules for security.roce-allow-from (firewall.h): a Soft-RoCE link's chain in
 * rdmad's nftables table, compared with the chain the host has (one action when they differ,
 * none when they are the same); on full observations, the chains of netdevs no profile
 * declares the key for any more, or the whole table once none does. */
#include <stdio.h>

#include "plan-internal.h"

static bool device_is_rxe(const HostDevice *d) {
	return streq_ptr(d->driver, "rdma_rxe");
}

int rule_roce_allow_from(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	const HostState *h = l->host;
	_cleanup_free_ char *des = NULL, *cur = NULL;
	char why[320];

	des = firewall_allow_format(s->roce_allow_from, s->n_roce_allow_from);
	if (!des)
		return -ENOMEM;
	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_FIREWALL, key, NULL, des, netdev_missing(l));
	if (!device_is_rxe(l->device)) {
		/* refused, not half done: a rule here would look like protection and be none */
		snprintf(
			why, sizeof(why),
			"not Soft-RoCE (driver %s): hardware RoCE is handled by the NIC and never "
			"reaches the kernel's network stack, so nftables does not see it; restrict "
			"it on the switch or the fabric",
			strna(l->device->driver));
		return plan_port_add(p, l, PHASE_FIREWALL, key, NULL, des, why);
	}
	if (netdev_conflict(l, key, why, sizeof(why)))
		return plan_port_add(p, l, PHASE_FIREWALL, key, NULL, des, why);
	if (plan_has_netdev_action(p, l, key, des))
		return 0; /* another link on the same netdev planned it */
	if (!h->firewall_observed) {
		snprintf(why, sizeof(why), "the nftables table %s %s could not be read: %s",
			 FIREWALL_FAMILY, FIREWALL_TABLE,
			 h->firewall_error_message
				 ? h->firewall_error_message
				 : strerror(h->firewall_error ? -h->firewall_error : ENODATA));
		return plan_port_add(p, l, PHASE_FIREWALL, key, NULL, des, why);
	}
	if (firewall_chain_converged(firewall_chain_find(&h->firewall, l->netdev->name),
				     l->netdev->name, s->roce_allow_from, s->n_roce_allow_from))
		return 0;
	cur = firewall_chain_describe(&h->firewall, l->netdev->name);
	if (!cur)
		return -ENOMEM;
	return plan_port_add(p, l, PHASE_FIREWALL, key, cur, des, NULL);
}

/* Whether a Soft-RoCE link on netdev nd (NULL: on any netdev) declares the key. */
static bool firewall_wanted(const Config *c, const HostState *h, const char *nd) {
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostPort *port = &h->devices[i].ports[k];
			PortSettings s;
			PortFacts f;
			bool wanted;

			if (!port->netdev || (nd && !streq(port->netdev, nd)) ||
			    !device_is_rxe(&h->devices[i]))
				continue;
			host_port_facts(&h->devices[i], port, &f);
			if (config_settings_for_port(c, &f, &s, NULL) <= 0)
				continue;
			wanted = s.set & KEY_BIT(KEY_SECURITY_ROCE_ALLOW_FROM);
			port_settings_done(&s);
			if (wanted)
				return true;
		}
	return false;
}

static int removal_add(Plan *p, FirewallOp op, const char *netdev, const char *current,
		       const char *desired) {
	return plan_add(p, &(ActionSpec){
				   .phase = PHASE_FIREWALL,
				   .key = KEY_SECURITY_ROCE_ALLOW_FROM,
				   .netdev = netdev,
				   .current = current,
				   .desired = desired,
				   .firewall_op = op,
			   });
}

int plan_firewall_removed(Plan *p, const Config *c, const HostState *h) {
	const FirewallState *fw = &h->firewall;
	char cur[128], des[160];
	int r;

	if (!h->firewall_observed || !fw->table)
		return 0;
	if (!firewall_wanted(c, h, NULL)) {
		snprintf(cur, sizeof(cur), "table %s %s (%zu chain%s)", FIREWALL_FAMILY,
			 FIREWALL_TABLE, fw->n_chains, fw->n_chains == 1 ? "" : "s");
		snprintf(des, sizeof(des), "table %s %s: absent", FIREWALL_FAMILY, FIREWALL_TABLE);
		return removal_add(p, FIREWALL_OP_TABLE_REMOVE, NULL, cur, des);
	}
	for (size_t i = 0; i < fw->n_chains; i++) {
		_cleanup_free_ char *what = NULL;

		if (firewall_wanted(c, h, fw->chains[i].name))
			continue;
		what = firewall_chain_describe(fw, fw->chains[i].name);
		if (!what)
			return -ENOMEM;
		snprintf(cur, sizeof(cur), "chain %s: %s", fw->chains[i].name, what);
		snprintf(des, sizeof(des), "chain %s %s %s: absent", FIREWALL_FAMILY,
			 FIREWALL_TABLE, fw->chains[i].name);
		r = removal_add(p, FIREWALL_OP_CHAIN_REMOVE, fw->chains[i].name, cur, des);
		if (r < 0)
			return r;
	}
	return 0;
}
