/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's rules for netdev.rail-routing (rail.h): per netdev, the sysctls, the connected
 * route of each of its subnets in its table, and an ip rule from each of its addresses (those
 * it has, and those netdev.addresses is about to give it); what rdmad put in that table that
 * no longer fits is taken away. On full observations, what rdmad recorded for a netdev that
 * no profile declares any more (or under another table) is taken away and the sysctls are put
 * back. One action per rule, route or sysctl: the plan shows each difference. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/socket.h>

#include "plan-internal.h"

static int rail_add(Plan *p, const PlanPort *l, const char *netdev, int ifindex,
		    const char *current, const char *desired, const char *profile,
		    const char *unsupported, const RailItem *item) {
	return plan_add(p, &(ActionSpec){
				   .phase = PHASE_ROUTING,
				   .key = KEY_NETDEV_RAIL_ROUTING,
				   .port_name = l ? l->name : NULL,
				   .plink = l,
				   .current = current,
				   .desired = desired,
				   .profile = profile,
				   .unsupported = unsupported,
				   .rail = item,
				   .netdev = netdev,
				   .ifindex = ifindex,
			   });
}

static int port_add(Plan *p, const PlanPort *l, const char *current, const char *desired,
		    const char *unsupported, const RailItem *item) {
	return rail_add(p, l, NULL, 0, current, desired,
			l->settings->origin[KEY_NETDEV_RAIL_ROUTING], unsupported, item);
}

/* The table settings s want for netdev n; 0 when none, or when it cannot be known (the
 * ifindex of "true" on a netdev not seen). */
static uint32_t wanted_table(const PortSettings *s, const HostNetdev *n) {
	if (!(s->set & KEY_BIT(KEY_NETDEV_RAIL_ROUTING)) || !s->rail_routing)
		return 0;
	return s->rail_table ? s->rail_table : rail_table_auto(n ? n->ifindex : 0);
}

/* Whether a link on netdev nd declares rail-routing (the first one's table in *ret_table;
 * links that disagree are the port rule's conflict). */
static bool netdev_wanted(const Config *c, const HostState *h, const char *nd,
			  uint32_t *ret_table) {
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostPort *port = &h->devices[i].ports[k];
			PortSettings s;
			PortFacts f;
			bool wanted;

			if (!streq_ptr(port->netdev, nd))
				continue;
			host_port_facts(&h->devices[i], port, &f);
			if (config_settings_for_port(c, &f, &s, NULL) <= 0)
				continue;
			wanted = (s.set & KEY_BIT(KEY_NETDEV_RAIL_ROUTING)) && s.rail_routing;
			if (wanted)
				*ret_table = wanted_table(&s, host_netdev_find(h, nd));
			port_settings_done(&s);
			if (wanted)
				return true;
		}
	return false;
}

/* Another netdev whose profiles want the same table: the reason in buf, or NULL. */
static const char *table_taken(const PlanPort *l, uint32_t table, char *buf, size_t size) {
	const HostState *h = l->host;

	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostPort *port = &h->devices[i].ports[k];
			PortSettings s;
			PortFacts f;
			bool same;

			if (!port->netdev || streq(port->netdev, l->port->netdev))
				continue;
			host_port_facts(&h->devices[i], port, &f);
			if (config_settings_for_port(l->config, &f, &s, NULL) <= 0)
				continue;
			same = wanted_table(&s, host_netdev_find(h, port->netdev)) == table;
			if (same)
				snprintf(buf, size, "table %" PRIu32 " is wanted for %s too (%s)",
					 table, port->netdev,
					 strna(s.origin[KEY_NETDEV_RAIL_ROUTING]));
			port_settings_done(&s);
			if (same)
				return buf;
		}
	return NULL;
}

static bool plan_has_rail_action(const Plan *p, const char *netdev) {
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == KEY_NETDEV_RAIL_ROUTING &&
		    streq_ptr(p->actions[i].netdev, netdev))
			return true;
	return false;
}

static bool link_local6(const Address *a) {
	return a->family == AF_INET6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80;
}

static size_t addr_len(int family) {
	return family == AF_INET ? 4 : 16;
}

/* What a removal wants: "THING: absent". Each removal's desired value is its own: the daemon
 * tells the actions of one reconcile apart by link, setting and desired value. */
static char *absent(const char *thing) {
	char *s;

	return asprintf(&s, "%s: absent", thing) < 0 ? NULL : s;
}

