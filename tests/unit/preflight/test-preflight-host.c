/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hardware, kernel and user-space preflight checks on scratch roots laid out as the kernel
 * lays out sysfs and /proc: PCI functions with and without an RDMA device, the PCIe link,
 * firmware across one model; the core modules, configfs, lockdown; libibverbs providers, device
 * nodes and who may open them, and the memlock limits of services and login sessions. */
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "preflight.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

#define FN0 "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0"
#define FN1 "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1"
#define VF0 "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2"
#define FN5 "sys/devices/pci0000:00/0000:00:05.0"

static void put_link(const char *root, const char *path, const char *target) {
	char full[600];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	put_file(root, path, ""); /* the directories on the way */
	unlink(full);
	CHECK(symlink(target, full) == 0);
}

static void put_mode(const char *root, const char *path, mode_t mode, gid_t gid) {
	char full[600];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	CHECK(chmod(full, mode) == 0);
	if (gid != (gid_t) -1)
		CHECK(chown(full, (uid_t) -1, gid) == 0);
}

static void put_dir(const char *root, const char *path) {
	char full[256];

	snprintf(full, sizeof(full), "%s/.keep", path);
	put_file(root, full, "");
}

static const PreflightRow *row_find(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	return NULL;
}

static size_t rows_count(const Preflight *p, const char *check) {
	size_t n = 0;

	for (size_t i = 0; i < p->n_rows; i++)
		n += streq(p->rows[i].check, check);
	return n;
}

/* The row exists, has the status, and its seen (and fix, if given) contain the texts. */
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

/* ---- hardware ---- */

/* A ConnectX PF (mlx5_core bound, netdev, no RDMA device), an unbound second function, a VF
 * of the first, and a virtio-net function; mlx5_core loaded, mlx5_ib not. */
static void hardware_tree(const char *root) {
	put_file(root, FN0 "/class", "0x020000\n");
	put_file(root, FN0 "/vendor", "0x15b3\n");
	put_file(root, FN0 "/device", "0x101d\n");
	put_link(root, FN0 "/driver", "../../../../bus/pci/drivers/mlx5_core");
	put_file(root, FN0 "/net/ens1f0np0/mtu", "1500\n");
	put_file(root, FN1 "/class", "0x020000\n");
	put_file(root, VF0 "/class", "0x020000\n");
	put_link(root, VF0 "/driver", "../../../../bus/pci/drivers/mlx5_core");
	put_link(root, VF0 "/physfn", "../0000:3b:00.0");
	put_file(root, FN5 "/class", "0x020000\n");
	put_link(root, FN5 "/driver", "../../../bus/pci/drivers/virtio-pci");
	put_file(root, FN5 "/net/eth0/mtu", "1500\n");
	put_link(root, "sys/bus/pci/devices/0000:3b:00.0",
		 "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0");
	put_link(root, "sys/bus/pci/devices/0000:3b:00.1",
		 "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.1");
	put_link(root, "sys/bus/pci/devices/0000:3b:00.2",
		 "../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.2");
	put_link(root, "sys/bus/pci/devices/0000:00:05.0",
		 "../../../devices/pci0000:00/0000:00:05.0");
	put_file(root, "sys/module/mlx5_core/initstate", "live\n");
}

