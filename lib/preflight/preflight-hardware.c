/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hardware checks: for each PCI network function, the driver bound to it, the RDMA driver
 * that goes with that driver and the RDMA device it made, and the PCIe link; across the RDMA
 * devices of one model, their firmware. Soft-RoCE and siw devices have no PCI function and get
 * no rows here.
 *
 * A NIC for which no RDMA driver is known (virtio_net, e1000e, igb) is not a failure of RDMA
 * readiness: most hosts have such a NIC next to their RDMA ones, and "not ready" for it would
 * hide the rows that matter. It is an ok row saying so, unless a profile matches it: then the
 * admin expects RDMA there, and it is a warning (with Soft-RoCE as the way to get it). */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fileio.h"
#include "pci-config.h"
#include "pci-topology.h"
#include "plan.h"
#include "preflight.h"
#include "strv.h"

#define PCI_CLASS_ETHERNET   0x0200
#define PCI_CLASS_INFINIBAND 0x0207

typedef struct RdmaDriver {
	const char *driver; /* bound to the PCI function (the netdev's driver) */
	const char *module; /* the RDMA driver for it */
	const char *only;   /* when it covers only some of that driver's NICs, which */
} RdmaDriver;

static const RdmaDriver rdma_drivers[] = {
	{ "mlx5_core", "mlx5_ib", NULL },
	{ "mlx4_core", "mlx4_ib", NULL },
	{ "ice", "irdma", NULL },
	{ "i40e", "irdma", "if X722" },
	{ "bnxt_en", "bnxt_re", NULL },
	{ "qede", "qedr", NULL },
	{ "hns3", "hns_roce_hw_v2", NULL },
	{ "erdma", "erdma", NULL },
	{ "mana", "mana_ib", NULL },
	{ "ionic", "ionic_rdma", NULL },
	{ "cxgb4", "iw_cxgb4", NULL },
	/* These bind the PCI function themselves: the PCI driver is the RDMA driver. */
	{ "efa", "efa", NULL },
	{ "vmw_pvrdma", "vmw_pvrdma", NULL },
	{ "hfi1", "hfi1", NULL },
};

/* Drivers that take a function away from the host's network stack (to a VM or a user-space
 * driver): no RDMA device is expected on this host for it. */
static const char *const passthrough_drivers[] = {
	"vfio-pci",
	"pci-stub",
	"uio_pci_generic",
	"igb_uio",
};

static const RdmaDriver *rdma_driver_find(const char *driver) {
	for (size_t i = 0; driver && i < ELEMENTSOF(rdma_drivers); i++)
		if (streq(rdma_drivers[i].driver, driver))
			return &rdma_drivers[i];
	return NULL;
}

static bool passthrough_driver(const char *driver) {
	for (size_t i = 0; i < ELEMENTSOF(passthrough_drivers); i++)
		if (streq(passthrough_drivers[i], driver))
			return true;
	return false;
}

/* The functions whose devices may do RDMA: Ethernet and InfiniBand controllers, and any other
 * network function whose driver is an RDMA one (PVRDMA is "network, other"). */
static bool function_considered(const HostPciFunction *f) {
	uint32_t subclass = f->class >> 8;

	return subclass == PCI_CLASS_ETHERNET || subclass == PCI_CLASS_INFINIBAND ||
	       rdma_driver_find(f->driver);
}

static bool function_wanted(const PreflightInput *in, const HostPciFunction *f) {
	if (!in->links)
		return true;
	STRV_FOREACH (nd, f->netdevs)
		if (strv_contains(in->links, *nd))
			return true;
	for (size_t i = 0; i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];

		if (!streq_ptr(d->pci, f->address))
			continue;
		for (size_t k = 0; k < d->n_ports; k++)
			if (preflight_wants_port(in, d, &d->ports[k]))
				return true;
	}
	return false;
}

