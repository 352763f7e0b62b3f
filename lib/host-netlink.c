/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include "host.h"
#include "rdmanl.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cache *, nl_cache_free)

static HostNetdev *netdev_by_name(HostState *h, const char *name) {
	return (HostNetdev *) host_netdev_find(h, name);
}

/* Addresses are matched to netdevs by name, not by the ifindex sysfs gave: under a fixture root
 * the netdevs are stand-in interfaces in a private namespace, with their own ifindexes. */
int host_addresses_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nl_cache_freep) struct nl_cache *links = NULL, *addrs = NULL;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r < 0)
		return -EIO;
	r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &links);
	if (r < 0)
		return -EIO;
	r = rtnl_addr_alloc_cache(sk, &addrs);
	if (r < 0)
		return -EIO;

	/* The link's live state too: under a fixture root, sysfs is a static copy, and the
	 * stand-in interface is what rdmad changes. On the real root both agree. */
	for (size_t i = 0; i < h->n_netdevs; i++) {
		struct rtnl_link *l = rtnl_link_get_by_name(links, h->netdevs[i].name);

		h->netdevs[i].addresses_known = l != NULL;
		if (!l)
			continue;
		h->netdevs[i].mtu = rtnl_link_get_mtu(l);
		h->netdevs[i].up = rtnl_link_get_flags(l) & IFF_UP;
		rtnl_link_put(l);
	}

	for (struct nl_object *o = nl_cache_get_first(addrs); o; o = nl_cache_get_next(o)) {
		struct rtnl_addr *a = (struct rtnl_addr *) o;
		struct nl_addr *local = rtnl_addr_get_local(a);
		char name[IF_NAMESIZE];
		HostNetdev *n;
		Address *p;

		if (!local ||
		    !rtnl_link_i2name(links, rtnl_addr_get_ifindex(a), name, sizeof(name)))
			continue;
		n = netdev_by_name(h, name);
		if (!n)
			continue;
		if (nl_addr_get_len(local) != (nl_addr_get_family(local) == AF_INET ? 4 : 16))
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

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static int sys_reply(struct nl_msg *msg, void *userdata) {
	HostState *h = userdata;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);

	if (rdmanl_sys_parse(nlh, nlh->nlmsg_len, &h->netns_mode) >= 0)
		h->has_netns_mode = true;
	return NL_OK;
}

/* The RDMA subsystem's netns mode (global, not per namespace). Fails with -EPROTONOSUPPORT when
 * ib_core is not loaded: then nothing RDMA exists to configure yet. */
int host_netns_mode_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, NETLINK_RDMA);
	if (r < 0)
		return -EPROTONOSUPPORT;
	r = rdmanl_sys_get_new(&m);
	if (r < 0)
		return r;
	r = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, sys_reply, h);
	if (r < 0)
		return -ENOMEM;
	r = nl_send_auto(sk, m);
	if (r < 0)
		return -EIO;
	r = nl_recvmsgs_default(sk);
	if (r < 0)
		return -EIO;
	return h->has_netns_mode ? 0 : -ENODATA;
}
