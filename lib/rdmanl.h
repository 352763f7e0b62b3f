/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* RDMA netlink (NETLINK_RDMA, the NLDEV client): message builders that do no I/O, and parsers
 * that take a received message. The I/O is in host-netlink.c (and the daemon's apply code). */

#include <linux/netlink.h>
#include <netlink/msg.h>

#include "rdma-types.h"

/* RDMA_NLDEV_CMD_SYS_GET request. */
int rdmanl_sys_get_new(struct nl_msg **ret);
/* The reply: the netns mode. -ENODATA if the attribute is missing (kernel < 5.2), -EBADMSG if
 * the message is not a SYS_GET reply or is malformed. */
int rdmanl_sys_parse(const struct nlmsghdr *nlh, size_t len, NetnsMode *ret);
