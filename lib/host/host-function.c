/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The functions behind netdevs, that sriov.* and pci.* act on, whether or not an RDMA device
 * sits on them yet: /sys/class/net/<nd>/device, a PCI function or netdevsim's bus device.
 * sysfs under any root (sriov_numvfs, sriov_totalvfs, sriov_drivers_autoprobe, physfn, the
 * config space and the bridges above it); on the real root also what only netlink says: the
 * VFs' settings (RTM_GETLINK with RTEXT_FILTER_VF on the PF's netdev) and the e-switch mode
 * (devlink). A function rdmad writes meanwhile (host_observer_set_writing()) is read without
 * what would block until that write ends. */
#include <dirent.h>
#include <fcntl.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <stdio.h>
#include <sys/stat.h>

#include "devlink-talk.h"
#include "fileio.h"
#include "host-internal.h"
#include "pci-config.h"
#include "pci-topology.h"
#include "rtnl-vf-talk.h"
#include "strv.h"
#include "netlink-io.h"
#include "sysfs-value.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

void host_function_done(HostFunction *f) {
	free(f->bus);
	free(f->name);
	free(f->driver);
	strv_free(f->netdevs);
	free(f->vfs);
	free(f->host_bridge);
	for (size_t i = 0; i < f->n_bridges; i++)
		free(f->bridges[i].address);
	free(f->bridges);
	strv_free(f->errors);
	free(f->writing);
	free(f->params);
	free(f->ports);
}

void host_pcie_peers_done(HostState *h) {
	for (size_t i = 0; i < h->n_vfio_functions; i++) {
		HostVfioFunction *v = &h->vfio_functions[i];

		free(v->address);
		free(v->host_bridge);
		strv_free(v->bridges);
		free(v->iommu_type);
	}
	free(h->vfio_functions);
	h->vfio_functions = NULL;
	h->n_vfio_functions = 0;
	for (size_t i = 0; i < h->n_gpus; i++) {
		HostGpu *g = &h->gpus[i];

		free(g->address);
		free(g->host_bridge);
		for (size_t k = 0; k < g->n_bridges; k++)
			free(g->bridges[k].address);
		free(g->bridges);
	}
	free(h->gpus);
	h->gpus = NULL;
	h->n_gpus = 0;
}

static int function_compare(const void *a, const void *b) {
	const HostFunction *x = a, *y = b;
	int c = strcmp(x->bus, y->bus);

	return c != 0 ? c : strcmp(x->name, y->name);
}

static HostFunction *function_find(HostState *h, const char *bus, const char *name) {
	for (size_t i = 0; i < h->n_functions; i++)
		if (streq(h->functions[i].bus, bus) && streq(h->functions[i].name, name))
			return &h->functions[i];
	return NULL;
}

const HostFunction *host_function_of_netdev(const HostState *h, const char *netdev) {
	for (size_t i = 0; netdev && i < h->n_functions; i++)
		if (strv_contains(h->functions[i].netdevs, netdev))
			return &h->functions[i];
	return NULL;
}

/* A decimal sysfs attribute of the function: 1 and *ret, 0 when it has none, or an error
 * recorded on f. */
static int function_read_uint(int devfd, HostFunction *f, const char *attr, unsigned max,
			      unsigned *ret) {
	char buf[SYSFS_VALUE_MAX], file[160];
	int64_t v;
	ssize_t n;

	n = sysfs_value_read_at(devfd, attr, buf, sizeof(buf));
	if (n == -ENOENT)
		return 0;
	if (n >= 0 && sysfs_int_parse(buf, (size_t) n, 0, max, &v) >= 0) {
		*ret = (unsigned) v;
		return 1;
	}
	snprintf(file, sizeof(file), "/sys/bus/%s/devices/%s/%s", f->bus, f->name, attr);
	return sysfs_error_add(&f->errors, file, n, buf);
}

