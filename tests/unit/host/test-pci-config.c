/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCI config space (pci-config.h): capability walks over buffers laid out as real functions
 * lay them out (an 82574L's e1000e endpoint, qemu's pcie-root-port with ACS, an xio3130-like
 * switch downstream port without), lists that loop or point out of range, and the sysfs side
 * on a scratch root: the bridges above a function, a register written and read back, and a
 * config file cut at 64 bytes as the kernel cuts it for a reader without CAP_SYS_ADMIN. */
#include <stdint.h>
#include <unistd.h>

#include "pci-config.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static void put16(uint8_t *b, size_t o, uint16_t v) {
	b[o] = (uint8_t) v;
	b[o + 1] = (uint8_t) (v >> 8);
}

static void put32(uint8_t *b, size_t o, uint32_t v) {
	put16(b, o, (uint16_t) v);
	put16(b, o + 2, (uint16_t) (v >> 16));
}

/* A standard capability entry: id, next. */
static void cap(uint8_t *b, size_t o, uint8_t id, uint8_t next) {
	b[o] = id;
	b[o + 1] = next;
}

/* An extended capability header: id, version, next. */
static void ext_cap(uint8_t *b, size_t o, uint16_t id, unsigned version, unsigned next) {
	put32(b, o, id | version << 16 | (uint32_t) next << 20);
}

/* A header with a capability list starting at first. */
static void header(uint8_t *b, uint16_t vendor, uint16_t device, uint8_t type, uint8_t first) {
	memset(b, 0, PCI_CFG_SPACE_EXP_SIZE);
	put16(b, PCI_VENDOR_ID, vendor);
	put16(b, PCI_DEVICE_ID, device);
	put16(b, PCI_STATUS, PCI_STATUS_CAP_LIST);
	b[PCI_HEADER_TYPE] = type;
	b[PCI_CAPABILITY_LIST] = first;
}

/* Intel 82574L (e1000e), as lspci -vvv shows it: PM [c8] -> MSI [d0] -> Express v1 Endpoint
 * [e0] -> MSI-X [a0]; AER [100] -> DSN [140]. DevCtl 0x2810: RlxdOrd+ NoSnoop+ MaxPayload 128
 * MaxReadReq 512. */
static void make_e1000e(uint8_t *b) {
	header(b, 0x8086, 0x10d3, PCI_HEADER_TYPE_NORMAL, 0xc8);
	cap(b, 0xc8, PCI_CAP_ID_PM, 0xd0);
	cap(b, 0xd0, PCI_CAP_ID_MSI, 0xe0);
	cap(b, 0xe0, PCI_CAP_ID_EXP, 0xa0);
	put16(b, 0xe0 + PCI_EXP_FLAGS, 0x0001); /* v1, endpoint */
	put32(b, 0xe0 + PCI_EXP_DEVCAP, 0x00008cc1);
	put16(b, 0xe0 + PCI_EXP_DEVCTL, 0x2810);
	cap(b, 0xa0, PCI_CAP_ID_MSIX, 0x00);
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 1, 0x140);
	ext_cap(b, 0x140, PCI_EXT_CAP_ID_DSN, 1, 0);
}

/* qemu's pcie-root-port (1b36:000c): Express v2 Root Port [54] -> MSI-X [48] -> SSVID [40];
 * AER [100] -> ACS [148] (GEN_PCIE_ROOT_PORT_ACS_OFFSET: 0x100 + PCI_ERR_SIZEOF), whose
 * Capability is SV TB RR CR UF DT (0x5f, pcie_acs_init() for a downstream-facing port) and
 * whose Control is what Linux sets under an IOMMU: SV RR CR UF (0x1d). */
