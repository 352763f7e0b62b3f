/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* setting_current_to_profile(): the plan's "current" column in a profile's words, what a trial's
 * record declares back on rollback. Each value is written by the formatter it inverts, then
 * loaded as a profile would be. */
#include <stdlib.h>

#include "settings-format.h"
#include "tests.h"

static void check_to(Key key, const char *current, const char *want) {
	char *v = NULL;

	CHECK_INTEQ(setting_current_to_profile(key, current, &v), 0);
	CHECK_STREQ(v, want);
	free(v);
}

TEST(pfc) {
	char cur[32];

	setting_format_pfc(0, cur);
	check_to(KEY_QOS_PFC, cur, "[]");
	setting_format_pfc(1u << 3, cur);
	check_to(KEY_QOS_PFC, cur, "[3]");
	setting_format_pfc((1u << 3) | (1u << 5) | 1u, cur);
	check_to(KEY_QOS_PFC, cur, "[0, 3, 5]");
}

TEST(dscp_map) {
	uint8_t prio[N_DSCP] = { 0 };
	char *cur, *v = NULL;

	cur = setting_format_dscp_prio(prio);
	check_to(KEY_QOS_DSCP_MAP, cur, "{}");
	free(cur);
	prio[24] = 1u << 3;
	prio[26] = 1u << 3;
	prio[46] = 1u << 5;
	cur = setting_format_dscp_prio(prio);
	check_to(KEY_QOS_DSCP_MAP, cur, "{24: 3, 26: 3, 46: 5}");
	free(cur);
	/* the app table can hold two priorities for one DSCP; a profile's map cannot */
	prio[46] |= 1u << 6;
	cur = setting_format_dscp_prio(prio);
	CHECK_INTEQ(setting_current_to_profile(KEY_QOS_DSCP_MAP, cur, &v), -EOPNOTSUPP);
	CHECK(!v);
	free(cur);
}

TEST(plain) {
	char *v = NULL;

	check_to(KEY_ROCE_TOS, "106", "106");
	check_to(KEY_ROCE_MODE, "v2", "v2");
	check_to(KEY_NETDEV_MTU, "1500", "1500");
	check_to(KEY_NETDEV_UP, "up", "true");
	check_to(KEY_NETDEV_UP, "down", "false");
	CHECK_INTEQ(setting_current_to_profile(KEY_QOS_TRUST, "dscp (2 DSCP app entries)", &v),
		    -EOPNOTSUPP);
	CHECK_INTEQ(setting_current_to_profile(KEY_QOS_PFC, "prio-pfc 3:on", &v), -EINVAL);
	CHECK_INTEQ(setting_current_to_profile(KEY_QOS_PFC, "pfc-enabled 3,9", &v), -EINVAL);
	CHECK_INTEQ(setting_current_to_profile(KEY_QOS_DSCP_MAP, "dscp-prio 64:1", &v), -EINVAL);
	CHECK_INTEQ(setting_current_to_profile(KEY_ROCE_TOS, NULL, &v), -EINVAL);
	CHECK(!v);
}

TESTS_MAIN(TEST_ENTRY(pfc), TEST_ENTRY(dscp_map), TEST_ENTRY(plain))
