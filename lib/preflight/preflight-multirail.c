/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Multi-rail: per RDMA netdev, whether another one shares its subnet without what keeps their
 * traffic apart (a source rule to a table of its own, the arp and rp_filter sysctls): else
 * replies leave by the wrong port. Reads the sysctls under the root and, on the real root, the
 * ip rules and routes over rtnetlink. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <netlink/route/route.h>
#include <netlink/route/rule.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/socket.h>

#include "fileio.h"
#include "netlink-io.h"
#include "preflight-internal.h"
#include "preflight.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cache *, nl_cache_free)

/* Multi-rail: RDMA netdevs with addresses in one subnet. */

typedef struct Rail {
	const HostNetdev *netdev;
	bool wanted;
} Rail;

static int rails_collect(const PreflightInput *in, Rail **ret, size_t *ret_n) {
	_cleanup_free_ Rail *rails = NULL;
	size_t n = 0, allocated = 0;

	for (size_t i = 0; i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];

		for (size_t j = 0; j < d->n_ports; j++) {
			const HostPort *port = &d->ports[j];
			const HostNetdev *nd;
			size_t k;

			if (port->link_layer != LINK_LAYER_ETHERNET || !port->netdev)
				continue;
			nd = host_netdev_find(in->host, port->netdev);
			if (!nd || !nd->addresses_known)
				continue;
			for (k = 0; k < n; k++)
				if (rails[k].netdev == nd)
					break;
			if (k == n) {
				if (GREEDY_REALLOC(rails, allocated, n + 1) < 0)
					return -ENOMEM;
				rails[n++] = (Rail){ .netdev = nd };
			}
			rails[k].wanted |= preflight_wants_port(in, d, port);
		}
	}
	*ret = TAKE_PTR(rails);
	*ret_n = n;
	return 0;
}

/* The effective value of an ipv4 conf sysctl: the larger of all's and the netdev's (the kernel's
 * IN_DEV_MAXCONF for arp_ignore, arp_announce and rp_filter); -1 when unreadable. */
static int sysctl_effective(const char *root, const char *netdev, const char *name) {
	int v = -1;

	for (unsigned i = 0; i < 2; i++) {
		_cleanup_free_ char *path = NULL, *full = NULL;
		char buf[32], *end;
		long x;

		if (asprintf(&path, "/proc/sys/net/ipv4/conf/%s/%s", i == 0 ? "all" : netdev,
			     name) < 0)
			return -1;
		full = root_path(root, path);
		if (!full || read_small_at(AT_FDCWD, full, buf, sizeof(buf)) < 0)
			return -1;
		errno = 0;
		x = strtol(buf, &end, 10);
		if (errno || end == buf || *end || x < 0 || x > 255)
			return -1;
		if ((int) x > v)
			v = (int) x;
	}
	return v;
}

static bool table_is_source_table(uint32_t table) {
	return table != 0 && table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL &&
	       table != RT_TABLE_DEFAULT;
}

/* An ip rule from a to a table of its own that routes via the netdev: the table, or 0. */
static uint32_t source_routed(const PreflightRouting *routing, const Address *a, int ifindex) {
	for (size_t i = 0; i < routing->n_rules; i++) {
		const PreflightRule *rule = &routing->rules[i];

		if (rule->family != a->family || rule->src_len == 0 ||
		    !table_is_source_table(rule->table) ||
		    !prefix_equal(rule->src, a->addr, rule->src_len))
			continue;
		for (size_t j = 0; j < routing->n_routes; j++)
			if (routing->routes[j].table == rule->table &&
			    routing->routes[j].family == a->family && ifindex > 0 &&
			    routing->routes[j].oif == ifindex)
				return rule->table;
	}
	return 0;
}

static int strv_extend_unique(char ***l, const char *s) {
	return strv_contains(*l, s) ? 0 : strv_extend(l, s);
}

static int strv_extendf(char ***l, const char *format, ...) _printf_(2, 3);
static int strv_extendf(char ***l, const char *format, ...) {
	va_list ap;
	char *s;
	int r;

	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	return strv_consume(l, s);
}

