/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The NVIDIA GPUs, for the links' RDMA_NEAREST_GPUS and Describe() (lib/host/topology.h):
 * read at start and at each reload, not at each reconcile, since GPUs come and go only with
 * a hot-plug. A link's nearest GPUs are read once, when its port first shows, and kept in its
 * status as an index into the distinct lists the host has (a handful: one per PCIe switch),
 * so that thousands of VFs cost two bytes each. A host without GPUs reads nothing per link. */
#include <stdlib.h>

#include "log.h"
#include "manager.h"
#include "strv.h"
#include "topology.h"

void manager_gpus_done(Manager *m) {
	topology_gpus_free(m->gpus, m->n_gpus);
	m->gpus = NULL;
	m->n_gpus = 0;
	strv_free(m->nearest_gpu_sets);
	m->nearest_gpu_sets = NULL;
}

static bool gpus_same(Manager *m, const PciPlace *gpus, size_t n) {
	if (n != m->n_gpus)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!streq(gpus[i].address, m->gpus[i].address))
			return false;
	return true;
}

int manager_gpus_read(Manager *m) {
	PciPlace *gpus = NULL;
	size_t n = 0;
	int r;

	r = topology_gpus_read(m->root, &gpus, &n);
	if (r < 0)
		return log_full_errno(LOG_WARNING, r, NULL, "Failed to list the GPUs");
	if (gpus_same(m, gpus, n)) {
		topology_gpus_free(gpus, n);
		return 0;
	}
	manager_gpus_done(m);
	m->gpus = gpus;
	m->n_gpus = n;
	/* every link's list is read again at its next observation */
	for (size_t i = 0; i < m->n_ports; i++)
		m->ports[i].nearest_gpus = NEAREST_GPUS_UNKNOWN;
	if (n > 0)
		log_info("%zu NVIDIA GPU%s: links publish their nearest (RDMA_NEAREST_GPUS).", n,
			 n == 1 ? "" : "s");
	return 1;
}

const char *manager_nearest_gpus(const Manager *m, const PortStatus *s) {
	if (s->nearest_gpus == 0 || s->nearest_gpus == NEAREST_GPUS_UNKNOWN ||
	    s->nearest_gpus > strv_length(m->nearest_gpu_sets))
		return NULL;
	return m->nearest_gpu_sets[s->nearest_gpus - 1];
}

int manager_port_nearest_gpus(Manager *m, const HostDevice *d, const HostPort *p,
			      const PortStatus *old, uint16_t *ret) {
	_cleanup_(pci_place_done) PciPlace place = { .numa_node = -1 };
	_cleanup_free_ char *list = NULL;
	size_t i;
	int r;

	if (m->n_gpus == 0) {
		*ret = 0;
		return 0;
	}
	if (old && old->nearest_gpus != NEAREST_GPUS_UNKNOWN) {
		*ret = old->nearest_gpus;
		return 0;
	}
	r = topology_link_place(m->root, d, p, &place);
	if (r == -ENOMEM)
		return r;
	if (r < 0) { /* not on PCI, or gone: no GPU is near */
		*ret = 0;
		return 0;
	}
	r = topology_nearest_gpus(m->gpus, m->n_gpus, &place, &list);
	if (r < 0)
		return r;
	for (i = 0; m->nearest_gpu_sets && m->nearest_gpu_sets[i]; i++)
		if (streq(m->nearest_gpu_sets[i], list))
			break;
	if (!m->nearest_gpu_sets || !m->nearest_gpu_sets[i]) {
		if (i + 1 >= NEAREST_GPUS_UNKNOWN)
			return -E2BIG;
		r = strv_extend(&m->nearest_gpu_sets, list);
		if (r < 0)
			return r;
	}
	*ret = (uint16_t) (i + 1);
	return 0;
}
