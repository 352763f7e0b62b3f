/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host observers on a scratch root laid out as the kernel lays sysfs out: PCI network functions
 * and the netdevs on them (what modules: matches before an RDMA device exists), built-in
 * modules from modules.builtin, rdmad's records of the soft devices it created. */
#include <fcntl.h>
#include <unistd.h>

#include "host.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static char root[] = "/tmp/rdmad-test-host-XXXXXX";

static void put_link(const char *path, const char *target) {
	char full[600];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	put_file(root, path, ""); /* the directories on the way */
	unlink(full);
	CHECK(symlink(target, full) == 0);
}

#define FN0 "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
#define FN1 "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1"
#define BR  "sys/devices/pci0000:3a/0000:3a:00.0"

/* A ConnectX PF with its netdev, mlx5_ib not loaded (no infiniband/), an unbound second
 * function, a PCI bridge (not a network function), ib_core built in, mlx5_core loaded. */
static void tree_make(void) {
	CHECK(mkdtemp(root) != NULL);
	put_file(root, FN0 "/class", "0x020000\n");
	put_link(FN0 "/driver", "../../../../bus/pci/drivers/mlx5_core");
	put_link(FN0 "/subsystem", "../../../../bus/pci");
	put_file(root, FN0 "/net/ens1f0np0/mtu", "1500\n");
	put_file(root, FN0 "/net/ens1f0np0/ifindex", "4\n");
	put_link(FN0 "/net/ens1f0np0/device", "../../../0000:3b:00.0");
	put_file(root, FN1 "/class", "0x020700\n");
	put_file(root, BR "/class", "0x060400\n");
	put_file(root, "sys/bus/pci/drivers/mlx5_core/module", "");
	put_link("sys/bus/pci/devices/0000:3b:00.0",
		 "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0");
	put_link("sys/bus/pci/devices/0000:3b:00.1",
		 "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1");
	put_link("sys/bus/pci/devices/0000:3a:00.0", "../../../devices/pci0000:3a/0000:3a:00.0");
	put_link("sys/class/net/ens1f0np0", "../../../" FN0 "/net/ens1f0np0");
	put_file(root, "sys/module/mlx5_core/initstate", "live\n");
	put_file(root, "proc/sys/kernel/osrelease", "6.1.0-test-amd64\n");
	put_file(root, "lib/modules/6.1.0-test-amd64/modules.builtin",
		 "kernel/drivers/infiniband/core/ib_core.ko\nkernel/crypto/crc32-generic.ko\n");
	put_file(root, "run/rdmad/state/links/rxe0", "rxe veth0\n");
	put_file(root, "run/rdmad/state/links/.#rxe1XXXXXX", "rxe veth1\n"); /* a write's temp */
	put_file(root, "run/rdmad/state/links/bad", "iwarp eth0\n");
}

TEST(pci_functions) {
	HostState *h = NULL;

	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	CHECK_INTEQ(h->n_pci_functions, 2);
	CHECK_STREQ(h->pci_functions[0].address, "0000:3b:00.0");
	CHECK_INTEQ(h->pci_functions[0].class, 0x020000);
	CHECK_STREQ(h->pci_functions[0].driver, "mlx5_core");
	CHECK(h->pci_functions[0].netdevs && streq(h->pci_functions[0].netdevs[0], "ens1f0np0"));
	CHECK_STREQ(h->pci_functions[1].address, "0000:3b:00.1");
	CHECK(!h->pci_functions[1].driver);
	CHECK(!h->pci_functions[1].netdevs);
	/* The netdev knows its parent too. */
	CHECK_INTEQ(h->n_netdevs, 1);
	CHECK_INTEQ(h->netdevs[0].mtu, 1500);
	CHECK_STREQ(h->netdevs[0].driver, "mlx5_core");
	CHECK_STREQ(h->netdevs[0].pci, "0000:3b:00.0");
	/* A fixture's ifindex is never one to address anything by. */
	CHECK_INTEQ(h->netdevs[0].ifindex, 0);
	host_state_free(h);
}

