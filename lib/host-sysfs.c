/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RDMA devices, their ports, GID tables and rdma_cm configfs, from sysfs under a root. */
#include <dirent.h>
#include <limits.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "gid.h"
#include "host-internal.h"
#include "strv.h"

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

/* "4: ACTIVE" -> 4, checked against the name the kernel prints after the number. */
static int parse_numbered(const char *s, int max, int *ret) {
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	v = strtol(s, &end, 10);
	if (*end != ':' || end[1] != ' ' || !end[2] || v < 0 || v >= max)
		return -EINVAL;
	*ret = (int) v;
	return 0;
}

static int is_number(const char *s) {
	if (!*s)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static int port_read_numbered(int portfd, const char *file, int max, HostPort *p, int *ret) {
	char buf[64];
	ssize_t n;

	n = read_small_at(portfd, file, buf, sizeof(buf));
	if (n < 0)
		return errors_add(&p->errors, "%s: %s", file, strerror((int) -n));
	if (parse_numbered(buf, max, ret) < 0)
		return errors_add(&p->errors, "%s: unexpected content '%s'", file, buf);
	return 1;
}

/* Each attribute on its own: one unreadable file does not hide the others. The link layer is
 * always read: it tells an IB GID from a RoCE v1 one. */
static int port_read_state(int portfd, HostObserveFlags flags, HostPort *p) {
	char buf[64];
	ssize_t n;
	int r, v;

	p->state = _PORT_STATE_INVALID;
	p->phys_state = _PORT_PHYS_STATE_INVALID;
	if (flags & HOST_OBSERVE_DETAILS) {
		r = port_read_numbered(portfd, "state", _PORT_STATE_MAX, p, &v);
		if (r < 0)
			return r;
		if (r > 0)
			p->state = (PortState) v;
		r = port_read_numbered(portfd, "phys_state", _PORT_PHYS_STATE_MAX, p, &v);
		if (r < 0)
			return r;
		if (r > 0)
			p->phys_state = (PortPhysState) v;
	}

	n = read_small_at(portfd, "link_layer", buf, sizeof(buf));
	if (n < 0)
		return errors_add(&p->errors, "link_layer: %s", strerror((int) -n));
	p->link_layer = link_layer_from_string(buf);
	if (p->link_layer < 0)
		return errors_add(&p->errors, "link_layer: unexpected content '%s'", buf);
	return 0;
}

static int gid_compare(const void *a, const void *b) {
	uint32_t x = ((const Gid *) a)->index, y = ((const Gid *) b)->index;

	return x < y ? -1 : x > y;
}

/* One slot. Returns 1 for a populated slot, 0 for an empty one. */
static int port_read_gid(int portfd, HostPort *p, const char *index, Gid *ret) {
	char path[64], buf[64];
	Gid g = { .index = (uint32_t) strtoul(index, NULL, 10) };
	ssize_t n;

	snprintf(path, sizeof(path), "gids/%s", index);
	n = read_small_at(portfd, path, buf, sizeof(buf));
	if (n < 0) {
		/* An empty slot of some drivers fails instead of reading zeros. */
		if (n == -EINVAL || n == -ENODATA || n == -EAGAIN)
			return 0;
		errors_add(&p->errors, "%s: %s", path, strerror((int) -n));
		return 0;
	}
	if (gid_parse(buf, g.raw) < 0) {
		errors_add(&p->errors, "%s: unexpected content '%s'", path, buf);
		return 0;
	}
	if (gid_is_zero(g.raw))
		return 0;

	snprintf(path, sizeof(path), "gid_attrs/types/%s", index);
	n = read_small_at(portfd, path, buf, sizeof(buf));
	if (n >= 0 && streq(buf, "RoCE v2"))
		g.type = GID_TYPE_ROCE_V2;
	else if (n >= 0 && streq(buf, "IB/RoCE v1"))
		g.type = p->link_layer == LINK_LAYER_INFINIBAND ? GID_TYPE_IB : GID_TYPE_ROCE_V1;
	else if (n < 0 && p->link_layer == LINK_LAYER_INFINIBAND)
		g.type = GID_TYPE_IB; /* IB ports may have no type attributes */
	else {
		if (n < 0)
			errors_add(&p->errors, "%s: %s", path, strerror((int) -n));
		else
			errors_add(&p->errors, "%s: unexpected content '%s'", path, buf);
		return 0;
	}

	snprintf(path, sizeof(path), "gid_attrs/ndevs/%s", index);
	n = read_small_at(portfd, path, buf, sizeof(buf));
	if (n > 0 && (size_t) n < sizeof(g.netdev))
		memcpy(g.netdev, buf, n + 1);
	*ret = g;
	return 1;
}

static int port_read_gids(int portfd, HostPort *p) {
	_cleanup_close_ int fd = -EBADF;
	size_t n_alloc = 0;
	DIR *d;
	int r = 0;

	fd = openat(portfd, "gids", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : errors_add(&p->errors, "gids: %s", strerror(errno));
	d = fdopendir_consume(TAKE_FD(fd));
	if (!d)
		return -ENOMEM;
	for (struct dirent *de; (de = readdir(d));) {
		Gid g;

		if (!is_number(de->d_name) || strlen(de->d_name) > 9)
			continue;
		if (port_read_gid(portfd, p, de->d_name, &g) <= 0)
			continue;
		r = GREEDY_REALLOC(p->gids, n_alloc, p->n_gids + 1);
		if (r < 0)
			break;
		p->gids[p->n_gids++] = g;
	}
	closedir(d);
	if (p->n_gids > 1)
		qsort(p->gids, p->n_gids, sizeof(Gid), gid_compare);
	return r;
}

int host_port_observe(int devfd, uint32_t port, HostObserveFlags flags, HostPort *ret) {
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
		r = errors_add(&p.errors, "%s: %s", path, strerror(errno));
	else {
		r = port_read_state(portfd, flags, &p);
		if (r >= 0 && (flags & HOST_OBSERVE_GIDS))
			r = port_read_gids(portfd, &p);
	}
	if (r < 0) {
		host_port_done(&p);
		return r;
	}
	*ret = p;
	return 0;
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
	char path[64], buf[64];
	char *found = NULL;
	DIR *dir;

	if (d->parent)
		return strdup(d->parent);
	snprintf(path, sizeof(path), "ports/%u/gid_attrs/ndevs/0", p->port);
	if (read_small_at(devfd, path, buf, sizeof(buf)) > 0)
		return strdup(buf);

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
	char buf[64];

	if (read_small_at(devfd, "parent", buf, sizeof(buf)) > 0) {
		/* Only Soft-RoCE has a "parent" attribute: the netdev it runs on. */
		d->parent = strdup(buf);
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

static void port_read_configfs(int cmfd, const char *dev, HostPort *p) {
	char path[NAME_MAX + 64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/ports/%u/default_roce_mode", dev, p->port);
	n = read_small_at(cmfd, path, buf, sizeof(buf));
	if (n >= 0) {
		p->roce_mode = roce_mode_configfs_from_string(buf);
		p->has_roce_mode = p->roce_mode >= 0;
		if (!p->has_roce_mode)
			errors_add(&p->errors,
				   "configfs default_roce_mode: unexpected content '%s'", buf);
	}
	snprintf(path, sizeof(path), "%s/ports/%u/default_roce_tos", dev, p->port);
	n = read_small_at(cmfd, path, buf, sizeof(buf));
	if (n >= 0) {
		char *end;
		unsigned long v = strtoul(buf, &end, 10);

		if (!*buf || *end || v > 255)
			errors_add(&p->errors, "configfs default_roce_tos: unexpected content '%s'",
				   buf);
		else {
			p->roce_tos = (unsigned) v;
			p->has_roce_tos = true;
		}
	}
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
		errors_add(&d.errors, "%s", strerror(errno));
		*ret = d;
		return 0;
	}
	if (flags & HOST_OBSERVE_DETAILS) {
		(void) read_line_at(devfd, "node_guid", &d.node_guid);
		(void) read_line_at(devfd, "node_type", &d.node_type);
		(void) read_line_at(devfd, "fw_ver", &d.fw_ver);
		device_read_driver(devfd, &d);
	}

	portsfd = openat(devfd, "ports", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = portsfd >= 0 ? fdopendir_consume(TAKE_FD(portsfd)) : NULL;
	if (!dir)
		errors_add(&d.errors, "ports: %s", strerror(errno));
	for (struct dirent *de; dir && (de = readdir(dir));) {
		HostPort p;

		if (!is_number(de->d_name) || strlen(de->d_name) > 3)
			continue;
		r = host_port_observe(devfd, (uint32_t) strtoul(de->d_name, NULL, 10), flags, &p);
		if (r < 0)
			break;
		if (flags & HOST_OBSERVE_DETAILS)
			p.netdev = port_find_netdev(devfd, &d, &p);
		if (cmfd >= 0 && (flags & HOST_OBSERVE_CONFIGFS))
			port_read_configfs(cmfd, name, &p);
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

int host_devices_observe(HostState *h, int rootfd, HostObserveFlags flags, char *const *only) {
	_cleanup_close_ int classfd = -EBADF, cmfd = -EBADF;
	size_t n_alloc = 0;
	DIR *dir;
	int r = 0;

	classfd = openat(rootfd, "sys/class/infiniband", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (classfd < 0)
		return errno == ENOENT ? 0 : -errno;
	cmfd = openat(rootfd, "sys/kernel/config/rdma_cm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	h->configfs_mounted = cmfd >= 0;
	dir = fdopendir_consume(dup(classfd));
	if (!dir)
		return -errno;
	for (struct dirent *de; (de = readdir(dir));) {
		HostDevice d = { 0 };

		if (de->d_name[0] == '.' || (only && !strv_contains(only, de->d_name)))
			continue;
		r = GREEDY_REALLOC(h->devices, n_alloc, h->n_devices + 1);
		if (r < 0)
			break;
		r = device_observe(classfd, cmfd, de->d_name, flags, &d);
		if (r < 0) {
			host_device_done(&d);
			break;
		}
		h->devices[h->n_devices++] = d;
	}
	closedir(dir);
	if (h->n_devices > 1)
		qsort(h->devices, h->n_devices, sizeof(HostDevice), device_compare);
	return r;
}

const HostDevice *host_device_find(const HostState *h, const char *name) {
	HostDevice key = { .name = (char *) name };

	if (!name || h->n_devices == 0)
		return NULL;
	return bsearch(&key, h->devices, h->n_devices, sizeof(HostDevice), device_compare);
}