TEST(hardware_no_rdma_device) {
	static const char *const texts[] = { "match: {driver: virtio-pci}\nmodules: [rdma_rxe]\n",
					     NULL };
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *root = tree_new();
	Config *c = config_from(texts);
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	hardware_tree(root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK(row_is(&p, "hardware.driver-bound", "0000:3b:00.0", PREFLIGHT_OK, "mlx5_core", NULL));
	CHECK(row_is(&p, "hardware.rdma-driver", "0000:3b:00.0", PREFLIGHT_OK, "mlx5_ib", NULL));
	CHECK(row_is(&p, "hardware.rdma-device", "0000:3b:00.0", PREFLIGHT_FAIL,
		     "mlx5_ib is not loaded", "modprobe mlx5_ib, or `modules: [mlx5_ib]`"));
	/* the unbound PF: modprobe by its modalias */
	CHECK(row_is(&p, "hardware.driver-bound", "0000:3b:00.1", PREFLIGHT_FAIL, "no driver",
		     "/sys/bus/pci/devices/0000:3b:00.1/modalias"));
	CHECK(!row_find(&p, "hardware.rdma-driver", "0000:3b:00.1"));
	/* the VF has its RDMA device check too, but no PCIe link of its own */
	CHECK(row_is(&p, "hardware.rdma-device", "0000:3b:00.2", PREFLIGHT_FAIL, NULL, NULL));
	/* a plain NIC is not a failure of RDMA readiness */
	CHECK(row_is(&p, "hardware.rdma-driver", "0000:00:05.0", PREFLIGHT_OK,
		     "not RDMA-capable (virtio-pci)", NULL));
	CHECK(!row_find(&p, "hardware.rdma-device", "0000:00:05.0"));
	CHECK_INTEQ(rows_count(&p, "hardware.pcie-link"), 0); /* no link files here */

	/* mlx5_ib loaded and still no device: the driver says why */
	put_file(root, "sys/module/mlx5_ib/initstate", "live\n");
	host_state_free(h);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	in.config = c; /* a profile expects RDMA on the virtio NIC */
	CHECK_INTEQ(preflight_hardware(&q, &in), 0);
	CHECK(row_is(&q, "hardware.rdma-device", "0000:3b:00.0", PREFLIGHT_FAIL,
		     "mlx5_ib is loaded but made none", "dmesg"));
	CHECK(row_is(&q, "hardware.rdma-driver", "0000:00:05.0", PREFLIGHT_WARN,
		     "profile 00-test.yaml matches it", "netdev: eth0"));
	host_state_free(h);
	config_free(c);
	tree_free(root);
}

TEST(hardware_links_filter) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	char *links[] = { "eth0", NULL };
	char *root = tree_new();
	HostState *h = NULL;
	PreflightInput in = { .root = root, .links = links };

	hardware_tree(root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK(row_find(&p, "hardware.driver-bound", "0000:00:05.0") != NULL);
	CHECK(!row_find(&p, "hardware.driver-bound", "0000:3b:00.0"));
	host_state_free(h);
	tree_free(root);
}

TEST(hardware_pcie_link) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *root = tree_new();
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	hardware_tree(root);
	put_file(root, FN0 "/current_link_speed", "8.0 GT/s PCIe\n");
	put_file(root, FN0 "/max_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN0 "/current_link_width", "8\n");
	put_file(root, FN0 "/max_link_width", "16\n");
	put_file(root, FN1 "/current_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN1 "/max_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN1 "/current_link_width", "16\n");
	put_file(root, FN1 "/max_link_width", "16\n");
	/* A plain NIC's slot is none of RDMA's business. */
	put_file(root, FN5 "/current_link_speed", "2.5 GT/s PCIe\n");
	put_file(root, FN5 "/max_link_speed", "8.0 GT/s PCIe\n");
	put_file(root, FN5 "/current_link_width", "1\n");
	put_file(root, FN5 "/max_link_width", "4\n");
	/* A VF's are ignored whatever they say. */
	put_file(root, VF0 "/current_link_speed", "Unknown\n");
	put_file(root, VF0 "/max_link_speed", "Unknown\n");
	put_file(root, VF0 "/current_link_width", "0\n");
	put_file(root, VF0 "/max_link_width", "0\n");
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK(row_is(&p, "hardware.pcie-link", "0000:3b:00.0", PREFLIGHT_WARN,
		     "8.0 GT/s PCIe x8, the device can do 16.0 GT/s PCIe x16",
		     "lspci -vv -s 0000:3b:00.0"));
	CHECK(row_is(&p, "hardware.pcie-link", "0000:3b:00.1", PREFLIGHT_OK, "16.0 GT/s PCIe x16",
		     NULL));
	CHECK(!row_find(&p, "hardware.pcie-link", "0000:3b:00.2"));
	CHECK(!row_find(&p, "hardware.pcie-link", "0000:00:05.0"));

	/* Only the width short; and an Unknown speed, said as such. */
	put_file(root, FN0 "/current_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN1 "/current_link_speed", "Unknown\n");
	CHECK_INTEQ(preflight_hardware(&q, &in), 0);
	CHECK(row_is(&q, "hardware.pcie-link", "0000:3b:00.0", PREFLIGHT_WARN,
		     "16.0 GT/s PCIe x8, the device can do 16.0 GT/s PCIe x16", NULL));
	CHECK(row_is(&q, "hardware.pcie-link", "0000:3b:00.1", PREFLIGHT_OK,
		     "cannot be judged: the kernel says Unknown x16", NULL));
	host_state_free(h);
	tree_free(root);
}

/* Judged against the lower of the link's two ends: the device's maximum and its port's. */
TEST(hardware_pcie_link_port) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *root = tree_new();
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	hardware_tree(root);
	put_link(root, "sys/bus/pci/devices/0000:3a:00.0",
		 "../../../devices/pci0000:3a/0000:3a:00.0");
	put_file(root, "sys/devices/pci0000:3a/0000:3a:00.0/max_link_speed", "8.0 GT/s PCIe\n");
	put_file(root, "sys/devices/pci0000:3a/0000:3a:00.0/max_link_width", "8\n");
	/* a Gen4 x16 card in a Gen3 x8 slot, at Gen3 x8: all the slot gives */
	put_file(root, FN0 "/current_link_speed", "8.0 GT/s PCIe\n");
	put_file(root, FN0 "/max_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN0 "/current_link_width", "8\n");
	put_file(root, FN0 "/max_link_width", "16\n");
	/* the same card at x4 in that slot: degraded below both ends */
	put_file(root, FN1 "/current_link_speed", "8.0 GT/s PCIe\n");
	put_file(root, FN1 "/max_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, FN1 "/current_link_width", "4\n");
	put_file(root, FN1 "/max_link_width", "16\n");
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK(row_is(&p, "hardware.pcie-link", "0000:3b:00.0", PREFLIGHT_OK,
		     "8.0 GT/s PCIe x8, the most its port 0000:3a:00.0 allows (the device can do "
		     "16.0 GT/s PCIe x16)",
		     NULL));
	CHECK(row_is(&p, "hardware.pcie-link", "0000:3b:00.1", PREFLIGHT_WARN,
		     "PCIe link degraded: 8.0 GT/s PCIe x4, the device can do 16.0 GT/s PCIe x16 "
		     "(its port 0000:3a:00.0 allows 8.0 GT/s PCIe x8)",
		     "a slot that gives 8.0 GT/s PCIe x8"));

	/* qemu's: an x1 2.5 GT/s endpoint under a root port that offers x32 16 GT/s */
	put_file(root, "sys/devices/pci0000:3a/0000:3a:00.0/max_link_speed", "16.0 GT/s PCIe\n");
	put_file(root, "sys/devices/pci0000:3a/0000:3a:00.0/max_link_width", "32\n");
	put_file(root, FN0 "/current_link_speed", "2.5 GT/s PCIe\n");
	put_file(root, FN0 "/max_link_speed", "2.5 GT/s PCIe\n");
	put_file(root, FN0 "/current_link_width", "1\n");
	put_file(root, FN0 "/max_link_width", "1\n");
	CHECK_INTEQ(preflight_hardware(&q, &in), 0);
	CHECK(row_is(&q, "hardware.pcie-link", "0000:3b:00.0", PREFLIGHT_OK,
		     "2.5 GT/s PCIe x1, the device's maximum", NULL));
	host_state_free(h);
	tree_free(root);
}

TEST(hardware_firmware) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *root = tree_new();
	HostPciFunction fns[] = {
		{ .address = "0000:3b:00.0", .class = 0x020000, .driver = "mlx5_core" },
		{ .address = "0000:3b:00.1", .class = 0x020000, .driver = "mlx5_core" },
		{ .address = "0000:5e:00.0", .class = 0x020000, .driver = "mlx5_core" },
		{ .address = "0000:86:00.0", .class = 0x020000, .driver = "bnxt_en" },
	};
	HostDevice devs[] = {
		{ .name = "bnxt_re0",
		  .fw_ver = "227.0.131.0",
		  .driver = "bnxt_en",
		  .pci = "0000:86:00.0" },
		{ .name = "mlx5_0",
		  .fw_ver = "22.36.1010",
		  .driver = "mlx5_core",
		  .pci = "0000:3b:00.0" },
		{ .name = "mlx5_1",
		  .fw_ver = "22.36.1010",
		  .driver = "mlx5_core",
		  .pci = "0000:3b:00.1" },
		{ .name = "mlx5_2",
		  .fw_ver = "22.35.2000",
		  .driver = "mlx5_core",
		  .pci = "0000:5e:00.0" },
		{ .name = "rxe0", .fw_ver = "0.0.0", .driver = "rdma_rxe", .parent = "veth0" },
	};
	HostState h = { .devices = devs,
			.n_devices = ELEMENTSOF(devs),
			.pci_functions = fns,
			.n_pci_functions = ELEMENTSOF(fns) };
	PreflightInput in = { .root = root, .host = &h };

	for (size_t i = 0; i < ELEMENTSOF(fns); i++) {
		char path[300];
		bool bnxt = streq(fns[i].driver, "bnxt_en");

		snprintf(path, sizeof(path), "sys/bus/pci/devices/%s/vendor", fns[i].address);
		put_file(root, path, bnxt ? "0x14e4\n" : "0x15b3\n");
		snprintf(path, sizeof(path), "sys/bus/pci/devices/%s/device", fns[i].address);
		put_file(root, path, bnxt ? "0x1750\n" : "0x101d\n");
	}
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK(row_is(&p, "hardware.firmware", "15b3:101d", PREFLIGHT_WARN,
		     "mlx5_0 22.36.1010, mlx5_1 22.36.1010, mlx5_2 22.35.2000", "mlxfwmanager"));
	CHECK(row_is(&p, "hardware.firmware", "14e4:1750", PREFLIGHT_OK, "bnxt_re0 227.0.131.0",
		     NULL));
	CHECK_INTEQ(rows_count(&p, "hardware.firmware"), 2); /* rxe0 has no PCI function */
	/* Each function has its RDMA device, bound driver and all. */
	CHECK(row_is(&p, "hardware.rdma-device", "0000:3b:00.1", PREFLIGHT_OK, "mlx5_1", NULL));
	CHECK(row_is(&p, "hardware.rdma-driver", "0000:86:00.0", PREFLIGHT_OK, "bnxt_re", NULL));

	devs[3].fw_ver = "22.36.1010";
	CHECK_INTEQ(preflight_hardware(&q, &in), 0);
	CHECK(row_is(&q, "hardware.firmware", "15b3:101d", PREFLIGHT_OK, "mlx5_2 22.36.1010",
		     NULL));
	tree_free(root);
}

/* A NIC at address with netdev on root port rp (ACS redirecting P2P, as the kernel sets it with
 * an IOMMU), in root complex pci0000:00. */
static void acs_nic_add(HostState *h, const char *address, const char *netdev, const char *rp) {
	HostFunction *f;

	h->functions = realloc(h->functions, sizeof(HostFunction) * (h->n_functions + 1));
	f = &h->functions[h->n_functions++];
	*f = (HostFunction){ .bus = strdup("pci"),
			     .name = strdup(address),
			     .driver = strdup("sriovsim"),
			     .netdevs = strv_copy((char *[]){ (char *) netdev, NULL }),
			     .pcie_observed = true,
			     .host_bridge = strdup("pci0000:00"),
			     .bridges = calloc(1, sizeof(PciBridgeState)),
			     .n_bridges = 1 };
	f->bridges[0] = (PciBridgeState){ .address = strdup(rp),
					  .port_type = 4, /* PCI_EXP_TYPE_ROOT_PORT */
					  .has_acs = true,
					  .acs_cap = 0x5f,
					  .acs_ctrl = 0x1d };
}

/* Two functions declaring pci.upstream-acs: off, each the other's peer, a VF of the second
 * bound to vfio-pci (sriov-guard.sh's VM): the plan refuses each port for both functions, and
 * preflight says so once per port. */
TEST(hardware_acs_vfio_once) {
	static const char *const texts[] = {
		"match: {netdev: \"eth*\"}\npci: {upstream-acs: off}\n", NULL
	};
	_cleanup_(preflight_done) Preflight p = { 0 };
	Config *c = config_from(texts);
	HostState *h = calloc(1, sizeof(HostState));
	PreflightInput in = { .root = "/nonexistent", .config = c };

	acs_nic_add(h, "0000:04:00.0", "eth1", "0000:00:1d.0");
	acs_nic_add(h, "0000:05:00.0", "eth2", "0000:00:1e.0");
	h->vfio_functions = calloc(1, sizeof(HostVfioFunction));
	h->n_vfio_functions = 1;
	h->vfio_functions[0] = (HostVfioFunction){
		.address = strdup("0000:05:00.1"),
		.host_bridge = strdup("pci0000:00"),
		.bridges = strv_copy((char *[]){ "0000:00:1e.0", NULL }),
		.iommu_group = 9,
		.iommu_type = strdup("DMA-FQ"),
	};
	in.host = h;
	CHECK_INTEQ(preflight_hardware(&p, &in), 0);
	CHECK_INTEQ(rows_count(&p, "hardware.acs-vfio"), 2);
	CHECK(row_is(&p, "hardware.acs-vfio", "0000:00:1d.0", PREFLIGHT_WARN,
		     "0000:05:00.1 is bound to vfio-pci in IOMMU group 9 (DMA-FQ)",
		     "pci=disable_acs_redir=0000:00:1d.0 on the kernel command line"));
	CHECK(row_is(&p, "hardware.acs-vfio", "0000:00:1e.0", PREFLIGHT_WARN,
		     "0000:05:00.1 is bound to vfio-pci in IOMMU group 9 (DMA-FQ)",
		     "pci=disable_acs_redir=0000:00:1e.0 on the kernel command line"));
	host_state_free(h);
	config_free(c);
}

/* ---- kernel ---- */

#define RELEASE "6.1.0-test-amd64"

/* ib_core built in, ib_uverbs a module that is loaded, rdma_cm one that is not, rdma_ucm
 * nowhere; configfs in the kernel with its directory, not mounted. */
static void kernel_tree(const char *root) {
	put_file(root, "proc/sys/kernel/osrelease", RELEASE "\n");
	put_file(root, "lib/modules/" RELEASE "/modules.builtin",
		 "kernel/drivers/infiniband/core/ib_core.ko\n");
	put_file(root, "lib/modules/" RELEASE "/modules.dep",
		 "kernel/drivers/infiniband/core/ib_uverbs.ko.xz: "
		 "kernel/drivers/infiniband/core/ib_core.ko.xz\n"
		 "kernel/drivers/infiniband/core/rdma_cm.ko.xz: "
		 "kernel/drivers/infiniband/core/iw_cm.ko.xz\n");
	put_file(root, "sys/module/ib_uverbs/initstate", "live\n");
	put_file(root, "proc/mounts",
		 "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
		 "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n");
	put_file(root, "proc/filesystems", "nodev\tsysfs\nnodev\tconfigfs\n\text4\n");
	put_dir(root, "sys/kernel/config");
}

TEST(kernel_modules) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	char *root = tree_new();
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	kernel_tree(root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_kernel(&p, &in), 0);
	CHECK(row_is(&p, "kernel.module", "ib_core", PREFLIGHT_OK, "built into the kernel", NULL));
	CHECK(row_is(&p, "kernel.module", "ib_uverbs", PREFLIGHT_OK, "loaded", NULL));
	CHECK(row_is(&p, "kernel.module", "rdma_cm", PREFLIGHT_FAIL, "not loaded",
		     "modprobe rdma_cm (rdma-core's udev rules"));
	CHECK(row_is(&p, "kernel.module", "rdma_ucm", PREFLIGHT_FAIL,
		     "not available in this kernel (" RELEASE ")",
		     "CONFIG_INFINIBAND_USER_ACCESS"));
	host_state_free(h);
	tree_free(root);
}

TEST(kernel_configfs) {
	static const char *const texts[] = { "roce: {mode: v2}\n", NULL };
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 }, t = { 0 };
	char *root = tree_new();
	Config *c = config_from(texts);
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	kernel_tree(root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	/* Not mounted, but can be; nothing needs it yet. */
	CHECK_INTEQ(preflight_kernel(&p, &in), 0);
	CHECK(row_is(&p, "kernel.configfs", "host", PREFLIGHT_WARN, "not mounted, and can be",
		     "mount -t configfs none /sys/kernel/config"));
	CHECK(row_is(&p, "kernel.configfs-rdma-cm", "host", PREFLIGHT_WARN,
		     "configfs is not mounted", NULL));
	/* A profile sets roce.mode: now it stops rdmad. */
	in.config = c;
	CHECK_INTEQ(preflight_kernel(&q, &in), 0);
	CHECK(row_is(&q, "kernel.configfs", "host", PREFLIGHT_FAIL, "roce.mode or roce.tos",
		     "sys-kernel-config.mount"));

	/* Mounted; rdma_cm not loaded, so not in it. */
	put_file(root, "proc/mounts",
		 "sysfs /sys sysfs rw 0 0\nconfigfs /sys/kernel/config configfs rw,relatime 0 0\n");
	CHECK_INTEQ(preflight_kernel(&s, &in), 0);
	CHECK(row_is(&s, "kernel.configfs", "host", PREFLIGHT_OK, "mounted", NULL));
	CHECK(row_is(&s, "kernel.configfs-rdma-cm", "host", PREFLIGHT_FAIL, "rdma_cm is not loaded",
		     "modprobe rdma_cm"));
	/* Loaded, and there. */
	put_file(root, "sys/module/rdma_cm/initstate", "live\n");
	put_dir(root, "sys/kernel/config/rdma_cm");
	host_state_free(h);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_kernel(&t, &in), 0);
	CHECK(row_is(&t, "kernel.configfs-rdma-cm", "host", PREFLIGHT_OK, "rdma_cm exists", NULL));
	CHECK(row_is(&t, "kernel.module", "rdma_cm", PREFLIGHT_OK, "loaded", NULL));
	host_state_free(h);
	config_free(c);
	tree_free(root);
}