TEST(modules_builtin) {
	HostState *h = NULL;

	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_MODULES, &h), 0);
	CHECK(host_module_loaded(h, "mlx5_core"));
	CHECK(host_module_loaded(h, "ib_core"));       /* built in, no /sys/module entry */
	CHECK(host_module_loaded(h, "crc32-generic")); /* the - and _ spellings are one */
	CHECK(!host_module_loaded(h, "mlx5_ib"));
	host_state_free(h);
}

TEST(hardware_matches) {
	static const char *const texts[] = {
		"match: {driver: mlx5_core}\nmodules: [mlx5_ib]\n",
		"match: {netdev: \"ens1f*\"}\nmodules: [mlx5_ib]\n",
		"match: {pci: \"0000:3b:00.1\"}\nmodules: [mlx5_ib]\n",
		"match: {driver: bnxt_en}\nmodules: [bnxt_re]\n",
		"match: {device: \"mlx5_*\"}\nmodules: [mlx5_ib]\n",
		"modules: [ib_uverbs]\n",
		NULL,
	};
	static const bool expected[] = { true, true, true, false, false, false };
	Config *c = config_from(texts);
	HostState *h = NULL;

	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	CHECK_INTEQ(c->n_profiles, ELEMENTSOF(expected));
	for (size_t i = 0; i < c->n_profiles; i++) {
		if (host_hardware_matches(h, c->profiles[i]) != expected[i])
			printf("# profile %zu: expected %d\n", i, expected[i]);
		CHECK(host_hardware_matches(h, c->profiles[i]) == expected[i]);
	}
	host_state_free(h);
	config_free(c);
}

TEST(records) {
	char dir[600];
	HostState *h = NULL;

	snprintf(dir, sizeof(dir), "%s/run/rdmad/state", root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_DETAILS, &h), 0);
	CHECK_INTEQ(host_records_observe(h, dir), 0);
	CHECK_INTEQ(h->n_records, 1); /* the temp file and the unparsable one are skipped */
	CHECK_STREQ(h->records[0].name, "rxe0");
	CHECK_INTEQ(h->records[0].type, SOFT_DEVICE_RXE);
	CHECK_STREQ(h->records[0].netdev, "veth0");
	CHECK(host_record_find(h, "rxe0") == &h->records[0]);
	CHECK(!host_record_find(h, "bad"));
	/* No state directory at all: no records, no error. */
	CHECK_INTEQ(host_records_observe(h, "/nonexistent/rdmad/state"), 0);
	CHECK_INTEQ(h->n_records, 0);
	host_state_free(h);
}

static void link_at(const char *top, const char *path, const char *target) {
	char full[600];

	snprintf(full, sizeof(full), "%s/%s", top, path);
	put_file(top, path, "");
	unlink(full);
	CHECK(symlink(target, full) == 0);
}

#define SW  "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"
#define PF  SW "/0000:02:00.0/0000:03:00.0"
#define VF0 SW "/0000:02:00.0/0000:03:00.2"
#define VF1 SW "/0000:02:00.0/0000:03:00.3"
#define GPU SW "/0000:02:01.0/0000:04:00.0"

/* What shares a device (issue 43): a VF bound to vfio-pci in an IOMMU group of type DMA, a VF
 * whose netdev is in another network namespace (its net/ lists nothing), a GPU below the same
 * switch, and rdmad's record of ACS bits it cleared. */
