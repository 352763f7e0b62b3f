/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Netdevs from /sys/class/net under a root: MTU, flags, ifindex, ECN sysfs, and what sits below
 * a netdev (lower_* links). rtnetlink's live view is host-netlink.c's. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "host-internal.h"
#include "strv.h"
#include "sysfs-value.h"

void host_netdev_done(HostNetdev *n) {
	free(n->name);
	free(n->driver);
	free(n->pci);
	free(n->operstate);
	free(n->addresses);
	host_lldp_free(n->lldp);
	strv_free(n->errors);
}

static int netdev_compare(const void *a, const void *b) {
	return strcmp(((const HostNetdev *) a)->name, ((const HostNetdev *) b)->name);
}

/* path: under /sys/class/net */
static int netdev_error_add(HostNetdev *n, const char *path, ssize_t r, const char *buf) {
	char file[192];

	snprintf(file, sizeof(file), "/sys/class/net/%s", path);
	return sysfs_error_add(&n->errors, file, r, buf);
}

static int ecn_read(int netfd, const char *name, const char *kind, HostNetdev *n, uint8_t *mask) {
	char path[128], buf[SYSFS_VALUE_MAX];
	int64_t v;
	ssize_t r;

	for (unsigned prio = 0; prio < N_PRIO; prio++) {
		snprintf(path, sizeof(path), "%s/ecn/%s/enable/%u", name, kind, prio);
		r = sysfs_value_read_at(netfd, path, buf, sizeof(buf));
		if (r == -ENOENT) {
			n->ecn_supported = false;
			return 0;
		}
		if (r < 0 || sysfs_int_parse(buf, (size_t) r, 0, 1, &v) < 0) {
			n->ecn_supported = false;
			return netdev_error_add(n, path, r, buf);
		}
		if (v)
			*mask |= (uint8_t) (1u << prio);
	}
	return 0;
}

/* The driver and PCI address of the device below the netdev (none for virtual netdevs). */
static void netdev_read_parent(int netfd, const char *name, HostNetdev *n) {
	_cleanup_free_ char *subsystem = NULL;
	char path[128];

	snprintf(path, sizeof(path), "%s/device/driver", name);
	if (readlink_basename_at(netfd, path, &n->driver) < 0)
		return;
	snprintf(path, sizeof(path), "%s/device/subsystem", name);
	if (readlink_basename_at(netfd, path, &subsystem) >= 0 && streq(subsystem, "pci")) {
		snprintf(path, sizeof(path), "%s/device", name);
		(void) readlink_basename_at(netfd, path, &n->pci);
	}
}

/* A number attribute: the value, or an error recorded on n (a missing file is no value: an
 * admin-down netdev has no carrier, and a fixture leaves out what the kernel fails to read). */
static int netdev_read_int(int netfd, const char *name, const char *attr, int64_t min, int64_t max,
			   HostNetdev *n, int64_t *ret) {
	char path[128], buf[SYSFS_VALUE_MAX];
	ssize_t r;

	snprintf(path, sizeof(path), "%s/%s", name, attr);
	r = sysfs_value_read_at(netfd, path, buf, sizeof(buf));
	if (r == -ENOENT || r == -EINVAL)
		return 0;
	if (r >= 0 && sysfs_int_parse(buf, (size_t) r, min, max, ret) >= 0)
		return 1;
	return netdev_error_add(n, path, r, buf);
}

/* The CNP fields of the notification point: both files or neither (a driver without them). */
static int cnp_read(int netfd, const char *name, HostNetdev *n) {
	int64_t dscp, prio;
	int r;

	r = netdev_read_int(netfd, name, "ecn/roce_np/cnp_dscp", 0, N_DSCP - 1, n, &dscp);
	if (r <= 0)
		return r;
	r = netdev_read_int(netfd, name, "ecn/roce_np/cnp_802p_prio", 0, N_PRIO - 1, n, &prio);
	if (r <= 0)
		return r;
	n->cnp_supported = true;
	n->cnp_dscp = (unsigned) dscp;
	n->cnp_prio = (unsigned) prio;
	return 0;
}

