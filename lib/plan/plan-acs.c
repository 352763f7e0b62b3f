/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* pci.upstream-acs: the ACS Control bits of the PCIe ports on the peer-to-peer routes between a
 * function and its peers (the GPUs, and the other functions that declare it too), as
 * pci_path_bridges() finds them. off clears the P2P redirect bits (pci-config.h), refused on
 * a port whose ACS still isolates a function bound to vfio-pci; on sets again the bits rdmad
 * recorded clearing (acs-record.h). */
#include <linux/pci_regs.h>
#include <stdio.h>

#include "pci-config.h"
#include "pci-topology.h"
#include "plan-function.h"
#include "strv.h"

static const Action *bridge_action(const Plan *p, const char *address) {
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == KEY_PCI_UPSTREAM_ACS &&
		    streq_ptr(p->actions[i].value.name, address))
			return &p->actions[i];
	return NULL;
}

static bool bridge_planned(const Plan *p, const char *address) {
	return bridge_action(p, address) != NULL;
}

/* A port as the observer read it (above a function or a GPU), and what is above it: the next
 * port up, or (a root port) the root complex's directory. */
typedef struct PortRef {
	const PciBridgeState *state;
	const char *parent;
	bool parent_is_root_complex;
} PortRef;

static bool port_in(const PciBridgeState *l, size_t n, const char *host_bridge, const char *address,
		    PortRef *ret) {
	for (size_t i = 0; i < n; i++)
		if (streq_ptr(l[i].address, address)) {
			*ret = (PortRef){
				.state = &l[i],
				.parent = i + 1 < n ? l[i + 1].address : host_bridge,
				.parent_is_root_complex = i + 1 >= n,
			};
			return true;
		}
	return false;
}

static bool pcie_port_find(const HostState *h, const char *address, PortRef *ret) {
	for (size_t i = 0; i < h->n_functions; i++)
		if (port_in(h->functions[i].bridges, h->functions[i].n_bridges,
			    h->functions[i].host_bridge, address, ret))
			return true;
	for (size_t i = 0; i < h->n_gpus; i++)
		if (port_in(h->gpus[i].bridges, h->gpus[i].n_bridges, h->gpus[i].host_bridge,
			    address, ret))
			return true;
	return false;
}

/* The addresses of the ports in l, for pci_path_bridges(). */
static int port_names(const PciBridgeState *l, size_t n, char ***ret) {
	_cleanup_strv_free_ char **names = calloc(n + 1, sizeof(char *));

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		names[i] = strdup(l[i].address);
		if (!names[i])
			return -ENOMEM;
	}
	*ret = TAKE_PTR(names);
	return 0;
}

/* Add the ports between the function and one peer (pci_path_bridges()) to *route. */
static int route_add(char ***route, char **fn_ports, const char *fn, const PciBridgeState *peer,
		     size_t n_peer, const char *peer_address) {
	_cleanup_strv_free_ char **peer_ports = NULL, **between = NULL;
	PciPlace a = { .address = (char *) fn, .bridges = fn_ports, .numa_node = -1 };
	PciPlace b = { .address = (char *) peer_address, .numa_node = -1 };
	int r;

	r = port_names(peer, n_peer, &peer_ports);
	if (r < 0)
		return r;
	b.bridges = peer_ports;
	r = pci_path_bridges(&a, &b, &between);
	if (r < 0)
		return r;
	/* Behind one port (PIX), nothing lies between them; pci_path_bridges() then leaves
	 * between as it was (NULL here), or gives an empty list. */
	return strv_extend_strv(route, between, true);
}

/* The ports on the peer-to-peer routes between function fi and its peers: the GPUs, and the
 * other PCI functions whose profiles declare pci.upstream-acs mode too. In order, each once;
 * the number of peers in *ret_n_peers. */
int acs_route(const HostState *h, const AcsContext *acs, size_t fi, PciAcs mode, char ***ret,
	      size_t *ret_n_peers) {
	const HostFunction *f = &h->functions[fi];
	_cleanup_strv_free_ char **fn_ports = NULL, **route = calloc(1, sizeof(char *));
	size_t n = 0;
	int r;

	if (!route)
		return -ENOMEM;
	r = port_names(f->bridges, f->n_bridges, &fn_ports);
	if (r < 0)
		return r;
	for (size_t i = 0; i < h->n_gpus; i++, n++) {
		r = route_add(&route, fn_ports, f->name, h->gpus[i].bridges, h->gpus[i].n_bridges,
			      h->gpus[i].address);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; acs && i < h->n_functions; i++) {
		const HostFunction *g = &h->functions[i];

		if (i == fi || acs->modes[i] != mode || !streq(g->bus, "pci") ||
		    streq(g->name, f->name))
			continue;
		r = route_add(&route, fn_ports, f->name, g->bridges, g->n_bridges, g->name);
		if (r < 0)
			return r;
		n++;
	}
	*ret = TAKE_PTR(route);
	*ret_n_peers = n;
	return 0;
}