TEST(kernel_configfs_absent) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 };
	char *root = tree_new();
	HostState *h = NULL;
	PreflightInput in = { .root = root };

	/* No configfs in the kernel at all: no directory, not in /proc/filesystems; and no
	 * /lib/modules for this release. */
	put_file(root, "proc/sys/kernel/osrelease", RELEASE "\n");
	put_file(root, "proc/mounts", "sysfs /sys sysfs rw 0 0\n");
	put_file(root, "proc/filesystems", "nodev\tsysfs\n");
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	CHECK_INTEQ(preflight_kernel(&p, &in), 0);
	CHECK(row_is(&p, "kernel.configfs", "host", PREFLIGHT_WARN, "neither built in nor loaded",
		     "modprobe configfs"));
	/* No modules.dep to read, no configuration: the rows say what is unknown, and warn. */
	CHECK(row_is(&p, "kernel.module", "ib_core", PREFLIGHT_WARN,
		     "modules.builtin (cannot be read), /proc/config.gz and /boot/config-* (none)",
		     "modprobe ib_core if it is a module"));

	/* With the module lists: configfs a module that is not loaded, then not at all. */
	put_file(root, "lib/modules/" RELEASE "/modules.builtin", "");
	put_file(root, "lib/modules/" RELEASE "/modules.dep", "kernel/fs/configfs/configfs.ko:\n");
	CHECK_INTEQ(preflight_kernel(&q, &in), 0);
	CHECK(row_is(&q, "kernel.configfs", "host", PREFLIGHT_WARN, "a module that is not loaded",
		     "modprobe configfs && mount"));
	CHECK(row_is(&q, "kernel.module", "ib_core", PREFLIGHT_FAIL, "not available in this kernel",
		     "CONFIG_INFINIBAND"));
	put_file(root, "lib/modules/" RELEASE "/modules.dep", "");
	CHECK_INTEQ(preflight_kernel(&s, &in), 0);
	CHECK(row_is(&s, "kernel.configfs", "host", PREFLIGHT_WARN, "this kernel has no configfs",
		     "CONFIG_CONFIGFS_FS"));
	host_state_free(h);
	tree_free(root);
}

