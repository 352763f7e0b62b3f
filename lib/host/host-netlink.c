/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include "host.h"
#include "netlink-io.h"
#include "rtnl-addr-talk.h"
#include "rdmanl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cache *, nl_cache_free)

/* Addresses are matched to netdevs by name, not by the ifindex sysfs gave: under a fixture root
 * the netdevs are stand-in interfaces in a private namespace, with their own ifindexes. The
 * live ifindexes, sorted, find a dumped address's netdev without a scan of every netdev. */
typedef struct IfindexSlot {
	int ifindex;
	size_t netdev;
} IfindexSlot;

static int slot_compare(const void *a, const void *b) {
	const IfindexSlot *x = a, *y = b;

	return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

static int netdev_address_add(HostNetdev *n, const Address *a) {
	Address *p;

	p = realloc(n->addresses, sizeof(Address) * (n->n_addresses + 1));
	if (!p)
		return -ENOMEM;
	n->addresses = p;
	n->addresses[n->n_addresses++] = *a;
	return 0;
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
	_cleanup_free_ NetdevAddress *all = NULL;
	_cleanup_free_ IfindexSlot *slots = NULL;
	_cleanup_free_ int *live = NULL;
	size_t n_all = 0, n_slots = 0;
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
	if (h->partial) {
		/* A few netdevs: each one's own addresses. */
		for (size_t i = 0; i < h->n_netdevs; i++) {
			_cleanup_free_ NetdevAddress *list = NULL;
			size_t n = 0;

			if (live[i] <= 0)
				continue;
			r = rtnl_addr_list(sk, live[i], &list, &n);
			if (r < 0)
				return r == -ENOMEM ? r : -EIO;
			for (size_t k = 0; k < n; k++) {
				r = netdev_address_add(&h->netdevs[i], &list[k].address);
				if (r < 0)
					return r;
			}
		}
		return 0;
	}

	/* Every netdev: one dump of the namespace's addresses. */
	slots = calloc(h->n_netdevs, sizeof(IfindexSlot));
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_netdevs; i++)
		if (live[i] > 0)
			slots[n_slots++] = (IfindexSlot){ .ifindex = live[i], .netdev = i };
	qsort(slots, n_slots, sizeof(IfindexSlot), slot_compare);
	r = rtnl_addr_list(sk, 0, &all, &n_all);
	if (r < 0)
		return r == -ENOMEM ? r : -EIO;
	for (size_t k = 0; k < n_all; k++) {
		IfindexSlot key = { .ifindex = all[k].ifindex }, *slot;

		slot = bsearch(&key, slots, n_slots, sizeof(IfindexSlot), slot_compare);
		if (!slot)
			continue;
		r = netdev_address_add(&h->netdevs[slot->netdev], &all[k].address);
		if (r < 0)
			return r;
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