/* The netdev's addresses a rule is wanted for: those it has and those declared for it, each
 * once; IPv6 link-local ones need none (they never leave the link). */
static int rail_addresses(const PlanPort *l, Address **ret, size_t *ret_n) {
	const HostNetdev *n = l->netdev;
	const PortSettings *s = l->settings;
	Address *list = NULL;
	size_t m = 0;

	for (size_t pass = 0; pass < 2; pass++) {
		const Address *src = pass == 0 ? n->addresses : s->addresses;
		size_t count =
			pass == 0 ? (n->addresses_known ? n->n_addresses : 0)
				  : (s->set & KEY_BIT(KEY_NETDEV_ADDRESSES) ? s->n_addresses : 0);

		for (size_t i = 0; i < count; i++) {
			bool dup = false;
			Address *x;

			if (link_local6(&src[i]))
				continue;
			for (size_t j = 0; j < m; j++)
				dup = dup || (list[j].family == src[i].family &&
					      memcmp(list[j].addr, src[i].addr,
						     addr_len(src[i].family)) == 0);
			if (dup)
				continue;
			x = realloc(list, sizeof(Address) * (m + 1));
			if (!x) {
				free(list);
				return -ENOMEM;
			}
			list = x;
			list[m++] = src[i];
		}
	}
	*ret = list;
	*ret_n = m;
	return 0;
}

static RailRule rule_for(const Address *a, uint32_t table) {
	RailRule r = {
		.family = a->family,
		.src_len = (uint8_t) (addr_len(a->family) * 8),
		.table = table,
		.priority = RAIL_RULE_PRIORITY,
	};

	memcpy(r.src, a->addr, addr_len(a->family));
	return r;
}

static RailRoute route_for(const Address *a, int ifindex, uint32_t table) {
	RailRoute r = {
		.family = a->family,
		.dst_len = a->prefixlen,
		.has_prefsrc = true,
		.oif = ifindex,
		.table = table,
		.protocol = RAIL_ROUTE_PROTOCOL,
	};

	memcpy(r.prefsrc, a->addr, addr_len(a->family));
	memcpy(r.dst, a->addr, a->prefixlen / 8);
	if (a->prefixlen % 8)
		r.dst[a->prefixlen / 8] =
			a->addr[a->prefixlen / 8] & (uint8_t) (0xff << (8 - a->prefixlen % 8));
	return r;
}

/* The routes and rules the addresses want: one route per subnet (its first address as the
 * source), one rule per address. */
static int rail_wanted(const Address *a, size_t n, int ifindex, uint32_t table,
		       RailRoute **ret_routes, size_t *ret_n_routes, RailRule **ret_rules) {
	_cleanup_free_ RailRoute *routes = calloc(n ? n : 1, sizeof(RailRoute));
	_cleanup_free_ RailRule *rules = calloc(n ? n : 1, sizeof(RailRule));
	size_t m = 0;

	if (!routes || !rules)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		RailRoute r = route_for(&a[i], ifindex, table);
		bool dup = false;

		rules[i] = rule_for(&a[i], table);
		for (size_t j = 0; j < m; j++)
			dup = dup ||
			      (routes[j].family == r.family && routes[j].dst_len == r.dst_len &&
			       memcmp(routes[j].dst, r.dst, addr_len(r.family)) == 0);
		if (!dup)
			routes[m++] = r;
	}
	*ret_routes = TAKE_PTR(routes);
	*ret_n_routes = m;
	*ret_rules = TAKE_PTR(rules);
	return 0;
}

static int add_rule_row(Plan *p, const PlanPort *l, const char *netdev, const RailRule *rule,
			bool remove, const char *profile) {
	_cleanup_free_ char *text = rail_rule_to_string(rule), *cur = NULL, *des = NULL;
	RailItem item = { .kind = RAIL_KIND_RULE, .remove = remove, .rule = *rule };

	if (!text)
		return -ENOMEM;
	if (!remove)
		return port_add(p, l, NULL, text, NULL, &item);
	if (!l && asprintf(&cur, "%s: %s", netdev, text) < 0)
		return -ENOMEM;
	des = absent(cur ? cur : text);
	if (!des)
		return -ENOMEM;
	return rail_add(p, l, l ? NULL : netdev, 0, cur ? cur : text, des, profile, NULL, &item);
}

