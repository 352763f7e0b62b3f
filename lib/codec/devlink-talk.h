/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink exchanges on a NETLINK_GENERIC socket the caller opened (netlink_open(), with its
 * timeout): the family's id from the controller, then one ESWITCH_GET and its reply, or one
 * ESWITCH_SET and its ACK. The messages are devlink.c's. Used by host-function.c (read) and
 * apply-function.c (write, then read back).
 *
 * The errors are the ACK's errno alone: netlink-io.c neither asks for (NETLINK_EXT_ACK) nor
 * returns the kernel's extack message. devlink sets none for the errors of the handle (-ENODEV,
 * -EINVAL) or of permission; a driver refusing a SET often says why in it. */

#include <netlink/netlink.h>
#include <stdbool.h>
#include <stdint.h>

#include "devlink.h"
#include "netlink-io.h"

/* The devlink family's id. -ENOENT when the kernel has no devlink (CONFIG_NET_DEVLINK off: the
 * controller knows no such family, and found no module to load for it), -ETIMEDOUT, -EIO when
 * the socket fails, -EBADMSG for an answer that does not parse. */
int devlink_family_resolve(struct nl_sock *sk, uint16_t *ret_family);

/* The e-switch mode of the devlink device bus/dev (ESWITCH_GET). -EOPNOTSUPP when its driver
 * has no e-switch: the kernel replies without a mode, or the driver's eswitch_mode_get refuses
 * (mlx5 on an InfiniBand port, or on a function that is not the e-switch manager, where some
 * kernels say -EPERM instead); -ENODEV when there is no such devlink device in this network
 * namespace; -EPERM without CAP_NET_ADMIN (ESWITCH_GET is GENL_ADMIN_PERM: reading needs it
 * too); -EPROTO for a mode rdmad has no name for (devlink_eswitch_parse()); -EBADMSG for a
 * reply that does not parse, -ENODATA when the kernel ACKed without one, -ETIMEDOUT, -EIO;
 * -EINVAL, without sending, for a bad name. */
int devlink_eswitch_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			 EswitchMode *ret);

/* Set the e-switch mode (ESWITCH_SET) and return the kernel's answer from the ACK: 0,
 * -EOPNOTSUPP when the driver cannot change it, -ENODEV, -EPERM without CAP_NET_ADMIN, -EBUSY
 * while rate nodes exist (devlink's own check, before the driver's), or the driver's refusal.
 * Read back. -EINVAL, without sending, for what devlink_eswitch_set_new() refuses. */
int devlink_eswitch_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			  EswitchMode mode);

/* A dump (m, built by the caller) collected into an array of elements of size bytes: parse reads
 * one reply into elem and returns 0 to keep it, 1 to pass it over (another device's, a port's
 * parameter), negative when it does not parse: the dump fails then, or, with skip_bad, the reply
 * is counted in *ret_skipped (may be NULL) and the dump goes on (one device's odd reply does not
 * hide the others'). None is no error: *ret NULL, *ret_n 0. */
typedef int (*devlink_dump_parse_t)(const struct nlmsghdr *nlh, void *elem, void *userdata);
int devlink_dump_read(struct nl_sock *sk, struct nl_msg *m, size_t size, devlink_dump_parse_t parse,
		      void *userdata, bool skip_bad, void **ret, size_t *ret_n, size_t *ret_skipped);

/* Every parameter of bus/dev (a PARAM_GET dump; port parameters left out), sorted by name, in
 * *ret (free()) and *ret_n. -ENODEV, -EPERM, -ETIMEDOUT, -EIO, -EBADMSG as above; -EPROTO for a
 * parameter of a type rdmad has no name for. */
int devlink_params_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			DevlinkParamInfo **ret, size_t *ret_n);
/* Every port of bus/dev (a PORT_GET dump), by index, in *ret (free()) and *ret_n. Errors as
 * devlink_params_read(). */
int devlink_ports_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
		       DevlinkPortInfo **ret, size_t *ret_n);
/* One PARAM_SET; the kernel's reason for a refusal (its extack) in extack, "" if none. */
int devlink_param_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			const char *name, DevlinkParamType type, DevlinkCmode cmode,
			const char *value, char extack[static NETLINK_EXTACK_MAX]);
/* `devlink dev reload BUS/DEV action driver_reinit`: blocks while the driver tears down and
 * re-creates its ports (seconds on real hardware). The kernel's reason for a refusal in extack
 * ("User forbid the reload for testing purposes"), "" if none. */
int devlink_reload(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
		   char extack[static NETLINK_EXTACK_MAX]);

/* The devlink family's id and its "config" multicast group (DEVLINK_GENL_MCGRP_CONFIG_NAME),
 * which carries every devlink notification: PARAM_NEW after a parameter changed, the health
 * reporters' news, ports made and deleted. Errors as devlink_family_resolve(), -ENOENT for a
 * family without the group. */
int devlink_config_group_resolve(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_group);
