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
#include <net/if.h>
#include <netlink/msg.h>
#include <stdbool.h>
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

/* Device parameters (`devlink dev param`; the kernel's net/devlink/param.c). */

/* What the kernel reports of one parameter (devlink_nl_param_fill()): the device, the name, the
 * type, and the value in each cmode the driver offers it in (cmodes, a bit per DevlinkCmode),
 * as canonical text ("64", "true", "smfs"; devlink_value_canonical()). */
typedef struct DevlinkParamInfo {
	char bus[64], dev[64];
	char name[DEVLINK_PARAM_NAME_MAX];
	DevlinkParamType type;
	uint8_t cmodes;
	char values[_DEVLINK_CMODE_MAX][DEVLINK_VALUE_MAX];
} DevlinkParamInfo;

/* DEVLINK_CMD_PARAM_GET as a dump (NLM_F_DUMP | NLM_F_ACK) of bus/dev's parameters: a kernel
 * that selects a dump by handle (since 6.8) gives that device's, an older one every device's
 * (the caller keeps the replies of bus/dev). */
int devlink_param_dump_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret);
/* DEVLINK_CMD_PARAM_SET, as `devlink dev param set BUS/DEV name NAME value VALUE cmode CMODE`
 * sends it: PARAM_NAME, PARAM_VALUE_CMODE, PARAM_TYPE, then PARAM_VALUE_DATA of the type (a
 * bool as a flag: present for true, absent for false). value is text of type (checked:
 * -EINVAL, -ERANGE). */
int devlink_param_set_new(uint16_t family, const char *bus, const char *dev, const char *name,
			  DevlinkParamType type, DevlinkCmode cmode, const char *value,
			  struct nl_msg **ret);
/* DEVLINK_CMD_RELOAD with DEVLINK_ATTR_RELOAD_ACTION driver_reinit (`devlink dev reload
 * BUS/DEV action driver_reinit`). */
int devlink_reload_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret);

/* A PARAM_GET reply or a PARAM_NEW notification (the config group's). -EBADMSG if it is not
 * one, or is malformed; -EPROTO for a type rdmad has no name for; -EAGAIN for a port's
 * parameter (DEVLINK_ATTR_PORT_INDEX): not the device's. Nothing is written on an error. */
int devlink_param_parse(const struct nlmsghdr *nlh, size_t len, DevlinkParamInfo *ret);
/* The device a devlink message (a notification of any command) is about, and its command.
 * -EBADMSG if it names none. */
int devlink_message_handle(const struct nlmsghdr *nlh, size_t len, char ret_bus[static 64],
			   char ret_dev[static 64], uint8_t *ret_cmd);

/* Ports (`devlink port show`; the kernel's devlink_nl_port_fill(), net/devlink/port.c, and
 * net/core/devlink.c before 6.3). */

/* What rdmad reads of one port: its device, its index, its type (enum devlink_port_type:
 * DEVLINK_PORT_TYPE_ETH for an Ethernet port) and its netdev. The kernel puts the netdev's
 * ifindex and name only when the netdev is in the devlink instance's network namespace
 * (net_eq(devlink_net(), dev_net(netdev)), since Linux 5.9; since 6.2 the port's netdev is
 * also cleared when it moves out, its type kept: devlink_port_netdevice_event()'s
 * NETDEV_UNREGISTER): an Ethernet port without them has its netdev elsewhere, a pod's. */
typedef struct DevlinkPortInfo {
	char bus[64], dev[64];
	uint32_t index;
	uint16_t type;
	bool has_netdev;
	uint32_t ifindex;
	char netdev[IFNAMSIZ];
} DevlinkPortInfo;

/* DEVLINK_CMD_PORT_GET as a dump (NLM_F_DUMP | NLM_F_ACK) with bus/dev as its selector, as
 * `devlink port show BUS/DEV` sends it: a kernel that selects a dump by handle (since 6.8)
 * gives that device's ports, an older one every device's. */
int devlink_port_dump_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret);
/* A PORT_GET reply, a dump's (DEVLINK_CMD_NEW before Linux 6.9, PORT_NEW since) or a PORT_NEW
 * notification. -EBADMSG if it is not one, or is malformed (no handle, no index, a netdev name
 * that does not fit IFNAMSIZ). Nothing is written on an error. */
int devlink_port_parse(const struct nlmsghdr *nlh, size_t len, DevlinkPortInfo *ret);