/* The virtfn links of the function's directory: the VFs the kernel has made so far. */
static int count_virtfn(int devfd, unsigned *ret) {
	_cleanup_close_ int fd = -EBADF;
	struct dirent *de;
	unsigned n = 0;
	DIR *d;

	fd = openat(devfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d)
		return -errno;
	TAKE_FD(fd);
	while ((de = readdir(d)))
		if (strncmp(de->d_name, "virtfn", 6) == 0 && de->d_name[6] >= '0' &&
		    de->d_name[6] <= '9')
			n++;
	closedir(d);
	*ret = n;
	return 0;
}

int host_function_count_vfs(int rootfd, const char *bus, const char *name, unsigned *ret) {
	_cleanup_close_ int devfd = -EBADF;
	char path[192];

	if (!streq(bus, "pci"))
		return -EOPNOTSUPP;
	if (snprintf(path, sizeof(path), "sys/bus/pci/devices/%s", name) >= (int) sizeof(path))
		return -EINVAL;
	devfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0)
		return -errno;
	return count_virtfn(devfd, ret);
}

/* sriov_numvfs of a function rdmad writes meanwhile: its virtfn links, never the file. */
static int function_count_sriov(int devfd, HostFunction *f) {
	if (faccessat(devfd, "sriov_numvfs", F_OK, 0) < 0)
		return 0;
	if (streq(f->bus, "pci") && count_virtfn(devfd, &f->numvfs) >= 0)
		f->numvfs_counted = true;
	return 1;
}

static int function_read_sriov(int devfd, HostFunction *f) {
	unsigned autoprobe = 0;
	int r;

	if (f->writing)
		r = function_count_sriov(devfd, f);
	else
		r = function_read_uint(devfd, f, "sriov_numvfs", 65535, &f->numvfs);
	if (r <= 0)
		return r;
	f->has_sriov = true;
	r = function_read_uint(devfd, f, "sriov_totalvfs", 65535, &f->totalvfs);
	if (r < 0)
		return r;
	r = function_read_uint(devfd, f, "sriov_drivers_autoprobe", 1, &autoprobe);
	if (r < 0)
		return r;
	f->has_autoprobe = r > 0;
	f->autoprobe = autoprobe;
	return 0;
}

/* handle ("pci/0000:03:00.0") names the function bus/name */
static bool function_is(const char *handle, const char *bus, const char *name) {
	size_t l = strlen(bus);

	return strncmp(handle, bus, l) == 0 && handle[l] == '/' && streq(handle + l + 1, name);
}

/* One netdev: the function it belongs to, added to h->functions when new. Netdevs without a
 * parent device (virtual ones) and parents that are neither PCI nor able to have VFs (a
 * virtio device) have none. */
static int function_add_netdev(HostState *h, int rootfd, const HostNetdev *nd, const char *writing,
			       const char *writing_what, size_t *n_alloc) {
	_cleanup_free_ char *bus = NULL, *name = NULL;
	_cleanup_close_ int devfd = -EBADF;
	HostFunction *f, n = { 0 };
	char path[128];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "sys/class/net/%s/device/subsystem", nd->name);
	if (readlink_basename_at(rootfd, path, &bus) < 0)
		return 0;
	/* a representor's parent is the PF too, but its VF list is not the PF's */
	if (host_netdev_is_representor(h->root, nd->name))
		return 0;
	snprintf(path, sizeof(path), "sys/class/net/%s/device", nd->name);
	r = readlink_basename_at(rootfd, path, &name);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	f = function_find(h, bus, name);
	if (f)
		return strv_extend(&f->netdevs, nd->name);

	devfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (devfd < 0)
		return 0; /* gone since */
	if (!streq(bus, "pci") && faccessat(devfd, "sriov_numvfs", F_OK, 0) < 0)
		return 0;
	n.bus = TAKE_PTR(bus);
	n.name = TAKE_PTR(name);
	n.ifindex = nd->ifindex;
	n.virtual_function = fstatat(devfd, "physfn", &st, 0) >= 0;
	r = readlink_basename_at(devfd, "driver", &n.driver);
	if (r >= 0 || r != -ENOMEM)
		r = strv_extend(&n.netdevs, nd->name);
	if (r >= 0 && writing && function_is(writing, n.bus, n.name)) {
		n.writing = strdup(writing_what);
		r = n.writing ? 0 : -ENOMEM;
	}
	if (r >= 0)
		r = function_read_sriov(devfd, &n);
	if (r >= 0)
		r = GREEDY_REALLOC(h->functions, *n_alloc, h->n_functions + 1);
	if (r < 0) {
		host_function_done(&n);
		return r;
	}
	h->functions[h->n_functions++] = n;
	return 0;
}