/* The first profile whose match keys pick this function (its driver, address, a netdev). */
static const Profile *function_profile(const PreflightInput *in, const HostPciFunction *f) {
	for (size_t i = 0; in->config && i < in->config->n_profiles; i++) {
		const Profile *p = in->config->profiles[i];
		PortFacts facts = { .driver = f->driver, .pci = f->address };

		if (!(p->settings.set & KEYS_MATCH))
			continue; /* "every RDMA link" says nothing about hardware */
		if (!f->netdevs && profile_matches(p, &facts))
			return p;
		STRV_FOREACH (nd, f->netdevs) {
			facts.netdev = *nd;
			if (profile_matches(p, &facts))
				return p;
		}
	}
	return NULL;
}

static int check_driver_bound(Preflight *p, const HostPciFunction *f) {
	_cleanup_free_ char *fix = NULL;

	if (f->driver)
		return preflight_add(p, "hardware.driver-bound", f->address, PREFLIGHT_OK, NULL,
				     "bound to %s%s", f->driver,
				     passthrough_driver(f->driver)
					     ? ": handed to a VM or a user-space driver, not to "
					       "this host's network stack"
					     : "");
	/* modprobe resolves the function's modalias through modules.alias to its driver. */
	if (asprintf(&fix, "modprobe $(cat /sys/bus/pci/devices/%s/modalias)", f->address) < 0)
		return -ENOMEM;
	if (f->virtual_function)
		/* VFs are often left unbound on purpose (sriov_drivers_autoprobe=0), for VMs. */
		return preflight_add(p, "hardware.driver-bound", f->address, PREFLIGHT_WARN, fix,
				     "virtual function with no driver bound (left for a VM?)");
	return preflight_add(p, "hardware.driver-bound", f->address, PREFLIGHT_FAIL, fix,
			     "no driver bound: it has no netdev and no RDMA device");
}

static int check_rdma_driver(Preflight *p, const PreflightInput *in, const HostPciFunction *f,
			     const RdmaDriver *rd) {
	_cleanup_free_ char *fix = NULL;
	const Profile *profile;

	if (rd)
		return preflight_add(p, "hardware.rdma-driver", f->address, PREFLIGHT_OK, NULL,
				     "%s's RDMA driver is %s%s%s%s", f->driver, rd->module,
				     rd->only ? " (" : "", strempty(rd->only), rd->only ? ")" : "");
	profile = function_profile(in, f);
	if (!profile)
		return preflight_add(p, "hardware.rdma-driver", f->address, PREFLIGHT_OK, NULL,
				     "not RDMA-capable (%s): no RDMA driver known for %s",
				     f->driver, f->driver);
	if (f->netdevs &&
	    asprintf(&fix, "Soft-RoCE: `links: [{name: rxe0, type: rxe, netdev: %s}]` in a profile",
		     f->netdevs[0]) < 0)
		return -ENOMEM;
	return preflight_add(p, "hardware.rdma-driver", f->address, PREFLIGHT_WARN, fix,
			     "profile %s matches it, but no RDMA driver is known for %s",
			     profile->name, f->driver);
}

static int check_rdma_device(Preflight *p, const PreflightInput *in, const HostPciFunction *f,
			     const RdmaDriver *rd) {
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_free_ char *list = NULL, *fix = NULL;
	int r;

	for (size_t i = 0; i < in->host->n_devices; i++)
		if (streq_ptr(in->host->devices[i].pci, f->address)) {
			r = strv_extend(&names, in->host->devices[i].name);
			if (r < 0)
				return r;
		}
	if (names) {
		list = strv_join(names, ", ");
		if (!list)
			return -ENOMEM;
		return preflight_add(p, "hardware.rdma-device", f->address, PREFLIGHT_OK, NULL,
				     "RDMA device %s", list);
	}
	if (!host_module_loaded(in->host, rd->module)) {
		if (asprintf(&fix, "modprobe %s, or `modules: [%s]` in a profile", rd->module,
			     rd->module) < 0)
			return -ENOMEM;
		return preflight_add(p, "hardware.rdma-device", f->address, PREFLIGHT_FAIL, fix,
				     "no RDMA device: %s is not loaded", rd->module);
	}
	if (rd->only)
		return preflight_add(p, "hardware.rdma-device", f->address, PREFLIGHT_WARN, NULL,
				     "no RDMA device: %s is loaded, and drives %s NICs only %s",
				     rd->module, f->driver, rd->only);
	if (asprintf(&fix, "dmesg | grep %s (the driver says why)", f->address) < 0)
		return -ENOMEM;
	return preflight_add(p, "hardware.rdma-device", f->address, PREFLIGHT_FAIL, fix,
			     "no RDMA device: %s is loaded but made none for it", rd->module);
}

