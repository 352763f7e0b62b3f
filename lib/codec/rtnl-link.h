/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Every netdev's name, index, MTU and flags, as rtnetlink lists them (`ip -o link show`): the
 * dump request, built without I/O (nlmsg_seq and nlmsg_pid left 0 for the sender), and the
 * parser of each RTM_NEWLINK of the answer. The I/O is the caller's (netlink-io.h), so that a
 * daemon can read a dump of thousands of netdevs a batch at a time. The reference is
 * net/core/rtnetlink.c (rtnl_dump_ifinfo(), rtnl_fill_ifinfo()) and iproute2's ip/ipaddress.c.
 *
 * What the kernel does that a caller must know:
 * - Each RTM_NEWLINK carries the netdev's counters (IFLA_STATS, IFLA_STATS64: some 300 bytes)
 *   unless IFLA_EXT_MASK asks RTEXT_FILTER_SKIP_STATS (4.20 on; older kernels ignore the bit
 *   and send them). The request asks it: names, MTU and flags are all that is read.
 * - The dump is made as it is read: one batch of messages per recvmsg(), so a reader that stops
 *   between batches holds nothing of the kernel's but its place. */

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stddef.h>

/* Any RTM_NEWLINK (this file's and rtnl-vf.c's): the header checked against len (one
 * nlmsg_len, an ifinfomsg, a positive index) and the attributes parsed into tb[IFLA_MAX + 1]
 * with policy (NULL: none). -EBADMSG for anything else. */
int rtnl_newlink_parse(const struct nlmsghdr *nlh, size_t len, const struct nla_policy *policy,
		       struct nlattr **tb, const struct ifinfomsg **ret_ifi);

/* RTM_GETLINK (NLM_F_REQUEST | NLM_F_DUMP), family AF_UNSPEC, IFLA_EXT_MASK
 * RTEXT_FILTER_SKIP_STATS. */
int rtnl_link_dump_new(struct nl_msg **ret);

typedef struct RtnlLink {
	int ifindex;
	char name[16]; /* IF_NAMESIZE, which net/if.h and linux/if.h both define */
	unsigned mtu;
	bool up; /* IFF_UP */
} RtnlLink;

/* One RTM_NEWLINK: 0 with the netdev's index, name, MTU and whether it is up; -EBADMSG if the
 * message is not an RTM_NEWLINK, is malformed, names no index, has no IFLA_IFNAME or one that
 * is empty, unterminated or longer than a netdev's name may be, or an IFLA_MTU not 4 bytes
 * long (no IFLA_MTU: 0). Nothing is written unless it returns 0. Unknown attributes are
 * skipped. */
int rtnl_link_parse(const struct nlmsghdr *nlh, size_t len, RtnlLink *ret);