TEST(sharing) {
	char *top = tree_new(), dir[600];
	HostState *h = NULL;
	AcsRecord *l = NULL;
	uint16_t bits = 0;
	size_t n = 0;

	put_file(top, PF "/class", "0x020000\n");
	link_at(top, PF "/driver", "../../../../../../bus/pci/drivers/mlx5_core");
	put_file(top, VF0 "/class", "0x020000\n");
	link_at(top, VF0 "/driver", "../../../../../../bus/pci/drivers/vfio-pci");
	link_at(top, VF0 "/physfn", "../0000:03:00.0");
	link_at(top, VF0 "/iommu_group", "../../../../../../kernel/iommu_groups/22");
	put_file(top, "sys/kernel/iommu_groups/22/type", "DMA\n");
	put_file(top, VF1 "/class", "0x020000\n");
	link_at(top, VF1 "/driver", "../../../../../../bus/pci/drivers/mlx5_core");
	link_at(top, VF1 "/physfn", "../0000:03:00.0");
	put_file(top, VF1 "/net/.keep", "");
	put_file(top, GPU "/class", "0x030200\n");
	put_file(top, GPU "/vendor", "0x10de\n");
	link_at(top, "sys/bus/pci/devices/0000:03:00.0", "../../../../" PF);
	link_at(top, "sys/bus/pci/devices/0000:03:00.2", "../../../../" VF0);
	link_at(top, "sys/bus/pci/devices/0000:03:00.3", "../../../../" VF1);
	link_at(top, "sys/bus/pci/devices/0000:04:00.0", "../../../../" GPU);
	link_at(top, "sys/bus/pci/drivers/vfio-pci/0000:03:00.2", "../../../../../" VF0);
	put_file(top, "sys/bus/pci/drivers/vfio-pci/new_id", "");
	put_file(top, "run/rdmad/state/acs/0000:02:00.0", "cleared 0x000c\n");
	put_file(top, "run/rdmad/state/acs/0000:02:01.0", "cleared 0x0000\n"); /* nothing */
	put_file(top, "run/rdmad/state/acs/.#0000:02:02.0XXXXXX", "cleared 0x000c\n");

	CHECK_INTEQ(host_observe(top, HOST_OBSERVE_ALL, &h), 0);
	CHECK_INTEQ(h->n_pci_functions, 3);
	if (h->n_pci_functions == 3) {
		CHECK(!h->pci_functions[0].netdev_elsewhere); /* the PF: no net/ at all */
		CHECK_STREQ(h->pci_functions[1].physfn, "0000:03:00.0");
		CHECK(!h->pci_functions[1].netdev_elsewhere); /* vfio-pci: no netdev anywhere */
		CHECK(h->pci_functions[2].netdev_elsewhere);
	}
	CHECK_INTEQ(h->n_vfio_functions, 1);
	if (h->n_vfio_functions == 1) {
		const HostVfioFunction *v = &h->vfio_functions[0];

		CHECK_STREQ(v->address, "0000:03:00.2");
		CHECK_STREQ(v->host_bridge, "pci0000:00");
		CHECK(strv_equal(v->bridges, (char *[]){ "0000:02:00.0", "0000:01:00.0",
							 "0000:00:01.0", NULL }));
		CHECK_INTEQ(v->iommu_group, 22);
		CHECK_STREQ(v->iommu_type, "DMA");
	}
	CHECK_INTEQ(h->n_gpus, 1);
	if (h->n_gpus == 1) {
		CHECK_STREQ(h->gpus[0].address, "0000:04:00.0");
		CHECK_INTEQ(h->gpus[0].n_bridges, 3);
		CHECK_STREQ(h->gpus[0].bridges[0].address, "0000:02:01.0");
		CHECK(h->gpus[0].bridges[0].error < 0); /* no config space in this tree */
	}

	/* the records: one that parses, read through the state directory */
	snprintf(dir, sizeof(dir), "%s/run/rdmad/state", top);
	CHECK_INTEQ(host_records_observe(h, dir), 0);
	CHECK_INTEQ(h->n_acs_records, 1);
	CHECK(host_acs_record_find(h, "0000:02:00.0") &&
	      host_acs_record_find(h, "0000:02:00.0")->cleared == 0x0c);
	CHECK(!host_acs_record_find(h, "0000:02:01.0"));
	/* written atomically, 0 removes it */
	CHECK_INTEQ(acs_record_write(dir, "0000:02:01.0", 0x04), 0);
	CHECK_INTEQ(acs_record_read(dir, "0000:02:01.0", &bits), 0);
	CHECK_INTEQ(bits, 0x04);
	CHECK_INTEQ(acs_record_write(dir, "0000:02:01.0", 0), 0);
	CHECK_INTEQ(acs_record_read(dir, "0000:02:01.0", &bits), -ENOENT);
	CHECK_INTEQ(acs_record_write(dir, "../etc", 0x04), -EINVAL);
	CHECK_INTEQ(acs_records_list(dir, &l, &n), 0);
	CHECK_INTEQ(n, 1);
	acs_records_free(l, n);
	host_state_free(h);
	tree_free(top);
}