static void make_root_port(uint8_t *b) {
	header(b, 0x1b36, 0x000c, PCI_HEADER_TYPE_BRIDGE, 0x54);
	cap(b, 0x54, PCI_CAP_ID_EXP, 0x48);
	put16(b, 0x54 + PCI_EXP_FLAGS, 0x0142); /* v2, root port, slot */
	cap(b, 0x48, PCI_CAP_ID_MSIX, 0x40);
	cap(b, 0x40, PCI_CAP_ID_SSVID, 0x00);
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 2, 0x148);
	ext_cap(b, 0x148, PCI_EXT_CAP_ID_ACS, 1, 0);
	put16(b, 0x148 + PCI_ACS_CAP, 0x005f);
	put16(b, 0x148 + PCI_ACS_CTRL, 0x001d);
}

/* A switch upstream port (as qemu's x3130-upstream): Express [90] -> SSVID [80] -> MSI [70]. */
static void make_upstream_port(uint8_t *b) {
	header(b, 0x104c, 0x8232, PCI_HEADER_TYPE_BRIDGE, 0x90);
	cap(b, 0x90, PCI_CAP_ID_EXP, 0x80);
	put16(b, 0x90 + PCI_EXP_FLAGS, 0x0052); /* v2, upstream port */
	cap(b, 0x80, PCI_CAP_ID_SSVID, 0x70);
	cap(b, 0x70, PCI_CAP_ID_MSI, 0x00);
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 2, 0);
}

/* A switch downstream port without ACS (as qemu's xio3130-downstream lays it out). */
static void make_downstream_port(uint8_t *b) {
	header(b, 0x104c, 0x8233, PCI_HEADER_TYPE_BRIDGE, 0x90);
	cap(b, 0x90, PCI_CAP_ID_EXP, 0x80);
	put16(b, 0x90 + PCI_EXP_FLAGS, 0x0162); /* v2, downstream port, slot */
	cap(b, 0x80, PCI_CAP_ID_SSVID, 0x70);
	cap(b, 0x70, PCI_CAP_ID_MSI, 0x00);
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 2, 0);
}

TEST(endpoint) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;
	uint16_t acs_cap, acs_ctrl;
	unsigned mrrs;

	make_e1000e(b);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_PM), 0xc8);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), 0xd0);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), 0xe0);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSIX), 0xa0);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_VNDR), -ENOENT);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ERR), 0x100);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_DSN), 0x140);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), -ENOENT);
	CHECK_INTEQ(pci_config_port_type(b, sizeof(b)), PCI_EXP_TYPE_ENDPOINT);
	CHECK_INTEQ(pci_config_max_read_request(b, sizeof(b), &mrrs), 0);
	CHECK_INTEQ(mrrs, 512);
	CHECK_INTEQ(pci_config_acs(b, sizeof(b), &acs_cap, &acs_ctrl), -ENOENT);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), 0);
	CHECK_INTEQ(c.port_type, PCI_EXP_TYPE_ENDPOINT);
	CHECK_INTEQ(c.max_read_request, 512);
	CHECK(!c.has_acs);

	/* The 256 bytes a kernel without access to the extended space gives: the same, no ACS. */
	CHECK_INTEQ(pci_config_find_ext_cap(b, PCI_CFG_SPACE_SIZE, PCI_EXT_CAP_ID_ERR), -ENODATA);
	CHECK_INTEQ(pci_function_config_parse(b, PCI_CFG_SPACE_SIZE, &c), 0);
	CHECK_INTEQ(c.max_read_request, 512);
	CHECK(!c.has_acs);

	/* The reserved encodings read as the kernel reads them. */
	put16(b, 0xe0 + PCI_EXP_DEVCTL, 0x6810);
	CHECK_INTEQ(pci_config_max_read_request(b, sizeof(b), &mrrs), 0);
	CHECK_INTEQ(mrrs, 8192);
	put16(b, 0xe0 + PCI_EXP_DEVCTL, 0x7810);
	CHECK_INTEQ(pci_config_max_read_request(b, sizeof(b), &mrrs), 0);
	CHECK_INTEQ(mrrs, 16384);
}

