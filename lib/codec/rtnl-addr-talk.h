/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The I/O of rtnl-addr.h: one dump of the addresses of one netdev or of all. */

#include <netlink/netlink.h>
#include <stddef.h>

#include "profile.h"

typedef struct NetdevAddress {
	int ifindex;
	Address address;
} NetdevAddress;

/* The IPv4 and IPv6 addresses of the netdev ifindex (0: of every netdev), in the kernel's
 * order, from one RTM_GETADDR dump on sk (an rtnetlink socket of netlink_open(), on which this
 * turns NETLINK_GET_STRICT_CHK on so that the kernel answers only that netdev's; on a kernel
 * without it the others are dropped here). Addresses of other families, and any the parser
 * refuses, are left out. *ret is NULL when *ret_n is 0; the caller frees it.
 * What netlink_transact() and rtnl_addr_parse() return on failure, or -ENOMEM; nothing is
 * written then. */
int rtnl_addr_list(struct nl_sock *sk, int ifindex, NetdevAddress **ret, size_t *ret_n);

/* Whether the netdev ifindex has want (the same family, bytes and prefix length): 1 or 0, or
 * what rtnl_addr_list() returns on failure. */
int rtnl_addr_has(struct nl_sock *sk, int ifindex, const Address *want);