TEST(kernel_lockdown) {
	static const char secure_boot_on[] = { 0x06, 0x00, 0x00, 0x00, 0x01 };
	static const char secure_boot_off[] = { 0x06, 0x00, 0x00, 0x00, 0x00 };
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 }, t = { 0 };
	char *root = tree_new(), path[600];
	HostState *h = NULL;
	PreflightInput in = { .root = root };
	FILE *f;

	kernel_tree(root);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	in.host = h;
	/* Neither file: no lockdown LSM, no EFI. */
	CHECK_INTEQ(preflight_kernel(&p, &in), 0);
	CHECK(row_is(&p, "kernel.lockdown", "host", PREFLIGHT_OK, "unsigned modules may load",
		     NULL));

	put_file(root, "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
	put_file(root, "sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		 "");
	snprintf(path, sizeof(path),
		 "%s/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c",
		 root);
	f = fopen(path, "we");
	CHECK(f && fwrite(secure_boot_on, 1, sizeof(secure_boot_on), f) == sizeof(secure_boot_on));
	if (f)
		fclose(f);
	CHECK_INTEQ(preflight_kernel(&q, &in), 0);
	CHECK(row_is(&q, "kernel.lockdown", "host", PREFLIGHT_OK,
		     "lockdown integrity, Secure Boot on: only signed modules load", NULL));

	/* An out-of-tree RDMA stack (MLNX_OFED's DKMS build) under lockdown. */
	put_file(root, "lib/modules/" RELEASE "/modules.dep",
		 "updates/dkms/ib_core.ko: \n"
		 "kernel/drivers/infiniband/core/rdma_cm.ko.xz:\n");
	CHECK_INTEQ(preflight_kernel(&s, &in), 0);
	CHECK(row_is(&s, "kernel.lockdown", "host", PREFLIGHT_WARN, "out-of-tree ib_core",
		     "mokutil --import"));

	/* Lockdown off and Secure Boot off. */
	put_file(root, "sys/kernel/security/lockdown", "[none] integrity confidentiality\n");
	f = fopen(path, "we");
	CHECK(f &&
	      fwrite(secure_boot_off, 1, sizeof(secure_boot_off), f) == sizeof(secure_boot_off));
	if (f)
		fclose(f);
	CHECK_INTEQ(preflight_kernel(&t, &in), 0);
	CHECK(row_is(&t, "kernel.lockdown", "host", PREFLIGHT_OK,
		     "lockdown none, Secure Boot off: unsigned modules may load", NULL));
	host_state_free(h);
	tree_free(root);
}

/* ---- user space ---- */

#define ASKER_UID 9998
#define ASKER_GID 9999

static HostPort rxe_ports[] = { { .port = 1, .netdev = "veth0" } };
static HostPort mlx5_ports[] = { { .port = 1, .netdev = "ens1f0np0" } };
static HostDevice userspace_devs[] = {
	{ .name = "mlx5_0",
	  .driver = "mlx5_core",
	  .pci = "0000:3b:00.0",
	  .ports = mlx5_ports,
	  .n_ports = 1 },
	{ .name = "rxe0",
	  .driver = "rdma_rxe",
	  .parent = "veth0",
	  .ports = rxe_ports,
	  .n_ports = 1 },
};
static HostState userspace_host = { .devices = userspace_devs,
				    .n_devices = ELEMENTSOF(userspace_devs) };

/* rxe's provider installed, mlx5's not; uverbs0 for rxe0 (mode 0666), rdma_cm 0660 for a group
 * "rdma" the asker is not in. Returns the gid the nodes belong to. */
static gid_t userspace_tree(const char *root) {
	gid_t gid = geteuid() == 0 ? 4242 : getgid();
	char text[300];

	put_file(root, "proc/sys/kernel/osrelease", RELEASE "\n");
	put_file(root, "etc/libibverbs.d/rxe.driver", "driver rxe\n");
	put_file(root, "usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so", "");
	put_file(root, "sys/class/infiniband_verbs/abi_version", "6\n");
	put_file(root, "sys/class/infiniband_verbs/uverbs0/ibdev", "rxe0\n");
	put_file(root, "dev/infiniband/uverbs0", "");
	put_mode(root, "dev/infiniband/uverbs0", 0666, (gid_t) -1);
	put_file(root, "dev/infiniband/rdma_cm", "");
	put_mode(root, "dev/infiniband/rdma_cm", 0660, geteuid() == 0 ? gid : (gid_t) -1);
	snprintf(text, sizeof(text),
		 "root:x:0:0:root:/root:/bin/sh\nalice:x:%u:%u::/home/alice:/bin/sh\n"
		 "bob:x:%u:%u::/home/bob:/bin/sh\n",
		 geteuid() == 0 ? 1000 : (unsigned) geteuid(), (unsigned) gid, ASKER_UID,
		 ASKER_GID);
	put_file(root, "etc/passwd", text);
	snprintf(text, sizeof(text), "root:x:0:\nrdma:x:%u:alice\nbob:x:%u:\n", (unsigned) gid,
		 ASKER_GID);
	put_file(root, "etc/group", text);
	return gid;
}

TEST(userspace_provider) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 };
	char *root = tree_new();
	PreflightInput in = { .root = root,
			      .host = &userspace_host,
			      .uid = ASKER_UID,
			      .gid = ASKER_GID };

	userspace_tree(root);
	CHECK_INTEQ(preflight_userspace(&p, &in), 0);
	CHECK(row_is(&p, "userspace.provider", "rxe0", PREFLIGHT_OK,
		     "provider rxe: /etc/libibverbs.d/rxe.driver, "
		     "/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so",
		     NULL));
	CHECK(row_is(&p, "userspace.provider", "mlx5_0", PREFLIGHT_FAIL,
		     "no \"driver mlx5\" entry in /etc/libibverbs.d",
		     "apt install ibverbs-providers"));

	/* Any file of the directory counts, as libibverbs reads them all; the library still
	 * has to be there. */
	put_file(root, "etc/libibverbs.d/local.conf", "# local\n  driver   mlx5\n");
	CHECK_INTEQ(preflight_userspace(&q, &in), 0);
	CHECK(row_is(&q, "userspace.provider", "mlx5_0", PREFLIGHT_FAIL,
		     "/etc/libibverbs.d/local.conf names it, but no libmlx5-rdmav*.so",
		     "ibverbs-providers"));
	put_file(root, "usr/lib64/libibverbs/libmlx5-rdmav34.so", "");
	CHECK_INTEQ(preflight_userspace(&s, &in), 0);
	CHECK(row_is(&s, "userspace.provider", "mlx5_0", PREFLIGHT_OK,
		     "/usr/lib64/libibverbs/libmlx5-rdmav34.so", NULL));
	tree_free(root);
}

