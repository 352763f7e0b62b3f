/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCIe path types (pci-topology.h) on places laid out as a DGX's sysfs paths lay them out: two
 * functions of one device, one switch, nested switches, two root ports of one host bridge, two
 * host bridges of one NUMA node, two NUMA nodes; the bridges between them that ACS could
 * redirect at; link widths and speeds; and the NVIDIA driver's version line. */
#include "pci-config.h"
#include "pci-topology.h"
#include "preflight.h"
#include "strv.h"
#include "tests.h"

/* A place: host bridge, NUMA node, then the bridges above it, nearest first. */
#define PLACE(hb, node, ...)                       \
	((PciPlace){ .host_bridge = (char *) (hb), \
		     .numa_node = (node),          \
		     .bridges = (char *[]){ __VA_ARGS__, NULL } })

/* switch A (up 11:00.0) under root port 10:01.0; switch B under 10:02.0; nested C2 in C */
static const char *type(PciPlace a, PciPlace b) {
	return pci_path_type_to_string(pci_path_type(&a, &b));
}

TEST(path_types) {
	PciPlace gpu0 = PLACE("pci0000:10", 0, "0000:12:00.0", "0000:11:00.0", "0000:10:01.0");
	PciPlace nic0 = PLACE("pci0000:10", 0, "0000:12:02.0", "0000:11:00.0", "0000:10:01.0");
	PciPlace nic2 = PLACE("pci0000:10", 0, "0000:18:02.0", "0000:17:00.0", "0000:10:02.0");
	PciPlace gpu4 = PLACE("pci0000:90", 1, "0000:92:00.0", "0000:91:00.0", "0000:90:01.0");
	PciPlace nic4 = PLACE("pci0000:90", 1, "0000:96:00.0", "0000:95:00.0", "0000:92:02.0",
			      "0000:91:00.0", "0000:90:01.0");
	PciPlace nic6 = PLACE("pci0000:a0", 1, "0000:a2:02.0", "0000:a1:00.0", "0000:a0:01.0");
	PciPlace gpu8 = PLACE("pci0000:10", 0, "0000:10:03.0");
	PciPlace pf0 = PLACE("pci0000:3a", -1, "0000:3a:00.0"), pf1 = pf0;
	PciPlace other = PLACE("pci0000:5d", -1, "0000:5d:00.0");

	CHECK_STREQ(type(gpu0, nic0), "PIX");
	CHECK_STREQ(type(nic0, gpu0), "PIX");
	CHECK_STREQ(type(gpu4, nic4), "PXB");
	CHECK_STREQ(type(gpu0, nic2), "PHB");
	CHECK_STREQ(type(gpu8, nic0), "PHB");
	CHECK_STREQ(type(gpu4, nic6), "NODE");
	CHECK_STREQ(type(gpu0, nic4), "SYS");
	CHECK_STREQ(type(gpu0, nic6), "SYS");
	/* two functions of one device, behind one root port */
	CHECK_STREQ(type(pf0, pf1), "PIX");
	/* no NUMA information (-1 both): one node */
	CHECK_STREQ(type(pf0, other), "NODE");
}

TEST(path_bridges) {
	PciPlace gpu0 = PLACE("pci0000:10", 0, "0000:12:00.0", "0000:11:00.0", "0000:10:01.0");
	PciPlace nic0 = PLACE("pci0000:10", 0, "0000:12:02.0", "0000:11:00.0", "0000:10:01.0");
	PciPlace gpu4 = PLACE("pci0000:90", 1, "0000:92:00.0", "0000:91:00.0", "0000:90:01.0");
	PciPlace nic4 = PLACE("pci0000:90", 1, "0000:96:00.0", "0000:95:00.0", "0000:92:02.0",
			      "0000:91:00.0", "0000:90:01.0");
	PciPlace nic2 = PLACE("pci0000:10", 0, "0000:18:02.0", "0000:17:00.0", "0000:10:02.0");
	PciPlace fn0 = PLACE("pci0000:40", 0, "0000:42:00.0", "0000:41:00.0", "0000:40:01.0");
	PciPlace fn1 = fn0;
	char **l = NULL, *s;

	/* one switch: its two downstream ports, not its upstream port or the root port */
	CHECK_INTEQ(pci_path_bridges(&gpu0, &nic0, &l), 0);
	s = strv_join(l, " ");
	CHECK_STREQ(s, "0000:12:00.0 0000:12:02.0");
	free(s);
	strv_free(l);
	/* nested: the inner switch's ports too */
	CHECK_INTEQ(pci_path_bridges(&gpu4, &nic4, &l), 0);
	s = strv_join(l, " ");
	CHECK_STREQ(s, "0000:92:00.0 0000:96:00.0 0000:95:00.0 0000:92:02.0");
	free(s);
	strv_free(l);
	/* through the host bridge: every bridge on both sides */
	CHECK_INTEQ(pci_path_bridges(&gpu0, &nic2, &l), 0);
	CHECK_INTEQ(strv_length(l), 6);
	strv_free(l);
	/* two functions of one device behind one port (the gpu-nic-port fixture): no bridge
	 * between them, and still a list (it was left unset: preflight indexed NULL) */
	l = NULL;
	CHECK_INTEQ(pci_path_bridges(&fn0, &fn1, &l), 0);
	CHECK(l && !l[0]);
	strv_free(l);
}