static HostState *observe_writing(const char *function, const char *what) {
	HostObserver *o = NULL;
	HostState *h = NULL;
	int r;

	CHECK_INTEQ(host_observer_new(root, HOST_OBSERVE_NETDEVS | HOST_OBSERVE_SRIOV, NULL, &o),
		    0);
	CHECK_INTEQ(host_observer_set_writing(o, function, what), 0);
	do
		r = host_observer_step(o);
	while (r == 0);
	CHECK_INTEQ(r, 1);
	CHECK_INTEQ(host_observer_finish(o, &h), 0);
	host_observer_free(o);
	CHECK_INTEQ(h->n_functions, 1);
	return h;
}

/* A PF whose sriov_numvfs rdmad writes meanwhile: the kernel blocks a read of that file until
 * the write ends, so its VFs are counted from the virtfn links the kernel adds as it makes
 * each, and nothing that takes the driver's locks is read. Here the file says 7 and the links
 * 2: the count says which was read. */
TEST(function_being_written) {
	HostState *h;
	unsigned n = 0;
	int fd;

	put_file(root, FN0 "/sriov_numvfs", "7\n");
	put_file(root, FN0 "/sriov_totalvfs", "8\n");
	put_file(root, FN0 "/sriov_drivers_autoprobe", "1\n");
	put_link(FN0 "/virtfn0", "../0000:3b:00.2");
	put_link(FN0 "/virtfn1", "../0000:3b:00.3");
	put_file(root, FN0 "/virtfn_not_a_link", ""); /* no digit after virtfn: not a VF */

	h = observe_writing(NULL, NULL);
	CHECK_INTEQ(h->functions[0].numvfs, 7);
	CHECK(!h->functions[0].writing && !h->functions[0].numvfs_counted);
	host_state_free(h);

	/* another function being written: this one is read as ever */
	h = observe_writing("pci/0000:3b:00.1", "writing 4 (started 3 s ago)");
	CHECK_INTEQ(h->functions[0].numvfs, 7);
	CHECK(!h->functions[0].writing);
	host_state_free(h);

	h = observe_writing("pci/0000:3b:00.0", "writing 4 (started 3 s ago)");
	CHECK(h->functions[0].has_sriov);
	CHECK_INTEQ(h->functions[0].numvfs, 2);
	CHECK(h->functions[0].numvfs_counted);
	CHECK_STREQ(h->functions[0].writing, "writing 4 (started 3 s ago)");
	CHECK_INTEQ(h->functions[0].totalvfs, 8); /* read without the device lock */
	CHECK_INTEQ(h->functions[0].vfs_error, -EINPROGRESS);
	CHECK_INTEQ(h->functions[0].eswitch_error, -EINPROGRESS);
	CHECK(!h->functions[0].errors);
	host_state_free(h);

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK_INTEQ(host_function_count_vfs(fd, "pci", "0000:3b:00.0", &n), 0);
	CHECK_INTEQ(n, 2);
	close(fd);
	CHECK_INTEQ(host_function_count_vfs(AT_FDCWD, "netdevsim", "netdevsim1", &n), -EOPNOTSUPP);
}

TEST(tree) {
	tree_make();
}

TEST(cleanup) {
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

TESTS_MAIN(TEST_ENTRY(tree), TEST_ENTRY(pci_functions), TEST_ENTRY(modules_builtin),
	   TEST_ENTRY(hardware_matches), TEST_ENTRY(records), TEST_ENTRY(sharing),
	   TEST_ENTRY(function_being_written),
	   TEST_ENTRY(cleanup))
