/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* netdev.up, netdev.mtu, netdev.addresses over rtnetlink (libnl-route), in the current network
 * namespace. An address rdmad did not declare is never removed. */
#include <net/if.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <sys/socket.h>

#include "apply-internal.h"
#include "netlink-io.h"
#include "rtnl-addr-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct rtnl_link *, rtnl_link_put)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct rtnl_addr *, rtnl_addr_put)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_addr *, nl_addr_put)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

/* libnl's errors are its own numbers; turn the common ones back into errno. */
static int nl_to_errno(int e) {
	switch (-e) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_EXIST:
		return -EEXIST;
	case NLE_OBJ_NOTFOUND:
	case NLE_NODEV:
		return -ENODEV;
	case NLE_PERM:
		return -EPERM;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_OPNOTSUPP:
		return -EOPNOTSUPP;
	case NLE_BUSY:
		return -EBUSY;
	case NLE_AF_NOSUPPORT:
		return -EAFNOSUPPORT;
	case NLE_AGAIN: /* the socket's receive timeout */
		return -ETIMEDOUT;
	default:
		return -EIO;
	}
}

/* By ifindex, as observed: a netdev renamed since (udev, another tool) is still the one the
 * plan was made for, and a new netdev that took its name is not. */
static int link_get(struct nl_sock *sk, int ifindex, struct rtnl_link **ret) {
	int r;

	if (ifindex <= 0)
		return -ENODEV;
	r = rtnl_link_get_kernel(sk, ifindex, NULL, ret);
	return r < 0 ? nl_to_errno(r) : 0;
}

/* The netdev's own addresses only (one filtered dump), not every address of the host: an
 * address action costs the same on a host with thousands of netdevs. Asked on a socket of its
 * own: libnl-route checks the sequence number of each answer against its own count, which a
 * netlink_transact() on its socket would leave behind (the add would read as failed). */
static bool address_present(int ifindex, const Address *want) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;

	return netlink_open(NETLINK_ROUTE, &sk) >= 0 && rtnl_addr_has(sk, ifindex, want) > 0;
}

static int address_apply(struct nl_sock *sk, struct rtnl_link *link, const Action *x,
			 ActionOutcome *ret) {
	_cleanup_(rtnl_addr_putp) struct rtnl_addr *ra = NULL;
	_cleanup_(nl_addr_putp) struct nl_addr *local = NULL;
	const Address *want = &x->value.address;
	int ifindex = rtnl_link_get_ifindex(link), r;

	if (address_present(ifindex, want))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	ra = rtnl_addr_alloc();
	local = nl_addr_build(want->family, want->addr, want->family == AF_INET ? 4 : 16);
	if (!ra || !local)
		return -ENOMEM;
	nl_addr_set_prefixlen(local, want->prefixlen);
	rtnl_addr_set_ifindex(ra, ifindex);
	r = rtnl_addr_set_local(ra, local);
	if (r >= 0)
		r = rtnl_addr_add(sk, ra, 0);
	if (r < 0) {
		r = nl_to_errno(r);
		return outcome_set(ret, APPLY_FAILED, r, "add address %s to %s: %s", x->desired,
				   x->netdev, strerror(-r));
	}
	if (!address_present(ifindex, want))
		return outcome_set(ret, APPLY_FAILED, -EIO,
				   "address %s is not on %s after adding it", x->desired,
				   x->netdev);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int apply_netdev(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(rtnl_link_putp) struct rtnl_link *link = NULL, *change = NULL, *after = NULL;
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	int r;

	if (!x->netdev)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev",
				   action_subject(x));
	/* A socket of its own for each action: libnl-route takes the next answer on a socket
	 * for the answer to its request, so after one receive timeout a kept socket would hand
	 * every later request the previous one's answer (another netdev's). */
	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return r == -ENOMEM
			       ? r
			       : outcome_set(ret, APPLY_FAILED, r, "cannot open rtnetlink socket");
	r = link_get(sk, x->ifindex, &link);
	if (r < 0)
		return r == -ENOMEM
			       ? r
			       : outcome_set(ret, APPLY_FAILED, r, "netdev %s (ifindex %d): %s",
					     x->netdev, x->ifindex, strerror(-r));

	if (x->key == KEY_NETDEV_ADDRESSES)
		return address_apply(sk, link, x, ret);

	/* Compare with the live value, not the plan's snapshot. */
	if (x->key == KEY_NETDEV_UP && !!(rtnl_link_get_flags(link) & IFF_UP) == x->value.flag)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (x->key == KEY_NETDEV_MTU && rtnl_link_get_mtu(link) == x->value.number)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);

	change = rtnl_link_alloc();
	if (!change)
		return -ENOMEM;
	if (x->key == KEY_NETDEV_MTU)
		rtnl_link_set_mtu(change, x->value.number);
	else if (x->value.flag)
		rtnl_link_set_flags(change, IFF_UP);
	else
		rtnl_link_unset_flags(change, IFF_UP);
	r = rtnl_link_change(sk, link, change, 0);
	if (r < 0) {
		r = nl_to_errno(r);
		return outcome_set(ret, APPLY_FAILED, r, "set %s of %s to %s: %s",
				   action_setting(x), x->netdev, x->desired, strerror(-r));
	}
	r = link_get(sk, x->ifindex, &after);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "netdev %s vanished after setting %s",
				   x->netdev, action_setting(x));
	if ((x->key == KEY_NETDEV_MTU && rtnl_link_get_mtu(after) != x->value.number) ||
	    (x->key == KEY_NETDEV_UP && !!(rtnl_link_get_flags(after) & IFF_UP) != x->value.flag))
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s of %s does not read back as %s",
				   action_setting(x), x->netdev, x->desired);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