/* Whether the IOMMU isolates v: it has a group with a domain. The kernel made the group with
 * ACS as it was at boot; vfio hands the group to a VM (or a user-space driver) on the strength
 * of it, and attaches a translating domain of its own whatever the group's default type (DMA,
 * DMA-FQ, or identity under iommu=pt). "unknown" is a group without a domain: vfio's no-IOMMU
 * mode, which isolates nothing. */
static bool vfio_isolated(const HostVfioFunction *v) {
	return v->iommu_group >= 0 && !streq_ptr(v->iommu_type, "unknown");
}

/* A function bound to vfio-pci, isolated by the IOMMU, whose isolation clearing ACS on port
 * would undo: one below the port's parent (the switch it is a port of, or the root complex of a
 * root port). Below the port itself, it could reach its siblings past the IOMMU; below a
 * sibling, what is below the port could reach it. How many there are in *ret_n. */
static const HostVfioFunction *acs_isolates(const HostState *h, const PortRef *port,
					    size_t *ret_n) {
	const HostVfioFunction *first = NULL;
	size_t n = 0;

	for (size_t i = 0; i < h->n_vfio_functions; i++) {
		const HostVfioFunction *v = &h->vfio_functions[i];
		bool below;

		if (!vfio_isolated(v))
			continue;
		if (!port->parent)
			below = strv_contains(v->bridges, port->state->address);
		else if (port->parent_is_root_complex)
			below = streq_ptr(v->host_bridge, port->parent);
		else
			below = strv_contains(v->bridges, port->parent);
		if (!below)
			continue;
		if (!first)
			first = v;
		n++;
	}
	*ret_n = n;
	return first;
}

/* A port another function's off planned first: its one action serves both. Where it is refused,
 * it is refused for this function too, so that this one's status rows do not read converged
 * (no action of its own) while the port keeps its ACS. A refusal is never applied: no second
 * write. */
static int acs_port_refused_too(Plan *p, const PlanFunction *pf, const Action *first) {
	_cleanup_free_ char *cur = NULL, *des = NULL, *why = NULL, *name = NULL;

	if (!first->unsupported || streq_ptr(first->function, pf->handle))
		return 0;
	/* copies: adding an action may move the plan's actions */
	cur = first->current ? strdup(first->current) : NULL;
	des = strdup(first->desired);
	why = strdup(first->unsupported);
	name = strdup(first->value.name);
	if ((first->current && !cur) || !des || !why || !name)
		return -ENOMEM;
	return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, cur, des, why,
			    &(ActionValue){ .name = name });
}

static int acs_port_off(Plan *p, const PlanFunction *pf, const char *address) {
	const HostVfioFunction *v;
	const PciBridgeState *b;
	const Action *first;
	char cur[64], des[64], why[512], more[48] = "";
	PortRef port;
	uint16_t want;
	size_t n;

	first = bridge_action(p, address);
	if (first)
		return acs_port_refused_too(p, pf, first);
	if (!pcie_port_find(pf->host, address, &port))
		return 0;
	b = port.state;
	if (b->error < 0) {
		snprintf(des, sizeof(des), "%s ACS off", b->address);
		snprintf(why, sizeof(why), "port %s: %s", b->address,
			 pcie_reason(b->error, cur, sizeof(cur)));
		return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, NULL, des, why,
				    &(ActionValue){ .name = (char *) b->address });
	}
	if (!b->has_acs ||
	    (b->port_type != PCI_EXP_TYPE_ROOT_PORT && b->port_type != PCI_EXP_TYPE_DOWNSTREAM))
		return 0; /* nothing to clear there */
	want = pci_acs_ctrl_p2p_off(b->acs_cap, b->acs_ctrl);
	if (want == b->acs_ctrl)
		return 0;
	snprintf(cur, sizeof(cur), "%s ACSCtl 0x%04x", b->address, b->acs_ctrl);
	snprintf(des, sizeof(des), "%s ACSCtl 0x%04x", b->address, want);
	v = acs_isolates(pf->host, &port, &n);
	if (v) {
		if (n > 1)
			snprintf(more, sizeof(more), " (and %zu more)", n - 1);
		snprintf(why, sizeof(why),
			 "port %s: %s%s is bound to vfio-pci in IOMMU group %d (%s), which the "
			 "kernel formed with this ACS on and does not form again: cleared now, "
			 "vfio would go on trusting an isolation that no longer holds. Clear it "
			 "at boot: pci=disable_acs_redir=%s on the kernel command line",
			 b->address, v->address, more, v->iommu_group,
			 v->iommu_type ? v->iommu_type : "type not readable", b->address);
		return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, cur, des, why,
				    &(ActionValue){ .name = (char *) b->address });
	}
	return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, cur, des, NULL,
			    &(ActionValue){ .number = want, .name = (char *) b->address });
}

