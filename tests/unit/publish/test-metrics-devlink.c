/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink's series byte for byte (metrics-devlink.c): mlx5's reporters with fw_fatal in error,
 * tx on its port, a device's firmware with a PSID and one without (netdevsim), the netdev label
 * from a scratch sysfs; nothing when devlink could not be read. */
#include <stdlib.h>

#include "metrics-devlink.h"
#include "tests.h"
#include "test-util.h"

TEST(series) {
	HealthReporter reporters[] = {
		{ "pci/0000:08:00.0", false, 0, "fw_fatal", HEALTH_STATE_ERROR, 3, 2, true, 500,
		  true },
		{ "pci/0000:08:00.0", true, 65535, "tx", HEALTH_STATE_HEALTHY, 7, 7, true, 500,
		  true },
	};
	DevlinkInfo infos[] = {
		{ "pci/0000:08:00.0", "mlx5_core", "MT_0000000359", "fw.version", "22.36.1010",
		  "22.39.1002" },
		{ "netdevsim/netdevsim1", "netdevsim", "", "fw.mgmt", "10.20.30", "10.20.30" },
		{ "pci/0000:09:00.0", "x", "", "", "", "" }, /* no firmware version: no series */
	};
	DeviceHealth h = { .reporters = reporters, .n_reporters = 2, .infos = infos, .n_infos = 3 };
	_cleanup_free_ char *text = NULL;
	char *root = tree_new();
	Metrics m = { 0 };

	put_file(root, "sys/bus/pci/devices/0000:08:00.0/net/eth2/.keep", "");
	CHECK_INTEQ(devlink_metrics_add(&m, root, &h), 0);
	CHECK_INTEQ(metrics_format(&m, &text), 0);
	CHECK_STREQ(
		text,
		"# HELP rdmad_devlink_health_state A devlink health reporter's state: 0 healthy, 1 "
		"error\n"
		"# TYPE rdmad_devlink_health_state gauge\n"
		"rdmad_devlink_health_state{device=\"pci/0000:08:00.0\",reporter=\"fw_fatal\","
		"netdev=\"eth2\"} 1\n"
		"rdmad_devlink_health_state{device=\"pci/0000:08:00.0\",reporter=\"tx\",port="
		"\"65535\",netdev=\"eth2\"} 0\n"
		"# HELP rdmad_devlink_health_errors_total Errors a devlink health reporter counted "
		"(devlink health show)\n"
		"# TYPE rdmad_devlink_health_errors_total counter\n"
		"rdmad_devlink_health_errors_total{device=\"pci/0000:08:00.0\",reporter="
		"\"fw_fatal\",netdev=\"eth2\"} 3\n"
		"rdmad_devlink_health_errors_total{device=\"pci/0000:08:00.0\",reporter=\"tx\","
		"port=\"65535\",netdev=\"eth2\"} 7\n"
		"# HELP rdmad_devlink_health_recoveries_total Recoveries a devlink health reporter "
		"counted\n"
		"# TYPE rdmad_devlink_health_recoveries_total counter\n"
		"rdmad_devlink_health_recoveries_total{device=\"pci/0000:08:00.0\",reporter="
		"\"fw_fatal\",netdev=\"eth2\"} 2\n"
		"rdmad_devlink_health_recoveries_total{device=\"pci/0000:08:00.0\",reporter="
		"\"tx\",port=\"65535\",netdev=\"eth2\"} 7\n"
		"# HELP rdmad_firmware_info The device's running and stored firmware and its PSID "
		"(devlink dev info), as labels; always 1\n"
		"# TYPE rdmad_firmware_info gauge\n"
		"rdmad_firmware_info{device=\"pci/0000:08:00.0\",psid=\"MT_0000000359\",running="
		"\"22.36.1010\",stored=\"22.39.1002\"} 1\n"
		"rdmad_firmware_info{device=\"netdevsim/netdevsim1\",psid=\"\",running="
		"\"10.20.30\",stored=\"10.20.30\"} 1\n");
	metrics_done(&m);
	tree_free(root);
}

TEST(unreadable) {
	DeviceHealth h = { .error = -ENOENT };
	Metrics m = { 0 };

	CHECK_INTEQ(devlink_metrics_add(&m, "/nonexistent", &h), 0);
	CHECK_INTEQ(m.n, 0);
	metrics_done(&m);
}

TESTS_MAIN(TEST_ENTRY(series), TEST_ENTRY(unreadable))