/* The VF settings and the e-switch mode, over netlink: the real root only (a fixture's netdevs
 * are not this namespace's). Errors are recorded, never fatal. */
static void function_observe_live(HostFunction *f, struct nl_sock *rtnl, struct nl_sock *genl,
				  int devlink_family) {
	uint32_t num_vf = 0;

	if (!f->has_sriov || f->virtual_function)
		return;
	if (!rtnl)
		f->vfs_error = -ENOTCONN;
	else if (f->ifindex <= 0)
		f->vfs_error = -ENODEV;
	else
		f->vfs_error = rtnl_vf_read(rtnl, f->ifindex, &num_vf, &f->vfs, &f->n_vfs);
	/* fewer VFs listed than counted: a VF the driver left out, or a list past 64 KiB */
	if (f->vfs_error == 0 && f->n_vfs < num_vf)
		f->vfs_error = -EMSGSIZE;
	f->vfs_observed = f->vfs_error == 0;

	if (devlink_family < 0)
		f->eswitch_error = devlink_family;
	else
		f->eswitch_error = devlink_eswitch_read(genl, (uint16_t) devlink_family, f->bus,
							f->name, &f->eswitch);
	f->eswitch_observed = f->eswitch_error == 0;
}

/* Where the PCI function at address sits: its root complex's directory and the ports above it,
 * nearest first (pci-config.h). -errno of the walk (-ENOENT: no such function). */
static int pci_function_place(const char *root, const char *address, char **ret_host_bridge,
			      char ***ret_bridges) {
	_cleanup_strv_free_ char **components = NULL, **bridges = NULL;
	_cleanup_free_ char *top = NULL;
	int r;

	r = pci_function_components(root, address, &components);
	if (r < 0)
		return r;
	r = pci_bridges_from_components(components, &bridges);
	if (r < 0)
		return r;
	if (pci_root_complex_from_components(components)) {
		top = strdup(pci_root_complex_from_components(components));
		if (!top)
			return -ENOMEM;
	}
	*ret_host_bridge = TAKE_PTR(top);
	*ret_bridges = TAKE_PTR(bridges);
	return 0;
}

/* The ACS of each port in bridges, from its config space: what cannot be read is recorded in
 * its error. Only -ENOMEM fails. */
static int bridges_observe(const char *root, char *const *bridges, PciBridgeState **ret,
			   size_t *ret_n) {
	PciBridgeState *l;
	size_t n = 0;

	l = calloc(strv_length(bridges) + 1, sizeof(PciBridgeState));
	if (!l)
		return -ENOMEM;
	STRV_FOREACH (b, bridges) {
		PciBridgeState *s = &l[n++];
		PciFunctionConfig bc;

		s->address = strdup(*b);
		if (!s->address)
			goto oom;
		s->error = pci_function_config_read(root, *b, &bc);
		if (s->error == -ENOMEM)
			goto oom;
		if (s->error < 0)
			continue;
		s->port_type = bc.port_type;
		s->has_acs = bc.has_acs;
		s->acs_cap = bc.acs_cap;
		s->acs_ctrl = bc.acs_ctrl;
	}
	*ret = l;
	*ret_n = n;
	return 0;
oom:
	for (size_t i = 0; i < n; i++)
		free(l[i].address);
	free(l);
	return -ENOMEM;
}