static int rail_judge(Preflight *p, const PreflightInput *in, const PreflightRouting *routing,
		      const Rail *rails, size_t n_rails, const Rail *x) {
	_cleanup_strv_free_ char **others = NULL, **subnets = NULL, **problems = NULL,
				 **fixes = NULL, **good = NULL;
	_cleanup_free_ char *others_s = NULL, *subnets_s = NULL, *problems_s = NULL,
			    *fixes_s = NULL, *good_s = NULL;
	const HostNetdev *n = x->netdev;
	uint32_t own_table = 100 + (uint32_t) (n->ifindex > 0 ? n->ifindex : 0);
	bool any_v4 = false;
	int r;

	for (size_t i = 0; i < n->n_addresses; i++) {
		const Address *a = &n->addresses[i];
		bool shared = false;
		char net[INET6_ADDRSTRLEN + 16], buf[INET6_ADDRSTRLEN];
		uint8_t masked[16] = { 0 };
		unsigned plen = 0;
		uint32_t table;

		if (address_link_local(a))
			continue;
		for (size_t k = 0; k < n_rails; k++) {
			const HostNetdev *o = rails[k].netdev;

			if (o == n)
				continue;
			for (size_t j = 0; j < o->n_addresses; j++) {
				const Address *b = &o->addresses[j];
				unsigned len =
					a->prefixlen < b->prefixlen ? a->prefixlen : b->prefixlen;

				if (b->family != a->family || address_link_local(b) ||
				    !prefix_equal(a->addr, b->addr, len))
					continue;
				shared = true;
				plen = len;
				r = strv_extend_unique(&others, o->name);
				if (r < 0)
					return r;
			}
		}
		if (!shared)
			continue;
		memcpy(masked, a->addr, plen / 8);
		if (plen % 8)
			masked[plen / 8] = a->addr[plen / 8] & (uint8_t) (0xff << (8 - plen % 8));
		snprintf(net, sizeof(net), "%s/%u",
			 inet_ntop(a->family, masked, buf, sizeof(buf)) ? buf : "?", plen);
		r = strv_extend_unique(&subnets, net);
		if (r < 0)
			return r;
		any_v4 |= a->family == AF_INET;
		address_ntop(a, buf, sizeof(buf));
		table = routing->error < 0 ? 0 : source_routed(routing, a, n->ifindex);
		if (routing->error < 0) {
			r = strv_extendf(&fixes,
					 "ip%s route add %s dev %s table %" PRIu32
					 "; ip%s rule add from %s table %" PRIu32,
					 a->family == AF_INET6 ? " -6" : "", net, n->name,
					 own_table, a->family == AF_INET6 ? " -6" : "", buf,
					 own_table);
			if (r < 0)
				return r;
			continue;
		}
		if (table > 0)
			r = strv_extendf(&good, "ip rule from %s lookup %" PRIu32 " (via %s)", buf,
					 table, n->name);
		else {
			r = strv_extendf(&problems, "no ip rule from %s to a table routing via %s",
					 buf, n->name);
			if (r >= 0)
				r = strv_extendf(&fixes,
						 "ip%s route add %s dev %s table %" PRIu32
						 "; ip%s rule add from %s table %" PRIu32,
						 a->family == AF_INET6 ? " -6" : "", net, n->name,
						 own_table, a->family == AF_INET6 ? " -6" : "", buf,
						 own_table);
		}
		if (r < 0)
			return r;
	}
	if (!others)
		return 0;
	if (routing->error < 0) {
		r = strv_extendf(&problems, "the ip rules were not read (%s)",
				 routing->error == -EOPNOTSUPP
					 ? "under another root the running kernel's rules are not "
					   "that root's"
					 : strerror(-routing->error));
		if (r < 0)
			return r;
	}
	if (any_v4) {
		static const struct {
			const char *name;
			const char *want;
			int ok1, ok2, set;
		} sysctls[] = {
			{ "arp_ignore", "1", 1, 2, 1 },
			{ "arp_announce", "2", 2, 2, 2 },
			{ "rp_filter", "2 (loose) or 0", 0, 2, 2 },
		};

		for (size_t i = 0; i < ELEMENTSOF(sysctls); i++) {
			int v = sysctl_effective(in->root, n->name, sysctls[i].name);

			if (v == sysctls[i].ok1 || v == sysctls[i].ok2) {
				r = strv_extendf(&good, "%s %d", sysctls[i].name, v);
				if (r < 0)
					return r;
				continue;
			}
			if (v < 0)
				r = strv_extendf(&problems, "%s could not be read",
						 sysctls[i].name);
			else
				r = strv_extendf(&problems, "%s is %d (wants %s)", sysctls[i].name,
						 v, sysctls[i].want);
			if (r >= 0)
				r = strv_extendf(&fixes, "sysctl -w net.ipv4.conf.%s.%s=%d",
						 n->name, sysctls[i].name, sysctls[i].set);
			if (r < 0)
				return r;
		}
	}

	others_s = strv_join(others, ", ");
	subnets_s = strv_join(subnets, ", ");
	good_s = good ? strv_join(good, ", ") : strdup("");
	if (!others_s || !subnets_s || !good_s)
		return -ENOMEM;
	if (!problems)
		return preflight_add(p, "network.multi-rail", n->name, PREFLIGHT_OK, NULL,
				     "%s shares %s with %s; %s keep its traffic on %s", n->name,
				     subnets_s, others_s, good_s, n->name);
	problems_s = strv_join(problems, "; ");
	fixes_s = strv_join(fixes, "; ");
	if (!problems_s || !fixes_s)
		return -ENOMEM;
	return preflight_add(p, "network.multi-rail", n->name, PREFLIGHT_WARN, fixes_s,
			     "%s and %s have addresses in %s: without source routing per netdev "
			     "(and, for IPv4, arp_ignore/arp_announce), replies and ARP answers "
			     "for %s's addresses can leave by another port, and RoCE packets for "
			     "its GIDs then reach a device that does not have them; %s",
			     n->name, others_s, subnets_s, n->name, problems_s);
}

