/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The drivers' names for per-priority PFC pause frames (every row of the table, and the names
 * next to them that are not frame counts), and the SIOCETHTOOL reader on the netdevs a VM has
 * in a private network namespace: none of them counts pause frames (lo and dummy have no
 * statistics, veth some but no pause ones), so real pause counters are tested on their names
 * only. */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ethtool-stats.h"
#include "macro.h"
#include "tests.h"

static void expect(const char *name, PauseDirection d, unsigned prio) {
	PauseDirection got_d = _PAUSE_DIRECTION_INVALID;
	unsigned got_prio = 99;

	if (!pause_stat_parse(name, &got_d, &got_prio)) {
		printf("#   %s: not a pause counter\n", name);
		test_failed = 1;
		return;
	}
	CHECK_INTEQ(got_d, d);
	CHECK_INTEQ(got_prio, prio);
}

TEST(direction_table) {
	for (PauseDirection d = 0; d < _PAUSE_DIRECTION_MAX; d++)
		CHECK_INTEQ(pause_direction_from_string(pause_direction_to_string(d)), d);
	CHECK_INTEQ(pause_direction_from_string("up"), _PAUSE_DIRECTION_INVALID);
	CHECK(!pause_direction_to_string(_PAUSE_DIRECTION_MAX));
}

TEST(driver_names) {
	/* mlx5_core (en_stats.c) */
	expect("rx_prio0_pause", PAUSE_RX, 0);
	expect("tx_prio3_pause", PAUSE_TX, 3);
	expect("rx_prio7_pause", PAUSE_RX, 7);
	/* mlx4_en (en_ethtool.c) */
	expect("rx_pause_prio_3", PAUSE_RX, 3);
	expect("tx_pause_prio_5", PAUSE_TX, 5);
	/* ice (ice_ethtool.c) */
	expect("rx_priority_3_xoff.nic", PAUSE_RX, 3);
	expect("tx_priority_4_xoff.nic", PAUSE_TX, 4);
	/* bnxt_en (bnxt_ethtool.c) */
	expect("rx_pfc_ena_frames_pri3", PAUSE_RX, 3);
	expect("tx_pfc_ena_frames_pri6", PAUSE_TX, 6);
	/* hns3 (hclge_main.c) */
	expect("mac_rx_pfc_pri3_pkt_num", PAUSE_RX, 3);
	expect("mac_tx_pfc_pri1_pkt_num", PAUSE_TX, 1);

	/* next to them, not frame counts or not per priority */
	CHECK(!pause_stat_parse("rx_prio3_pause_duration", NULL, NULL));
	CHECK(!pause_stat_parse("tx_prio3_pause_duration", NULL, NULL));
	CHECK(!pause_stat_parse("rx_prio3_pause_transition", NULL, NULL));
	CHECK(!pause_stat_parse("rx_prio3_bytes", NULL, NULL));
	CHECK(!pause_stat_parse("rx_global_pause", NULL, NULL));
	CHECK(!pause_stat_parse("rx_pause_ctrl_phy", NULL, NULL));
	CHECK(!pause_stat_parse("tx_pause_storm_warning_events", NULL, NULL));
	CHECK(!pause_stat_parse("rx_pause_duration_prio_3", NULL, NULL));
	CHECK(!pause_stat_parse("rx_pause_transition_prio_3", NULL, NULL));
	CHECK(!pause_stat_parse("rx_priority_3_xon.nic", NULL, NULL));
	CHECK(!pause_stat_parse("rx_priority_3_xoff", NULL, NULL));
	CHECK(!pause_stat_parse("rx_pfc_xon2xoff_frames_pri3", NULL, NULL));
	CHECK(!pause_stat_parse("pfc_pri3_rx_transitions", NULL, NULL));
	CHECK(!pause_stat_parse("mac_tx_pfc_pkt_num", NULL, NULL));
	/* priorities are 0-7, one digit */
	CHECK(!pause_stat_parse("rx_prio8_pause", NULL, NULL));
	CHECK(!pause_stat_parse("rx_prio10_pause", NULL, NULL));
	CHECK(!pause_stat_parse("rx_prio_pause", NULL, NULL));
	CHECK(!pause_stat_parse("tx_pfc_ena_frames_pri", NULL, NULL));
	CHECK(!pause_stat_parse("tx_pfc_ena_frames_pri33", NULL, NULL));
	CHECK(!pause_stat_parse("", NULL, NULL));
}

TEST(from_stats) {
	EthtoolStat items[] = {
		{ "rx_packets", 10 },		  { "rx_prio3_pause", 7 },
		{ "rx_prio3_pause_duration", 9 }, { "tx_prio3_pause", UINT64_MAX },
		{ "rx_prio5_pause", 0 },
	};
	EthtoolStats s = { .items = items, .n = ELEMENTSOF(items) };
	EthtoolStats veth = { .items = items, .n = 1 };
	PauseCounters c = { 0 };

	CHECK_INTEQ(pause_counters_from_stats(&s, &c), 0);
	CHECK_INTEQ(c.present[PAUSE_RX], (1 << 3) | (1 << 5));
	CHECK_INTEQ(c.present[PAUSE_TX], 1 << 3);
	CHECK_INTEQ(c.frames[PAUSE_RX][3], 7);
	CHECK(c.frames[PAUSE_TX][3] == UINT64_MAX);
	CHECK_INTEQ(c.frames[PAUSE_RX][5], 0);
	CHECK_INTEQ(pause_counters_from_stats(&veth, &c), -ENODATA);
}

/* In a private network namespace: root, as test-apply-rtnl (a failure, not a silent pass, as a
 * user: rdmad's tests do not skip). */
TEST(ioctl_netns) {
	EthtoolStats s = { 0 };
	PauseCounters c = { 0 };
	bool peer = false;

	if (unshare(CLONE_NEWNET) < 0) {
		printf("# unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		CHECK(false);
		return;
	}
	CHECK_INTEQ(ethtool_stats_read("nosuch0", &s), -ENODEV);
	CHECK_INTEQ(ethtool_stats_read("", &s), -EINVAL);
	CHECK_INTEQ(ethtool_stats_read("a-name-far-too-long-for-a-netdev", &s), -EINVAL);
	CHECK_INTEQ(ethtool_stats_read("lo", &s), -EOPNOTSUPP);
	CHECK_INTEQ(pause_counters_read("lo", &c), -EOPNOTSUPP);

	CHECK(system("ip link add es0 type veth peer name es1") == 0);
	CHECK_INTEQ(ethtool_stats_read("es0", &s), 0);
	printf("# veth: %zu statistics\n", s.n);
	CHECK(s.n > 0);
	for (size_t i = 0; i < s.n; i++)
		if (streq(s.items[i].name, "peer_ifindex"))
			peer = true;
	CHECK(peer);
	ethtool_stats_done(&s);
	CHECK_INTEQ(pause_counters_read("es0", &c), -ENODATA); /* "no pause counters" */
	CHECK(system("ip link set es0 up && ip link set es1 up") == 0);
	CHECK_INTEQ(pause_counters_read("es1", &c), -ENODATA);

	/* dummy, when the module is there: no statistics at all */
	if (system("ip link add es2 type dummy 2>/dev/null") == 0)
		CHECK_INTEQ(pause_counters_read("es2", &c), -EOPNOTSUPP);
	else
		printf("# no dummy netdev here\n");
}

TESTS_MAIN(TEST_ENTRY(direction_table), TEST_ENTRY(driver_names), TEST_ENTRY(from_stats),
	   TEST_ENTRY(ioctl_netns))
