/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ethtool's link-level (IEEE 802.3x global) pause, on generic netlink (NETLINK_GENERIC, the
 * "ethtool" family): message builders that do no I/O, and parsers of what the kernel sends. The
 * I/O is in ethtool-pause-talk.c; the reference is ethtool's netlink/pause.c (`ethtool -a/-A`)
 * and the kernel's net/ethtool/pause.c.
 *
 * As in devlink.c, the generic netlink header is laid by hand (rdmad does not link
 * libnl-genl-3), and the family's id comes from the controller (genl_family_get_new(),
 * genl_family_parse() and genl_mcast_group_parse() in genl.h). Every request names its netdev in an
 * ETHTOOL_A_PAUSE_HEADER nest holding ETHTOOL_A_HEADER_DEV_NAME alone, as ethtool's
 * ethnla_fill_header() does without flags: no statistics are asked for. Only what Linux 6.1 has:
 * PAUSE_GET, PAUSE_SET, their reply and the notification (ETHTOOL_MSG_PAUSE_NTF, on the family's
 * "monitor" multicast group).
 *
 * The kernel's PAUSE_SET reads the driver's values, lays the request's over them and calls the
 * driver's set_pauseparam only when one differs (ethnl_update_bool32()); then, and only then, it
 * multicasts a PAUSE_NTF. A SET that changes nothing is ACKed with 0 and reaches no driver. */

#include <linux/netlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stdint.h>

#include "genl.h"

/* A netdev's pause settings, as PAUSE_GET tells them (the kernel sends each as !!value). */
typedef struct PauseParams {
	bool autoneg, rx, tx;
} PauseParams;

/* What one PAUSE_SET carries: each field -1 (leave alone), 0 or 1. */
typedef struct PauseChange {
	int8_t autoneg, rx, tx;
} PauseChange;

/* ETHTOOL_MSG_PAUSE_GET of ifname: ETHTOOL_A_PAUSE_HEADER { ETHTOOL_A_HEADER_DEV_NAME },
 * NLM_F_REQUEST | NLM_F_ACK, version ETHTOOL_GENL_VERSION. family is the id genl_family_parse()
 * gave for "ethtool". -EINVAL for an id below GENL_MIN_ID (none resolved) or a name
 * netdev_name_valid() refuses. */
int ethtool_pause_get_new(uint16_t family, const char *ifname, struct nl_msg **ret);
/* ETHTOOL_MSG_PAUSE_SET of the fields of c that are not -1, each a u8 (ETHTOOL_A_PAUSE_AUTONEG,
 * _RX, _TX, in that order), as `ethtool -A ifname rx off` sends it. -EINVAL for what
 * ethtool_pause_get_new() refuses, a change that sets nothing, or a value other than -1, 0, 1. */
int ethtool_pause_set_new(uint16_t family, const char *ifname, const PauseChange *c,
			  struct nl_msg **ret);

/* An ETHTOOL_MSG_PAUSE_GET_REPLY, or an ETHTOOL_MSG_PAUSE_NTF from the monitor group (the same
 * layout, ethnl_default_notify()): the netdev's name (the header's ETHTOOL_A_HEADER_DEV_NAME:
 * its own name, even when the request named an alternative one) and the three values.
 * Attributes rdmad does not ask for are skipped: the header's DEV_INDEX (and PHY_INDEX since
 * 6.12), ETHTOOL_A_PAUSE_STATS (with ETHTOOL_FLAG_STATS) and ETHTOOL_A_PAUSE_STATS_SRC (after 6.1).
 * -EBADMSG if the message is malformed, is neither such message, names no netdev, lacks one of
 * autoneg, rx and tx, or has one that is not a u8 0 or 1. Nothing is written on an error. */
int ethtool_pause_parse(const struct nlmsghdr *nlh, size_t len, char ret_ifname[static IFNAMSIZ],
			PauseParams *ret);
