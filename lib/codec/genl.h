/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Generic netlink (NETLINK_GENERIC), as devlink.c and ethtool-pause.c speak it: the struct
 * genlmsghdr laid by hand (rdmad links libnl-3 but not libnl-genl-3), a family's id and
 * multicast groups asked of the controller (GENL_ID_CTRL, CTRL_CMD_GETFAMILY) as iproute2's
 * mnlu_gen_socket_open() does, and the checks every received message gets. Builders do no I/O. */

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdint.h>

/* A request of type (a family id) and cmd with its struct genlmsghdr, NLM_F_REQUEST |
 * NLM_F_ACK, sized to hold payload more bytes of attributes. */
int genl_request_new(uint16_t type, uint8_t cmd, uint8_t version, size_t payload,
		     struct nl_msg **ret);
/* Parse len bytes of attributes at head into tb (maxtype + 1 slots). nla_parse() stops quietly
 * at a truncated attribute; the walk after it does not: whatever is left after the last whole
 * attribute makes them malformed (-EBADMSG). (The last attribute may come without its padding.) */
int genl_attrs_parse(struct nlattr **tb, int maxtype, struct nlattr *head, int len,
		     struct nla_policy *policy);
/* Check the headers of a received generic netlink message and parse its attributes into tb
 * (maxtype + 1 slots). Returns the genl command, or -EBADMSG. */
int genl_message_parse(const struct nlmsghdr *nlh, size_t len, int maxtype,
		       struct nla_policy *policy, struct nlattr **tb);

/* CTRL_CMD_GETFAMILY of a family by name (GENL_NAMSIZ, with the NUL), NLM_F_REQUEST |
 * NLM_F_ACK. -EINVAL for a name the kernel cannot have. */
int genl_family_get_new(const char *name, struct nl_msg **ret);
/* The controller's answer (CTRL_CMD_NEWFAMILY): the family's id. -EBADMSG if the message is not
 * that answer, is malformed, or carries no id a family can have. */
int genl_family_parse(const struct nlmsghdr *nlh, size_t len, uint16_t *ret_id);

/* The id of the multicast group named group (ETHTOOL_MCGRP_MONITOR_NAME, "monitor") in the
 * controller's answer about a family (CTRL_CMD_NEWFAMILY, ctrl_fill_info(): a
 * CTRL_ATTR_MCAST_GROUPS nest of one nest per group, each a CTRL_ATTR_MCAST_GRP_ID and a
 * CTRL_ATTR_MCAST_GRP_NAME), for NETLINK_ADD_MEMBERSHIP. -ENOENT if the family has no such
 * group, -EBADMSG if the message is not that answer or is malformed (any group included),
 * -EINVAL for a group name the kernel cannot have. */
int genl_mcast_group_parse(const struct nlmsghdr *nlh, size_t len, const char *group,
			   uint32_t *ret_id);
