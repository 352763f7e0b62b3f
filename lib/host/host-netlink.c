/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include "host.h"
#include "netlink-io.h"
#include "rdmanl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cache *, nl_cache_free)

/* Addresses are matched to netdevs by name, not by the ifindex sysfs gave: under a fixture root
 * the netdevs are stand-in interfaces in a private namespace, with their own ifindexes. */
/* The netdev whose live ifindex is ifindex. */
static HostNetdev *netdev_by_ifindex(HostState *h, const int *live, int ifindex) {
	for (size_t i = 0; i < h->n_netdevs; i++)
		if (live[i] == ifindex)
			return &h->netdevs[i];
	return NULL;
}

/* The link's live state (MTU, up) and ifindex: under a fixture root, sysfs is a static copy and
 * the stand-in interface is what rdmad changes; on the real root both agree. A partial
 * observation asks for its few netdevs by name; a full one dumps every link once. */
static int links_observe(struct nl_sock *sk, HostState *h, int *live) {
	_cleanup_(nl_cache_freep) struct nl_cache *cache = NULL;
	bool stop = false;
	int r;

	if (!h->partial) {
		r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &cache);
		if (r < 0)
			return -EIO;
	}
	for (size_t i = 0; i < h->n_netdevs; i++) {
		struct rtnl_link *l = NULL;

		if (stop) {
			h->netdevs[i].addresses_known = false;
			live[i] = 0;
			continue;
		}
		if (cache)
			l = rtnl_link_get_by_name(cache, h->netdevs[i].name);
		else {
			r = rtnl_link_get_kernel(sk, 0, h->netdevs[i].name, &l);
			/* Not there is an answer; anything else (a timeout) leaves the socket
			 * out of step with libnl's sequence numbers: ask it nothing more. */
			if (r < 0 && r != -NLE_OBJ_NOTFOUND && r != -NLE_NODEV)
				stop = true;
			if (r < 0)
				l = NULL;
		}
		/* The answer must be about the netdev asked for. */
		if (l && !streq_ptr(rtnl_link_get_name(l), h->netdevs[i].name)) {
			rtnl_link_put(l);
			l = NULL;
			stop = true;
		}
		h->netdevs[i].addresses_known = l != NULL;
		live[i] = 0;
		if (!l)
			continue;
		live[i] = rtnl_link_get_ifindex(l);
		h->netdevs[i].ifindex = live[i];
		h->netdevs[i].mtu = rtnl_link_get_mtu(l);
		h->netdevs[i].up = rtnl_link_get_flags(l) & IFF_UP;
		rtnl_link_put(l);
	}
	if (!stop)
		return 0;
	/* Without the address dump that would follow, no netdev's addresses are known. */
	for (size_t i = 0; i < h->n_netdevs; i++)
		h->netdevs[i].addresses_known = false;
	return -ETIMEDOUT;
}

int host_addresses_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *addrs = NULL;
	_cleanup_free_ int *live = NULL;
	int r;

	if (h->n_netdevs == 0)
		return 0;
	live = calloc(h->n_netdevs, sizeof(int));
	if (!live)
		return -ENOMEM;
	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return r;
	r = links_observe(sk, h, live);
	if (r < 0)
		return r;
	r = rtnl_addr_alloc_cache(sk, &addrs);
	if (r < 0)
		return -EIO;

	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *) o;
		struct nl_addr *local = rtnl_addr_get_local(a);
		HostNetdev *n;
		Address *p;

		if (!local ||
		    nl_addr_get_len(local) != (nl_addr_get_family(local) == AF_INET ? 4 : 16))
			continue;
		n = netdev_by_ifindex(h, live, rtnl_addr_get_ifindex(a));
		if (!n)
			continue;
		p = realloc(n->addresses, sizeof(Address) * (n->n_addresses + 1));
		if (!p)
			return -ENOMEM;
		n->addresses = p;
		p = &n->addresses[n->n_addresses++];
		*p = (Address){
			.family = nl_addr_get_family(local),
			.prefixlen = (uint8_t) rtnl_addr_get_prefixlen(a),
		};
		memcpy(p->addr, nl_addr_get_binary_addr(local), nl_addr_get_len(local));
	}
	return 0;
}

/* The RDMA subsystem's netns mode (global, not per namespace). Fails with -EPROTONOSUPPORT when
 * ib_core is not loaded: then nothing RDMA exists to configure yet. */
int host_netns_mode_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	int r;

	r = rdmanl_socket_open(&sk);
	if (r < 0)
		return r;
	r = rdmanl_netns_mode_read(sk, &h->netns_mode);
	if (r < 0)
		return r;
	h->has_netns_mode = true;
	return 0;
}