static int netdev_observe(int netfd, const char *name, HostNetdev *ret) {
	HostNetdev n = { 0 };
	char path[128], buf[SYSFS_VALUE_MAX];
	struct stat st;
	int64_t v;
	uint32_t flags;
	ssize_t k;
	int r;

	n.name = strdup(name);
	if (!n.name)
		return -ENOMEM;
	r = netdev_read_int(netfd, name, "ifindex", 1, INT32_MAX, &n, &v);
	if (r > 0)
		n.ifindex = (int) v;
	if (r >= 0)
		r = netdev_read_int(netfd, name, "mtu", 0, UINT32_MAX, &n, &v);
	if (r > 0)
		n.mtu = (unsigned) v;
	snprintf(path, sizeof(path), "%s/flags", name);
	k = sysfs_value_read_at(netfd, path, buf, sizeof(buf));
	if (r >= 0 && k >= 0 && sysfs_hex_parse(buf, (size_t) k, &flags) >= 0)
		n.up = flags & 0x1; /* IFF_UP */
	else if (r >= 0 && k != -ENOENT)
		r = netdev_error_add(&n, path, k, buf);
	snprintf(path, sizeof(path), "%s/operstate", name);
	k = sysfs_value_read_at(netfd, path, buf, sizeof(buf));
	if (r >= 0 && k >= 0 && sysfs_text_ok(buf, (size_t) k)) {
		n.operstate = strdup(buf);
		if (!n.operstate)
			r = -ENOMEM;
	} else if (r >= 0 && k != -ENOENT)
		r = netdev_error_add(&n, path, k, buf);
	if (r >= 0)
		netdev_read_parent(netfd, name, &n);

	snprintf(path, sizeof(path), "%s/ecn", name);
	n.ecn_supported = fstatat(netfd, path, &st, 0) >= 0;
	if (r >= 0 && n.ecn_supported)
		r = ecn_read(netfd, name, "roce_np", &n, &n.ecn_roce_np);
	if (r >= 0 && n.ecn_supported)
		r = ecn_read(netfd, name, "roce_rp", &n, &n.ecn_roce_rp);
	if (r >= 0 && fstatat(netfd, path, &st, 0) >= 0)
		r = cnp_read(netfd, name, &n);
	if (r < 0) {
		host_netdev_done(&n);
		return r;
	}
	*ret = n;
	return 0;
}

int host_netdev_add(HostState *h, int netfd, const char *name, size_t *n_alloc) {
	HostNetdev n;
	struct stat st;
	int r;

	if (name[0] == '.' || strlen(name) >= IF_NAMESIZE)
		return 0;
	/* a port's netdev of a partial observation that is not (or no longer) there */
	if (h->partial && fstatat(netfd, name, &st, 0) < 0)
		return 0;
	r = GREEDY_REALLOC(h->netdevs, *n_alloc, h->n_netdevs + 1);
	if (r < 0)
		return r;
	r = netdev_observe(netfd, name, &n);
	if (r < 0)
		return r;
	h->netdevs[h->n_netdevs++] = n;
	return 0;
}

int host_netdevs_of_ports(const HostState *h, char ***ret) {
	_cleanup_strv_free_ char **names = NULL;
	size_t n = 0, kept = 0;

	/* Each once (ports can share one): sorted, then the runs of one name dropped, not a scan
	 * of the table per port. */
	for (size_t i = 0; i < h->n_devices; i++)
		n += h->devices[i].n_ports;
	names = calloc(n + 1, sizeof(char *));
	if (!names)
		return -ENOMEM;
	n = 0;
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const char *nd = h->devices[i].ports[k].netdev;

			/* whether it is there is host_netdev_add()'s to see, a step each */
			if (!nd)
				continue;
			names[n] = strdup(nd);
			if (!names[n])
				return -ENOMEM;
			n++;
		}
	strv_sort(names);
	for (size_t i = 0; i < n; i++)
		if (kept > 0 && streq(names[i], names[kept - 1]))
			free(names[i]);
		else
			names[kept++] = names[i];
	names[kept] = NULL; /* what follows was moved or freed */
	*ret = TAKE_PTR(names);
	return 0;
}