TEST(root_port) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;
	uint16_t acs_cap = 0, acs_ctrl = 0;

	make_root_port(b);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), 0x54);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_SSVID), 0x40);
	CHECK_INTEQ(pci_config_port_type(b, sizeof(b)), PCI_EXP_TYPE_ROOT_PORT);
	CHECK_INTEQ(pci_config_acs(b, sizeof(b), &acs_cap, &acs_ctrl), 0x148);
	CHECK_INTEQ(acs_cap, 0x005f);
	CHECK_INTEQ(acs_ctrl, 0x001d);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), 0);
	CHECK_INTEQ(c.port_type, PCI_EXP_TYPE_ROOT_PORT);
	CHECK_INTEQ(c.max_read_request, 128); /* DevCtl 0: the field reads 000b */
	CHECK(c.has_acs);
	CHECK_INTEQ(c.acs_cap, 0x005f);
	CHECK_INTEQ(c.acs_ctrl, 0x001d);
	/* off: RR and CR go, SV and UF stay. */
	CHECK_INTEQ(pci_acs_ctrl_p2p_off(c.acs_cap, c.acs_ctrl), 0x0011);
}

TEST(switch_ports) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;

	make_downstream_port(b);
	CHECK_INTEQ(pci_config_port_type(b, sizeof(b)), PCI_EXP_TYPE_DOWNSTREAM);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), 0x70);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), 0);
	CHECK_INTEQ(c.port_type, PCI_EXP_TYPE_DOWNSTREAM);
	CHECK(!c.has_acs);
	make_upstream_port(b);
	CHECK_INTEQ(pci_config_port_type(b, sizeof(b)), PCI_EXP_TYPE_UPSTREAM);
}

TEST(not_pcie) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;
	unsigned mrrs;

	/* A conventional PCI function: PM only, the extended space reads all ones. */
	header(b, 0x8086, 0x100e, PCI_HEADER_TYPE_NORMAL, 0xdc);
	cap(b, 0xdc, PCI_CAP_ID_PM, 0x00);
	memset(b + PCI_CFG_SPACE_SIZE, 0xff, PCI_CFG_SPACE_EXP_SIZE - PCI_CFG_SPACE_SIZE);
	CHECK_INTEQ(pci_config_port_type(b, sizeof(b)), -ENOENT);
	CHECK_INTEQ(pci_config_max_read_request(b, sizeof(b), &mrrs), -ENOENT);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), -ENOENT);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), 0);
	CHECK_INTEQ(c.port_type, -1);
	CHECK_INTEQ(c.max_read_request, 0);
	CHECK(!c.has_acs);

	/* No capability list at all (Status bit 4 clear), whatever 0x34 holds. */
	put16(b, PCI_STATUS, 0);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_PM), -ENOENT);

	/* A function that is gone reads all ones. */
	memset(b, 0xff, sizeof(b));
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), -ENOENT);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), -ENODEV);
}

TEST(loops) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;

	/* 0x40 -> 0x50 -> 0x40 -> ... */
	header(b, 0x1234, 0x0001, PCI_HEADER_TYPE_NORMAL, 0x40);
	cap(b, 0x40, PCI_CAP_ID_PM, 0x50);
	cap(b, 0x50, PCI_CAP_ID_MSI, 0x40);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), 0x50);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), -EBADMSG);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), -EBADMSG);
	/* One pointing at itself. */
	cap(b, 0x40, PCI_CAP_ID_PM, 0x40);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), -EBADMSG);

	/* 48 entries, 0x40 to 0xfc, each to the next: the longest list that fits is no loop. */
	header(b, 0x1234, 0x0001, PCI_HEADER_TYPE_NORMAL, 0x40);
	for (size_t o = 0x40; o <= 0xfc; o += 4)
		cap(b, o, PCI_CAP_ID_VNDR, o == 0xfc ? 0 : (uint8_t) (o + 4));
	b[0xfc] = PCI_CAP_ID_EXP;
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), 0xfc);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), -ENOENT);
	/* ... and the last one back to the first is. */
	b[0xfd] = 0x40;
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), -EBADMSG);

	/* Extended: AER [100] -> ACS [148] -> back to [100]. */
	make_root_port(b);
	ext_cap(b, 0x148, PCI_EXT_CAP_ID_ACS, 1, 0x100);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), 0x148);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_DSN), -EBADMSG);
	/* One pointing at itself. */
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 2, 0x100);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), -EBADMSG);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), -EBADMSG);
}

