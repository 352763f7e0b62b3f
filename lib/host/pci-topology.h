/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where PCI functions sit, and the PCIe path between two of them, from sysfs alone: no NVML,
 * no GPU library, no config space (which needs root). `rdmactl topology` and the preflight gpu
 * family read GPUs and RDMA NICs with it.
 *
 * The path types are NCCL's and nvidia-smi's (`nvidia-smi topo -m`), best first:
 *   PIX   at most one PCIe switch between the two (or none: functions behind one port);
 *   PXB   several switches, without the host bridge;
 *   PHB   through the host bridge (the root complex) both hang off;
 *   NODE  across the host bridges of one NUMA node;
 *   SYS   across NUMA nodes (the SMP interconnect).
 * NCCL's default GPUDirect RDMA level (NCCL_NET_GDR_LEVEL) is PXB: from PHB on, a job moves
 * GPU memory through host memory instead.
 *
 * A switch, seen in a sysfs path, is two bridges: a downstream port and, above it, the
 * switch's upstream port. The ports above a function, nearest first, are therefore
 * downstream, upstream, downstream, upstream, ..., and then the root port below the host
 * bridge: the switches are the upstream ports, every second bridge from the second on. NCCL
 * groups a sysfs path the same way; port types from config space would say the same where
 * they can be read, but only root can read them. */

#include <stdbool.h>

#include "macro.h"
#include "string-table.h"

typedef enum PciPathType {
	PCI_PATH_PIX,
	PCI_PATH_PXB,
	PCI_PATH_PHB,
	PCI_PATH_NODE,
	PCI_PATH_SYS,
	_PCI_PATH_TYPE_MAX,
	_PCI_PATH_TYPE_INVALID = -EINVAL,
} PciPathType;
/* "PIX", "PXB", "PHB", "NODE", "SYS" */
DECLARE_STRING_TABLE_LOOKUP(pci_path_type, PciPathType)

/* A function's PCIe link, as sysfs shows it (current_link_speed, max_link_speed: "32.0 GT/s
 * PCIe"; current_link_width, max_link_width: lanes). NULL / 0: not readable (not PCI Express,
 * or a kernel that does not say). */
typedef struct PciLinkState {
	char *speed, *max_speed;
	unsigned width, max_width;
} PciLinkState;

/* Whether the link runs below what it could: fewer lanes, or a lower speed. A GPU lowers its
 * speed while idle to save power (and raises it under load), so a GPU's speed alone says
 * little; its width does not change. */
bool pci_link_narrower(const PciLinkState *l) _pure_;
bool pci_link_slower(const PciLinkState *l) _pure_;

typedef struct PciPlace {
	char *address;	   /* "0000:1b:00.0" */
	char *host_bridge; /* the root complex's sysfs directory: "pci0000:10" */
	char **bridges;	   /* the ports above it, nearest first (pci_upstream_bridges()) */
	int numa_node;	   /* -1: none known (the kernel says -1 on hosts without NUMA) */
	PciLinkState link;
} PciPlace;

void pci_place_done(PciPlace *p);
/* Where address sits under root. -EINVAL: not a PCI address; -ENOENT: no such function;
 * -ENOMEM. Unreadable attributes (numa_node, the link files) are "not known", not errors. */
int pci_place_read(const char *root, const char *address, PciPlace *ret);

/* The path type between a and b (no I/O). Two NUMA nodes of -1 are the same node. */
PciPathType pci_path_type(const PciPlace *a, const PciPlace *b) _pure_;
/* The bridges a transfer between a and b passes through without their nearest common
 * switch's upstream port (which peer-to-peer traffic turns at, unless ACS redirects it):
 * the ports where ACS could send it up instead. Below a common switch, the downstream ports
 * (and ports of nested switches) on both sides; with none in common, every bridge on both
 * sides, root ports included; behind one port (functions of one device), none. 0 and *ret an
 * allocated list, possibly empty, on every path type; -ENOMEM (*ret untouched). */
int pci_path_bridges(const PciPlace *a, const PciPlace *b, char ***ret);

/* The NVIDIA GPUs under root: PCI vendor 0x10de, class 0x0300xx (VGA) or 0x0302xx (3D
 * controller, as data-centre GPUs are), sorted by address. None: an allocated empty list. */
int pci_nvidia_gpus(const char *root, char ***ret);

/* What a bridge's ACS does to peer-to-peer traffic (pci_bridge_acs()). */
typedef enum PciAcsState {
	PCI_ACS_STATE_NONE,	  /* no ACS capability: P2P goes across */
	PCI_ACS_STATE_OFF,	  /* ACS, with P2P redirect and egress control off */
	PCI_ACS_STATE_REDIRECT,	  /* P2P Request/Completion Redirect or Egress Control on */
	PCI_ACS_STATE_UNKNOWN,	  /* config space past 64 bytes unreadable: needs root */
	PCI_ACS_STATE_UNREADABLE, /* no config space to read (gone, or a tree without it) */
	_PCI_ACS_STATE_MAX,
	_PCI_ACS_STATE_INVALID = -EINVAL,
} PciAcsState;
/* "none", "off", "p2p-redirect", "unknown (needs root)", "unreadable" */
DECLARE_STRING_TABLE_LOOKUP(pci_acs_state, PciAcsState)

/* The ACS state of the bridge at address, from its config space (pci-config.h). -errno when
 * the space cannot be read at all (-ENOENT: gone), or holds no sense (-EBADMSG). */
int pci_bridge_acs(const char *root, const char *address, PciAcsState *ret);
