/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCI functions' places and the paths between them, from sysfs (pci-topology.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "pci-config.h"
#include "pci-topology.h"
#include "strv.h"

#define PCI_VENDOR_NVIDIA     0x10de
#define PCI_CLASS_DISPLAY_VGA 0x0300
#define PCI_CLASS_DISPLAY_3D  0x0302

static const char *const pci_path_type_table[_PCI_PATH_TYPE_MAX] = {
	[PCI_PATH_PIX] = "PIX",	  [PCI_PATH_PXB] = "PXB", [PCI_PATH_PHB] = "PHB",
	[PCI_PATH_NODE] = "NODE", [PCI_PATH_SYS] = "SYS",
};
DEFINE_STRING_TABLE_LOOKUP(pci_path_type, PciPathType)

/* "32.0 GT/s PCIe" -> 32.0; 0 for what is not a speed ("Unknown", as the kernel says for a
 * link it cannot tell). */
static double speed_gts(const char *s) {
	char *end;
	double v;

	if (!s)
		return 0;
	v = strtod(s, &end);
	return end != s && strncmp(end, " GT/s", 5) == 0 ? v : 0;
}

bool pci_link_narrower(const PciLinkState *l) {
	return l->width > 0 && l->max_width > 0 && l->width < l->max_width;
}

bool pci_link_slower(const PciLinkState *l) {
	double cur = speed_gts(l->speed), max = speed_gts(l->max_speed);

	return cur > 0 && max > 0 && cur < max;
}

void pci_place_done(PciPlace *p) {
	if (!p)
		return;
	free(p->address);
	free(p->host_bridge);
	strv_free(p->bridges);
	free(p->link.speed);
	free(p->link.max_speed);
	*p = (PciPlace){ .numa_node = -1 };
}

static unsigned read_unsigned_at(int fd, const char *name) {
	char buf[32], *end;
	unsigned long v;

	if (read_small_at(fd, name, buf, sizeof(buf)) <= 0)
		return 0;
	v = strtoul(buf, &end, 10);
	return *end || v > 64 ? 0 : (unsigned) v; /* lanes: x1 .. x32 */
}

/* The text of a speed file, or NULL: "Unknown" and anything that is no speed are not known. */
static int read_speed_at(int fd, const char *name, char **ret) {
	_cleanup_free_ char *s = NULL;
	int r;

	r = read_line_at(fd, name, &s);
	if (r == -ENOMEM)
		return r;
	*ret = r >= 0 && speed_gts(s) > 0 ? TAKE_PTR(s) : NULL;
	return 0;
}

int pci_place_read(const char *root, const char *address, PciPlace *ret) {
	_cleanup_(pci_place_done) PciPlace p = { .numa_node = -1 };
	_cleanup_free_ char *rel = NULL, *dir = NULL;
	_cleanup_strv_free_ char **components = NULL;
	const char *top;
	_cleanup_close_ int fd = -EBADF;
	char buf[32], *end;
	long node;
	int r;

	if (!pci_address_valid(address))
		return -EINVAL;
	if (asprintf(&rel, "/sys/bus/pci/devices/%s", address) < 0)
		return -ENOMEM;
	dir = root_path(root, rel);
	if (!dir)
		return -ENOMEM;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;

	p.address = strdup(address);
	if (!p.address)
		return -ENOMEM;
	/* one walk of its real path: the root complex above it, the bridges between */
	r = sysfs_link_components(root, rel, &components);
	if (r < 0)
		return r;
	top = pci_root_complex_from_components(components);
	if (!top)
		return -ENOENT;
	p.host_bridge = strdup(top);
	if (!p.host_bridge)
		return -ENOMEM;
	r = pci_bridges_from_components(components, &p.bridges);
	if (r < 0)
		return r;
	if (read_small_at(fd, "numa_node", buf, sizeof(buf)) > 0) {
		node = strtol(buf, &end, 10);
		if (!*end && node >= 0 && node < 65536)
			p.numa_node = (int) node;
	}
	r = read_speed_at(fd, "current_link_speed", &p.link.speed);
	if (r >= 0)
		r = read_speed_at(fd, "max_link_speed", &p.link.max_speed);
	if (r < 0)
		return r;
	p.link.width = read_unsigned_at(fd, "current_link_width");
	p.link.max_width = read_unsigned_at(fd, "max_link_width");
	*ret = p;
	p = (PciPlace){ .numa_node = -1 };
	return 0;
}

/* The switches above p, nearest first, as the index of each one's upstream port in
 * p->bridges: 1, 3, 5, ... below the last bridge (see the top of pci-topology.h). */
static size_t n_switches(const PciPlace *p) {
	size_t n = strv_length(p->bridges);

	return n / 2;
}

static const char *switch_at(const PciPlace *p, size_t i) {
	return p->bridges[2 * i + 1];
}

/* The nearest common switch: its position above a and above b. false when they share none. */
static bool common_switch(const PciPlace *a, const PciPlace *b, size_t *ret_a, size_t *ret_b) {
	size_t na = n_switches(a), nb = n_switches(b), best = SIZE_MAX;

	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (streq(switch_at(a, i), switch_at(b, j)) && i + j < best) {
				best = i + j;
				*ret_a = i;
				*ret_b = j;
			}
	return best != SIZE_MAX;
}

