/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* probe/probe-links.c: a link's probe.* Settings rows, as rdmad publishes them (settings-format.c
 * writes them), into the prober's settings; what rdmad would not write is refused. */
#include "probe-links.h"
#include "strv.h"
#include "tests.h"

TEST(rows) {
	ProbeSettings s = { .interval_ms = PROBE_INTERVAL_MS_DEFAULT };

	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "250ms"), 0);
	CHECK_INTEQ(s.interval_ms, 250);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "2s"), 0);
	CHECK_INTEQ(s.interval_ms, 2000);
	CHECK_INTEQ(probe_settings_set(&s, "probe.timeout", "500ms"), 0);
	CHECK_INTEQ(s.timeout_ms, 500);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "none"), 0);
	CHECK(!s.mesh);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "local"), 0);
	CHECK(s.mesh);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "18515"), 0);
	CHECK_INTEQ(s.port, 18515);
	CHECK_INTEQ(probe_settings_set(&s, "probe.peers", "192.0.2.9 2001:db8::9"), 0);
	CHECK_INTEQ(strv_length(s.peers), 2);
	CHECK_STREQ(s.peers[0], "192.0.2.9");
	CHECK_STREQ(s.peers[1], "2001:db8::9");
	CHECK_INTEQ(probe_settings_set(&s, "probe.peers", "none"), 0);
	CHECK(!s.peers);
	/* another section's row: not the prober's */
	CHECK_INTEQ(probe_settings_set(&s, "roce.tos", "106"), 0);
	strv_free(s.peers);
}

TEST(refused) {
	ProbeSettings s = { 0 };

	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "250"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "0ms"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "1h"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "99999999999s"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.timeout", "-1ms"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "global"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "0"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "65536"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "7473x"), -EINVAL);
	CHECK_INTEQ(s.interval_ms, 0);
	CHECK_INTEQ(s.port, 0);
}

TEST(equal) {
	ProbeSettings a = { .interval_ms = 1000, .timeout_ms = 500, .mesh = true, .port = 7473 };
	ProbeSettings b = a;

	CHECK(probe_settings_equal(&a, &b));
	CHECK_INTEQ(probe_settings_set(&b, "probe.peers", "192.0.2.9"), 0);
	CHECK(!probe_settings_equal(&a, &b));
	CHECK_INTEQ(probe_settings_set(&a, "probe.peers", "192.0.2.9"), 0);
	CHECK(probe_settings_equal(&a, &b));
	b.port = 7474;
	CHECK(!probe_settings_equal(&a, &b));
	strv_free(a.peers);
	strv_free(b.peers);
}

TESTS_MAIN(TEST_ENTRY(rows), TEST_ENTRY(refused), TEST_ENTRY(equal))