/* A function's real path split: its bridges nearest first, up to the first component that is
 * not a PCI address, and its root complex; behind Intel VMD, the VMD domain is its own root
 * complex (pci10000:e0), below the VMD endpoint of domain 0000. */
TEST(path_components) {
	char *plain[] = {
		"work",		"root",		"sys",		"devices",	"pci0000:10",
		"0000:10:01.0", "0000:11:00.0", "0000:12:00.0", "0000:13:00.0", NULL
	};
	char *vmd[] = { "sys",	       "devices",	"pci0000:00",	 "0000:00:0e.0",
			"pci10000:e0", "10000:e0:1d.0", "10000:e1:00.0", NULL };
	char *none[] = { "sys", "devices", "virtual", "net", "veth0", NULL };
	char **l = NULL;

	CHECK(pci_bridges_from_components(plain, &l) == 0);
	CHECK(strv_equal(l, (char *[]){ "0000:12:00.0", "0000:11:00.0", "0000:10:01.0", NULL }));
	strv_free(l);
	CHECK_STREQ(pci_root_complex_from_components(plain), "pci0000:10");
	CHECK(pci_bridges_from_components(vmd, &l) == 0);
	CHECK(strv_equal(l, (char *[]){ "10000:e0:1d.0", NULL }));
	strv_free(l);
	CHECK_STREQ(pci_root_complex_from_components(vmd), "pci0000:00");
	CHECK(pci_bridges_from_components(none, &l) == 0);
	CHECK(l && !l[0]);
	strv_free(l);
	CHECK(!pci_root_complex_from_components(none));
}

TEST(link_state) {
	PciLinkState full = { .speed = (char *) "32.0 GT/s PCIe",
			      .max_speed = (char *) "32.0 GT/s PCIe",
			      .width = 16,
			      .max_width = 16 };
	PciLinkState x8 = full, idle = full, unknown = { .speed = (char *) "Unknown", .width = 0 };

	x8.width = 8;
	idle.speed = (char *) "2.5 GT/s PCIe";
	CHECK(!pci_link_narrower(&full) && !pci_link_slower(&full));
	CHECK(pci_link_narrower(&x8) && !pci_link_slower(&x8));
	CHECK(!pci_link_narrower(&idle) && pci_link_slower(&idle));
	CHECK(!pci_link_narrower(&unknown) && !pci_link_slower(&unknown));
}

TEST(nvidia_version) {
	char *v = NULL;
	bool open = true;

	CHECK_INTEQ(nvidia_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
					 "535.154.05  Thu Dec 28 15:37:48 UTC 2023",
					 &open, &v),
		    0);
	CHECK(!open);
	CHECK_STREQ(v, "535.154.05");
	free(v);
	CHECK_INTEQ(nvidia_version_parse("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
					 "580.95.05  Release Build  (dvs-builder@U22-I3-AE18-23-3) "
					 " Wed Sep 24 20:48:14 UTC 2025",
					 &open, &v),
		    0);
	CHECK(open);
	CHECK_STREQ(v, "580.95.05");
	free(v);
	/* aarch64 */
	CHECK_INTEQ(nvidia_version_parse("NVRM version: NVIDIA UNIX Open Kernel Module for aarch64 "
					 " 570.86.15  Release Build",
					 &open, &v),
		    0);
	CHECK(open);
	CHECK_STREQ(v, "570.86.15");
	free(v);
	CHECK_INTEQ(nvidia_version_parse("GCC version:  gcc version 12.2.0", &open, &v), -EBADMSG);
	CHECK_INTEQ(
		nvidia_version_parse("NVRM version: NVIDIA UNIX x86_64 Kernel Module  ", &open, &v),
		-EBADMSG);
	CHECK_INTEQ(nvidia_version_parse("", &open, &v), -EBADMSG);
}

TESTS_MAIN(TEST_ENTRY(path_types), TEST_ENTRY(path_components), TEST_ENTRY(path_bridges),
	   TEST_ENTRY(link_state), TEST_ENTRY(nvidia_version))
