/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The gpu family: is GPUDirect RDMA possible here, and will NCCL use it? What NCCL decides
 * from sysfs and procfs at a job's start, and says only in its debug log:
 *   gpu.driver    the NVIDIA kernel module, open or proprietary, its version;
 *   gpu.gdr       a path for GPU memory into the NIC: peer memory (nvidia_peermem) or dma-buf
 *                 (the open module, kernel 5.12 or later, a provider with dma-buf MRs);
 *   gpu.nic-path  each GPU's nearest RDMA link and the PCIe path type between them;
 *   gpu.acs       ACS redirecting peer-to-peer traffic on a bridge between them;
 *   gpu.iommu     the IOMMU translating it.
 * On a host without an NVIDIA GPU, one ok row. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fileio.h"
#include "preflight.h"
#include "strv.h"
#include "topology.h"

#define GDR_FIX                                                                                    \
	"use NVIDIA's open kernel module (dma-buf, kernel 5.12 or later), or load nvidia_peermem " \
	"(modules: [nvidia_peermem] in a profile; it needs MLNX_OFED's peer memory API)"

int nvidia_version_parse(const char *line, bool *ret_open, char **ret_version) {
	static const char prefix[] = "NVRM version: NVIDIA UNIX ";
	const char *p, *v;
	size_t n;

	if (!line || strncmp(line, prefix, strlen(prefix)) != 0)
		return -EBADMSG;
	p = line + strlen(prefix);
	/* "x86_64 Kernel Module  535.154.05  ..." or "Open Kernel Module for x86_64  580.95.05" */
	v = strstr(p, "Kernel Module");
	if (!v)
		return -EBADMSG;
	v += strlen("Kernel Module");
	if (strncmp(v, " for ", 5) == 0)
		v += strcspn(v + 5, " ") + 5;
	v += strspn(v, " ");
	n = strspn(v, "0123456789.");
	if (n == 0)
		return -EBADMSG;
	*ret_version = strndup(v, n);
	if (!*ret_version)
		return -ENOMEM;
	*ret_open = strncmp(p, "Open ", 5) == 0;
	return 0;
}

typedef struct GpuDriver {
	bool loaded, open;
	char *version;
} GpuDriver;

static int check_driver(Preflight *p, const PreflightInput *in, GpuDriver *ret) {
	_cleanup_free_ char *path = root_path(in->root, "/proc/driver/nvidia/version");
	_cleanup_free_ char *line = NULL;
	int r;

	if (!path)
		return -ENOMEM;
	r = read_line_at(AT_FDCWD, path, &line);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return preflight_add(p, "gpu.driver", "host", PREFLIGHT_FAIL,
				     "install and load NVIDIA's kernel module (nvidia-open)",
				     "no NVIDIA kernel module: /proc/driver/nvidia/version: %s",
				     strerror(-r));
	r = nvidia_version_parse(line, &ret->open, &ret->version);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return preflight_add(p, "gpu.driver", "host", PREFLIGHT_WARN, NULL,
				     "/proc/driver/nvidia/version reads \"%.64s\", not a version "
				     "line this check knows",
				     line);
	ret->loaded = true;
	return preflight_add(p, "gpu.driver", "host", PREFLIGHT_OK, NULL,
			     "NVIDIA %s kernel module %s", ret->open ? "open" : "proprietary",
			     ret->version);
}

static bool exists_under(const char *root, const char *path) {
	_cleanup_free_ char *p = root_path(root, path);
	struct stat st;

	return p && stat(p, &st) >= 0;
}

