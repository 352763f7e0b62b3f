/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host model as a whole: one observation puts together what host-sysfs.c (RDMA devices),
 * host-netdev.c, host-netlink.c (rtnetlink, RDMA netlink), host-dcb.c, host-modules.c and
 * host-pci.c read. */
#include <fcntl.h>
#include <sys/stat.h>

#include "fileio.h"
#include "host-internal.h"
#include "strv.h"

HostState *host_state_free(HostState *h) {
	if (!h)
		return NULL;
	for (size_t i = 0; i < h->n_devices; i++)
		host_device_done(&h->devices[i]);
	free(h->devices);
	free(h->hostname);
	for (size_t i = 0; i < h->n_netdevs; i++)
		host_netdev_done(&h->netdevs[i]);
	free(h->netdevs);
	for (size_t i = 0; i < h->n_pci_functions; i++)
		host_pci_function_done(&h->pci_functions[i]);
	free(h->pci_functions);
	for (size_t i = 0; i < h->n_functions; i++)
		host_function_done(&h->functions[i]);
	free(h->functions);
	soft_device_records_free(h->records, h->n_records);
	rail_records_free(h->rail_records, h->n_rail_records);
	free(h->rail_rules);
	free(h->rail_routes);
	firewall_state_done(&h->firewall);
	free(h->firewall_error_message);
	strv_free(h->modules);
	free(h->root);
	free(h);
	return NULL;
}

int host_observe(const char *root, HostObserveFlags flags, HostState **ret) {
	return host_observe_devices_only(root, flags, NULL, ret);
}

int host_observe_devices_only(const char *root, HostObserveFlags flags, char *const *devices,
			      HostState **ret) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	int r;

	if (!root)
		root = "/";
	h = calloc(1, sizeof(HostState));
	if (!h)
		return -ENOMEM;
	h->root = strdup(root);
	if (!h->root)
		return -ENOMEM;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	h->partial = devices != NULL;
	if (flags & HOST_OBSERVE_DETAILS) {
		struct stat st;

		r = read_line_at(rootfd, "proc/sys/kernel/hostname", &h->hostname);
		if (r == -ENOMEM)
			return r;
		h->rdma_ndd_running = fstatat(rootfd,
					      "run/systemd/units/invocation:rdma-ndd.service", &st,
					      AT_SYMLINK_NOFOLLOW) >= 0;
	}

	r = host_devices_observe(h, rootfd, flags, devices);
	if (r < 0)
		return r;
	if (flags & (HOST_OBSERVE_NETDEVS | HOST_OBSERVE_ADDRESSES | HOST_OBSERVE_DCB |
		     HOST_OBSERVE_RAILS | HOST_OBSERVE_SRIOV | HOST_OBSERVE_PCIE)) {
		r = host_netdevs_observe(h, rootfd);
		if (r < 0)
			return r;
		/* A fixture's ifindexes are another namespace's: never address anything by them.
		 * rtnetlink gives the live ones below. */
		if (!streq(root, "/"))
			for (size_t i = 0; i < h->n_netdevs; i++)
				h->netdevs[i].ifindex = 0;
	}
	if (flags & HOST_OBSERVE_ADDRESSES) {
		/* Not fatal: a host without rtnetlink access still has everything else. */
		(void) host_addresses_observe(h);
	}
	if (flags & HOST_OBSERVE_RAILS) {
		r = host_rails_observe(h);
		if (r < 0)
			return r;
	}
	if (flags & HOST_OBSERVE_FIREWALL) {
		r = host_firewall_observe(h);
		if (r < 0)
			return r;
	}
	if (flags & HOST_OBSERVE_DCB) {
		r = host_dcb_observe(h);
		if (r < 0)
			return r;
	}
	if ((flags & HOST_OBSERVE_SYSTEM) && streq(root, "/"))
		(void) host_netns_mode_observe(h); /* unknown stays unknown: the plan says so */
	if ((flags & HOST_OBSERVE_COUNTERS) && streq(root, "/")) {
		r = host_hw_counters_observe(h);
		if (r < 0)
			return r;
	}
	if (flags & HOST_OBSERVE_MODULES) {
		r = host_modules_observe(h, rootfd);
		if (r < 0)
			return r;
	}
	if ((flags & (HOST_OBSERVE_SRIOV | HOST_OBSERVE_PCIE)) && !h->partial) {
		r = host_functions_observe(h, rootfd, flags);
		if (r < 0)
			return r;
	}
	if ((flags & HOST_OBSERVE_PCI) && !h->partial) {
		r = host_pci_observe(h, rootfd);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(h);
	return 0;
}

void host_port_facts(const HostDevice *d, const HostPort *p, PortFacts *ret) {
	*ret = (PortFacts){
		.device = d->name,
		.driver = d->driver,
		.netdev = p->netdev,
		.pci = d->pci,
		.port = p->port,
	};
}

int host_records_observe(HostState *h, const char *state_dir) {
	int r;

	soft_device_records_free(h->records, h->n_records);
	h->records = NULL;
	h->n_records = 0;
	rail_records_free(h->rail_records, h->n_rail_records);
	h->rail_records = NULL;
	h->n_rail_records = 0;
	r = soft_device_records_list(state_dir, &h->records, &h->n_records);
	if (r < 0)
		return r;
	return rail_records_list(state_dir, &h->rail_records, &h->n_rail_records);
}

const RailRecord *host_rail_record_find(const HostState *h, const char *netdev) {
	for (size_t i = 0; netdev && i < h->n_rail_records; i++)
		if (streq(h->rail_records[i].netdev, netdev))
			return &h->rail_records[i];
	return NULL;
}

const SoftDeviceRecord *host_record_find(const HostState *h, const char *name) {
	for (size_t i = 0; name && i < h->n_records; i++)
		if (streq(h->records[i].name, name))
			return &h->records[i];
	return NULL;
}

/* A PCI function's netdevs, or one netdev's parent: does p match on those facts? */
static bool facts_match(const Profile *p, const char *driver, const char *pci,
			char *const *netdevs) {
	PortFacts f = { .driver = driver, .pci = pci };

	if (!netdevs || !netdevs[0])
		return profile_matches(p, &f);
	STRV_FOREACH (nd, netdevs) {
		f.netdev = *nd;
		if (profile_matches(p, &f))
			return true;
	}
	return false;
}

bool host_hardware_matches(const HostState *h, const Profile *p) {
	if (!(p->settings.set & KEYS_MATCH))
		return false;
	for (size_t i = 0; i < h->n_pci_functions; i++) {
		const HostPciFunction *f = &h->pci_functions[i];

		if (facts_match(p, f->driver, f->address, f->netdevs))
			return true;
	}
	/* Netdevs on no PCI function (virtio-net, veth, a Soft-RoCE candidate). */
	for (size_t i = 0; i < h->n_netdevs; i++) {
		const HostNetdev *n = &h->netdevs[i];
		char *const one[] = { n->name, NULL };

		if (!n->pci && facts_match(p, n->driver, NULL, one))
			return true;
	}
	return false;
}
