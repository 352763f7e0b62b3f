/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The IP addresses of netdevs, as rtnetlink lists them (`ip -o addr show dev X`): the dump
 * request, built without I/O (nlmsg_seq and nlmsg_pid left 0 for the sender), and the parser of
 * each RTM_NEWADDR of the answer. The I/O is in rtnl-addr-talk.c; the reference is
 * net/ipv4/devinet.c (inet_dump_ifaddr(), inet_fill_ifaddr()), net/ipv6/addrconf.c
 * (inet6_dump_addr(), inet6_fill_ifaddr()) and iproute2's ip/ipaddress.c.
 *
 * What the kernel does that a caller must know:
 * - A dump names one netdev in struct ifaddrmsg's ifa_index, but the kernel filters by it only
 *   on a socket with NETLINK_GET_STRICT_CHK (5.0 on); elsewhere it answers every address of
 *   the namespace. The answer's ifa_index is the one to trust.
 * - Under strict checking the kernel refuses a dump whose ifaddrmsg sets a prefix length, flags
 *   or a scope (-EINVAL); the request sets only the family and the index.
 * - The address a netdev has is IFA_LOCAL for IPv4 (IFA_ADDRESS is the peer of a point-to-point
 *   address) and IFA_ADDRESS for IPv6 (IFA_LOCAL appears, and is the local one, only with a
 *   peer): IFA_LOCAL when present, IFA_ADDRESS otherwise, as libnl-route and ip do. */

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stddef.h>

#include "profile.h"

/* RTM_GETADDR (NLM_F_REQUEST | NLM_F_DUMP) of family (AF_UNSPEC: IPv4 and IPv6) on the netdev
 * ifindex (0: every netdev). -EINVAL for a family other than AF_UNSPEC, AF_INET, AF_INET6, or a
 * negative ifindex. */
int rtnl_addr_dump_new(int family, int ifindex, struct nl_msg **ret);

/* One RTM_NEWADDR: 1 with the netdev's ifindex and its address (family, bytes, prefix length);
 * 0 for an address of another family (AF_MCTP, ...), which is not an Address; -EBADMSG if the
 * message is not an RTM_NEWADDR, is malformed, names no netdev, has a prefix length beyond the
 * family's, or carries an IPv4 or IPv6 address of the wrong length or none. Nothing is written
 * unless it returns 1. Unknown attributes are skipped. */
int rtnl_addr_parse(const struct nlmsghdr *nlh, size_t len, int *ret_ifindex, Address *ret);