/* "6.1.0-28-amd64" at least major.minor. */
static bool kernel_at_least(const char *root, unsigned major, unsigned minor) {
	_cleanup_free_ char *path = root_path(root, "/proc/sys/kernel/osrelease");
	_cleanup_free_ char *s = NULL;
	unsigned a, b;

	if (!path || read_line_at(AT_FDCWD, path, &s) < 0 || sscanf(s, "%u.%u", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

/* The RDMA providers with dma-buf MRs in the kernel, by driver, where the verbs library cannot
 * be asked (another root): mlx5 since 5.12, efa since 5.15, bnxt_re since 6.6. */
static bool driver_has_dmabuf(const char *driver) {
	return driver &&
	       (streq(driver, "mlx5_core") || streq(driver, "efa") || streq(driver, "bnxt_en"));
}

static int check_gdr(Preflight *p, const PreflightInput *in, const GpuDriver *drv) {
	_cleanup_strv_free_ char **dmabuf = NULL;
	const char *peer = exists_under(in->root, "/sys/kernel/mm/memory_peers/nv_mem/version")
				   ? "nv_mem peer memory client"
			   : exists_under(in->root, "/sys/kernel/mm/memory_peers/nv_mem_nc/version")
				   ? "nv_mem_nc peer memory client"
			   : exists_under(in->root, "/sys/module/nvidia_peermem")
				   ? "nvidia_peermem loaded"
				   : NULL;
	bool kernel_ok = kernel_at_least(in->root, 5, 12);
	int r;

	if (peer)
		return preflight_add(p, "gpu.gdr", "host", PREFLIGHT_OK, NULL, "peer memory: %s",
				     peer);
	/* dma-buf: the open module exports GPU memory as dma-bufs, the provider imports them */
	for (size_t i = 0; drv->open && kernel_ok && i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];
		const VerbsDevice *v = verbs_facts_find(in->verbs, d->name);
		bool yes = v && v->dmabuf >= 0 ? v->dmabuf > 0 : driver_has_dmabuf(d->driver);

		if (yes) {
			r = strv_extend(&dmabuf, d->name);
			if (r < 0)
				return r;
		}
	}
	if (dmabuf) {
		_cleanup_free_ char *joined = strv_join(dmabuf, ",");

		if (!joined)
			return -ENOMEM;
		return preflight_add(p, "gpu.gdr", "host", PREFLIGHT_OK, NULL,
				     "dma-buf: the open kernel module, and dma-buf MRs on %s (%s)",
				     joined, in->verbs ? "probed as NCCL does" : "by driver");
	}
	return preflight_add(p, "gpu.gdr", "host", PREFLIGHT_FAIL, GDR_FIX,
			     "no path for GPU memory into the NIC: no peer memory (nvidia_peermem "
			     "not loaded), and no dma-buf (%s)",
			     !drv->loaded ? "no NVIDIA kernel module"
			     : !drv->open ? "the proprietary kernel module exports none"
			     : !kernel_ok ? "kernel older than 5.12"
					  : "no RDMA provider here registers dma-buf MRs");
}

static const char *gpu_nearest_netdev(const Topology *t, const TopologyGpu *g) {
	for (size_t k = 0; k < g->n_nearest; k++)
		if (t->links[g->nearest[k]].netdev)
			return t->links[g->nearest[k]].netdev;
	return NULL;
}

static int check_nic_path(Preflight *p, const Topology *t, const TopologyGpu *g) {
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *joined = NULL;
	PciPathType x = g->nearest_path;

	if (g->error < 0)
		return preflight_add(p, "gpu.nic-path", g->place.address, PREFLIGHT_WARN, NULL,
				     "where the GPU sits cannot be read: %s", strerror(-g->error));
	if (x < 0)
		return preflight_add(p, "gpu.nic-path", g->place.address, PREFLIGHT_WARN, NULL,
				     "no RDMA link on PCI to pair it with");
	for (size_t k = 0; k < g->n_nearest; k++)
		if (strv_extend(&names, t->links[g->nearest[k]].name) < 0)
			return -ENOMEM;
	joined = strv_join(names, ",");
	if (!joined)
		return -ENOMEM;
	if (x <= PCI_PATH_PXB)
		return preflight_add(p, "gpu.nic-path", g->place.address, PREFLIGHT_OK, NULL,
				     "nearest %s: %s", joined, pci_path_type_to_string(x));
	return preflight_add(p, "gpu.nic-path", g->place.address, PREFLIGHT_WARN,
			     "put a NIC under the GPU's PCIe switch, or raise NCCL_NET_GDR_LEVEL "
			     "knowing that the traffic crosses the host bridge",
			     "nearest %s: %s; NCCL's default GPUDirect RDMA level stops at PXB, so "
			     "jobs on this GPU move data through host memory",
			     joined, pci_path_type_to_string(x));
}

static int check_acs(Preflight *p, const PreflightInput *in, const Topology *t,
		     const TopologyGpu *g) {
	_cleanup_strv_free_ char **redirect = NULL, **unknown = NULL;
	_cleanup_free_ char *fix = NULL, *joined = NULL;
	const char *netdev = gpu_nearest_netdev(t, g);
	size_t n_bridges = 0;
	int r;

	if (g->error < 0 || g->n_nearest == 0)
		return 0; /* gpu.nic-path says why */
	/* Across the host bridge, traffic goes up through the root complex whatever ACS says:
	 * root ports redirect by default with an IOMMU, and that is gpu.nic-path's matter. */
	if (g->nearest_path > PCI_PATH_PXB)
		return preflight_add(p, "gpu.acs", g->place.address, PREFLIGHT_OK, NULL,
				     "not judged: its nearest links are across the host bridge "
				     "(gpu.nic-path), where ACS changes no route");
	for (size_t k = 0; k < g->n_nearest; k++) {
		const TopologyLink *l = &t->links[g->nearest[k]];
		_cleanup_strv_free_ char **bridges = NULL;

		r = pci_path_bridges(&g->place, &l->place, &bridges);
		if (r < 0)
			return r;
		for (size_t i = 0; bridges[i]; i++) {
			PciAcsState s;

			n_bridges++;
			if (pci_bridge_acs(in->root, bridges[i], &s) < 0)
				s = PCI_ACS_STATE_UNREADABLE;
			if (s == PCI_ACS_STATE_REDIRECT && !strv_contains(redirect, bridges[i]))
				r = strv_extend(&redirect, bridges[i]);
			else if (s >= PCI_ACS_STATE_UNKNOWN && !strv_contains(unknown, bridges[i]))
				r = strv_extend(&unknown, bridges[i]);
			if (r < 0)
				return r;
		}
	}
	if (redirect) {
		joined = strv_join(redirect, ",");
		if (!joined ||
		    asprintf(&fix,
			     "pci: {upstream-acs: off} in a profile matching %s (or setpci -s "
			     "BRIDGE ECAP_ACS+0x6.w=0000 on %s)",
			     netdev ? netdev : "the NIC", joined) < 0)
			return -ENOMEM;
		return preflight_add(
			p, "gpu.acs", g->place.address, PREFLIGHT_FAIL, fix,
			"ACS redirects peer-to-peer traffic to the root complex at %s, "
			"between the GPU and its nearest links",
			joined);
	}
	if (unknown) {
		joined = strv_join(unknown, ",");
		if (!joined)
			return -ENOMEM;
		return preflight_add(p, "gpu.acs", g->place.address, PREFLIGHT_WARN,
				     "run rdmactl preflight as root",
				     "ACS of %s unknown (needs root to read config space)", joined);
	}
	if (n_bridges == 0)
		return preflight_add(p, "gpu.acs", g->place.address, PREFLIGHT_OK, NULL,
				     "no bridge between it and its nearest links");
	return preflight_add(p, "gpu.acs", g->place.address, PREFLIGHT_OK, NULL,
			     "no P2P redirect on the %zu bridges to its nearest links", n_bridges);
}

/* The IOMMU group's type of address: "identity", "DMA", "DMA-FQ"; NULL: none. */
static int iommu_type(const char *root, const char *address, char **ret) {
	_cleanup_free_ char *rel = NULL, *path = NULL;
	int r;

	if (asprintf(&rel, "/sys/bus/pci/devices/%s/iommu_group/type", address) < 0)
		return -ENOMEM;
	path = root_path(root, rel);
	if (!path)
		return -ENOMEM;
	r = read_line_at(AT_FDCWD, path, ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		*ret = NULL;
	return 0;
}

static int check_iommu(Preflight *p, const PreflightInput *in, const Topology *t,
		       const TopologyGpu *g) {
	_cleanup_strv_free_ char **translated = NULL;
	_cleanup_free_ char *joined = NULL;
	const char *who[1 + 64];
	size_t n = 0;
	int r;

	if (g->error < 0)
		return 0;
	who[n++] = g->place.address;
	for (size_t k = 0; k < g->n_nearest && n < ELEMENTSOF(who); k++)
		who[n++] = t->links[g->nearest[k]].place.address;
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ char *type = NULL, *s = NULL;

		r = iommu_type(in->root, who[i], &type);
		if (r < 0)
			return r;
		if (type && !streq(type, "identity") && !strv_contains(translated, who[i])) {
			if (asprintf(&s, "%s (%s)", who[i], type) < 0)
				return -ENOMEM;
			r = strv_extend(&translated, s);
			if (r < 0)
				return r;
		}
	}
	if (!translated)
		return preflight_add(p, "gpu.iommu", g->place.address, PREFLIGHT_OK, NULL,
				     "no IOMMU translation for the GPU and its nearest links");
	joined = strv_join(translated, ", ");
	if (!joined)
		return -ENOMEM;
	return preflight_add(p, "gpu.iommu", g->place.address, PREFLIGHT_WARN,
			     "iommu=pt on the kernel command line (identity domains for DMA), "
			     "where the host needs no DMA isolation",
			     "the IOMMU translates the DMA of %s: peer-to-peer transfers are "
			     "translated, or sent up to the root complex",
			     joined);
}

int preflight_gpu(Preflight *p, const PreflightInput *in) {
	_cleanup_(topology_done) Topology read = { 0 };
	const Topology *t = in->topology;
	GpuDriver drv = { 0 };
	int r;

	if (!t) {
		r = topology_read(in->root, in->host, &read);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return preflight_add(p, "gpu.topology", "host", PREFLIGHT_WARN, NULL,
					     "the PCI devices cannot be listed: %s", strerror(-r));
		t = &read;
	}
	if (t->n_gpus == 0)
		return preflight_add(p, "gpu.driver", "host", PREFLIGHT_OK, NULL,
				     "no NVIDIA GPU on this host");
	r = check_driver(p, in, &drv);
	if (r >= 0)
		r = check_gdr(p, in, &drv);
	for (size_t g = 0; r >= 0 && g < t->n_gpus; g++) {
		r = check_nic_path(p, t, &t->gpus[g]);
		if (r >= 0)
			r = check_acs(p, in, t, &t->gpus[g]);
		if (r >= 0)
			r = check_iommu(p, in, t, &t->gpus[g]);
	}
	free(drv.version);
	return r;
}