TEST(userspace_ibverbs) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 };
	_cleanup_(verbs_facts_done) VerbsFacts v = { 0 };
	char *root = tree_new();
	PreflightInput in = { .root = root,
			      .host = &userspace_host,
			      .uid = ASKER_UID,
			      .gid = ASKER_GID };

	userspace_tree(root);
	CHECK_INTEQ(preflight_userspace(&p, &in), 0);
	CHECK(row_is(&p, "userspace.ibverbs", "rxe0", PREFLIGHT_WARN,
		     "not checked: libibverbs was not asked", NULL));

	v.devices = calloc(1, sizeof(VerbsDevice));
	v.devices[0].name = strdup("rxe0");
	v.n_devices = 1;
	in.verbs = &v;
	CHECK_INTEQ(preflight_userspace(&q, &in), 0);
	CHECK(row_is(&q, "userspace.ibverbs", "rxe0", PREFLIGHT_OK, "libibverbs sees it", NULL));
	CHECK(row_is(&q, "userspace.ibverbs", "mlx5_0", PREFLIGHT_FAIL,
		     "its provider (mlx5) is missing", "apt install ibverbs-providers"));

	/* libibverbs binds mlx5_0 with a provider from elsewhere (another build's paths):
	 * that it works is what counts. */
	v.devices = reallocarray(v.devices, 2, sizeof(VerbsDevice));
	v.devices[1] = (VerbsDevice){ .name = strdup("mlx5_0") };
	v.n_devices = 2;
	CHECK_INTEQ(preflight_userspace(&s, &in), 0);
	CHECK(row_is(&s, "userspace.provider", "mlx5_0", PREFLIGHT_OK,
		     "libibverbs binds the device, though no \"driver mlx5\" entry", NULL));
	CHECK(row_is(&s, "userspace.ibverbs", "mlx5_0", PREFLIGHT_OK, "libibverbs sees it", NULL));
	tree_free(root);
}

