/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The file side of sriov.* and pci.* (apply-function.c) on a scratch root: sriov_numvfs and
 * sriov_drivers_autoprobe compared, written and read back; the config space's Device Control
 * and ACS Control changed in their bits only. (A device that keeps its own Max_Read_Request,
 * which a file cannot be, is vm-sriov's e1000e.) */
#include <fcntl.h>
#include <stdio.h>

#include "apply.h"
#include "fileio.h"
#include "tests.h"
#include "test-util.h"

#define PF     "sys/bus/pci/devices/0000:03:00.0"
#define BRIDGE "sys/bus/pci/devices/0000:00:01.0"

/* A config space with a PCIe capability at 0x60 (Device Control 0x2930: MRRS 512) and, for a
 * port, ACS at 0x148 (Capability 0x5f, Control 0x1d). */
static void config_put(const char *root, const char *dir, bool acs) {
	uint8_t b[4096] = { 0 };
	char path[128], full[600];
	FILE *f;

	b[0x06] = 0x10; /* Status: capability list */
	b[0x34] = 0x60;
	b[0x60] = 0x10; /* PCI Express, last */
	b[0x62] = acs ? 0x42 : 0x02;
	b[0x68] = 0x30, b[0x69] = 0x29;
	if (acs) {
		b[0x100] = 0x0d, b[0x102] = 0x01; /* ACS is the first extended capability here */
		b[0x104] = 0x5f, b[0x106] = 0x1d;
	}
	snprintf(path, sizeof(path), "%s/config", dir);
	put_file(root, path, ""); /* the directories on the way */
	snprintf(full, sizeof(full), "%s/%s/config", root, dir);
	f = fopen(full, "we");
	CHECK(f && fwrite(b, 1, sizeof(b), f) == sizeof(b));
	if (f)
		fclose(f);
}

static unsigned config_u16(const char *root, const char *dir, size_t offset) {
	char path[600];
	uint8_t b[2] = { 0 };
	int fd;

	snprintf(path, sizeof(path), "%s/%s/config", root, dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0 && pread(fd, b, 2, (off_t) offset) == 2);
	if (fd >= 0)
		close(fd);
	return b[0] | b[1] << 8;
}

static const char *apply_one(Applier *a, Action *x, ActionOutcome *o) {
	action_outcome_done(o);
	CHECK(action_apply(a, x, o) == 0);
	return apply_result_to_string(o->result);
}

TEST(sriov_files) {
	char *root = tree_new(), state[600], buf[16];
	ActionOutcome o = { 0 };
	Applier *a = NULL;
	Action x = { .key = KEY_SRIOV_VFS,
		     .function = (char *) "pci/0000:03:00.0",
		     .desired = (char *) "4" };

	put_file(root, PF "/sriov_numvfs", "0\n");
	put_file(root, PF "/sriov_drivers_autoprobe", "1\n");
	snprintf(state, sizeof(state), "%s/run/rdmad", root);
	CHECK(applier_new(root, state, &a) == 0);

	x.value.number = 4;
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	snprintf(state, sizeof(state), "%s/" PF "/sriov_numvfs", root);
	CHECK(read_small_at(AT_FDCWD, state, buf, sizeof(buf)) > 0);
	CHECK_STREQ(buf, "4");
	CHECK_STREQ(apply_one(a, &x, &o), "unchanged");

	x.key = KEY_SRIOV_AUTOPROBE;
	x.value.flag = false;
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	CHECK_STREQ(apply_one(a, &x, &o), "unchanged");

	/* the function is gone: said with its path */
	x.function = (char *) "pci/0000:04:00.0";
	CHECK_STREQ(apply_one(a, &x, &o), "failed");
	CHECK_STREQ(o.message, "/sys/bus/pci/devices/0000:04:00.0/sriov_drivers_autoprobe does "
			       "not exist (device gone?)");
	action_outcome_done(&o);
	applier_free(a);
	tree_free(root);
}

TEST(config_space) {
	char *root = tree_new(), state[600];
	ActionOutcome o = { 0 };
	Applier *a = NULL;
	Action x = { .key = KEY_PCI_MAX_READ_REQUEST,
		     .function = (char *) "pci/0000:03:00.0",
		     .desired = (char *) "4096" };

	config_put(root, PF, false);
	config_put(root, BRIDGE, true);
	snprintf(state, sizeof(state), "%s/run/rdmad", root);
	CHECK(applier_new(root, state, &a) == 0);

	x.value.number = 4096;
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	/* bits 14:12 only: the payload size and the other controls stay */
	CHECK_INTEQ(config_u16(root, PF, 0x68), 0x5930);
	CHECK_STREQ(apply_one(a, &x, &o), "unchanged");

	x = (Action){ .key = KEY_PCI_UPSTREAM_ACS,
		      .function = (char *) "pci/0000:03:00.0",
		      .desired = (char *) "0000:00:01.0 ACSCtl 0x0011" };
	x.value.number = 0x11;
	x.value.name = (char *) "0000:00:01.0";
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	CHECK_INTEQ(config_u16(root, BRIDGE, 0x106), 0x11);
	CHECK_STREQ(apply_one(a, &x, &o), "unchanged");
	action_outcome_done(&o);
	applier_free(a);
	tree_free(root);
}

TESTS_MAIN(TEST_ENTRY(sriov_files), TEST_ENTRY(config_space))
