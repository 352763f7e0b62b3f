/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink, on generic netlink (NETLINK_GENERIC): message builders that do no I/O, and parsers of
 * what the kernel sends. The I/O is in devlink-talk.c; the reference is iproute2's devlink/
 * (`devlink dev eswitch show/set`) and the kernel's net/devlink/dev.c.
 *
 * rdmad links libnl-3 but not libnl-genl-3, so the generic netlink header (struct genlmsghdr)
 * is laid by hand, and the family's id, which the kernel assigns when the family registers, is
 * asked of the controller (genl.h) as iproute2's mnlu_gen_socket_open() does. Only the e-switch
 * mode: the inline and encap modes are neither set nor read. */

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdint.h>

#include "genl.h"
#include "profile.h"

/* DEVLINK_CMD_ESWITCH_GET of the devlink device bus/dev ("pci", "0000:03:00.0"), NLM_F_REQUEST |
 * NLM_F_ACK, as `devlink dev eswitch show pci/0000:03:00.0` sends it. family is the id
 * genl_family_parse() gave for "devlink". -EINVAL for an id below GENL_MIN_ID (none resolved),
 * or a name that is empty, longer than NAME_MAX or has a '/'. */
int devlink_eswitch_get_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret);
/* DEVLINK_CMD_ESWITCH_SET of the mode alone (`devlink dev eswitch set pci/... mode switchdev`).
 * -EINVAL for a bad name or a mode out of range. */
int devlink_eswitch_set_new(uint16_t family, const char *bus, const char *dev, EswitchMode mode,
			    struct nl_msg **ret);

/* An ESWITCH_GET reply (devlink_nl_eswitch_fill()): the mode. The inline and encap modes, and
 * attributes rdmad does not know (DEVLINK_ATTR_INDEX since Linux 7.1), are skipped. -ENODATA
 * when the reply has no mode (the driver has no eswitch_mode_get), -EPROTO for a mode rdmad has
 * no name for (DEVLINK_ESWITCH_MODE_SWITCHDEV_INACTIVE, 2, since Linux 6.19), -EBADMSG if the
 * message is not such a reply, is malformed or names no device. Nothing is written on an
 * error. */
int devlink_eswitch_parse(const struct nlmsghdr *nlh, size_t len, EswitchMode *ret_mode);
