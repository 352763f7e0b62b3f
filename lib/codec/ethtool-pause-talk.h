/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ethtool pause exchanges on a NETLINK_GENERIC socket the caller opened (netlink_open(), with
 * its timeout): the family's id (and its monitor group's) from the controller, then one
 * PAUSE_GET and its reply, or one PAUSE_SET and its ACK. The messages are ethtool-pause.c's.
 *
 * The errors are the ACK's errno alone: netlink-io.c neither asks for (NETLINK_EXT_ACK) nor
 * returns the kernel's extack message. PAUSE_GET needs no privilege; PAUSE_SET needs
 * CAP_NET_ADMIN in the netdev's network namespace (GENL_UNS_ADMIN_PERM). */

#include <netlink/netlink.h>
#include <stdint.h>

#include "ethtool-pause.h"

/* The "ethtool" family's id, and its "monitor" multicast group's id (ret_monitor may be NULL),
 * from one CTRL_CMD_GETFAMILY. -ENOENT when the kernel has no ethtool netlink
 * (CONFIG_ETHTOOL_NETLINK off: the controller knows no such family) or the family has no
 * monitor group, -ETIMEDOUT, -EIO when the socket fails, -EBADMSG for an answer that does not
 * parse, -ENODATA when the kernel ACKed without one. */
int ethtool_family_resolve(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_monitor);

/* The pause settings of ifname (PAUSE_GET). -EOPNOTSUPP when its driver has no get_pauseparam
 * (veth, lo: pause_prepare_data() refuses), -ENODEV when there is no such netdev in this
 * network namespace (or it is not present: ethnl_ops_begin()), -EBADMSG for a reply that does
 * not parse, -ENODATA when the kernel ACKed without one, -ETIMEDOUT, -EIO; -EINVAL, without
 * sending, for what ethtool_pause_get_new() refuses. */
int ethtool_pause_read(struct nl_sock *sk, uint16_t family, const char *ifname, PauseParams *ret);

/* Change the pause settings of ifname (PAUSE_SET) and return the kernel's answer from the ACK:
 * 0 (also when nothing differed: the driver is not called then), -EOPNOTSUPP when the driver
 * has no get_pauseparam or set_pauseparam, the driver's refusal (-EINVAL, say, for autoneg on
 * a driver without it), -EPERM without CAP_NET_ADMIN, -ENODEV, -ETIMEDOUT, -EIO. Not read
 * back: the caller does. -EINVAL, without sending, for what ethtool_pause_set_new() refuses. */
int ethtool_pause_write(struct nl_sock *sk, uint16_t family, const char *ifname,
			const PauseChange *c);