/* on: the bits rdmad recorded clearing there set again (apply-function.c), unless another
 * function's off clears that port in this plan. */
static int acs_port_on(Plan *p, const PlanFunction *pf, const char *address) {
	const AcsRecord *rec = host_acs_record_find(pf->host, address);
	const PciBridgeState *b;
	char cur[64], des[64], why[160];
	PortRef port;
	uint16_t want;

	if (!rec || (pf->acs && strv_contains(pf->acs->off_ports, address)) ||
	    bridge_planned(p, address) || !pcie_port_find(pf->host, address, &port))
		return 0;
	b = port.state;
	snprintf(des, sizeof(des), "%s ACS as before rdmad", b->address);
	if (b->error < 0) {
		snprintf(why, sizeof(why), "port %s: %s", b->address,
			 pcie_reason(b->error, cur, sizeof(cur)));
		return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, NULL, des, why,
				    &(ActionValue){ .name = (char *) b->address, .flag = true });
	}
	if (!b->has_acs)
		return 0;
	want = b->acs_ctrl | rec->cleared;
	if (want == b->acs_ctrl)
		return 0;
	snprintf(cur, sizeof(cur), "%s ACSCtl 0x%04x", b->address, b->acs_ctrl);
	snprintf(des, sizeof(des), "%s ACSCtl 0x%04x", b->address, want);
	return function_add(
		p, pf, KEY_PCI_UPSTREAM_ACS, cur, des, NULL,
		&(ActionValue){ .number = want, .name = (char *) b->address, .flag = true });
}

/* off: on the ports where it changes the peer-to-peer route between the function and its
 * peers (acs_route(): the GPUs, and the other functions that declare off), stop redirecting
 * peer-to-peer requests and completions upstream (pci-config.h says which ACS Control bits).
 * One action per port that needs it, each naming the port; a port shared by several functions
 * once (a refusal for each of them: acs_port_refused_too()). on: put back what rdmad cleared
 * on those ports and the ones above the function. */
int rule_upstream_acs(Plan *p, const PlanFunction *pf) {
	_cleanup_strv_free_ char **route = NULL;
	PciAcs mode = pf->settings->pci_upstream_acs;
	const char *word = pci_acs_to_string(mode);
	char why[160];
	size_t n_peers;
	int r;

	if (mode == PCI_ACS_KEEP)
		return 0;
	if (!streq(pf->f->bus, "pci"))
		return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, NULL, word, "not a PCI function",
				    NULL);
	if (pf->f->n_bridges == 0 && pf->f->pcie_error < 0) /* the ports above are not known */
		return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, NULL, word,
				    pcie_reason(pf->f->pcie_error, why, sizeof(why)), NULL);
	r = acs_route(pf->host, pf->acs, (size_t) (pf->f - pf->host->functions), mode, &route,
		      &n_peers);
	if (r < 0)
		return r;
	if (mode == PCI_ACS_OFF) {
		if (n_peers == 0)
			return function_add(p, pf, KEY_PCI_UPSTREAM_ACS, NULL, word,
					    "no peer-to-peer route to shorten: no GPU on this host "
					    "and no other function declares pci.upstream-acs: off",
					    NULL);
		STRV_FOREACH (port, route) {
			r = acs_port_off(p, pf, *port);
			if (r < 0)
				return r;
		}
		return 0;
	}
	for (size_t i = 0; i < pf->f->n_bridges; i++) {
		r = strv_extend_strv(&route, (char *[]){ pf->f->bridges[i].address, NULL }, true);
		if (r < 0)
			return r;
	}
	STRV_FOREACH (port, route) {
		r = acs_port_on(p, pf, *port);
		if (r < 0)
			return r;
	}
	return 0;
}