/* "16.0 GT/s PCIe", "8 GT/s": the rate; false for "Unknown" (and anything else). */
static bool link_speed_parse(const char *s, double *ret) {
	char *end;
	double v;

	v = strtod(s, &end);
	if (end == s || v <= 0 || strncmp(end, " GT/s", 5) != 0)
		return false;
	*ret = v;
	return true;
}

static bool link_width_parse(const char *s, unsigned *ret) {
	char *end;
	unsigned long v;

	v = strtoul(s, &end, 10);
	if (end == s || *end || v == 0 || v > 32)
		return false;
	*ret = (unsigned) v;
	return true;
}

/* The port above the function (a root port, or a switch's downstream port): the other end of
 * its link. Its max_link_speed and max_link_width into port_speed, port_width; false when
 * there is none or it does not say. */
static bool port_max_read(const char *root, int devicesfd, const char *address, char *port,
			  size_t port_size, char *port_speed, size_t speed_size,
			  unsigned *port_width) {
	_cleanup_(pci_place_done) PciPlace place = { .numa_node = -1 };
	char width[16], path[300];

	if (pci_place_read(root, address, &place) < 0 || !place.bridges || !place.bridges[0])
		return false;
	snprintf(port, port_size, "%s", place.bridges[0]);
	snprintf(path, sizeof(path), "%s/max_link_speed", port);
	if (read_small_at(devicesfd, path, port_speed, speed_size) < 0)
		return false;
	snprintf(path, sizeof(path), "%s/max_link_width", port);
	return read_small_at(devicesfd, path, width, sizeof(width)) >= 0 &&
	       link_width_parse(width, port_width);
}

/* The PCIe link against what both its ends can do: the device's maximum, and the maximum of
 * the port above it (a Gen5 card in a Gen4 slot trains at Gen4, and qemu's x1 endpoints sit
 * under root ports that offer x32: neither is degraded). VFs have no link of their own (and
 * no such files), nor have many emulated functions: no row for them. */
static int check_pcie_link(Preflight *p, const PreflightInput *in, int devicesfd,
			   const HostPciFunction *f) {
	char cur_speed[64], max_speed[64], cur_width[16], max_width[16], path[300];
	char port[64] = "", port_speed[64] = "", cap_speed[64];
	_cleanup_free_ char *fix = NULL, *limit = NULL;
	double cs, ms, ps;
	unsigned cw, mw, pw = 0, cap_width;

	if (f->virtual_function)
		return 0;
#define READ_ATTR(buf, name)                                   \
	(snprintf(path, sizeof(path), "%s/" name, f->address), \
	 read_small_at(devicesfd, path, buf, sizeof(buf)) >= 0)
	if (!READ_ATTR(cur_speed, "current_link_speed") ||
	    !READ_ATTR(max_speed, "max_link_speed") ||
	    !READ_ATTR(cur_width, "current_link_width") || !READ_ATTR(max_width, "max_link_width"))
		return 0;
#undef READ_ATTR
	if (!link_speed_parse(cur_speed, &cs) || !link_speed_parse(max_speed, &ms) ||
	    !link_width_parse(cur_width, &cw) || !link_width_parse(max_width, &mw))
		return preflight_add(p, "hardware.pcie-link", f->address, PREFLIGHT_OK, NULL,
				     "cannot be judged: the kernel says %s x%s, the device can do "
				     "%s x%s (Unknown: the link is down or not reported)",
				     cur_speed, cur_width, max_speed, max_width);
	/* the lower of the two ends; a port that does not say limits nothing */
	snprintf(cap_speed, sizeof(cap_speed), "%s", max_speed);
	cap_width = mw;
	if (port_max_read(in->root, devicesfd, f->address, port, sizeof(port), port_speed,
			  sizeof(port_speed), &pw)) {
		if (link_speed_parse(port_speed, &ps) && ps + 0.05 < ms) {
			snprintf(cap_speed, sizeof(cap_speed), "%s", port_speed);
			ms = ps;
		}
		if (pw < cap_width)
			cap_width = pw;
		if (!streq(cap_speed, max_speed) || cap_width < mw)
			if (asprintf(&limit, " (its port %s allows %s x%u)", port, cap_speed,
				     cap_width) < 0)
				return -ENOMEM;
	}
	if (cs + 0.05 < ms || cw < cap_width) {
		if (asprintf(&fix,
			     "a slot that gives %s x%u (the BIOS's PCIe settings, the riser); "
			     "lspci -vv -s %s shows LnkSta",
			     cap_speed, cap_width, f->address) < 0)
			return -ENOMEM;
		return preflight_add(p, "hardware.pcie-link", f->address, PREFLIGHT_WARN, fix,
				     "PCIe link degraded: %s x%u, the device can do %s x%u%s",
				     cur_speed, cw, max_speed, mw, strempty(limit));
	}
	if (limit)
		return preflight_add(
			p, "hardware.pcie-link", f->address, PREFLIGHT_OK, NULL,
			"%s x%u, the most its port %s allows (the device can do %s x%u)", cur_speed,
			cw, port, max_speed, mw);
	return preflight_add(p, "hardware.pcie-link", f->address, PREFLIGHT_OK, NULL,
			     "%s x%u, the device's maximum", cur_speed, cw);
}

