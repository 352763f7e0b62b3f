/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* hardware.health and hardware.firmware-pending on devlink's facts as a test builds them
 * (preflight-health.c): mlx5's reporters fw, fw_fatal, tx, rx with fw_fatal in error, netdevsim's
 * dummy, the firmware of a device with an update waiting and of one without a stored version;
 * the devices' names from a scratch sysfs, and the links filter. */
#include <string.h>

#include "device-health.h"
#include "preflight.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static const PreflightRow *row_find(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	return NULL;
}

static bool row_is(const Preflight *p, const char *check, const char *subject,
		   PreflightStatus status, const char *seen, const char *fix) {
	const PreflightRow *r = row_find(p, check, subject);

	if (!r) {
		printf("# no row %s %s\n", check, subject);
		return false;
	}
	if (r->status != status || (seen && !strstr(r->seen, seen)) ||
	    (fix && (!r->fix || !strstr(r->fix, fix))) || (status == PREFLIGHT_OK && r->fix)) {
		printf("# %s %s: %s, seen '%s', fix '%s'\n", check, subject,
		       preflight_status_to_string(r->status), r->seen, strna(r->fix));
		return false;
	}
	return true;
}

static HealthReporter mlx5_reporters[] = {
	{ "pci/0000:08:00.0", false, 0, "fw", HEALTH_STATE_HEALTHY, 0, 0, false, 0, false },
	{ "pci/0000:08:00.0", false, 0, "fw_fatal", HEALTH_STATE_ERROR, 3, 2, true, 500, true },
	{ "pci/0000:08:00.0", true, 65535, "tx", HEALTH_STATE_HEALTHY, 7, 7, true, 500, true },
	{ "pci/0000:08:00.0", true, 65535, "rx", HEALTH_STATE_HEALTHY, 0, 0, true, 500, true },
	{ "netdevsim/netdevsim1", false, 0, "dummy", HEALTH_STATE_HEALTHY, 0, 0, true, 0, true },
};

static DevlinkInfo infos[] = {
	{ "pci/0000:08:00.0", "mlx5_core", "MT_0000000359", "fw.version", "22.36.1010",
	  "22.39.1002" },
	{ "netdevsim/netdevsim1", "netdevsim", "", "fw.mgmt", "10.20.30", "10.20.30" },
	{ "pci/0000:09:00.0", "ice", "", "fw.mgmt", "7.3.4", "" },
};

static char *health_tree(void) {
	char *root = tree_new();

	put_file(root, "sys/bus/pci/devices/0000:08:00.0/net/eth2/.keep", "");
	put_file(root, "sys/bus/pci/devices/0000:08:00.0/infiniband/mlx5_0/.keep", "");
	put_file(root, "sys/bus/netdevsim/devices/netdevsim1/net/eni1np1/.keep", "");
	return root;
}

