/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rtnetlink messages of per-rail routing (rail.h): ip rules (struct fib_rule_hdr) and routes
 * (struct rtmsg). Builders do no I/O and leave nlmsg_seq and nlmsg_pid 0 for the sender;
 * parsers take a received message. The I/O is in host-rail.c and apply-rail.c.
 *
 * As iproute2 builds them: a table below 256 goes in the header's table byte too, a larger one
 * only in the u32 FRA_TABLE/RTA_TABLE (the header says RT_TABLE_UNSPEC); rdmad always sends the
 * u32. A NEWRULE/NEWROUTE asks for NLM_F_CREATE|NLM_F_EXCL: an existing one is -EEXIST, never
 * replaced. Every change asks for an ACK. */

#include <linux/netlink.h>
#include <netlink/msg.h>

#include "rail.h"

/* RTM_NEWRULE (add) or RTM_DELRULE of "from src/src_len lookup table priority priority".
 * -EINVAL for a family other than AF_INET/AF_INET6, a src_len too long, or a table that
 * rail_table_valid() refuses. */
int rail_rule_new(bool add, const RailRule *rule, struct nl_msg **ret);
/* RTM_GETRULE dump of a family (AF_UNSPEC: both). */
int rail_rule_dump_new(int family, struct nl_msg **ret);
/* One RTM_NEWRULE of a dump: a rule with a source prefix that looks up a table. -ENODATA for
 * any other rule (no source, another action, an iif/fwmark/... selector rdmad never sets),
 * -EBADMSG if the message is malformed. */
int rail_rule_parse(const struct nlmsghdr *nlh, size_t len, RailRule *ret);

/* RTM_NEWROUTE (add) or RTM_DELROUTE of a unicast, scope link route: dst/dst_len dev oif src
 * prefsrc table table proto protocol. -EINVAL as for rules, or for an oif <= 0. */
int rail_route_new(bool add, const RailRoute *route, struct nl_msg **ret);
/* RTM_GETROUTE dump of a family's routes of one protocol (a kernel with strict checking
 * filters on it; parse, and compare, anyway). */
int rail_route_dump_new(int family, uint8_t protocol, struct nl_msg **ret);
/* One RTM_NEWROUTE of a dump: a unicast route with one nexthop device. -ENODATA for others
 * (multipath, no oif, another type), -EBADMSG if malformed. */
int rail_route_parse(const struct nlmsghdr *nlh, size_t len, RailRoute *ret);