/* The function's Max_Read_Request_Size, where it sits, and the ACS of every port above it
 * (pci-config.h). */
static int function_observe_pcie(const char *root, HostFunction *f) {
	_cleanup_strv_free_ char **bridges = NULL;
	PciFunctionConfig c;
	int r;

	if (!streq(f->bus, "pci"))
		return 0;
	f->pcie_error = pci_function_config_read(root, f->name, &c);
	if (f->pcie_error == -ENOMEM)
		return -ENOMEM;
	if (f->pcie_error == 0)
		f->max_read_request = c.max_read_request;
	r = pci_function_place(root, f->name, &f->host_bridge, &bridges);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (f->pcie_error == 0)
			f->pcie_error = r;
		return 0;
	}
	r = bridges_observe(root, bridges, &f->bridges, &f->n_bridges);
	if (r < 0)
		return r;
	f->pcie_observed = f->pcie_error == 0;
	return 0;
}

/* The GPUs, one end of the routes pci.upstream-acs shortens, with the ports above them. A GPU
 * whose place cannot be read is left out. */
static int gpus_observe(HostState *h) {
	_cleanup_strv_free_ char **gpus = NULL;
	int r;

	r = pci_nvidia_gpus(h->root, &gpus);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	h->gpus = calloc(strv_length(gpus) + 1, sizeof(HostGpu));
	if (!h->gpus)
		return -ENOMEM;
	STRV_FOREACH (a, gpus) {
		_cleanup_strv_free_ char **bridges = NULL;
		HostGpu *g = &h->gpus[h->n_gpus];

		r = pci_function_place(h->root, *a, &g->host_bridge, &bridges);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			continue;
		h->n_gpus++;
		g->address = strdup(*a);
		if (!g->address)
			return -ENOMEM;
		r = bridges_observe(h->root, bridges, &g->bridges, &g->n_bridges);
		if (r < 0)
			return r;
	}
	return 0;
}

/* One function bound to vfio-pci: where it sits, its IOMMU group and that group's type. */
static int vfio_function_observe(HostState *h, int rootfd, const char *address,
				 HostVfioFunction *ret) {
	_cleanup_free_ char *group = NULL;
	HostVfioFunction v = { .iommu_group = -1 };
	char path[320];
	int r;

	r = pci_function_place(h->root, address, &v.host_bridge, &v.bridges);
	if (r < 0)
		return r == -ENOMEM ? r : 0; /* gone since */
	v.address = strdup(address);
	if (!v.address)
		goto oom;
	snprintf(path, sizeof(path), "sys/bus/pci/devices/%s/iommu_group", address);
	r = readlink_basename_at(rootfd, path, &group);
	if (r == -ENOMEM)
		goto oom;
	if (r >= 0) {
		char *end;
		long n = strtol(group, &end, 10);

		if (!*end && end != group && n >= 0 && n < INT32_MAX) {
			v.iommu_group = (int) n;
			snprintf(path, sizeof(path), "sys/kernel/iommu_groups/%ld/type", n);
			if (read_line_at(rootfd, path, &v.iommu_type) == -ENOMEM)
				goto oom;
		}
	}
	*ret = v;
	return 1;
oom:
	free(v.address);
	free(v.host_bridge);
	strv_free(v.bridges);
	return -ENOMEM;
}

static int vfio_compare(const void *a, const void *b) {
	return strcmp(((const HostVfioFunction *) a)->address,
		      ((const HostVfioFunction *) b)->address);
}

