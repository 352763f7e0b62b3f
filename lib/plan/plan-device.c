/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's device-level rules: rdma.node-description (the device's node_desc, which the
 * subnet manager, ibnetdiscover and `rdma dev` show). One action per device, on its first port. */
#include "plan-internal.h"

void node_description_expand(const char *format, const char *hostname, const char *device,
			     char buf[static NODE_DESC_MAX + 1]) {
	size_t n = 0;

	for (const char *c = format; *c && n < NODE_DESC_MAX; c++) {
		const char *add = NULL;
		char one[2] = { *c, 0 };

		if (*c == '%' && (c[1] == 'h' || c[1] == 'd' || c[1] == '%')) {
			c++;
			add = *c == 'h' ? (hostname ? hostname : "%h") : *c == 'd' ? device : "%";
		} else
			add = one;
		for (; *add && n < NODE_DESC_MAX; add++)
			buf[n++] = *add;
	}
	buf[n] = 0;
}

int rule_node_description(Plan *p, const PlanPort *l, Key key) {
	const HostDevice *d = l->device;
	const char *format = l->settings->node_description;
	char want[NODE_DESC_MAX + 1];

	/* a device-level setting: planned once, with the device's first port */
	if (d->n_ports > 0 && l->port->port != d->ports[0].port)
		return 0;
	node_description_expand(format, l->host->hostname, d->name, want);
	if (d->node_desc && streq(d->node_desc, want))
		return 0;
	if (!l->host->hostname && strstr(format, "%h"))
		return plan_port_add(p, l, PHASE_DEVICE, key, d->node_desc, want,
				     "the host name (%h) could not be read: "
				     "/proc/sys/kernel/hostname");
	return plan_port_add(p, l, PHASE_DEVICE, key, d->node_desc, want, NULL);
}
