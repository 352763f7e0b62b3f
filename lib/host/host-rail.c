/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Rail routing as the host has it (rail.h): each netdev's IPv4 sysctls under the root, and the
 * ip rules and routes that are rdmad's by their priority and protocol, over rtnetlink in this
 * network namespace (under a fixture root: the stand-in interfaces' namespace). */
#include <fcntl.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <sys/socket.h>

#include "fileio.h"
#include "host.h"
#include "netlink-io.h"
#include "rail-netlink.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

static int sysctl_read(const char *root, const char *netdev, RailSysctl s) {
	_cleanup_free_ char *path = NULL, *full = NULL;
	char buf[32], *end;
	long v;

	if (asprintf(&path, "/proc/sys/net/ipv4/conf/%s/%s", netdev, rail_sysctl_to_string(s)) < 0)
		return -ENOMEM;
	full = root_path(root, path);
	if (!full)
		return -ENOMEM;
	if (read_small_at(AT_FDCWD, full, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || *end || v < 0 || v > 255)
		return -1;
	return (int) v;
}

int rail_sysctl_read(const char *root, const char *netdev, RailSysctl s) {
	return sysctl_read(root, netdev, s);
}

typedef struct RailDump {
	HostState *h;
	size_t n_alloc;
} RailDump;

static int rule_reply(const struct nlmsghdr *nlh, void *userdata) {
	RailDump *d = userdata;
	HostState *h = d->h;
	RailRule rule;
	int r;

	if (rail_rule_parse(nlh, nlh->nlmsg_len, &rule) < 0 || rule.priority != RAIL_RULE_PRIORITY)
		return 0;
	r = GREEDY_REALLOC(h->rail_rules, d->n_alloc, h->n_rail_rules + 1);
	if (r < 0)
		return r;
	h->rail_rules[h->n_rail_rules++] = rule;
	return 0;
}

static int route_reply(const struct nlmsghdr *nlh, void *userdata) {
	RailDump *d = userdata;
	HostState *h = d->h;
	RailRoute route;
	int r;

	if (rail_route_parse(nlh, nlh->nlmsg_len, &route) < 0 ||
	    route.protocol != RAIL_ROUTE_PROTOCOL)
		return 0;
	r = GREEDY_REALLOC(h->rail_routes, d->n_alloc, h->n_rail_routes + 1);
	if (r < 0)
		return r;
	h->rail_routes[h->n_rail_routes++] = route;
	return 0;
}

int rail_routing_read(struct nl_sock *sk, HostState *h) {
	_cleanup_(nlmsg_freep) struct nl_msg *rules = NULL, *routes = NULL;
	RailDump d = { .h = h };
	int r;

	free(h->rail_rules);
	free(h->rail_routes);
	h->rail_rules = NULL;
	h->rail_routes = NULL;
	h->n_rail_rules = h->n_rail_routes = 0;
	r = rail_rule_dump_new(AF_UNSPEC, &rules);
	if (r >= 0)
		r = rail_route_dump_new(AF_UNSPEC, RAIL_ROUTE_PROTOCOL, &routes);
	if (r < 0)
		return r;
	r = netlink_transact(sk, rules, rule_reply, &d);
	if (r < 0)
		return r;
	d.n_alloc = 0;
	return netlink_transact(sk, routes, route_reply, &d);
}

int rail_socket_open(struct nl_sock **ret) {
	int one = 1, r;

	r = netlink_open(NETLINK_ROUTE, ret);
	if (r < 0)
		return r;
	/* Let the kernel filter the route dump on the protocol (>= 4.20); older ones dump all
	 * and the parser filters. */
	(void) setsockopt(nl_socket_get_fd(*ret), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
			  sizeof(one));
	return 0;
}

int host_rail_sysctls_observe(HostState *h, HostNetdev *n) {
	for (RailSysctl s = 0; s < _RAIL_SYSCTL_MAX; s++) {
		n->rail_sysctl[s] = sysctl_read(h->root, n->name, s);
		if (n->rail_sysctl[s] == -ENOMEM)
			return -ENOMEM;
	}
	n->rail_sysctls_observed = true;
	return 0;
}

int host_rail_routing_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	int r;

	h->rails_observed = false;
	r = rail_socket_open(&sk);
	if (r >= 0)
		r = rail_routing_read(sk, h);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		h->rails_error = r;
		return 0; /* not fatal: the plan says the rail routing is not known */
	}
	h->rails_observed = true;
	h->rails_error = 0;
	return 0;
}
