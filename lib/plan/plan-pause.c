/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's rule for netdev.pause.*: global (802.3x) pause against the netdev's ethtool
 * pause parameters (host-pause.c reads them; apply-pause.c writes what differs). A lossless
 * RoCE port wants it off: with global pause on, a NIC ignores PFC and pauses every priority. */
#include <stdio.h>

#include "plan-internal.h"

int rule_netdev_pause(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	bool want = key == KEY_NETDEV_PAUSE_AUTONEG ? s->pause_autoneg
		    : key == KEY_NETDEV_PAUSE_RX    ? s->pause_rx
						    : s->pause_tx;
	const char *des = want ? "on" : "off";
	char conflict[160], why[160];
	const HostNetdev *n = l->netdev;
	bool have;

	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, des, netdev_missing(l));
	if (!n->pause_observed)
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, des,
				     "pause was not read (ethtool netlink)");
	if (n->pause_error < 0) {
		if (n->pause_error == -EOPNOTSUPP)
			snprintf(why, sizeof(why),
				 "%s has no pause parameters (the driver has no get_pauseparam)",
				 n->name);
		else if (n->pause_error == -ENOENT)
			snprintf(why, sizeof(why),
				 "the kernel has no ethtool netlink (CONFIG_ETHTOOL_NETLINK)");
		else
			snprintf(why, sizeof(why), "ethtool PAUSE_GET of %s: %s", n->name,
				 strerror(-n->pause_error));
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, des, why);
	}
	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_NETDEV, key, NULL, des, conflict);
	have = key == KEY_NETDEV_PAUSE_AUTONEG ? n->pause.autoneg
	       : key == KEY_NETDEV_PAUSE_RX    ? n->pause.rx
					       : n->pause.tx;
	if (have == want || plan_has_netdev_action(p, l, key, des))
		return 0;
	return plan_port_add(p, l, PHASE_NETDEV, key, have ? "on" : "off", des, NULL);
}
