/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A netdev's driver statistics, read on demand the way `ethtool -S` reads them (the SIOCETHTOOL
 * ioctl: ETHTOOL_GSSET_INFO for the count, ETHTOOL_GSTRINGS for ETH_SS_STATS' names,
 * ETHTOOL_GSTATS for the values), in the caller's network namespace; and the per-priority PFC
 * pause frame counts among them. ethtool netlink offers the names (ETHTOOL_MSG_STRSET_GET) but
 * not the driver's values (ETHTOOL_MSG_STATS_GET carries only the standard groups, and the
 * pause statistics of ETHTOOL_MSG_PAUSE_GET are link-level, not per priority), hence the ioctl.
 *
 * The drivers' names for the pause frames of one priority (%u: 0-7), from the kernel's sources:
 *   mlx5_core  rx_prio%u_pause, tx_prio%u_pause (en_stats.c; only for priorities with PFC on;
 *              rx_prio%u_pause_duration and _transition are not frame counts)
 *   mlx4_en    rx_pause_prio_%u, tx_pause_prio_%u (en_ethtool.c)
 *   ice        rx_priority_%u_xoff.nic, tx_priority_%u_xoff.nic (ice_ethtool.c; the _xon.nic
 *              frames lift a pause and are not counted)
 *   bnxt_en    rx_pfc_ena_frames_pri%u, tx_pfc_ena_frames_pri%u (bnxt_ethtool.c; the same
 *              counters its dcbnl getpfc reports as indications and requests)
 *   hns3       mac_rx_pfc_pri%u_pkt_num, mac_tx_pfc_pri%u_pkt_num (hclge_main.c) */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAUSE_PRIORITIES 8

typedef enum PauseDirection {
	PAUSE_RX, /* pause frames the port received: the peer holds this port back */
	PAUSE_TX, /* pause frames it sent: its own receive buffers fill */
	_PAUSE_DIRECTION_MAX,
	_PAUSE_DIRECTION_INVALID = -EINVAL,
} PauseDirection;

const char *pause_direction_to_string(PauseDirection d); /* "rx", "tx" */
PauseDirection pause_direction_from_string(const char *s);

typedef struct EthtoolStat {
	char name[33]; /* ETH_GSTRING_LEN and a NUL */
	uint64_t value;
} EthtoolStat;

typedef struct EthtoolStats {
	EthtoolStat *items; /* in the driver's order */
	size_t n;
} EthtoolStats;

/* The driver statistics of the netdev ifname: -ENODEV when there is none of that name,
 * -EOPNOTSUPP when its driver offers no statistics (lo, dummy). */
int ethtool_stats_read(const char *ifname, EthtoolStats *ret);
void ethtool_stats_done(EthtoolStats *s);

/* Whether name is one of the drivers' per-priority pause frame counters above; which
 * direction and priority. No I/O. */
bool pause_stat_parse(const char *name, PauseDirection *ret_direction, unsigned *ret_priority);

typedef struct PauseCounters {
	uint64_t frames[_PAUSE_DIRECTION_MAX][PAUSE_PRIORITIES];
	uint8_t present[_PAUSE_DIRECTION_MAX]; /* a bit per priority the driver counts */
} PauseCounters;

/* The pause counters among s: -ENODATA when there are none ("no pause counters": veth). */
int pause_counters_from_stats(const EthtoolStats *s, PauseCounters *ret);
/* Both: -ENODEV, -EOPNOTSUPP (no statistics at all), -ENODATA (no pause counters). */
int pause_counters_read(const char *ifname, PauseCounters *ret);