TEST(out_of_range) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;
	uint16_t acs_cap, acs_ctrl;
	unsigned mrrs;

	/* A pointer into the header. */
	make_e1000e(b);
	b[0xd1] = 0x10;
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), -EBADMSG);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_MSI), 0xd0); /* before it */
	/* The reserved low bits of a pointer are not part of it. */
	make_e1000e(b);
	b[0xd1] = 0xe3;
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), 0xe0);
	/* A PCIe capability whose Device Control would lie past 0xff. */
	make_e1000e(b);
	b[0xa1] = 0xfc;
	cap(b, 0xe0, PCI_CAP_ID_VNDR, 0xa0);
	cap(b, 0xfc, PCI_CAP_ID_EXP, 0);
	CHECK_INTEQ(pci_config_find_cap(b, sizeof(b), PCI_CAP_ID_EXP), 0xfc);
	CHECK_INTEQ(pci_config_max_read_request(b, sizeof(b), &mrrs), -EBADMSG);
	CHECK_INTEQ(pci_function_config_parse(b, sizeof(b), &c), -EBADMSG);

	/* An extended pointer into the standard space. */
	make_e1000e(b);
	ext_cap(b, 0x100, PCI_EXT_CAP_ID_ERR, 1, 0x0c0);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), -EBADMSG);
	/* An ACS capability at 0xffc: its registers would lie past 4096. */
	make_e1000e(b);
	ext_cap(b, 0x140, PCI_EXT_CAP_ID_DSN, 1, 0xffc);
	ext_cap(b, 0xffc, PCI_EXT_CAP_ID_ACS, 1, 0);
	CHECK_INTEQ(pci_config_find_ext_cap(b, sizeof(b), PCI_EXT_CAP_ID_ACS), 0xffc);
	CHECK_INTEQ(pci_config_acs(b, sizeof(b), &acs_cap, &acs_ctrl), -EBADMSG);

	/* Buffers cut short: the 64 bytes a reader without CAP_SYS_ADMIN gets, less than a
	 * header, an ACS capability whose registers are past what was read. */
	make_e1000e(b);
	CHECK_INTEQ(pci_config_find_cap(b, PCI_STD_HEADER_SIZEOF, PCI_CAP_ID_EXP), -ENODATA);
	CHECK_INTEQ(pci_config_find_cap(b, 16, PCI_CAP_ID_EXP), -ENODATA);
	CHECK_INTEQ(pci_function_config_parse(b, 16, &c), -ENODATA);
	make_root_port(b);
	CHECK_INTEQ(pci_config_acs(b, 0x14c, &acs_cap, &acs_ctrl), -ENODATA);
}

