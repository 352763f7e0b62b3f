/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* RDMA netlink (NETLINK_RDMA, the NLDEV client): message builders that do no I/O, and parsers
 * that take a received message. The I/O is in host-netlink.c and apply-rdmanl.c.
 *
 * NLDEV messages carry no family header: the attributes follow struct nlmsghdr. Builders leave
 * nlmsg_seq and nlmsg_pid 0 for the sender to fill. Requests that change something ask for an
 * ACK (NLM_F_ACK): the kernel's answer, success or not, is an NLMSG_ERROR. */

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stdint.h>

#include "rdma-types.h"

/* The kernel's limits, with the terminating NUL: IB_DEVICE_NAME_MAX (include/rdma/ib_verbs.h)
 * and, for netdevs and link types, IFNAMSIZ (nldev_newlink() copies the type into
 * char[IFNAMSIZ]). */
#define RDMANL_DEV_NAME_MAX  RDMA_DEVICE_NAME_MAX
#define RDMANL_NDEV_NAME_MAX NETDEV_NAME_MAX /* IFNAMSIZ, checked in rdmanl.c */

/* RDMA_NLDEV_CMD_SYS_GET request. */
int rdmanl_sys_get_new(struct nl_msg **ret);
/* The reply: the netns mode. -ENODATA if the attribute is missing (kernel < 5.2), -EBADMSG if
 * the message is not a SYS_GET reply or is malformed. */
int rdmanl_sys_parse(const struct nlmsghdr *nlh, size_t len, NetnsMode *ret);
/* RDMA_NLDEV_CMD_SYS_SET of RDMA_NLDEV_SYS_ATTR_NETNS_MODE (`rdma system set netns MODE`),
 * with NLM_F_ACK. -EINVAL for a mode out of range. */
int rdmanl_sys_set_netns_new(NetnsMode mode, struct nl_msg **ret);

/* RDMA_NLDEV_CMD_NEWLINK (`rdma link add NAME type TYPE netdev NDEV`), with NLM_F_ACK.
 * -EINVAL for a name, type or netdev the kernel would refuse or truncate. */
int rdmanl_newlink_new(const char *name, const char *type, const char *ndev, struct nl_msg **ret);
/* RDMA_NLDEV_CMD_DELLINK of the device with that index (`rdma link delete NAME`), with
 * NLM_F_ACK. */
int rdmanl_dellink_new(uint32_t dev_index, struct nl_msg **ret);

/* RDMA_NLDEV_CMD_GET with NLM_F_DUMP (`rdma dev`): one reply per device, then NLMSG_DONE. */
int rdmanl_dev_get_dump_new(struct nl_msg **ret);
/* One GET reply: the device's index and name. -EBADMSG if the message is not a GET reply, is
 * malformed, or lacks either attribute. */
int rdmanl_dev_parse(const struct nlmsghdr *nlh, size_t len, uint32_t *ret_index,
		     char ret_name[static RDMANL_DEV_NAME_MAX]);

/* RDMA_NLDEV_CMD_PORT_GET of one port (`rdma link show DEV/PORT`), with NLM_F_ACK. */
int rdmanl_port_get_new(uint32_t dev_index, uint32_t port, struct nl_msg **ret);
/* The reply (the kernel types it RDMA_NLDEV_CMD_GET, a PORT_GET dump RDMA_NLDEV_CMD_PORT_GET;
 * both are taken): the device index, port and the netdev the port sits on. ret_index and
 * ret_port may be NULL. -ENODATA if the port has no netdev in the caller's network namespace,
 * -EBADMSG if the message is malformed or lacks the device or port index. */
int rdmanl_port_parse(const struct nlmsghdr *nlh, size_t len, uint32_t *ret_index,
		      uint32_t *ret_port, char ret_ndev[static RDMANL_NDEV_NAME_MAX]);