PciPathType pci_path_type(const PciPlace *a, const PciPlace *b) {
	size_t i, j;

	/* behind one port: functions of one device, or a switch port's only device */
	if (a->bridges && b->bridges && a->bridges[0] && b->bridges[0] &&
	    streq(a->bridges[0], b->bridges[0]))
		return PCI_PATH_PIX;
	if (common_switch(a, b, &i, &j))
		/* the switches below the common one on both sides, and that one */
		return i + j + 1 <= 1 ? PCI_PATH_PIX : PCI_PATH_PXB;
	if (a->host_bridge && b->host_bridge && streq(a->host_bridge, b->host_bridge))
		return PCI_PATH_PHB;
	if ((a->numa_node < 0 ? 0 : a->numa_node) == (b->numa_node < 0 ? 0 : b->numa_node))
		return PCI_PATH_NODE;
	return PCI_PATH_SYS;
}

static int bridges_below(char ***l, const PciPlace *p, size_t n) {
	int r;

	for (size_t k = 0; p->bridges && k < n && p->bridges[k]; k++)
		if (!strv_contains(*l, p->bridges[k])) {
			r = strv_extend(l, p->bridges[k]);
			if (r < 0)
				return r;
		}
	return 0;
}

int pci_path_bridges(const PciPlace *a, const PciPlace *b, char ***ret) {
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	size_t i, j, na = SIZE_MAX, nb = SIZE_MAX;
	int r;

	if (!l)
		return -ENOMEM;
	/* behind one port (functions of one device): they talk inside the device and cross no
	 * bridge, so the list stays empty */
	if (a->bridges && b->bridges && a->bridges[0] && b->bridges[0] &&
	    streq(a->bridges[0], b->bridges[0]))
		na = nb = 0;
	else if (common_switch(a, b, &i, &j)) {
		/* up to the common switch's upstream port, without it */
		na = 2 * i + 1;
		nb = 2 * j + 1;
	}
	r = bridges_below(&l, a, na);
	if (r >= 0)
		r = bridges_below(&l, b, nb);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

/* Whether the function in fd is an NVIDIA GPU. */
static bool nvidia_gpu_at(int fd) {
	char buf[32], *end;
	unsigned long v;

	if (read_small_at(fd, "vendor", buf, sizeof(buf)) <= 0)
		return false;
	v = strtoul(buf, &end, 16);
	if (*end || v != PCI_VENDOR_NVIDIA)
		return false;
	if (read_small_at(fd, "class", buf, sizeof(buf)) <= 0)
		return false;
	v = strtoul(buf, &end, 16);
	if (*end || v > 0xffffff)
		return false;
	return (v >> 8) == PCI_CLASS_DISPLAY_VGA || (v >> 8) == PCI_CLASS_DISPLAY_3D;
}

int pci_nvidia_gpus(const char *root, char ***ret) {
	_cleanup_strv_free_ char **l = calloc(1, sizeof(char *));
	_cleanup_free_ char *path = root_path(root, "/sys/bus/pci/devices");
	DIR *dir;
	int r = 0;

	if (!l || !path)
		return -ENOMEM;
	dir = opendir(path);
	if (!dir) {
		if (errno != ENOENT) /* no PCI bus: no GPU */
			return -errno;
		*ret = TAKE_PTR(l);
		return 0;
	}
	for (struct dirent *de; r >= 0 && (de = readdir(dir));) {
		_cleanup_close_ int fd = -EBADF;

		if (!pci_address_valid(de->d_name))
			continue;
		fd = openat(dirfd(dir), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && nvidia_gpu_at(fd))
			r = strv_extend(&l, de->d_name);
	}
	closedir(dir);
	if (r < 0)
		return r;
	strv_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}

static const char *const pci_acs_state_table[_PCI_ACS_STATE_MAX] = {
	[PCI_ACS_STATE_NONE] = "none",
	[PCI_ACS_STATE_OFF] = "off",
	[PCI_ACS_STATE_REDIRECT] = "p2p-redirect",
	[PCI_ACS_STATE_UNKNOWN] = "unknown (needs root)",
	[PCI_ACS_STATE_UNREADABLE] = "unreadable",
};
DEFINE_STRING_TABLE_LOOKUP(pci_acs_state, PciAcsState)

int pci_bridge_acs(const char *root, const char *address, PciAcsState *ret) {
	uint16_t ctrl;
	int r;

	r = pci_acs_ctrl_get(root, address, &ctrl);
	if (r == -EOPNOTSUPP)
		*ret = PCI_ACS_STATE_NONE;
	else if (r == -EPERM)
		*ret = PCI_ACS_STATE_UNKNOWN;
	else if (r < 0)
		return r;
	else
		*ret = ctrl & PCI_CONFIG_ACS_P2P_BITS ? PCI_ACS_STATE_REDIRECT : PCI_ACS_STATE_OFF;
	return 0;
}
