/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* dcbnl exchanges on a NETLINK_ROUTE socket (netlink-io.c's transport, with its timeout): one
 * request, the kernel's reply and its ACK. Used by host-dcb.c (read) and apply-dcb.c (write,
 * then read back). The messages are dcbnl.c's. */

#include <netlink/netlink.h>

#include "dcbnl.h"

/* A NETLINK_ROUTE socket for dcbnl_ieee_read() and dcbnl_ieee_write(). */
int dcbnl_socket_open(struct nl_sock **ret);

/* IEEE_GET of ifname. -EOPNOTSUPP when its driver has no dcbnl ops (veth, VFs), -ENODEV when
 * there is no such netdev in this network namespace, -EBADMSG for a reply that does not parse,
 * -ENODATA when the kernel ACKed without one, -ETIMEDOUT, -EIO when the socket fails. */
int dcbnl_ieee_read(struct nl_sock *sk, const char *ifname, DcbState *ret);

/* Send an IEEE_SET, IEEE_DEL or SDCBX and return the driver's error from the reply's DCB_ATTR_IEEE
 * (the ACK says 0 even when the driver failed), or the ACK's error when the kernel refused the
 * request itself (-EOPNOTSUPP, -ENODEV, -EPERM). */
int dcbnl_ieee_write(struct nl_sock *sk, struct nl_msg *m);