TEST(max_read_request_devctl) {
	static const struct {
		uint16_t devctl;
		unsigned bytes;
		int r;
		uint16_t want;
	} t[] = {
		{ 0x2810, 4096, 0, 0x5810 }, { 0x2810, 128, 0, 0x0810 },
		{ 0x2810, 512, 0, 0x2810 },  { 0x0000, 256, 0, 0x1000 },
		{ 0xffff, 1024, 0, 0xbfff }, { 0x7810, 2048, 0, 0x4810 },
		{ 0x2810, 0, -EINVAL, 0 },   { 0x2810, 64, -EINVAL, 0 },
		{ 0x2810, 384, -EINVAL, 0 }, { 0x2810, 8192, -EINVAL, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		uint16_t got = 0x4242;

		CHECK_INTEQ(pci_devctl_with_max_read_request(t[i].devctl, t[i].bytes, &got),
			    t[i].r);
		CHECK_INTEQ(got, t[i].r < 0 ? 0x4242 : t[i].want);
	}
}

TEST(acs_p2p_off) {
	static const struct {
		uint16_t cap, ctrl, want;
	} t[] = {
		{ 0x005f, 0x001d, 0x0011 }, /* qemu, Linux under an IOMMU: SV UF stay */
		{ 0x005f, 0x005f, 0x0053 }, /* all on: RR CR go, SV TB UF DT stay */
		{ 0x007f, 0x007f, 0x0053 }, /* with EC: EC goes too */
		{ 0x005f, 0x0000, 0x0000 }, /* already off */
		{ 0x0017, 0x001f, 0x001b }, /* a port without CR: a CR read as 1 stays */
		{ 0x0000, 0x000c, 0x000c }, /* nothing implemented: nothing to change */
		{ 0x00ff, 0x1f2c, 0x1f00 }, /* enhanced controls (bits 7..12) stay */
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++)
		CHECK_INTEQ(pci_acs_ctrl_p2p_off(t[i].cap, t[i].ctrl), t[i].want);
}

TEST(address) {
	CHECK(pci_address_valid("0000:03:00.0"));
	CHECK(pci_address_valid("0000:ff:1f.7"));
	CHECK(pci_address_valid("10000:e1:00.0")); /* VMD */
	CHECK(!pci_address_valid("0000:03:20.0")); /* device 0..1f */
	CHECK(!pci_address_valid("0000:03:00.8"));
	CHECK(!pci_address_valid("0000:3:00.0"));
	CHECK(!pci_address_valid("000:03:00.0"));
	CHECK(!pci_address_valid("0000:03:00.0/"));
	CHECK(!pci_address_valid("0000:0A:00.0")); /* the kernel prints lowercase */
	CHECK(!pci_address_valid("../../../etc"));
	CHECK(!pci_address_valid("pci0000:00"));
	CHECK(!pci_address_valid(""));
	CHECK(!pci_address_valid(NULL));
}

/* --- sysfs on a scratch root --- */

#define RP  "sys/devices/pci0000:00/0000:00:1c.0"
#define USP RP "/0000:01:00.0"
#define DSP USP "/0000:02:01.0"
#define EP  DSP "/0000:03:00.0"

static char *root;

static void put_bytes(const char *path, const void *data, size_t n) {
	char full[600];
	FILE *f;

	put_file(root, path, ""); /* the directories on the way */
	snprintf(full, sizeof(full), "%s/%s", root, path);
	f = fopen(full, "we");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fwrite(data, 1, n, f) == n);
	fclose(f);
}

static void put_link(const char *path, const char *target) {
	char full[600];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	put_file(root, path, "");
	unlink(full);
	CHECK(symlink(target, full) == 0);
}

static void put_function(const char *dir, const char *address, void (*make)(uint8_t *),
			 size_t size) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	char path[300], target[300];

	make(b);
	snprintf(path, sizeof(path), "%s/config", dir);
	put_bytes(path, b, size);
	snprintf(path, sizeof(path), "sys/bus/pci/devices/%s", address);
	snprintf(target, sizeof(target), "../../../%s", dir + strlen("sys/"));
	put_link(path, target);
}

/* A root port, a switch (upstream port, downstream port without ACS), the e1000e behind it;
 * and one more function whose config file holds the 64 bytes a reader without CAP_SYS_ADMIN
 * gets, one cut at 10, and a function with no PCI parent (its devices/ entry a directory). */
TEST(tree) {
	root = tree_new();
	put_function(RP, "0000:00:1c.0", make_root_port, PCI_CFG_SPACE_EXP_SIZE);
	put_function(USP, "0000:01:00.0", make_upstream_port, PCI_CFG_SPACE_EXP_SIZE);
	put_function(DSP, "0000:02:01.0", make_downstream_port, PCI_CFG_SPACE_EXP_SIZE);
	put_function(EP, "0000:03:00.0", make_e1000e, PCI_CFG_SPACE_EXP_SIZE);
	put_function(DSP "/0000:03:00.1", "0000:03:00.1", make_e1000e, PCI_STD_HEADER_SIZEOF);
	put_function(DSP "/0000:03:00.2", "0000:03:00.2", make_e1000e, 10);
	put_function(DSP "/0000:03:00.3", "0000:03:00.3", make_e1000e, PCI_CFG_SPACE_SIZE);
	put_file(root, "sys/bus/pci/devices/0000:04:00.0/class", "0x020000\n");
}