TEST(health_rows) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	DeviceHealth h = { .reporters = mlx5_reporters,
			   .n_reporters = ELEMENTSOF(mlx5_reporters),
			   .infos = infos,
			   .n_infos = ELEMENTSOF(infos) };
	char *root = health_tree();
	PreflightInput in = { .root = root };

	CHECK_INTEQ(preflight_device_health(&p, &in, &h), 0);
	CHECK(row_is(&p, "hardware.health", "pci/0000:08:00.0/fw_fatal", PREFLIGHT_FAIL,
		     "reporter fw_fatal of pci/0000:08:00.0 (mlx5_0 eth2) is in error: 3 errors, "
		     "2 recoveries",
		     "devlink health recover pci/0000:08:00.0 reporter fw_fatal"));
	CHECK(row_is(&p, "hardware.health", "pci/0000:08:00.0/fw", PREFLIGHT_OK, "healthy", NULL));
	CHECK(row_is(&p, "hardware.health", "pci/0000:08:00.0/65535/tx", PREFLIGHT_OK,
		     "healthy: 7 errors, 7 recoveries", NULL));
	CHECK(row_is(&p, "hardware.health", "pci/0000:08:00.0/65535/rx", PREFLIGHT_OK, NULL, NULL));
	CHECK(row_is(&p, "hardware.health", "netdevsim/netdevsim1/dummy", PREFLIGHT_OK,
		     "(eni1np1) is healthy", NULL));
	CHECK(row_is(&p, "hardware.firmware-pending", "pci/0000:08:00.0", PREFLIGHT_WARN,
		     "runs fw.version 22.36.1010 but has 22.39.1002 stored", "fw_activate"));
	CHECK(row_is(&p, "hardware.firmware-pending", "netdevsim/netdevsim1", PREFLIGHT_OK,
		     "runs fw.mgmt 10.20.30, the stored version", NULL));
	/* no stored version told, and no names in sysfs */
	CHECK(row_is(&p, "hardware.firmware-pending", "pci/0000:09:00.0", PREFLIGHT_OK,
		     "pci/0000:09:00.0 runs fw.mgmt 7.3.4; the driver tells no stored version",
		     NULL));
	CHECK_INTEQ(preflight_worst(&p), PREFLIGHT_FAIL);
	tree_free(root);
}

TEST(health_recovered) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	HealthReporter r = mlx5_reporters[1];
	DeviceHealth h = { .reporters = &r, .n_reporters = 1 };
	PreflightInput in = { .root = "/nonexistent" };

	r.state = HEALTH_STATE_HEALTHY;
	r.recoveries = 3;
	CHECK_INTEQ(preflight_device_health(&p, &in, &h), 0);
	CHECK(row_is(&p, "hardware.health", "pci/0000:08:00.0/fw_fatal", PREFLIGHT_OK,
		     "reporter fw_fatal of pci/0000:08:00.0 is healthy: 3 errors, 3 recoveries",
		     NULL));
	CHECK_INTEQ(p.n_rows, 1);
}

TEST(health_links_filter) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *links[] = { (char *) "mlx5_0/1", NULL }, *netdev[] = { (char *) "eni1np1", NULL };
	DeviceHealth h = { .reporters = mlx5_reporters,
			   .n_reporters = ELEMENTSOF(mlx5_reporters),
			   .infos = infos,
			   .n_infos = ELEMENTSOF(infos) };
	char *root = health_tree();
	PreflightInput in = { .root = root, .links = links };

	CHECK_INTEQ(preflight_device_health(&p, &in, &h), 0);
	CHECK(row_find(&p, "hardware.health", "pci/0000:08:00.0/fw_fatal") != NULL);
	CHECK(!row_find(&p, "hardware.health", "netdevsim/netdevsim1/dummy"));
	CHECK(!row_find(&p, "hardware.firmware-pending", "pci/0000:09:00.0"));
	in.links = netdev;
	CHECK_INTEQ(preflight_device_health(&q, &in, &h), 0);
	CHECK(row_find(&q, "hardware.health", "netdevsim/netdevsim1/dummy") != NULL);
	CHECK(!row_find(&q, "hardware.health", "pci/0000:08:00.0/fw_fatal"));
	tree_free(root);
}

TEST(health_unreadable) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	DeviceHealth none = { .error = -ENOENT }, broken = { .error = -ETIMEDOUT };
	PreflightInput in = { .root = "/nonexistent" };

	/* a kernel without devlink: nothing to say */
	CHECK_INTEQ(preflight_device_health(&p, &in, &none), 0);
	CHECK_INTEQ(p.n_rows, 0);
	CHECK_INTEQ(preflight_device_health(&q, &in, &broken), 0);
	CHECK(row_is(&q, "hardware.health", "host", PREFLIGHT_WARN, "devlink cannot be read",
		     NULL));
}

TESTS_MAIN(TEST_ENTRY(health_rows), TEST_ENTRY(health_recovered), TEST_ENTRY(health_links_filter),
	   TEST_ENTRY(health_unreadable))
