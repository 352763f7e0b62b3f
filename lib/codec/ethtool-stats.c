/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ethtool-stats.h"
#include "macro.h"

static const char *const direction_table[_PAUSE_DIRECTION_MAX] = {
	[PAUSE_RX] = "rx",
	[PAUSE_TX] = "tx",
};

const char *pause_direction_to_string(PauseDirection d) {
	return d >= 0 && d < _PAUSE_DIRECTION_MAX ? direction_table[d] : NULL;
}

PauseDirection pause_direction_from_string(const char *s) {
	for (PauseDirection d = 0; s && d < _PAUSE_DIRECTION_MAX; d++)
		if (streq(direction_table[d], s))
			return d;
	return _PAUSE_DIRECTION_INVALID;
}

/* A name is prefix, one digit 0-7, suffix: the drivers of ethtool-stats.h */
static const struct {
	const char *prefix, *suffix;
	PauseDirection direction;
} pause_table[] = {
	{ "rx_prio", "_pause", PAUSE_RX }, /* mlx5_core */
	{ "tx_prio", "_pause", PAUSE_TX },
	{ "rx_pause_prio_", "", PAUSE_RX }, /* mlx4_en */
	{ "tx_pause_prio_", "", PAUSE_TX },
	{ "rx_priority_", "_xoff.nic", PAUSE_RX }, /* ice */
	{ "tx_priority_", "_xoff.nic", PAUSE_TX },
	{ "rx_pfc_ena_frames_pri", "", PAUSE_RX }, /* bnxt_en */
	{ "tx_pfc_ena_frames_pri", "", PAUSE_TX },
	{ "mac_rx_pfc_pri", "_pkt_num", PAUSE_RX }, /* hns3 */
	{ "mac_tx_pfc_pri", "_pkt_num", PAUSE_TX },
};

bool pause_stat_parse(const char *name, PauseDirection *ret_direction, unsigned *ret_priority) {
	for (size_t i = 0; i < ELEMENTSOF(pause_table); i++) {
		size_t n = strlen(pause_table[i].prefix);

		if (strncmp(name, pause_table[i].prefix, n) != 0 || name[n] < '0' ||
		    name[n] > '7' || !streq(name + n + 1, pause_table[i].suffix))
			continue;
		if (ret_direction)
			*ret_direction = pause_table[i].direction;
		if (ret_priority)
			*ret_priority = (unsigned) (name[n] - '0');
		return true;
	}
	return false;
}

int pause_counters_from_stats(const EthtoolStats *s, PauseCounters *ret) {
	PauseCounters c = { 0 };
	bool any = false;

	for (size_t i = 0; i < s->n; i++) {
		PauseDirection d;
		unsigned prio;

		if (!pause_stat_parse(s->items[i].name, &d, &prio))
			continue;
		c.frames[d][prio] = s->items[i].value;
		c.present[d] |= (uint8_t) (1u << prio);
		any = true;
	}
	if (!any)
		return -ENODATA;
	*ret = c;
	return 0;
}

void ethtool_stats_done(EthtoolStats *s) {
	free(s->items);
	*s = (EthtoolStats) { 0 };
}

static int ethtool_ioctl(int fd, const char *ifname, void *cmd) {
	struct ifreq ifr = { .ifr_data = cmd };

	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		return -errno;
	return 0;
}

/* The number of ETH_SS_STATS strings; -EOPNOTSUPP for none. */
static int stats_count(int fd, const char *ifname, uint32_t *ret) {
	_cleanup_free_ struct ethtool_sset_info *info = NULL;
	int r;

	/* one count follows for each set asked for */
	info = calloc(1, sizeof(*info) + sizeof(uint32_t));
	if (!info)
		return -ENOMEM;
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ULL << ETH_SS_STATS;
	r = ethtool_ioctl(fd, ifname, info);
	if (r < 0)
		return r;
	/* the kernel clears the bit of a set the driver does not count */
	if (!(info->sset_mask & (1ULL << ETH_SS_STATS)) || info->data[0] == 0)
		return -EOPNOTSUPP;
	if (info->data[0] > 1u << 20)
		return -E2BIG;
	*ret = info->data[0];
	return 0;
}

/* The kernel writes as many names and values as the driver counts at the call, whatever the
 * buffer: room for more than asked (a driver adds counters when PFC is switched on: mlx5), and
 * one more try when the count moved between the calls. */
#define STATS_SLACK 256

static int stats_read_once(int fd, const char *ifname, uint32_t n, EthtoolStats *ret) {
	_cleanup_free_ struct ethtool_gstrings *names = NULL;
	_cleanup_free_ struct ethtool_stats *values = NULL;
	EthtoolStat *items;
	int r;

	names = calloc(1, sizeof(*names) + (size_t) (n + STATS_SLACK) * ETH_GSTRING_LEN);
	values = calloc(1, sizeof(*values) + (size_t) (n + STATS_SLACK) * sizeof(uint64_t));
	if (!names || !values)
		return -ENOMEM;
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_STATS;
	names->len = n;
	r = ethtool_ioctl(fd, ifname, names);
	if (r < 0)
		return r;
	values->cmd = ETHTOOL_GSTATS;
	values->n_stats = n;
	r = ethtool_ioctl(fd, ifname, values);
	if (r < 0)
		return r;
	if (names->len != n || values->n_stats != n)
		return -EAGAIN;
	items = calloc(n, sizeof(EthtoolStat));
	if (!items)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		memcpy(items[i].name, names->data + (size_t) i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		items[i].value = values->data[i];
	}
	*ret = (EthtoolStats) { .items = items, .n = n };
	return 0;
}

int ethtool_stats_read(const char *ifname, EthtoolStats *ret) {
	_cleanup_close_ int fd = -EBADF;
	int r = -EAGAIN;

	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return -EINVAL;
	/* SIOCETHTOOL is answered on any socket (an unknown ioctl falls through to dev_ioctl()):
	 * AF_UNIX works where a sandbox allows no other family, as rdmad-metrics.service does. */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (int try = 0; r == -EAGAIN && try < 3; try++) {
		uint32_t n;

		r = stats_count(fd, ifname, &n);
		if (r < 0)
			return r;
		r = stats_read_once(fd, ifname, n, ret);
	}
	return r;
}

int pause_counters_read(const char *ifname, PauseCounters *ret) {
	EthtoolStats s = { 0 };
	int r;

	r = ethtool_stats_read(ifname, &s);
	if (r < 0)
		return r;
	r = pause_counters_from_stats(&s, ret);
	ethtool_stats_done(&s);
	return r;
}
