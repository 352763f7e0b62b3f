/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host's GPUs and RDMA links, where each sits on PCIe, and the links nearest to each GPU
 * (pci-topology.h says how the paths are typed). Read from sysfs under a root and the
 * observed host; `rdmactl topology`, the preflight gpu family and the metrics print it. */

#include "host.h"
#include "pci-topology.h"

typedef struct TopologyLink {
	char *name;	    /* "mlx5_0/1" */
	const char *netdev; /* the port's, owned by the HostState; NULL: none */
	/* the PCI function it sits on: the device's, or for a software device (rxe) its
	 * netdev's; has_place false when there is none (a veth) or it could not be read */
	bool has_place;
	PciPlace place;
	PciAcsState *acs; /* of each of place.bridges */
	int error;	  /* -errno when the function could not be read, 0 otherwise */
} TopologyLink;

typedef struct TopologyGpu {
	PciPlace place;
	PciAcsState *acs; /* of each of place.bridges */
	int error;	  /* -errno when its place could not be read: no paths then */
	size_t *nearest;  /* indexes into Topology.links, best path first, then by name */
	size_t n_nearest;
	PciPathType nearest_path; /* _PCI_PATH_TYPE_INVALID: no link with a place */
} TopologyGpu;

typedef struct Topology {
	TopologyGpu *gpus;
	size_t n_gpus;
	TopologyLink *links;
	size_t n_links;
} Topology;

void topology_done(Topology *t);
/* The GPUs under root and the links of h (observed under the same root). -ENOMEM, or
 * -errno when the PCI devices cannot be listed; a function that cannot be read is an error
 * on its own entry. */
int topology_read(const char *root, const HostState *h, Topology *ret);
/* The topology as JSON: {"gpus": [...], "links": [...], "paths": [...]}, each GPU with its
 * nearest links, each device with its NUMA node, PCIe link and the ACS of the bridges above
 * it, and the path type of every GPU-link and link-link pair. -ENOMEM. */
typedef struct json_object json_object;
int topology_to_json(const Topology *t, json_object **ret);
/* The path type between GPU g and link l; _PCI_PATH_TYPE_INVALID when either has no place. */
PciPathType topology_path(const Topology *t, size_t g, size_t l);
/* For the daemon, which keeps the GPUs and asks per link as links come:
 * The NVIDIA GPUs under root and their places, sorted; one whose place cannot be read is left
 * out. None: *ret NULL, *ret_n 0. -ENOMEM, or -errno when the PCI devices cannot be listed. */
int topology_gpus_read(const char *root, PciPlace **ret, size_t *ret_n);
void topology_gpus_free(PciPlace *gpus, size_t n);
/* The place of the PCI function link (d, p) sits on, as topology_read() finds it. -ENOENT:
 * none (a veth); -ENOMEM; -errno of pci_place_read(). */
int topology_link_place(const char *root, const HostDevice *d, const HostPort *p, PciPlace *ret);
/* The GPUs nearest to a link at place, from the link's side: those at the best path type from
 * it, their addresses comma-joined ("0000:13:00.0,0000:14:00.0"); NULL when there is no GPU.
 * -ENOMEM. */
int topology_nearest_gpus(const PciPlace *gpus, size_t n_gpus, const PciPlace *place, char **ret);

/* The GPUs whose nearest links include link l, as a comma-separated list of their PCI
 * addresses (RDMA_NEAREST_GPUS); NULL for none. -ENOMEM. */
int topology_link_nearest_gpus(const Topology *t, size_t l, char **ret);