TEST(bridges) {
	_cleanup_strv_free_ char **l = NULL, **top = NULL, **flat = NULL;
	char **untouched = (char **) 0x1;

	CHECK_INTEQ(pci_upstream_bridges(root, "0000:03:00.0", &l), 0);
	CHECK_INTEQ(strv_length(l), 3);
	if (strv_length(l) == 3) {
		CHECK_STREQ(l[0], "0000:02:01.0");
		CHECK_STREQ(l[1], "0000:01:00.0");
		CHECK_STREQ(l[2], "0000:00:1c.0");
	}
	/* The root port: under pci0000:00, nothing above. */
	CHECK_INTEQ(pci_upstream_bridges(root, "0000:00:1c.0", &top), 0);
	CHECK(top != NULL);
	CHECK_INTEQ(strv_length(top), 0);
	CHECK_INTEQ(pci_upstream_bridges(root, "0000:04:00.0", &flat), 0);
	CHECK(flat != NULL);
	CHECK_INTEQ(strv_length(flat), 0);
	CHECK_INTEQ(pci_upstream_bridges(root, "0000:05:00.0", &untouched), -ENOENT);
	CHECK_INTEQ(pci_upstream_bridges(root, "../../../devices", &untouched), -EINVAL);
	CHECK(untouched == (char **) 0x1);
}

TEST(read_write) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c;
	size_t len = 0;
	uint16_t ctrl = 0;
	unsigned mrrs = 0;

	CHECK_INTEQ(pci_config_read(root, "0000:03:00.0", b, sizeof(b), &len), 0);
	CHECK_INTEQ(len, PCI_CFG_SPACE_EXP_SIZE);
	CHECK_INTEQ(pci_function_config_read(root, "0000:03:00.0", &c), 0);
	CHECK_INTEQ(c.port_type, PCI_EXP_TYPE_ENDPOINT);
	CHECK_INTEQ(c.max_read_request, 512);

	/* One register, little endian, in place: its neighbours untouched. */
	CHECK_INTEQ(pci_config_write16(root, "0000:03:00.0", 0xe0 + PCI_EXP_DEVCTL, 0x5810), 0);
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.0", b, sizeof(b), &len), 0);
	CHECK_INTEQ(len, PCI_CFG_SPACE_EXP_SIZE);
	CHECK_INTEQ(b[0xe8], 0x10);
	CHECK_INTEQ(b[0xe9], 0x58);
	CHECK_INTEQ(b[0xe0 + PCI_EXP_DEVCAP], 0xc1);
	CHECK_INTEQ(b[0xe0 + PCI_EXP_DEVSTA], 0x00);
	CHECK_INTEQ(pci_max_read_request_get(root, "0000:03:00.0", &mrrs), 0);
	CHECK_INTEQ(mrrs, 4096);

	/* Max_Read_Request_Size alone changes. */
	CHECK_INTEQ(pci_max_read_request_set(root, "0000:03:00.0", 1024), 0);
	CHECK_INTEQ(pci_max_read_request_get(root, "0000:03:00.0", &mrrs), 0);
	CHECK_INTEQ(mrrs, 1024);
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.0", b, sizeof(b), &len), 0);
	CHECK_INTEQ(b[0xe8] | b[0xe9] << 8, 0x3810);
	CHECK_INTEQ(pci_max_read_request_set(root, "0000:03:00.0", 1000), -EINVAL);

	/* ACS Control of the root port; the downstream port has none. */
	CHECK_INTEQ(pci_acs_ctrl_get(root, "0000:00:1c.0", &ctrl), 0);
	CHECK_INTEQ(ctrl, 0x001d);
	CHECK_INTEQ(pci_acs_ctrl_set(root, "0000:00:1c.0", pci_acs_ctrl_p2p_off(0x5f, ctrl)), 0);
	CHECK_INTEQ(pci_acs_ctrl_get(root, "0000:00:1c.0", &ctrl), 0);
	CHECK_INTEQ(ctrl, 0x0011);
	CHECK_INTEQ(pci_function_config_read(root, "0000:00:1c.0", &c), 0);
	CHECK(c.has_acs);
	CHECK_INTEQ(c.acs_cap, 0x005f);
	CHECK_INTEQ(c.acs_ctrl, 0x0011);
	ctrl = 0x4242;
	CHECK_INTEQ(pci_acs_ctrl_get(root, "0000:02:01.0", &ctrl), -EOPNOTSUPP);
	CHECK_INTEQ(ctrl, 0x4242);
	CHECK_INTEQ(pci_acs_ctrl_set(root, "0000:02:01.0", 0), -EOPNOTSUPP);

	/* A 256-byte space: no extended capabilities to be had, so no ACS. */
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.3", b, sizeof(b), &len), 0);
	CHECK_INTEQ(len, PCI_CFG_SPACE_SIZE);
	CHECK_INTEQ(pci_function_config_read(root, "0000:03:00.3", &c), 0);
	CHECK_INTEQ(c.max_read_request, 512);
	CHECK(!c.has_acs);
	CHECK_INTEQ(pci_acs_ctrl_get(root, "0000:03:00.3", &ctrl), -EOPNOTSUPP);

	/* Refused before any I/O. */
	CHECK_INTEQ(pci_config_write16(root, "0000:03:00.0", 0xe9, 0), -EINVAL);
	CHECK_INTEQ(pci_config_write16(root, "0000:03:00.0", 4096, 0), -EINVAL);
	CHECK_INTEQ(pci_config_write16(root, "0000:3:00.0", 0xe8, 0), -EINVAL);
	CHECK_INTEQ(pci_config_read(root, "0000:05:00.0", b, sizeof(b), &len), -ENOENT);
}