TEST(userspace_device_nodes) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 };
	char *modules[] = { "ib_uverbs", NULL };
	char *root = tree_new(), text[300];
	HostState host = userspace_host;
	PreflightInput in = { .root = root, .host = &host, .uid = ASKER_UID, .gid = ASKER_GID };
	gid_t gid;

	gid = userspace_tree(root);
	CHECK_INTEQ(preflight_userspace(&p, &in), 0);
	CHECK(row_is(&p, "userspace.device-node", "rxe0", PREFLIGHT_OK,
		     "/dev/infiniband/uverbs0 -rw-rw-rw- ", NULL));
	CHECK(row_is(&p, "userspace.device-node", "rxe0", PREFLIGHT_OK, ": every user", NULL));
	CHECK(row_is(&p, "userspace.device-node", "rdma_cm", PREFLIGHT_WARN, "-rw-rw---- ",
		     "usermod -aG rdma bob"));
	CHECK(row_is(&p, "userspace.device-node", "rdma_cm", PREFLIGHT_WARN,
		     "and group rdma; bob (uid 9998) cannot open it", NULL));
	/* mlx5_0 has no uverbs device: ib_uverbs would make it */
	CHECK(row_is(&p, "userspace.device-node", "mlx5_0", PREFLIGHT_FAIL, "infiniband_verbs",
		     "modprobe ib_uverbs"));

	/* bob joins rdma; uverbs0's node goes away. */
	snprintf(text, sizeof(text), "root:x:0:\nrdma:x:%u:alice,bob\nbob:x:%u:\n", (unsigned) gid,
		 ASKER_GID);
	put_file(root, "etc/group", text);
	snprintf(text, sizeof(text), "%s/dev/infiniband/uverbs0", root);
	CHECK(unlink(text) == 0);
	CHECK_INTEQ(preflight_userspace(&q, &in), 0);
	CHECK(row_is(&q, "userspace.device-node", "rdma_cm", PREFLIGHT_OK, "and group rdma", NULL));
	CHECK(row_is(&q, "userspace.device-node", "rxe0", PREFLIGHT_FAIL,
		     "/dev/infiniband/uverbs0 does not exist: ib_uverbs is not loaded",
		     "modprobe ib_uverbs"));
	/* ib_uverbs loaded and still no node: devtmpfs or udev did not make it. */
	host.modules = modules;
	CHECK_INTEQ(preflight_userspace(&s, &in), 0);
	CHECK(row_is(&s, "userspace.device-node", "rxe0", PREFLIGHT_FAIL,
		     "does not exist, though ib_uverbs is in the kernel", "udevadm trigger"));
	tree_free(root);
}

