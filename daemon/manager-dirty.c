/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What events touched, turned into the devices a reconcile observes: the devices named, the
 * ports on the netdevs named and on the netdevs below them, or everything where only a full
 * pass can tell (a declared soft device, a PF with VFs, an unknown RDMA netdev). */
#include <stdlib.h>
#include <string.h>

#include "manager-dirty.h"
#include "strv.h"

/* Is name a soft device (links:), or the netdev of one, that some profile declares? Events
 * about those need host-level planning (create the device again), hence a full pass. */
static bool soft_device_declared(const Config *c, const char *name) {
	for (size_t i = 0; c && i < c->n_profiles; i++)
		for (size_t k = 0; k < c->profiles[i]->n_soft_devices; k++)
			if (streq(c->profiles[i]->soft_devices[k].name, name) ||
			    streq(c->profiles[i]->soft_devices[k].netdev, name))
				return true;
	return false;
}

typedef struct NetdevPort {
	const char *netdev, *device;
} NetdevPort;

static int netdev_port_compare(const void *a, const void *b) {
	return strcmp(((const NetdevPort *) a)->netdev, ((const NetdevPort *) b)->netdev);
}

/* The ports' netdevs, sorted: the ports on a netdev by a lookup, not a scan of the table per
 * netdev an event named (8,192 x 4,096 at scale). */
static int netdev_ports_sorted(const Manager *m, NetdevPort **ret, size_t *ret_n) {
	NetdevPort *l;
	size_t n = 0;

	l = calloc(m->n_ports ? m->n_ports : 1, sizeof(NetdevPort));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_ports; i++)
		if (m->ports[i].netdev)
			l[n++] = (NetdevPort){ .netdev = m->ports[i].netdev,
					       .device = m->ports[i].device };
	qsort(l, n, sizeof(NetdevPort), netdev_port_compare);
	*ret = l;
	*ret_n = n;
	return 0;
}

/* Turn what events touched into the devices to observe (d->resolved); d->all for everything. */
int dirty_resolve(const Manager *m, Dirty *d) {
	_cleanup_(strset_done) StrSet netdevs = { 0 };
	_cleanup_free_ NetdevPort *by_netdev = NULL;
	size_t n_by_netdev;
	int r;

	if (d->all)
		return 0;
	STRV_FOREACH (dev, d->devices.strv) {
		if (soft_device_declared(m->config, *dev)) {
			d->all = true;
			return 0;
		}
		r = strset_add(&d->resolved, *dev);
		if (r < 0)
			return r;
	}
	r = netdev_ports_sorted(m, &by_netdev, &n_by_netdev);
	if (r < 0)
		return r;
	/* The netdevs events named, then the ones below those no link sits on: an upper netdev
	 * (VLAN, macvlan, bond) puts its GIDs into the port below it, down through stacked ones
	 * (a VLAN on a bond). The set only grows by names not in it yet, so this ends. */
	STRV_FOREACH (nd, d->netdevs.strv) {
		r = strset_add(&netdevs, *nd);
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < netdevs.n; k++) {
		_cleanup_strv_free_ char **lowers = NULL;
		const char *nd = netdevs.strv[k];
		NetdevPort key = { .netdev = nd }, *at;
		bool known;

		if (soft_device_declared(m->config, nd)) {
			d->all = true;
			return 0;
		}
		at = bsearch(&key, by_netdev, n_by_netdev, sizeof(NetdevPort), netdev_port_compare);
		known = at;
		if (at) {
			while (at > by_netdev && streq(at[-1].netdev, nd))
				at--;
			for (; at < by_netdev + n_by_netdev && streq(at->netdev, nd); at++) {
				r = strset_add(&d->resolved, at->device);
				if (r < 0)
					return r;
			}
		}
		/* sriov.* and pci.* are planned on full passes. An event on a PF's netdev (a
		 * driver reload re-creating it, a VF changed by hand, which the kernel announces
		 * on the PF while it is up, the PF coming up after a change made while it was
		 * down, which it does not announce) is one; the VFs' own netdevs stay
		 * incremental. */
		if (config_declares_any(m->config, KEYS_SRIOV) &&
		    host_netdev_has_vfs(m->root, nd)) {
			d->all = true;
			return 0;
		}
		if (known)
			continue;
		/* a function that appeared (hot-plug, a driver bound, a devlink reload that
		 * re-created its ports) whose ACS, Device Control or devlink parameters a
		 * profile may declare */
		if (host_netdev_has_rdma(m->root, nd) ||
		    (config_declares_any(m->config, KEYS_PCI | KEYS_DEVLINK) &&
		     host_netdev_has_device(m->root, nd))) {
			/* A netdev of an RDMA device that no port was known on: renamed, or
			 * new. Which ports it belongs to is not known here: look at everything. */
			d->all = true;
			return 0;
		}
		r = host_netdev_lowers(m->root, nd, &lowers);
		if (r < 0)
			return r;
		STRV_FOREACH (l, lowers) {
			r = strset_add(&netdevs, *l);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

bool action_affected(const Dirty *d, const Action *a) {
	if (d->all || !a->device)
		return true; /* host actions are cheap to check and may be what an event enabled */
	return strset_contains(&d->devices, a->device) ||
	       (a->netdev && strset_contains(&d->netdevs, a->netdev));
}