TEST(short_read) {
	uint8_t b[PCI_CFG_SPACE_EXP_SIZE];
	PciFunctionConfig c = { .port_type = 42 };
	size_t len = 4242;
	unsigned mrrs = 4242;

	/* Cut at 64, as the kernel cuts it without CAP_SYS_ADMIN: -EPERM, nothing filled. */
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.1", b, sizeof(b), &len), -EPERM);
	CHECK_INTEQ(len, 4242);
	CHECK_INTEQ(pci_function_config_read(root, "0000:03:00.1", &c), -EPERM);
	CHECK_INTEQ(c.port_type, 42);
	CHECK_INTEQ(pci_max_read_request_get(root, "0000:03:00.1", &mrrs), -EPERM);
	CHECK_INTEQ(mrrs, 4242);
	/* Asking for the header alone is no short read. */
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.1", b, PCI_STD_HEADER_SIZEOF, &len), 0);
	CHECK_INTEQ(len, PCI_STD_HEADER_SIZEOF);
	/* Cut anywhere else: not the kernel's doing. */
	CHECK_INTEQ(pci_config_read(root, "0000:03:00.2", b, sizeof(b), &len), -EIO);
}

TEST(cleanup) {
	tree_free(root);
}

TESTS_MAIN(TEST_ENTRY(endpoint), TEST_ENTRY(root_port), TEST_ENTRY(switch_ports),
	   TEST_ENTRY(not_pcie), TEST_ENTRY(loops), TEST_ENTRY(out_of_range),
	   TEST_ENTRY(max_read_request_devctl), TEST_ENTRY(acs_p2p_off), TEST_ENTRY(address),
	   TEST_ENTRY(tree), TEST_ENTRY(bridges), TEST_ENTRY(read_write), TEST_ENTRY(short_read),
	   TEST_ENTRY(cleanup))
