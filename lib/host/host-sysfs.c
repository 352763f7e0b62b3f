/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RDMA devices, their ports, GID tables and rdma_cm configfs, from sysfs under a root. */
#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "gid.h"
#include "host-internal.h"
#include "strv.h"
#include "sysfs-value.h"

static int errors_add(char ***errors, const char *format, ...) _printf_(2, 3);
static int errors_add(char ***errors, const char *format, ...) {
	va_list ap;
	char *m;
	int r;

	va_start(ap, format);
	r = vasprintf(&m, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	return strv_consume(errors, m);
}

static int is_number(const char *s) {
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* "/sys/class/infiniband/DEV/ports/N/FILE": what an error names (under the root). */
#define PORT_FILE_MAX (NAME_MAX + 96)
static const char *port_file(char buf[static PORT_FILE_MAX], const char *dir, const char *file) {
	snprintf(buf, PORT_FILE_MAX, "%s/%s", dir, file);
	return buf;
}

/* Each attribute on its own: one unreadable file does not hide the others. The link layer is
 * always read: it tells an IB GID from a RoCE v1 one. A value that does not parse is recorded
 * and left unknown (_INVALID), never guessed. */
static int port_read_state(int portfd, const char *dir, HostObserveFlags flags, HostPort *p) {
	char buf[SYSFS_VALUE_MAX], file[PORT_FILE_MAX];
	PortPhysState ps;
	PortState st;
	LinkLayer ll;
	ssize_t n;
	int r = 0;

	p->state = _PORT_STATE_INVALID;
	p->phys_state = _PORT_PHYS_STATE_INVALID;
	if (flags & HOST_OBSERVE_DETAILS) {
		n = sysfs_value_read_at(portfd, "state", buf, sizeof(buf));
		if (n >= 0 && sysfs_port_state_parse(buf, (size_t) n, &st) >= 0)
			p->state = st;
		else
			r = sysfs_error_add(&p->errors, port_file(file, dir, "state"), n, buf);
		if (r < 0)
			return r;
		n = sysfs_value_read_at(portfd, "phys_state", buf, sizeof(buf));
		if (n >= 0 && sysfs_port_phys_state_parse(buf, (size_t) n, &ps) >= 0)
			p->phys_state = ps;
		else
			r = sysfs_error_add(&p->errors, port_file(file, dir, "phys_state"), n, buf);
		if (r < 0)
			return r;
	}

	n = sysfs_value_read_at(portfd, "link_layer", buf, sizeof(buf));
	if (n >= 0 && sysfs_link_layer_parse(buf, (size_t) n, &ll) >= 0)
		p->link_layer = ll;
	else
		return sysfs_error_add(&p->errors, port_file(file, dir, "link_layer"), n, buf);
	return 0;
}

/* One slot. Returns 1 for a populated slot, 0 for an empty one or one that cannot be used (the
 * reason recorded on p), -ENOMEM. */
static int port_read_gid(int portfd, const char *dir, HostPort *p, const char *index, Gid *ret) {
	char path[64], buf[SYSFS_VALUE_MAX], file[PORT_FILE_MAX];
	Gid g = { .index = (uint32_t) strtoul(index, NULL, 10) };
	ssize_t n;

	snprintf(path, sizeof(path), "gids/%s", index);
	n = sysfs_value_read_at(portfd, path, buf, sizeof(buf));
	/* An empty slot of some drivers fails instead of reading zeros. */
	if (n == -EINVAL || n == -ENODATA || n == -EAGAIN)
		return 0;
	if (n < 0 || sysfs_gid_parse(buf, (size_t) n, g.raw) < 0)
		return sysfs_error_add(&p->errors, port_file(file, dir, path), n, buf);
	if (gid_is_zero(g.raw))
		return 0;

	snprintf(path, sizeof(path), "gid_attrs/types/%s", index);
	n = sysfs_value_read_at(portfd, path, buf, sizeof(buf));
	if (n < 0 && n != -EFBIG && p->link_layer == LINK_LAYER_INFINIBAND)
		g.type = GID_TYPE_IB; /* IB ports may have no type attributes */
	else if (n < 0 || sysfs_gid_type_parse(buf, (size_t) n, p->link_layer, &g.type) < 0)
		return sysfs_error_add(&p->errors, port_file(file, dir, path), n, buf);

	snprintf(path, sizeof(path), "gid_attrs/ndevs/%s", index);
	n = sysfs_value_read_at(portfd, path, buf, sizeof(buf));
	/* none: an IB GID (kernel: EINVAL, a fixture: no file) */
	if ((n >= 0 || n == -EFBIG) &&
	    sysfs_netdev_name_parse(buf, n < 0 ? 0 : (size_t) n, g.netdev) < 0)
		return sysfs_error_add(&p->errors, port_file(file, dir, path), n, buf);
	*ret = g;
	return 1;
}

static int index_compare(const void *a, const void *b) {
	uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;

	return x < y ? -1 : x > y;
}

/* The slots in index order (not readdir's, which differs between file systems): the errors a
 * table of garbage gives, and which of them are kept, are the same everywhere. */
static int port_read_gids(int portfd, const char *dir, HostPort *p) {
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ uint32_t *slots = NULL;
	size_t n_alloc = 0, n_slots = 0, n_slots_alloc = 0;
	DIR *d;
	int r = 0;

	fd = openat(portfd, "gids", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT
			       ? 0
			       : errors_add(&p->errors, "%s/gids: %s", dir, strerror(errno));
	d = fdopendir_consume(TAKE_FD(fd));
	if (!d)
		return -ENOMEM;
	for (struct dirent *de; (de = readdir(d));) {
		if (!is_number(de->d_name) || strlen(de->d_name) > 9)
			continue;
		r = GREEDY_REALLOC(slots, n_slots_alloc, n_slots + 1);
		if (r < 0)
			break;
		slots[n_slots++] = (uint32_t) strtoul(de->d_name, NULL, 10);
	}
	closedir(d);
	if (r < 0)
		return r;
	if (n_slots > 1)
		qsort(slots, n_slots, sizeof(uint32_t), index_compare);
	for (size_t i = 0; i < n_slots; i++) {
		char index[16];
		Gid g;

		snprintf(index, sizeof(index), "%" PRIu32, slots[i]);
		r = port_read_gid(portfd, dir, p, index, &g);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		r = GREEDY_REALLOC(p->gids, n_alloc, p->n_gids + 1);
		if (r < 0)
			return r;
		p->gids[p->n_gids++] = g;
	}
	return 0;
}

int host_device_gids_observe(const char *root, HostDevice *d) {
	_cleanup_close_ int rootfd = -EBADF, devfd = -EBADF;
	char path[NAME_MAX + 64];
	int r;

	for (size_t i = 0; i < d->n_ports; i++) {
		d->ports[i].gids = mfree(d->ports[i].gids);
		d->ports[i].n_gids = 0;
	}
	if (!root)
		root = "/";
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return errors_add(&d->errors, "%s: %s", root, strerror(errno));
	snprintf(path, sizeof(path), "sys/class/infiniband/%s", d->name);
	devfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0)
		return errors_add(&d->errors, "/%s: %s", path, strerror(errno));
	for (size_t i = 0; i < d->n_ports; i++) {
		_cleanup_close_ int portfd = -EBADF;
		HostPort *p = &d->ports[i];
		char dir[NAME_MAX + 64];

		snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u", d->name, p->port);
		snprintf(path, sizeof(path), "ports/%u", p->port);
		portfd = openat(devfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = portfd < 0 ? errors_add(&p->errors, "%s: %s", dir, strerror(errno))
			       : port_read_gids(portfd, dir, p);
		if (r < 0)
			return r;
	}
	return 0;
}

/* dir: the port's directory for messages, "/sys/class/infiniband/DEV/ports/N" */
static int port_observe(int devfd, const char *dir, uint32_t port, HostObserveFlags flags,
			HostPort *ret) {
	_cleanup_close_ int portfd = -EBADF;
	HostPort p = { .port = port, .link_layer = _LINK_LAYER_INVALID };
	char path[32];
	int r;

	snprintf(path, sizeof(path), "ports/%u", port);
	p.errors = calloc(1, sizeof(char *));
	if (!p.errors)
		return -ENOMEM;
	portfd = openat(devfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (portfd < 0)
		r = errors_add(&p.errors, "%s: %s", dir, strerror(errno));
	else {
		r = port_read_state(portfd, dir, flags, &p);
		if (r >= 0 && (flags & HOST_OBSERVE_GIDS))
			r = port_read_gids(portfd, dir, &p);
	}
	if (r < 0) {
		host_port_done(&p);
		return r;
	}
	*ret = p;
	return 0;
}

int host_port_observe(int devfd, uint32_t port, HostObserveFlags flags, HostPort *ret) {
	char dir[32];

	snprintf(dir, sizeof(dir), "ports/%u", port);
	return port_observe(devfd, dir, port, flags, ret);
}

void host_port_done(HostPort *p) {
	free(p->netdev);
	free(p->gids);
	hw_counters_free(p->hw_counters, p->n_hw_counters);
	strv_free(p->errors);
	*p = (HostPort){ 0 };
}

/* The port's netdev: a software device's parent, the netdev of GID 0 (RoCE), or the PCI
 * function's netdev whose dev_port matches (the kernel counts dev_port from 0). */
static char *port_find_netdev(int devfd, const HostDevice *d, const HostPort *p) {
	_cleanup_close_ int fd = -EBADF;
	char path[64], buf[SYSFS_VALUE_MAX], name[NETDEV_NAME_MAX];
	char *found = NULL;
	ssize_t n;
	DIR *dir;

	if (d->parent)
		return strdup(d->parent);
	/* only a valid name: it goes into paths and netlink requests (a bad one is reported by
	 * the GID table's observation) */
	snprintf(path, sizeof(path), "ports/%u/gid_attrs/ndevs/0", p->port);
	n = sysfs_value_read_at(devfd, path, buf, sizeof(buf));
	if (n > 0 && sysfs_netdev_name_parse(buf, (size_t) n, name) >= 0)
		return strdup(name);

	fd = openat(devfd, "device/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return NULL;
	for (struct dirent *de; (de = readdir(dir));) {
		char ifindex[32] = "", iflink[32] = "";
		unsigned long dev_port = 0;

		if (de->d_name[0] == '.')
			continue;
		/* Child interfaces (IPoIB pkeys, ib0.8001) share the parent's dev_port. */
		snprintf(path, sizeof(path), "%.20s/ifindex", de->d_name);
		(void) read_small_at(dirfd(dir), path, ifindex, sizeof(ifindex));
		snprintf(path, sizeof(path), "%.20s/iflink", de->d_name);
		(void) read_small_at(dirfd(dir), path, iflink, sizeof(iflink));
		if (*iflink && !streq(iflink, ifindex))
			continue;
		snprintf(path, sizeof(path), "%.20s/dev_port", de->d_name);
		if (read_small_at(dirfd(dir), path, buf, sizeof(buf)) > 0)
			dev_port = strtoul(buf, NULL, 10);
		if (dev_port + 1 == p->port) { /* only this port's: never a sibling's */
			found = strdup(de->d_name);
			break;
		}
	}
	closedir(dir);
	return found;
}

static void device_read_driver(int devfd, HostDevice *d) {
	_cleanup_free_ char *subsystem = NULL;
	char buf[SYSFS_VALUE_MAX], name[NETDEV_NAME_MAX];
	ssize_t n;

	n = sysfs_value_read_at(devfd, "parent", buf, sizeof(buf));
	if (n != -ENOENT && n != -EINVAL &&
	    !(n >= 0 && sysfs_netdev_name_parse(buf, (size_t) n, name) >= 0)) {
		char file[NAME_MAX + 64];

		snprintf(file, sizeof(file), "/sys/class/infiniband/%s/parent", d->name);
		(void) sysfs_error_add(&d->errors, file, n, buf);
		return;
	}
	if (n >= 0) {
		/* Only Soft-RoCE has a "parent" attribute: the netdev it runs on. */
		d->parent = strdup(name);
		d->driver = strdup(soft_device_driver_to_string(SOFT_DEVICE_RXE));
		return;
	}
	if (readlink_basename_at(devfd, "device/driver", &d->driver) < 0) {
		/* A virtual device without a parent: siw is the other software driver, and it
		 * is an iWARP RNIC (node type 4). */
		if (d->node_type && strncmp(d->node_type, "4:", 2) == 0)
			d->driver = strdup(soft_device_driver_to_string(SOFT_DEVICE_SIW));
		return;
	}
	if (readlink_basename_at(devfd, "device/subsystem", &subsystem) >= 0 &&
	    streq(subsystem, "pci"))
		(void) readlink_basename_at(devfd, "device", &d->pci);
}

static int port_compare(const void *a, const void *b) {
	uint32_t x = ((const HostPort *) a)->port, y = ((const HostPort *) b)->port;

	return x < y ? -1 : x > y;
}

static int port_read_configfs(int cmfd, const char *dev, HostPort *p) {
	char path[NAME_MAX + 64], file[NAME_MAX + 96], buf[SYSFS_VALUE_MAX];
	int64_t tos;
	ssize_t n;
	int r = 0;

	/* not there (no such file): not known, the planner writes it */
	snprintf(path, sizeof(path), "%s/ports/%u/default_roce_mode", dev, p->port);
	snprintf(file, sizeof(file), "/sys/kernel/config/rdma_cm/%s", path);
	n = sysfs_value_read_at(cmfd, path, buf, sizeof(buf));
	if (n >= 0 && sysfs_roce_mode_parse(buf, (size_t) n, &p->roce_mode) >= 0)
		p->has_roce_mode = true;
	else if (n != -ENOENT)
		r = sysfs_error_add(&p->errors, file, n, buf);
	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/ports/%u/default_roce_tos", dev, p->port);
	snprintf(file, sizeof(file), "/sys/kernel/config/rdma_cm/%s", path);
	n = sysfs_value_read_at(cmfd, path, buf, sizeof(buf));
	if (n >= 0 && sysfs_int_parse(buf, (size_t) n, 0, 255, &tos) >= 0) {
		p->roce_tos = (unsigned) tos;
		p->has_roce_tos = true;
	} else if (n != -ENOENT)
		r = sysfs_error_add(&p->errors, file, n, buf);
	return r;
}

static int device_observe(int classfd, int cmfd, const char *name, HostObserveFlags flags,
			  HostDevice *ret) {
	_cleanup_close_ int devfd = -EBADF, portsfd = -EBADF;
	HostDevice d = { 0 };
	size_t n_alloc = 0;
	DIR *dir;
	int r = 0;

	d.name = strdup(name);
	d.errors = calloc(1, sizeof(char *));
	if (!d.name || !d.errors) {
		free(d.name);
		free(d.errors);
		return -ENOMEM;
	}
	devfd = openat(classfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0) {
		/* Gone between readdir and open, or a broken link: report, keep going. */
		errors_add(&d.errors, "/sys/class/infiniband/%s: %s", name, strerror(errno));
		*ret = d;
		return 0;
	}
	if (flags & HOST_OBSERVE_DETAILS) {
		(void) read_line_at(devfd, "node_guid", &d.node_guid);
		(void) read_line_at(devfd, "node_type", &d.node_type);
		(void) read_line_at(devfd, "fw_ver", &d.fw_ver);
		(void) read_line_at(devfd, "node_desc", &d.node_desc);
		device_read_driver(devfd, &d);
	}

	portsfd = openat(devfd, "ports", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = portsfd >= 0 ? fdopendir_consume(TAKE_FD(portsfd)) : NULL;
	if (!dir)
		errors_add(&d.errors, "/sys/class/infiniband/%s/ports: %s", name, strerror(errno));
	for (struct dirent *de; dir && (de = readdir(dir));) {
		HostPort p;

		if (!is_number(de->d_name) || strlen(de->d_name) > 3)
			continue;
		char pdir[NAME_MAX + 64];

		snprintf(pdir, sizeof(pdir), "/sys/class/infiniband/%s/ports/%s", name, de->d_name);
		r = port_observe(devfd, pdir, (uint32_t) strtoul(de->d_name, NULL, 10), flags, &p);
		if (r < 0)
			break;
		if (flags & HOST_OBSERVE_DETAILS)
			p.netdev = port_find_netdev(devfd, &d, &p);
		if (cmfd >= 0 && (flags & HOST_OBSERVE_CONFIGFS))
			r = port_read_configfs(cmfd, name, &p);
		if (r < 0) {
			host_port_done(&p);
			break;
		}
		r = GREEDY_REALLOC(d.ports, n_alloc, d.n_ports + 1);
		if (r < 0) {
			host_port_done(&p);
			break;
		}
		d.ports[d.n_ports++] = p;
	}
	if (dir)
		closedir(dir);
	if (d.n_ports > 1)
		qsort(d.ports, d.n_ports, sizeof(HostPort), port_compare);
	if (cmfd >= 0) {
		struct stat st;

		d.configfs_present = fstatat(cmfd, name, &st, 0) >= 0 && S_ISDIR(st.st_mode);
	}
	*ret = d;
	return r;
}

void host_device_done(HostDevice *d) {
	free(d->name);
	free(d->node_guid);
	free(d->node_type);
	free(d->fw_ver);
	free(d->node_desc);
	free(d->driver);
	free(d->pci);
	free(d->parent);
	for (size_t i = 0; i < d->n_ports; i++)
		host_port_done(&d->ports[i]);
	free(d->ports);
	strv_free(d->errors);
}

static int device_compare(const void *a, const void *b) {
	return strcmp(((const HostDevice *) a)->name, ((const HostDevice *) b)->name);
}

static int name_compare(const void *a, const void *b) {
	return strcmp(*(char *const *) a, *(char *const *) b);
}

int host_devices_filter(char **names, char *const *only) {
	_cleanup_free_ char **wanted = NULL; /* only, sorted: a lookup per name, not a scan */
	size_t n_wanted = strv_length(only), kept = 0;

	if (!names || !only)
		return 0;
	wanted = calloc(n_wanted + 1, sizeof(char *));
	if (!wanted)
		return -ENOMEM;
	memcpy(wanted, only, n_wanted * sizeof(char *));
	qsort(wanted, n_wanted, sizeof(char *), name_compare);
	STRV_FOREACH (n, names) {
		const char *key = *n;

		if (bsearch(&key, wanted, n_wanted, sizeof(char *), name_compare))
			names[kept++] = *n;
		else
			free(*n);
	}
	names[kept] = NULL;
	return 0;
}

int host_device_add(HostState *h, int classfd, int cmfd, const char *name, HostObserveFlags flags,
		    size_t *n_alloc) {
	HostDevice d = { 0 };
	int r;

	r = GREEDY_REALLOC(h->devices, *n_alloc, h->n_devices + 1);
	if (r < 0)
		return r;
	r = device_observe(classfd, cmfd, name, flags, &d);
	if (r < 0) {
		host_device_done(&d);
		return r;
	}
	h->devices[h->n_devices++] = d;
	return 0;
}

void host_devices_sort(HostState *h) {
	/* added in the order of their sorted names, as a rule */
	qsort_unless_sorted(h->devices, h->n_devices, sizeof(HostDevice), device_compare);
}

const HostDevice *host_device_find(const HostState *h, const char *name) {
	HostDevice key = { .name = (char *) name };

	if (!name || h->n_devices == 0)
		return NULL;
	return bsearch(&key, h->devices, h->n_devices, sizeof(HostDevice), device_compare);
}
