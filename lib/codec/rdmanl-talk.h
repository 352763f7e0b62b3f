/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* RDMA netlink exchanges (netlink-io.c's transport, rdmanl.c's messages): the lookups the
 * observers and the apply backends share. */

#include <netlink/netlink.h>

#include "rdmanl.h"

/* A NETLINK_RDMA socket. -EPROTONOSUPPORT when ib_core is not loaded. */
int rdmanl_socket_open(struct nl_sock **ret);

/* The RDMA subsystem's netns mode (SYS_GET). -ENODATA when the kernel has none (< 5.2). */
int rdmanl_netns_mode_read(struct nl_sock *sk, NetnsMode *ret);

/* Look the RDMA device name up (a GET dump): 1 and its index if it exists, 0 if not. */
int rdmanl_dev_find(struct nl_sock *sk, const char *name, uint32_t *ret_index);

/* Add a soft RDMA device (NEWLINK: name, link type "rxe"/"siw", netdev), as `rdma link add`
 * does. 0, or the kernel's -errno. */
int rdmanl_newlink(struct nl_sock *sk, const char *name, const char *type, const char *ndev);

/* The netdev under a device's port (PORT_GET). -ENODATA if it has none in this network
 * namespace. */
int rdmanl_port_netdev(struct nl_sock *sk, uint32_t index, uint32_t port,
		       char ret[static RDMANL_NDEV_NAME_MAX]);

/* The hw counters of a port (STAT_GET_STATUS). The kernel refuses it (-EINVAL) for a device
 * without hw counters, and a kernel before 5.17 does not know the command. */
int rdmanl_hw_counters_read(struct nl_sock *sk, uint32_t index, uint32_t port, HwCounter **ret,
			    size_t *ret_n);
