/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* ethtool netlink's link modes (ETHTOOL_MSG_LINKMODES_GET, the kernel's net/ethtool/linkmodes.c;
 * `ethtool IFNAME` reads the same): the speed and lanes a netdev runs at now, and the link modes
 * its port supports, for the degraded-link checks (a port trained below the fastest mode it
 * supports). Builders do no I/O; the parser takes the kernel's reply with compact bitsets
 * (ETHTOOL_FLAG_COMPACT_BITSETS, which the request asks for). The speed and lanes of each mode
 * are those of the kernel's link_mode_params table (net/ethtool/common.c): the table here is
 * made from the mode names of linux/ethtool.h ("200000baseCR4_Full": 200000 Mb/s, 4 lanes). */

#include <linux/netlink.h>
#include <net/if.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <stdint.h>

typedef struct LinkModes {
	uint32_t speed;	    /* Mb/s now; 0: unknown (no link: SPEED_UNKNOWN) */
	uint32_t lanes;	    /* now; 0: unknown (drivers that do not say, kernels before 5.10) */
	size_t n_supported; /* supported modes rdmad knows the speed of */
	/* the fastest supported mode, and the fewest lanes it comes with; 0 and "" for none */
	uint32_t max_speed;
	uint32_t max_lanes;
	char max_mode[40]; /* "200000baseCR4/Full" */
} LinkModes;

/* The speed and lanes of link mode bit (enum ethtool_link_mode_bit_indices), and its name;
 * -ENOENT for a bit that is no speed (Autoneg, FEC, Pause, ...) or is newer than the table. */
int link_mode_lookup(unsigned bit, uint32_t *ret_speed, uint32_t *ret_lanes, const char **ret_name);

/* LINKMODES_GET of ifname with compact bitsets, NLM_F_REQUEST | NLM_F_ACK. -EINVAL for a
 * family id below GENL_MIN_ID or a bad name. */
int ethtool_linkmodes_get_new(uint16_t family, const char *ifname, struct nl_msg **ret);

/* A LINKMODES_GET reply or LINKMODES_NTF: the netdev's name and its modes. A reply without
 * OURS (a driver without get_link_ksettings answers the GET with an error instead) has no
 * supported mode. -EPROTO for bitsets in the verbose form (not asked for); -EBADMSG if it is not
 * such a message or is malformed. Nothing is written on an error. */
int ethtool_linkmodes_parse(const struct nlmsghdr *nlh, size_t len,
			    char ret_ifname[static IFNAMSIZ], LinkModes *ret);

/* The exchange on a NETLINK_GENERIC socket (ethtool_family_resolve() gives family):
 * -EOPNOTSUPP when the driver has no get_link_ksettings (veth, netdevsim), -ENODEV, -ETIMEDOUT,
 * -EIO, -EBADMSG, -ENODATA when the kernel ACKed without a reply. */
int ethtool_linkmodes_read(struct nl_sock *sk, uint16_t family, const char *ifname, LinkModes *ret);