static int add_route_row(Plan *p, const PlanPort *l, const char *netdev, const RailRoute *route,
			 bool remove, const char *profile) {
	_cleanup_free_ char *text = rail_route_to_string(route, netdev), *des = NULL;
	RailItem item = { .kind = RAIL_KIND_ROUTE, .remove = remove, .route = *route };

	if (!text)
		return -ENOMEM;
	if (!remove)
		return port_add(p, l, NULL, text, NULL, &item);
	des = absent(text);
	if (!des)
		return -ENOMEM;
	return rail_add(p, l, l ? NULL : netdev, route->oif, text, des, profile, NULL, &item);
}

int rule_rail_routing(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	const HostState *h = l->host;
	_cleanup_free_ char *declared = NULL;
	_cleanup_free_ Address *addrs = NULL;
	_cleanup_free_ RailRoute *routes = NULL;
	_cleanup_free_ RailRule *rules = NULL;
	size_t n_addrs = 0, n_routes = 0;
	char why[192];
	uint32_t table;
	int r;

	if (!s->rail_routing)
		return 0; /* false: nothing wanted; what rdmad set up goes on a full pass */
	r = port_setting_format(s, key, &declared);
	if (r < 0)
		return r;
	if (netdev_missing(l))
		return port_add(p, l, NULL, declared, netdev_missing(l), NULL);
	if (netdev_conflict(l, key, why, sizeof(why)))
		return port_add(p, l, NULL, declared, why, NULL);
	if (plan_has_rail_action(p, l->netdev->name))
		return 0; /* another link on the same netdev planned it */
	table = wanted_table(s, l->netdev);
	if (table == 0)
		return port_add(p, l, NULL, declared,
				"the netdev's ifindex is not known (not in this network namespace)",
				NULL);
	if (table_taken(l, table, why, sizeof(why)))
		return port_add(p, l, NULL, declared, why, NULL);
	if (!h->rails_observed) {
		snprintf(why, sizeof(why), "rdmad's ip rules and routes could not be read: %s",
			 strerror(h->rails_error ? -h->rails_error : ENODATA));
		return port_add(p, l, NULL, declared, why, NULL);
	}

	r = rail_addresses(l, &addrs, &n_addrs);
	if (r >= 0)
		r = rail_wanted(addrs, n_addrs, l->netdev->ifindex, table, &routes, &n_routes,
				&rules);
	if (r < 0)
		return r;

	/* rdmad's rules and routes in the table that nothing wants (an address gone): first, so
	 * that a route of the same subnet can be added again */
	for (size_t i = 0; i < h->n_rail_rules; i++) {
		bool wanted = false;

		if (h->rail_rules[i].table != table)
			continue;
		for (size_t j = 0; j < n_addrs; j++)
			wanted = wanted || rail_rule_equal(&rules[j], &h->rail_rules[i]);
		if (!wanted) {
			r = add_rule_row(p, l, l->netdev->name, &h->rail_rules[i], true, NULL);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < h->n_rail_routes; i++) {
		bool wanted = false;

		if (h->rail_routes[i].table != table)
			continue;
		for (size_t j = 0; j < n_routes; j++)
			wanted = wanted || rail_route_equal(&routes[j], &h->rail_routes[i]);
		if (!wanted) {
			r = add_route_row(p, l, l->netdev->name, &h->rail_routes[i], true, NULL);
			if (r < 0)
				return r;
		}
	}

	for (RailSysctl k = 0; k < _RAIL_SYSCTL_MAX; k++) {
		int want = rail_sysctl_desired(k),
		    have = l->netdev->rail_sysctls_observed ? l->netdev->rail_sysctl[k] : -1;
		RailItem item = { .kind = RAIL_KIND_SYSCTL, .sysctl = k, .value = want };
		char cur[48], des[48];

		snprintf(des, sizeof(des), "%s=%d", rail_sysctl_to_string(k), want);
		snprintf(cur, sizeof(cur), "%s=%d", rail_sysctl_to_string(k), have);
		if (have == want)
			continue;
		if (have < 0) {
			snprintf(why, sizeof(why), "net.ipv4.conf.%s.%s could not be read",
				 l->netdev->name, rail_sysctl_to_string(k));
			r = port_add(p, l, NULL, des, why, &item);
		} else
			r = port_add(p, l, cur, des, NULL, &item);
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < n_routes; i++) {
		bool present = false;

		for (size_t j = 0; j < h->n_rail_routes; j++)
			present = present || rail_route_equal(&routes[i], &h->rail_routes[j]);
		if (!present) {
			r = add_route_row(p, l, l->netdev->name, &routes[i], false, NULL);
			if (r < 0)
				return r;
		}
	}
	for (size_t i = 0; i < n_addrs; i++) {
		bool present = false;

		for (size_t j = 0; j < h->n_rail_rules; j++)
			present = present || rail_rule_equal(&rules[i], &h->rail_rules[j]);
		if (!present) {
			r = add_rule_row(p, l, l->netdev->name, &rules[i], false, NULL);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/* Everything rdmad put in table for the netdev of rec, then the table's line in the record
 * (0: the whole record). */
static int plan_table_removed(Plan *p, const HostState *h, const RailRecord *rec, uint32_t table,
			      uint32_t forget) {
	const HostNetdev *n = host_netdev_find(h, rec->netdev);
	RailItem item = { .kind = RAIL_KIND_FORGET, .table = forget };
	char cur[96], des[112];
	int r;

	for (size_t i = 0; table && i < h->n_rail_rules; i++)
		if (h->rail_rules[i].table == table) {
			r = add_rule_row(p, NULL, rec->netdev, &h->rail_rules[i], true, NULL);
			if (r < 0)
				return r;
		}
	for (size_t i = 0; table && i < h->n_rail_routes; i++)
		if (h->rail_routes[i].table == table) {
			r = add_route_row(p, NULL, rec->netdev, &h->rail_routes[i], true, NULL);
			if (r < 0)
				return r;
		}
	if (forget)
		snprintf(cur, sizeof(cur), "%s: table %" PRIu32 " in rdmad's record", rec->netdev,
			 forget);
	else
		snprintf(cur, sizeof(cur), "%s: rdmad's record", rec->netdev);
	snprintf(des, sizeof(des), "%s: absent", cur);
	if (forget || table == 0)
		return rail_add(p, NULL, rec->netdev, n ? n->ifindex : 0, cur, des, NULL, NULL,
				&item);
	return 0;
}

int plan_rails_removed(Plan *p, const Config *c, const HostState *h) {
	int r;

	for (size_t i = 0; i < h->n_rail_records; i++) {
		const RailRecord *rec = &h->rail_records[i];
		const HostNetdev *n = host_netdev_find(h, rec->netdev);
		uint32_t table = 0;
		bool wanted = netdev_wanted(c, h, rec->netdev, &table);

		if (!h->rails_observed) {
			char why[160];

			snprintf(why, sizeof(why),
				 "rdmad's ip rules and routes could not be read: %s",
				 strerror(h->rails_error ? -h->rails_error : ENODATA));
			char des[64];

			snprintf(des, sizeof(des), "%s: rdmad's rail routing absent", rec->netdev);
			r = rail_add(p, NULL, rec->netdev, 0, NULL, des, NULL, why, NULL);
			if (r < 0)
				return r;
			continue;
		}
		for (size_t t = 0; t < rec->n_tables; t++) {
			if (wanted && rec->tables[t] == table)
				continue;
			r = plan_table_removed(p, h, rec, rec->tables[t],
					       wanted ? rec->tables[t] : 0);
			if (r < 0)
				return r;
		}
		if (wanted)
			continue;
		/* the sysctls back as they were before rdmad's first write */
		for (RailSysctl k = 0; k < _RAIL_SYSCTL_MAX; k++) {
			RailItem item = { .kind = RAIL_KIND_SYSCTL,
					  .remove = true,
					  .sysctl = k,
					  .value = rec->saved[k] };
			char cur[64], des[64];

			if (rec->saved[k] < 0 || !n || !n->rail_sysctls_observed ||
			    n->rail_sysctl[k] < 0 || n->rail_sysctl[k] == rec->saved[k])
				continue;
			snprintf(cur, sizeof(cur), "%s: %s=%d", rec->netdev,
				 rail_sysctl_to_string(k), n->rail_sysctl[k]);
			snprintf(des, sizeof(des), "%s: %s=%d", rec->netdev,
				 rail_sysctl_to_string(k), rec->saved[k]);
			r = rail_add(p, NULL, rec->netdev, n->ifindex, cur, des, NULL, NULL, &item);
			if (r < 0)
				return r;
		}
		r = plan_table_removed(p, h, rec, 0, 0);
		if (r < 0)
			return r;
	}
	return 0;
}
