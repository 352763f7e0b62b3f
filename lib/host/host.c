/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host model as a whole (one observation is put together by host-observer.c): its
 * lifetime, and the questions asked of it. */
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
	host_pcie_peers_done(h);
	soft_device_records_free(h->records, h->n_records);
	rail_records_free(h->rail_records, h->n_rail_records);
	acs_records_free(h->acs_records, h->n_acs_records);
	devlink_records_free(h->devlink_records, h->n_devlink_records);
	free(h->rail_rules);
	free(h->rail_routes);
	firewall_state_done(&h->firewall);
	free(h->firewall_error_message);
	strv_free(h->modules);
	free(h->root);
	free(h);
	return NULL;
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
	acs_records_free(h->acs_records, h->n_acs_records);
	h->acs_records = NULL;
	h->n_acs_records = 0;
	devlink_records_free(h->devlink_records, h->n_devlink_records);
	h->devlink_records = NULL;
	h->n_devlink_records = 0;
	r = soft_device_records_list(state_dir, &h->records, &h->n_records);
	if (r < 0)
		return r;
	r = rail_records_list(state_dir, &h->rail_records, &h->n_rail_records);
	if (r < 0)
		return r;
	r = acs_records_list(state_dir, &h->acs_records, &h->n_acs_records);
	if (r < 0)
		return r;
	return devlink_records_list(state_dir, &h->devlink_records, &h->n_devlink_records);
}

const DevlinkRecord *host_devlink_record_find(const HostState *h, const char *function) {
	for (size_t i = 0; function && i < h->n_devlink_records; i++)
		if (streq(h->devlink_records[i].function, function))
			return &h->devlink_records[i];
	return NULL;
}

const AcsRecord *host_acs_record_find(const HostState *h, const char *port) {
	for (size_t i = 0; port && i < h->n_acs_records; i++)
		if (streq(h->acs_records[i].port, port))
			return &h->acs_records[i];
	return NULL;
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
