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

/* One hardware counter of a port, as RDMA_NLDEV_CMD_STAT_GET_STATUS lists it: its name, the
 * index the kernel knows it by, and, for an optional counter (the kernel's
 * IB_STAT_FLAG_OPTIONAL: mlx5's cc_rx_ce_pkts, np_cnp_sent, ...), whether it is enabled. Other
 * counters are always on. */
/* A hw counter name, with the NUL (the kernel's are short words: "np_cnp_sent"). */
#define RDMANL_COUNTER_NAME_MAX 64

typedef struct HwCounter {
	char *name;
	uint32_t index;
	bool optional;
	bool enabled; /* optional ones only */
} HwCounter;

void hw_counters_free(HwCounter *l, size_t n);

/* RDMA_NLDEV_CMD_STAT_GET_STATUS of one port (`rdma statistic mode supported link DEV/PORT`),
 * with NLM_F_ACK. */
int rdmanl_stat_status_get_new(uint32_t dev_index, uint32_t port, struct nl_msg **ret);
/* Its reply: every hw counter of the port, in the kernel's order. -EBADMSG if the message is
 * not a STAT_GET_STATUS reply, is malformed, or lacks the counter table or an entry's name or
 * index. */
int rdmanl_stat_status_parse(const struct nlmsghdr *nlh, size_t len, HwCounter **ret,
			     size_t *ret_n);
/* RDMA_NLDEV_CMD_STAT_SET of the optional counters to enable on a port (`rdma statistic set
 * link DEV/PORT optional-counters A,B`), with NLM_F_ACK: a nested STAT_HWCOUNTERS of one
 * STAT_HWCOUNTER_INDEX per counter. The kernel enables exactly these and disables every other
 * optional counter of the port: n == 0 disables them all (`rdma statistic unset`). */
int rdmanl_stat_set_optional_new(uint32_t dev_index, uint32_t port, const uint32_t *indices,
				 size_t n, struct nl_msg **ret);
