/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include "host-internal.h"
#include "netlink-io.h"
#include "rtnl-addr-talk.h"
#include "rtnl-addr.h"
#include "rtnl-link.h"
#include "rdmanl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

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
 * observation asks for its few netdevs by name (others dump every link: below). */
static int links_observe(struct nl_sock *sk, HostState *h, int *live) {
	bool stop = false;
	int r;

	for (size_t i = 0; i < h->n_netdevs; i++) {
		struct rtnl_link *l = NULL;

		if (stop) {
			h->netdevs[i].addresses_known = false;
			live[i] = 0;
			continue;
		}
		r = rtnl_link_get_kernel(sk, 0, h->netdevs[i].name, &l);
		/* Not there is an answer; anything else (a timeout) leaves the socket out of step
		 * with libnl's sequence numbers: ask it nothing more. */
		if (r < 0 && r != -NLE_OBJ_NOTFOUND && r != -NLE_NODEV)
			stop = true;
		if (r < 0)
			l = NULL;
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

bool host_addresses_by_name(const HostState *h) {
	return h->partial && h->n_netdevs <= ADDRESSES_BY_NAME_MAX;
}

int host_addresses_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_free_ int *live = NULL;
	int r;

	if (h->n_netdevs == 0)
		return 0;
	if (!host_addresses_by_name(h)) {
		/* every netdev, or many: the two dumps, read whole */
		_cleanup_(addresses_observer_freep) AddressesObserver *a = NULL;

		r = host_addresses_observe_begin(h, &a);
		while (r >= 0 && (r = host_addresses_observe_step(a)) == 0)
			;
		if (r < 0)
			return r == -ENOMEM ? r : -EIO;
		return 0;
	}
	live = calloc(h->n_netdevs, sizeof(int));
	if (!live)
		return -ENOMEM;
	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return r;
	r = links_observe(sk, h, live);
	if (r < 0)
		return r;
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

/* ---- every netdev, a batch of netlink messages per step --------------------------------- */

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

struct AddressesObserver {
	HostState *h;
	struct nl_sock *sk;
	NetlinkExchange x;
	/* AF_UNSPEC: the link dump; then AF_INET's address dump, then AF_INET6's. Two address
	 * dumps, not one of AF_UNSPEC: the kernel walks every netdev of the namespace while it
	 * takes a dump request, and a walk that finds few addresses ends in that one call (at
	 * 8,192 netdevs, 2-10 ms for AF_UNSPEC); one family at a time, the loop waits half that. */
	int family;
	IfindexSlot *slots;
	size_t n_slots;
};

AddressesObserver *addresses_observer_free(AddressesObserver *a) {
	if (!a)
		return NULL;
	if (a->sk)
		nl_socket_free(a->sk);
	free(a->slots);
	free(a);
	return NULL;
}

static int link_reply(const struct nlmsghdr *nlh, void *userdata) {
	HostState *h = ((AddressesObserver *) userdata)->h;
	const HostNetdev *found;
	HostNetdev *n;
	RtnlLink l;

	/* a message the parser refuses leaves its netdev unknown, not the others */
	if (rtnl_link_parse(nlh, nlh->nlmsg_len, &l) < 0)
		return 0;
	found = host_netdev_find(h, l.name);
	if (!found) /* not one sysfs listed */
		return 0;
	n = &h->netdevs[found - h->netdevs];
	n->ifindex = l.ifindex;
	n->mtu = l.mtu;
	n->up = l.up;
	n->addresses_known = true;
	return 0;
}

static int address_reply(const struct nlmsghdr *nlh, void *userdata) {
	AddressesObserver *a = userdata;
	IfindexSlot key = { 0 }, *slot;
	Address addr;

	/* other families, and any the parser refuses, are left out (rtnl_addr_list()) */
	if (rtnl_addr_parse(nlh, nlh->nlmsg_len, &key.ifindex, &addr) <= 0)
		return 0;
	slot = bsearch(&key, a->slots, a->n_slots, sizeof(IfindexSlot), slot_compare);
	if (!slot)
		return 0;
	return netdev_address_add(&a->h->netdevs[slot->netdev], &addr);
}

int host_addresses_observe_begin(HostState *h, AddressesObserver **ret) {
	_cleanup_(addresses_observer_freep) AddressesObserver *a = NULL;
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	a = calloc(1, sizeof(AddressesObserver));
	if (!a)
		return -ENOMEM;
	a->h = h;
	for (size_t i = 0; i < h->n_netdevs; i++)
		h->netdevs[i].addresses_known = false; /* until the dump names it */
	r = netlink_open(NETLINK_ROUTE, &a->sk);
	if (r < 0)
		return r;
	r = rtnl_link_dump_new(&m);
	if (r >= 0)
		r = netlink_exchange_begin(a->sk, m, &a->x);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(a);
	return 0;
}

/* The link dump read: the live ifindexes to match the address dumps by. */
static int addresses_slots(AddressesObserver *a) {
	HostState *h = a->h;

	a->slots = calloc(h->n_netdevs ? h->n_netdevs : 1, sizeof(IfindexSlot));
	if (!a->slots)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_netdevs; i++)
		if (h->netdevs[i].addresses_known)
			a->slots[a->n_slots++] =
				(IfindexSlot){ .ifindex = h->netdevs[i].ifindex, .netdev = i };
	qsort(a->slots, a->n_slots, sizeof(IfindexSlot), slot_compare);
	return 0;
}

/* The next dump: one family's addresses. */
static int addresses_begin(AddressesObserver *a, int family) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = rtnl_addr_dump_new(family, 0, &m);
	if (r >= 0)
		r = netlink_exchange_begin(a->sk, m, &a->x);
	if (r < 0)
		return r;
	a->family = family;
	return 0;
}

int host_addresses_observe_step(AddressesObserver *a) {
	HostState *h = a->h;
	int r;

	if (a->family == AF_UNSPEC) {
		r = netlink_exchange_read(a->sk, &a->x, link_reply, a);
		if (r == 1) {
			r = addresses_slots(a);
			if (r >= 0)
				r = addresses_begin(a, AF_INET);
		}
	} else {
		r = netlink_exchange_read(a->sk, &a->x, address_reply, a);
		if (r == 1 && a->family == AF_INET)
			r = addresses_begin(a, AF_INET6);
		else if (r == 1)
			return 1; /* AF_INET6's read too */
	}
	if (r >= 0)
		return 0;
	/* what was read of a dump that failed is not the whole of anything */
	for (size_t i = 0; i < h->n_netdevs; i++) {
		h->netdevs[i].addresses_known = false;
		free(h->netdevs[i].addresses);
		h->netdevs[i].addresses = NULL;
		h->netdevs[i].n_addresses = 0;
	}
	return r;
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