int preflight_multi_rail(Preflight *p, const PreflightInput *in, const PreflightRouting *routing) {
	_cleanup_free_ Rail *rails = NULL;
	size_t n_rails = 0, before = p->n_rows;
	bool wanted = false;
	int r;

	r = rails_collect(in, &rails, &n_rails);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n_rails; i++) {
		if (!rails[i].wanted)
			continue;
		wanted = true;
		r = rail_judge(p, in, routing, rails, n_rails, &rails[i]);
		if (r < 0)
			return r;
	}
	if (!wanted || n_rails < 2 || p->n_rows != before)
		return 0;
	{
		_cleanup_strv_free_ char **names = NULL;
		_cleanup_free_ char *s = NULL;

		for (size_t i = 0; i < n_rails; i++) {
			r = strv_extend(&names, rails[i].netdev->name);
			if (r < 0)
				return r;
		}
		s = strv_join(names, ", ");
		if (!s)
			return -ENOMEM;
		return preflight_add(p, "network.multi-rail", "host", PREFLIGHT_OK, NULL,
				     "no two RDMA netdevs share a subnet (%s)", s);
	}
}

/* The ip rules that send traffic to a table, and the routes of every table, over rtnetlink in
 * this network namespace. */
static int routing_read(PreflightRouting *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *rules = NULL, *routes = NULL;
	PreflightRouting t = { 0 };
	size_t allocated_rules = 0, allocated_routes = 0;
	int r;

	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return r;
	if (rtnl_rule_alloc_cache(sk, AF_UNSPEC, &rules) < 0 ||
	    rtnl_route_alloc_cache(sk, AF_UNSPEC, 0, &routes) < 0)
		return -EIO;
	for (struct nl_object *o = nl_cache_get_first(rules); o; o = nl_cache_get_next(o)) {
		struct rtnl_rule *rule = (struct rtnl_rule *) o;
		struct nl_addr *src = rtnl_rule_get_src(rule);
		PreflightRule *x;

		if (rtnl_rule_get_action(rule) != FR_ACT_TO_TBL || !src ||
		    nl_addr_get_len(src) > 16 || nl_addr_get_prefixlen(src) == 0)
			continue;
		if (GREEDY_REALLOC(t.rules, allocated_rules, t.n_rules + 1) < 0)
			goto oom;
		x = &t.rules[t.n_rules++];
		*x = (PreflightRule){
			.family = nl_addr_get_family(src),
			.src_len = (uint8_t) nl_addr_get_prefixlen(src),
			.table = rtnl_rule_get_table(rule),
		};
		memcpy(x->src, nl_addr_get_binary_addr(src), nl_addr_get_len(src));
	}
	for (struct nl_object *o = nl_cache_get_first(routes); o; o = nl_cache_get_next(o)) {
		struct rtnl_route *route = (struct rtnl_route *) o;
		uint32_t table = rtnl_route_get_table(route);

		if (!table_is_source_table(table))
			continue;
		for (int i = 0; i < rtnl_route_get_nnexthops(route); i++) {
			struct rtnl_nexthop *nh = rtnl_route_nexthop_n(route, i);

			if (GREEDY_REALLOC(t.routes, allocated_routes, t.n_routes + 1) < 0)
				goto oom;
			t.routes[t.n_routes++] = (PreflightRoute){
				.family = rtnl_route_get_family(route),
				.table = table,
				.oif = rtnl_route_nh_get_ifindex(nh),
			};
		}
	}
	*ret = t;
	return 0;
oom:
	free(t.rules);
	free(t.routes);
	return -ENOMEM;
}

int preflight_rails(Preflight *p, const PreflightInput *in) {
	PreflightRouting routing = { .error = -EOPNOTSUPP };
	int r;

	if (streq_ptr(in->root, "/")) {
		r = routing_read(&routing);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			routing = (PreflightRouting){ .error = r };
	}
	r = preflight_multi_rail(p, in, &routing);
	free(routing.rules);
	free(routing.routes);
	return r;
}