static int check_function(Preflight *p, const PreflightInput *in, int devicesfd,
			  const HostPciFunction *f) {
	const RdmaDriver *rd = rdma_driver_find(f->driver);
	int r;

	r = check_driver_bound(p, f);
	if (r >= 0 && f->driver && !passthrough_driver(f->driver))
		r = check_rdma_driver(p, in, f, rd);
	if (r >= 0 && rd)
		r = check_rdma_device(p, in, f, rd);
	/* The link matters for RDMA throughput: not for a plain NIC (nor one handed away),
	 * whose slot is no business of this check. */
	if (r >= 0 && (rd || !f->driver))
		r = check_pcie_link(p, in, devicesfd, f);
	return r;
}

typedef struct Model {
	char id[32];	/* "15b3:101d" */
	char **devices; /* "mlx5_0 22.36.1010" */
	char *first_fw; /* the first device's version (points into the HostState) */
	bool differ;	/* some device runs another */
	bool wanted;	/* one of its devices is asked about */
} Model;

/* "15b3:101d" from the function's vendor and device files ("0x15b3"). */
static bool model_id(int devicesfd, const char *address, char *buf, size_t size) {
	char vendor[16], device[16], path[300];

	snprintf(path, sizeof(path), "%s/vendor", address);
	if (read_small_at(devicesfd, path, vendor, sizeof(vendor)) < 6)
		return false;
	snprintf(path, sizeof(path), "%s/device", address);
	if (read_small_at(devicesfd, path, device, sizeof(device)) < 6)
		return false;
	snprintf(buf, size, "%s:%s", vendor + 2, device + 2);
	return true;
}

static bool device_wanted(const PreflightInput *in, const HostDevice *d) {
	for (size_t k = 0; k < d->n_ports; k++)
		if (preflight_wants_port(in, d, &d->ports[k]))
			return true;
	return !in->links;
}

/* Firmware across the RDMA devices of one PCI model: cards of one model running different
 * versions behave differently (and some features need the same on both ends of a bond). */
