/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The file side of sriov.* and pci.* (apply-function.c) on a scratch root: sriov_numvfs and
 * sriov_drivers_autoprobe compared, written and read back; the config space's Device Control
 * and ACS Control changed in their bits only. (A device that keeps its own Max_Read_Request,
 * which a file cannot be, is vm-sriov's e1000e.) */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "acs-record.h"
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

/* off records what it clears before it writes; on sets back that and only that, then drops the
 * record; a write the kernel refuses (lockdown: EPERM) is unsupported, with the reason. */
TEST(acs_record_and_restore) {
	char *root = tree_new(), state[600], record[700], faults[700], buf[64];
	ActionOutcome o = { 0 };
	Applier *a = NULL;
	uint16_t bits = 0;
	Action x = { .key = KEY_PCI_UPSTREAM_ACS,
		     .function = (char *) "pci/0000:03:00.0",
		     .desired = (char *) "0000:00:01.0 ACSCtl 0x0011" };

	config_put(root, BRIDGE, true);
	snprintf(state, sizeof(state), "%s/run/rdmad", root);
	snprintf(record, sizeof(record), "%s/acs/0000:00:01.0", state);
	CHECK(applier_new(root, state, &a) == 0);
	x.value.name = (char *) "0000:00:01.0";

	/* Control 0x1d: SV RR CR UF; RR and CR cleared, and recorded */
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	CHECK_INTEQ(config_u16(root, BRIDGE, 0x106), 0x11);
	CHECK(read_small_at(AT_FDCWD, record, buf, sizeof(buf)) > 0);
	CHECK_STREQ(buf, "cleared 0x000c");
	/* a second clear (the kernel set RR again after a reset) adds to what is recorded */
	config_put(root, BRIDGE, true);
	CHECK(acs_record_write(state, "0000:00:01.0", 0x10) == 0);
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	CHECK(acs_record_read(state, "0000:00:01.0", &bits) == 0);
	CHECK_INTEQ(bits, 0x1c);

	/* on: the recorded bits set again (UF too: recorded, so rdmad's), the record gone */
	x.value.flag = true;
	x.desired = (char *) "0000:00:01.0 ACSCtl 0x001d";
	CHECK(acs_record_write(state, "0000:00:01.0", 0x0c) == 0);
	CHECK_STREQ(apply_one(a, &x, &o), "changed");
	CHECK_INTEQ(config_u16(root, BRIDGE, 0x106), 0x1d);
	CHECK(access(record, F_OK) < 0 && errno == ENOENT);
	/* nothing recorded: nothing to set */
	CHECK_STREQ(apply_one(a, &x, &o), "unchanged");

	/* lockdown refuses config writes with EPERM: unsupported, saying so; nothing written */
	x.value.flag = false;
	snprintf(faults, sizeof(faults), "%s/faults", root);
	put_file(root, "faults", "/" BRIDGE "/config EPERM\n");
	CHECK(applier_set_fault_file(a, faults) == 0);
	CHECK_STREQ(apply_one(a, &x, &o), "unsupported");
	CHECK_STREQ(o.message, "0000:00:01.0: the kernel refuses config space writes (EPERM: "
			       "kernel lockdown, see /sys/kernel/security/lockdown)");
	CHECK_INTEQ(config_u16(root, BRIDGE, 0x106), 0x1d);
	CHECK(access(record, F_OK) < 0 && errno == ENOENT); /* nothing cleared, nothing recorded */
	/* another refusal is a failure, retried */
	put_file(root, "faults", "/" BRIDGE "/config EIO\n");
	CHECK_STREQ(apply_one(a, &x, &o), "failed");
	action_outcome_done(&o);
	applier_free(a);
	tree_free(root);
}

/* What sriov.vf writes is completed at apply time from what the kernel reports then: a VF made
 * in the same plan keeps the min-rate it has (a driver may keep it across sriov_numvfs 0, as
 * netdevsim does) when only max-rate is declared (issue 43: it was written as 0). */
TEST(vf_completed_from_live) {
	SriovVf want = { .index = 1, .set = VF_BIT(VF_MAX_RATE), .max_rate = 500 };
	SriovVf live = { .index = 1,
			 .set = VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE) | VF_BIT(VF_VLAN),
			 .min_rate = 50,
			 .vlan = 7,
			 .vlan_proto = 0x88a8 };
	SriovVf w = sriov_vf_write(&want, &live, sriov_vf_diff(&want, &live));

	CHECK_INTEQ(w.set, VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
	CHECK_INTEQ(w.max_rate, 500);
	CHECK_INTEQ(w.min_rate, 50);
	/* a VLAN: qos and the protocol it has now, not 802.1Q */
	want = (SriovVf){ .index = 1, .set = VF_BIT(VF_VLAN), .vlan = 100 };
	live.qos = 3;
	w = sriov_vf_write(&want, &live, sriov_vf_diff(&want, &live));
	CHECK_INTEQ(w.set, VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO));
	CHECK_INTEQ(w.vlan, 100);
	CHECK_INTEQ(w.qos, 3);
	CHECK_INTEQ(w.vlan_proto, 0x88a8);
}

TESTS_MAIN(TEST_ENTRY(sriov_files), TEST_ENTRY(config_space), TEST_ENTRY(acs_record_and_restore),
	   TEST_ENTRY(vf_completed_from_live))
