/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the function-level rules share (plan-function.c, and plan-acs.c for pci.upstream-acs). */

#include "plan-internal.h"

/* What pci.upstream-acs needs across functions, worked out before any is planned: the mode
 * each function declares (h->functions' order; PCI_ACS_KEEP where none), and the ports some
 * function's off clears, which no on puts back in the same plan. */
typedef struct AcsContext {
	PciAcs *modes;
	char **off_ports;
} AcsContext;

/* One function and what its profiles declare. */
typedef struct PlanFunction {
	const HostState *host;
	const HostFunction *f;
	const PortSettings *settings;
	const PlanPort *plink; /* the RDMA port on its netdev, NULL if none */
	const AcsContext *acs;
	char handle[96]; /* "pci/0000:03:00.0" */
	bool vfs_made;	 /* this plan writes sriov.vfs: the VFs below the count are made anew */
} PlanFunction;

/* Add an action of pf for key (strings copied); v NULL for an unsupported one. */
int function_add(Plan *p, const PlanFunction *pf, Key key, const char *current, const char *desired,
		 const char *unsupported, const ActionValue *v);
/* Why a config space cannot be read, for an unsupported action (in buf, or a constant). */
const char *pcie_reason(int error, char *buf, size_t size);

/* The VFs of f in use, each with what holds it, after what: "<what> destroys the VFs in use:
 * VF 0000:03:00.2 is bound to vfio-pci (...); VF ...". NULL in *ret when none is. At most 4
 * are named, then how many more. A VF is in use while it is bound to vfio-pci, has its netdev
 * in another network namespace, or has it up with an address (plan-function.c). */
int vfs_in_use(const HostState *h, const HostFunction *f, const char *what, char **ret);

/* plan-devlink.c: devlink.params and devlink.reload of pf. */
int rule_devlink(Plan *p, const PlanFunction *pf);

/* plan-acs.c */
/* The ports on the peer-to-peer routes between function fi of h and its peers: the GPUs, and
 * the other PCI functions acs->modes says declare mode (none when acs is NULL). In order, each
 * once; how many peers in *ret_n_peers. */
int acs_route(const HostState *h, const AcsContext *acs, size_t fi, PciAcs mode, char ***ret,
	      size_t *ret_n_peers);
/* pci.upstream-acs of pf (plan-acs.c). */
int rule_upstream_acs(Plan *p, const PlanFunction *pf);