TEST(memlock_services) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, s = { 0 };
	char *root = tree_new();
	PreflightInput in = { .root = root,
			      .host = &userspace_host,
			      .uid = ASKER_UID,
			      .gid = ASKER_GID,
			      .has_service_memlock = true,
			      .service_memlock = UINT64_C(8) << 20,
			      .service_memlock_hard = UINT64_C(8) << 20 };
	_cleanup_(preflight_done) Preflight t = { 0 };

	userspace_tree(root);
	CHECK_INTEQ(preflight_memlock(&p, &in), 0);
	CHECK(row_is(&p, "userspace.memlock", "services", PREFLIGHT_WARN,
		     "systemd gives services 8 MiB (DefaultLimitMEMLOCK soft, hard 8 MiB), below 1 GiB",
		     "DefaultLimitMEMLOCK=infinity"));
	in.service_memlock = in.service_memlock_hard = UINT64_MAX;
	CHECK_INTEQ(preflight_memlock(&q, &in), 0);
	CHECK(row_is(&q, "userspace.memlock", "services", PREFLIGHT_OK, "unlimited", NULL));
	/* DefaultLimitMEMLOCK=8M:infinity: a job starts with 8 MiB, whatever it could raise it to */
	in.service_memlock = UINT64_C(8) << 20;
	CHECK_INTEQ(preflight_memlock(&t, &in), 0);
	CHECK(row_is(&t, "userspace.memlock", "services", PREFLIGHT_WARN,
		     "8 MiB (DefaultLimitMEMLOCK soft, hard unlimited)", NULL));
	in.has_service_memlock = false;
	CHECK_INTEQ(preflight_memlock(&s, &in), 0);
	CHECK(row_is(&s, "userspace.memlock", "services", PREFLIGHT_WARN, "not checked", NULL));
	tree_free(root);
}

/* A login session starts from its login service's limits (systemd's defaults): a "* soft
 * memlock unlimited" alone cannot lift soft above that hard limit. */