/* The functions bound to vfio-pci: the driver's directory lists them. */
static int vfio_functions_observe(HostState *h, int rootfd) {
	_cleanup_close_ int fd = -EBADF;
	size_t n_alloc = 0;
	DIR *dir;
	int r = 0;

	fd = openat(rootfd, "sys/bus/pci/drivers/vfio-pci", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* no vfio-pci loaded: none */
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return -errno;
	for (struct dirent *de; (de = readdir(dir));) {
		HostVfioFunction v;

		if (!pci_address_valid(de->d_name)) /* bind, new_id, module, uevent, ... */
			continue;
		r = vfio_function_observe(h, rootfd, de->d_name, &v);
		if (r < 0)
			break;
		if (r == 0)
			continue;
		r = GREEDY_REALLOC(h->vfio_functions, n_alloc, h->n_vfio_functions + 1);
		if (r < 0) {
			free(v.address);
			free(v.host_bridge);
			strv_free(v.bridges);
			free(v.iommu_type);
			break;
		}
		h->vfio_functions[h->n_vfio_functions++] = v;
	}
	closedir(dir);
	if (h->n_vfio_functions > 1)
		qsort(h->vfio_functions, h->n_vfio_functions, sizeof(HostVfioFunction),
		      vfio_compare);
	return r < 0 ? r : 0;
}

int host_functions_observe(HostState *h, int rootfd, HostObserveFlags flags, const char *writing,
			   const char *writing_what) {
	_cleanup_(nl_socket_freep) struct nl_sock *rtnl = NULL, *genl = NULL;
	bool live = streq(h->root, "/");
	int family = -ENOTCONN, r;
	size_t n_alloc = 0;

	for (size_t i = 0; i < h->n_netdevs; i++) {
		r = function_add_netdev(h, rootfd, &h->netdevs[i], writing, writing_what, &n_alloc);
		if (r < 0)
			return r;
	}
	if (h->n_functions > 1)
		qsort(h->functions, h->n_functions, sizeof(HostFunction), function_compare);

	if ((flags & (HOST_OBSERVE_SRIOV | HOST_OBSERVE_DEVLINK)) && live) {
		(void) netlink_open(NETLINK_ROUTE, &rtnl); /* none: every function says so */
		r = netlink_open(NETLINK_GENERIC, &genl);
		if (r >= 0) {
			uint16_t id;

			r = devlink_family_resolve(genl, &id);
			family = r < 0 ? r : id;
		} else
			family = r;
	}
	for (size_t i = 0; i < h->n_functions; i++) {
		HostFunction *f = &h->functions[i];

		if (flags & HOST_OBSERVE_SRIOV) {
			/* the driver may hold the locks these take until the write ends */
			if (f->writing)
				f->vfs_error = f->eswitch_error = -EINPROGRESS;
			else if (live)
				function_observe_live(f, rtnl, genl, family);
			else
				f->vfs_error = f->eswitch_error = -ENOTCONN;
		}
		if (flags & HOST_OBSERVE_DEVLINK) {
			/* a reload, a mode change or a VF count holds the devlink instance's
			 * lock, and before Linux 6.8 a dump of parameters takes every
			 * instance's in turn: none is read while rdmad writes any function */
			if (f->writing || writing)
				f->params_error = -EINPROGRESS;
			else if (!live)
				f->params_error = -ENOTCONN;
			else if (family < 0)
				f->params_error = family;
			else
				f->params_error =
					devlink_params_read(genl, (uint16_t) family, f->bus,
							    f->name, &f->params, &f->n_params);
			f->params_observed = f->params_error == 0;
			/* what a reload would re-create: read only where one may be planned */
			f->ports_error = f->params_error;
			if (f->params_observed)
				f->ports_error =
					devlink_ports_read(genl, (uint16_t) family, f->bus, f->name,
							   &f->ports, &f->n_ports);
			f->ports_observed = f->ports_error == 0;
		}
		if (flags & HOST_OBSERVE_PCIE) {
			r = function_observe_pcie(h->root, f);
			if (r < 0)
				return r;
		}
	}
	if (flags & HOST_OBSERVE_PCIE) {
		host_pcie_peers_done(h);
		r = gpus_observe(h);
		if (r >= 0)
			r = vfio_functions_observe(h, rootfd);
		if (r < 0)
			return r;
	}
	return 0;
}