void host_netdevs_sort(HostState *h) {
	/* added in the order of their sorted names, as a rule */
	qsort_unless_sorted(h->netdevs, h->n_netdevs, sizeof(HostNetdev), netdev_compare);
}

const HostNetdev *host_netdev_find(const HostState *h, const char *name) {
	HostNetdev key = { .name = (char *) name };

	if (!name || h->n_netdevs == 0)
		return NULL;
	return bsearch(&key, h->netdevs, h->n_netdevs, sizeof(HostNetdev), netdev_compare);
}

/* A netdev name from an event, as a path component: any the kernel gives, but none that
 * leaves /sys/class/net. */
static bool netdev_path_ok(const char *nd) {
	return nd && *nd && strlen(nd) < IF_NAMESIZE && !strchr(nd, '/') && !streq(nd, ".") &&
	       !streq(nd, "..");
}

int host_netdev_lowers(const char *root, const char *nd, char ***ret) {
	_cleanup_free_ char *path = NULL;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	if (!netdev_path_ok(nd))
		return 0;
	if (asprintf(&path, "%s/sys/class/net/%s", streq(root, "/") ? "" : root, nd) < 0)
		return -ENOMEM;
	dir = opendir(path);
	if (!dir)
		return 0; /* gone meanwhile, or no such netdev under a fixture root */
	while (r >= 0 && (de = readdir(dir)))
		if (strncmp(de->d_name, "lower_", 6) == 0 && !strv_contains(*ret, de->d_name + 6))
			r = strv_extend(ret, de->d_name + 6);
	closedir(dir);
	return r;
}

/* Whether <root>/sys/class/net/<nd>/<sub> exists; true when that cannot be asked (out of
 * memory: the safe answer, look at everything). */
static bool netdev_has(const char *root, const char *nd, const char *sub) {
	_cleanup_free_ char *path = NULL;

	if (!netdev_path_ok(nd))
		return false;
	if (asprintf(&path, "%s/sys/class/net/%s/%s", streq(root, "/") ? "" : root, nd, sub) < 0)
		return true;
	return access(path, F_OK) >= 0;
}

bool host_netdev_has_device(const char *root, const char *nd) {
	return netdev_has(root, nd, "device");
}

bool host_netdev_has_vfs(const char *root, const char *nd) {
	return netdev_has(root, nd, "device/sriov_numvfs") && !host_netdev_is_representor(root, nd);
}

/* An e-switch's representor of a VF or SF (mlx5, netdevsim in switchdev mode): its
 * phys_port_name is "pf0vf3", "pf0sf1", "c1pf0vf3" (the uplink's is "p0"). Its parent device
 * is the PF's: it is not the PF's netdev. */
bool host_netdev_is_representor(const char *root, const char *nd) {
	_cleanup_free_ char *path = NULL;
	char name[32];
	const char *pf;

	if (!netdev_path_ok(nd) ||
	    asprintf(&path, "%s/sys/class/net/%s/phys_port_name", streq(root, "/") ? "" : root,
		     nd) < 0 ||
	    read_small_at(AT_FDCWD, path, name, sizeof(name)) <= 0)
		return false;
	pf = strstr(name, "pf");
	return pf && (strstr(pf, "vf") || strstr(pf, "sf"));
}

bool host_netdev_has_rdma(const char *root, const char *nd) {
	return netdev_has(root, nd, "device/infiniband");
}