TEST(memlock_login_inherits) {
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	char *root = tree_new();
	PreflightInput in = { .root = root,
			      .host = &userspace_host,
			      .uid = ASKER_UID,
			      .gid = ASKER_GID,
			      .has_service_memlock = true,
			      .service_memlock = UINT64_C(8) << 20,
			      .service_memlock_hard = UINT64_C(8) << 20 };

	userspace_tree(root);
	put_file(root, "etc/security/limits.d/90-rdma.conf", "* soft memlock unlimited\n");
	CHECK_INTEQ(preflight_memlock(&p, &in), 0);
	CHECK(row_is(&p, "userspace.memlock", "login-sessions", PREFLIGHT_WARN,
		     "8 MiB, below 1 GiB: * soft unlimited", "* hard memlock unlimited"));
	CHECK(row_is(&p, "userspace.memlock", "login-sessions", PREFLIGHT_WARN,
		     "hard not set (systemd's DefaultLimitMEMLOCK, the login service's, 8 MiB)",
		     NULL));
	in.service_memlock_hard = UINT64_MAX; /* DefaultLimitMEMLOCK=8M:infinity */
	CHECK_INTEQ(preflight_memlock(&q, &in), 0);
	CHECK(row_is(&q, "userspace.memlock", "login-sessions", PREFLIGHT_OK, "unlimited", NULL));
	tree_free(root);
}

/* The login-sessions row for the limits files given as (path, text) pairs. */
static bool login_memlock_is(const char *release, const char *const *files, PreflightStatus status,
			     const char *seen) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	char *root = tree_new(), text[64];
	PreflightInput in = { .root = root,
			      .host = &userspace_host,
			      .uid = ASKER_UID,
			      .gid = ASKER_GID };
	bool ok;

	userspace_tree(root);
	snprintf(text, sizeof(text), "%s\n", release);
	put_file(root, "proc/sys/kernel/osrelease", text);
	for (size_t i = 0; files && files[i]; i += 2)
		put_file(root, files[i], files[i + 1]);
	CHECK_INTEQ(preflight_memlock(&p, &in), 0);
	ok = row_is(&p, "userspace.memlock", "login-sessions", status, seen,
		    status == PREFLIGHT_WARN ? "* hard memlock unlimited" : NULL);
	tree_free(root);
	return ok;
}

TEST(memlock_login) {
	static const char *const numbers[] = {
		"etc/security/limits.conf",
		"# comment\n*  soft  memlock  65536\n*\thard\tmemlock\t65536 # trailing\n",
		NULL,
	};
	static const char *const unlimited[] = {
		"etc/security/limits.conf",
		"* soft memlock 65536\n* hard memlock 65536\n",
		"etc/security/limits.d/90-rdma.conf",
		"* - memlock unlimited\n",
		"etc/security/limits.d/10-low.conf",
		"* - memlock 1024\n", /* read before 90 */
		"etc/security/limits.d/99-rdma.conf.bak",
		"* - memlock 1\n", /* not *.conf */
		NULL,
	};
	static const char *const later_lower[] = {
		"etc/security/limits.d/90-rdma.conf",
		"* soft memlock infinity\n* hard memlock -1\n",
		"etc/security/limits.d/95-site.conf",
		"* hard memlock 4096\n",
		NULL,
	};
	static const char *const group[] = {
		"etc/security/limits.d/rdma.conf",
		"@rdma soft memlock unlimited\n@rdma hard memlock unlimited\n"
		"alice - memlock unlimited\n* - nofile 4096\n",
		NULL,
	};
	static const char *const group_and_star[] = {
		"etc/security/limits.d/rdma.conf",
		"@rdma - memlock unlimited\n* soft memlock 2097152\n* hard memlock unlimited\n",
		NULL,
	};

	CHECK(login_memlock_is(RELEASE, NULL, PREFLIGHT_WARN,
			       "8 MiB, below 1 GiB: * soft not set (the kernel default, 8 MiB), "
			       "hard not set"));
	CHECK(login_memlock_is("5.10.0-28-amd64", NULL, PREFLIGHT_WARN,
			       "64 KiB, below 1 GiB: * soft not set (the kernel default, 64 KiB)"));
	CHECK(login_memlock_is(RELEASE, numbers, PREFLIGHT_WARN,
			       "64 MiB, below 1 GiB: * soft 64 MiB (/etc/security/limits.conf), "
			       "hard 64 MiB"));
	CHECK(login_memlock_is(
		RELEASE, unlimited, PREFLIGHT_OK,
		"unlimited: * soft unlimited (/etc/security/limits.d/90-rdma.conf), hard "
		"unlimited (/etc/security/limits.d/90-rdma.conf)"));
	CHECK(login_memlock_is(RELEASE, later_lower, PREFLIGHT_WARN,
			       "4 MiB, below 1 GiB: * soft unlimited "
			       "(/etc/security/limits.d/90-rdma.conf), hard 4 MiB "
			       "(/etc/security/limits.d/95-site.conf)"));
	CHECK(login_memlock_is(RELEASE, group, PREFLIGHT_WARN,
			       "; @rdma, alice set their own, which wins for them"));
	CHECK(login_memlock_is(
		RELEASE, group_and_star, PREFLIGHT_OK,
		"2 GiB: * soft 2 GiB (/etc/security/limits.d/rdma.conf), hard unlimited"));
}

TESTS_MAIN(TEST_ENTRY(hardware_no_rdma_device), TEST_ENTRY(hardware_links_filter),
	   TEST_ENTRY(hardware_pcie_link), TEST_ENTRY(hardware_pcie_link_port), TEST_ENTRY(hardware_firmware),
	   TEST_ENTRY(hardware_acs_vfio_once), TEST_ENTRY(kernel_modules),
	   TEST_ENTRY(kernel_configfs), TEST_ENTRY(kernel_configfs_absent),
	   TEST_ENTRY(kernel_lockdown), TEST_ENTRY(userspace_provider),
	   TEST_ENTRY(userspace_ibverbs), TEST_ENTRY(userspace_device_nodes),
	   TEST_ENTRY(memlock_services), TEST_ENTRY(memlock_login),
	   TEST_ENTRY(memlock_login_inherits))