static int check_firmware(Preflight *p, const PreflightInput *in, int devicesfd) {
	Model *models = NULL;
	size_t n_models = 0, n_alloc = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];
		char id[32], *entry;
		Model *m = NULL;

		if (!d->pci || !d->fw_ver || !model_id(devicesfd, d->pci, id, sizeof(id)))
			continue;
		for (size_t k = 0; k < n_models; k++)
			if (streq(models[k].id, id))
				m = &models[k];
		if (!m) {
			r = GREEDY_REALLOC(models, n_alloc, n_models + 1);
			if (r < 0)
				break;
			m = &models[n_models++];
			*m = (Model){ .first_fw = d->fw_ver };
			snprintf(m->id, sizeof(m->id), "%s", id);
		}
		m->differ |= !streq(m->first_fw, d->fw_ver);
		m->wanted |= device_wanted(in, d);
		if (asprintf(&entry, "%s %s", d->name, d->fw_ver) < 0)
			r = -ENOMEM;
		else
			r = strv_consume(&m->devices, entry);
	}
	for (size_t k = 0; r >= 0 && k < n_models; k++) {
		_cleanup_free_ char *list = NULL;
		const Model *m = &models[k];

		if (!m->wanted)
			continue;
		list = strv_join(m->devices, ", ");
		if (!list) {
			r = -ENOMEM;
			break;
		}
		if (m->differ)
			r = preflight_add(
				p, "hardware.firmware", m->id, PREFLIGHT_WARN,
				"flash one firmware version on every device of this model "
				"(the vendor's tool: mlxfwmanager for ConnectX)",
				"devices of one model run different firmware: %s", list);
		else
			r = preflight_add(p, "hardware.firmware", m->id, PREFLIGHT_OK, NULL,
					  "one firmware on every device of this model: %s", list);
	}
	for (size_t k = 0; k < n_models; k++)
		strv_free(models[k].devices);
	free(models);
	return r;
}

/* Whether an action before x is also a refusal of pci.upstream-acs on x's port: the plan
 * repeats a port's refusal for each function whose route has it (plan-acs.c). */
static bool acs_port_said(const Plan *plan, size_t x) {
	for (size_t i = 0; i < x; i++) {
		const Action *a = &plan->actions[i];

		if (a->key == KEY_PCI_UPSTREAM_ACS && a->unsupported && a->current &&
		    streq_ptr(a->value.name, plan->actions[x].value.name))
			return true;
	}
	return false;
}

/* pci.upstream-acs: off on a port whose ACS still isolates a function bound to vfio-pci: the
 * kernel formed the IOMMU groups with ACS on and does not form them again, so the planner
 * refuses to clear it at runtime (plan-acs.c). Said here from the plan itself, with the
 * boot-time way, once per port: the refused actions of the key are those with a current value
 * (the ones whose port cannot be read have none). */
static int check_acs_vfio(Preflight *p, const PreflightInput *in) {
	_cleanup_(plan_freep) Plan *plan = NULL;
	int r;

	r = plan_compute(in->config, in->host, &plan);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	for (size_t i = 0; i < plan->n_actions; i++) {
		const Action *x = &plan->actions[i];
		_cleanup_free_ char *fix = NULL;

		if (x->key != KEY_PCI_UPSTREAM_ACS || !x->unsupported || !x->current ||
		    !x->value.name || acs_port_said(plan, i))
			continue;
		if (asprintf(&fix,
			     "clear it at boot: pci=disable_acs_redir=%s on the kernel command "
			     "line; "
			     "or keep ACS there (pci: {upstream-acs: keep})",
			     x->value.name) < 0)
			return -ENOMEM;
		r = preflight_add(p, "hardware.acs-vfio", x->value.name, PREFLIGHT_WARN, fix,
				  "pci.upstream-acs: off for %s is refused: %s", x->function,
				  x->unsupported);
		if (r < 0)
			return r;
	}
	return 0;
}

int preflight_hardware(Preflight *p, const PreflightInput *in) {
	_cleanup_close_ int rootfd = -EBADF, devicesfd = -EBADF;
	int r;

	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0)
		devicesfd =
			openat(rootfd, "sys/bus/pci/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/* Without it, the functions' own files are not there: no link or model rows. */
	for (size_t i = 0; i < in->host->n_pci_functions; i++) {
		const HostPciFunction *f = &in->host->pci_functions[i];

		if (!function_considered(f) || !function_wanted(in, f))
			continue;
		r = check_function(p, in, devicesfd, f);
		if (r < 0)
			return r;
	}
	if (in->config) {
		r = check_acs_vfio(p, in);
		if (r < 0)
			return r;
	}
	r = check_firmware(p, in, devicesfd);
	if (r < 0)
		return r;
	if (in->device_health)
		return preflight_device_health(p, in, in->device_health);
	if (streq(in->root, "/")) { /* devlink has no root: only this host's */
		_cleanup_(device_health_done) DeviceHealth h = { 0 };

		r = device_health_read(&h);
		if (r < 0)
			return r;
		return preflight_device_health(p, in, &h);
	}
	return 0;
}
