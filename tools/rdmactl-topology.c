/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl topology: the NVIDIA GPUs and RDMA links, where each sits on PCIe, each GPU's
 * nearest links, and the path type between every GPU and link in nvidia-smi's terms
 * (lib/host/topology.h). Read from sysfs under --root; no NVML, no GPU library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "rdmactl.h"
#include "strv.h"
#include "topology.h"

static int fail(int r, const char *what) {
	fprintf(stderr, "rdmactl: %s: %s\n", what, strerror(-r));
	return EXIT_FAILURE;
}

/* "32.0 GT/s" of sysfs's "32.0 GT/s PCIe"; "?" unknown. */
static int speed_len(const char *s) {
	size_t n = s ? strlen(s) : 0;

	if (n > 5 && streq(s + n - 5, " PCIe"))
		n -= 5;
	return (int) n;
}

/* "32.0 GT/s x16", or "16.0 GT/s x8 of 32.0 GT/s x16" below what it could run at. */
static void pcie_cell(const PciLinkState *l, char *buf, size_t size) {
	char cur[48], max[48];

	if (!l->speed && l->width == 0) {
		snprintf(buf, size, "-");
		return;
	}
	snprintf(cur, sizeof(cur), "%.*s x%u", l->speed ? speed_len(l->speed) : 1,
		 l->speed ? l->speed : "?", l->width);
	snprintf(max, sizeof(max), "%.*s x%u", l->max_speed ? speed_len(l->max_speed) : 1,
		 l->max_speed ? l->max_speed : "?", l->max_width);
	if (pci_link_narrower(l) || pci_link_slower(l))
		snprintf(buf, size, "%s of %s", cur, max);
	else
		snprintf(buf, size, "%s", cur);
}

static void numa_cell(const PciPlace *p, char *buf, size_t size) {
	if (p->numa_node >= 0)
		snprintf(buf, size, "%d", p->numa_node);
	else
		snprintf(buf, size, "-");
}

/* The bridges above that redirect peer-to-peer traffic; "off" when none does. */
static char *acs_cell(const PciPlace *p, const PciAcsState *acs) {
	_cleanup_strv_free_ char **redirect = NULL;
	bool unknown = false, unreadable = false;
	char *s;

	for (size_t i = 0; p->bridges && p->bridges[i]; i++) {
		if (acs[i] == PCI_ACS_STATE_REDIRECT && strv_extend(&redirect, p->bridges[i]) < 0)
			return NULL;
		unknown |= acs[i] == PCI_ACS_STATE_UNKNOWN;
		unreadable |= acs[i] == PCI_ACS_STATE_UNREADABLE;
	}
	if (!p->bridges || !p->bridges[0])
		return strdup("no bridge");
	if (!redirect)
		return strdup(unknown ? "unknown (needs root)" : unreadable ? "unreadable" : "off");
	_cleanup_free_ char *joined = strv_join(redirect, ",");
	if (!joined || asprintf(&s, "p2p-redirect at %s", joined) < 0)
		return NULL;
	return s;
}

static int gpus_print(const Topology *t) {
	static const char *const headers[] = { "GPU",	    "ADDRESS", "NUMA", "PCIE",
					       "ACS ABOVE", "NEAREST", "PATH" };
	_cleanup_(table_freep) Table *tab = table_new(ELEMENTSOF(headers), headers);
	int r;

	if (!tab)
		return -ENOMEM;
	for (size_t g = 0; g < t->n_gpus; g++) {
		const TopologyGpu *gpu = &t->gpus[g];
		_cleanup_strv_free_ char **near = NULL;
		_cleanup_free_ char *joined = NULL, *acs = NULL;
		char name[32], numa[16], pcie[128];

		snprintf(name, sizeof(name), "GPU%zu", g);
		if (gpu->error < 0) {
			r = table_add_row(tab, (const char *const[]){ name, gpu->place.address,
								      NULL, strerror(-gpu->error),
								      NULL, NULL, NULL });
			if (r < 0)
				return r;
			continue;
		}
		numa_cell(&gpu->place, numa, sizeof(numa));
		pcie_cell(&gpu->place.link, pcie, sizeof(pcie));
		acs = acs_cell(&gpu->place, gpu->acs);
		for (size_t k = 0; k < gpu->n_nearest; k++)
			if (strv_extend(&near, t->links[gpu->nearest[k]].name) < 0)
				return -ENOMEM;
		joined = near ? strv_join(near, ",") : NULL;
		if (!acs || (near && !joined))
			return -ENOMEM;
		r = table_add_row(tab, (const char *const[]){
					       name, gpu->place.address, numa, pcie, acs, joined,
					       pci_path_type_to_string(gpu->nearest_path) });
		if (r < 0)
			return r;
	}
	return table_print(tab, stdout);
}

static int links_print(const Topology *t) {
	static const char *const headers[] = { "LINK", "NETDEV", "ADDRESS",
					       "NUMA", "PCIE",	 "ACS ABOVE" };
	_cleanup_(table_freep) Table *tab = table_new(ELEMENTSOF(headers), headers);
	int r;

	if (!tab)
		return -ENOMEM;
	for (size_t l = 0; l < t->n_links; l++) {
		const TopologyLink *link = &t->links[l];
		_cleanup_free_ char *acs = NULL;
		char numa[16], pcie[128];

		if (!link->has_place) {
			r = table_add_row(
				tab, (const char *const[]){ link->name, link->netdev,
							    link->error < 0 ? strerror(-link->error)
									    : "not on PCI",
							    NULL, NULL, NULL });
			if (r < 0)
				return r;
			continue;
		}
		numa_cell(&link->place, numa, sizeof(numa));
		pcie_cell(&link->place.link, pcie, sizeof(pcie));
		acs = acs_cell(&link->place, link->acs);
		if (!acs)
			return -ENOMEM;
		r = table_add_row(tab,
				  (const char *const[]){ link->name, link->netdev,
							 link->place.address, numa, pcie, acs });
		if (r < 0)
			return r;
	}
	return table_print(tab, stdout);
}

/* nvidia-smi topo -m's matrix: a row for each GPU and link, a column for each link. */
static int matrix_print(const Topology *t) {
	_cleanup_free_ const char **headers = calloc(t->n_links + 1, sizeof(char *));
	_cleanup_free_ const char **cells = calloc(t->n_links + 1, sizeof(char *));
	_cleanup_(table_freep) Table *tab = NULL;
	char name[32];
	int r;

	if (!headers || !cells)
		return -ENOMEM;
	headers[0] = "";
	for (size_t l = 0; l < t->n_links; l++)
		headers[l + 1] = t->links[l].name;
	tab = table_new(t->n_links + 1, headers);
	if (!tab)
		return -ENOMEM;
	for (size_t g = 0; g < t->n_gpus; g++) {
		snprintf(name, sizeof(name), "GPU%zu", g);
		cells[0] = name;
		for (size_t l = 0; l < t->n_links; l++)
			cells[l + 1] = pci_path_type_to_string(topology_path(t, g, l));
		r = table_add_row(tab, cells);
		if (r < 0)
			return r;
	}
	for (size_t a = 0; a < t->n_links; a++) {
		cells[0] = t->links[a].name;
		for (size_t b = 0; b < t->n_links; b++)
			cells[b + 1] = a == b ? "X"
				       : !t->links[a].has_place || !t->links[b].has_place
					       ? NULL
					       : pci_path_type_to_string(pci_path_type(
							 &t->links[a].place, &t->links[b].place));
		r = table_add_row(tab, cells);
		if (r < 0)
			return r;
	}
	return table_print(tab, stdout);
}

static const char legend[] =
	"Legend:\n"
	"  PIX   at most one PCIe switch between them\n"
	"  PXB   several PCIe switches, without the host bridge\n"
	"  PHB   through the PCIe host bridge (the CPU's root complex)\n"
	"  NODE  across the host bridges of one NUMA node\n"
	"  SYS   across NUMA nodes\n"
	"NCCL uses GPUDirect RDMA up to PXB by default (NCCL_NET_GDR_LEVEL).\n";

int verb_topology(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(topology_done) Topology t = { 0 };
	int r;

	(void) argc, (void) argv;
	r = host_observe(o->root, HOST_OBSERVE_DETAILS, &h);
	if (r < 0)
		return fail(r, "failed to read the host");
	r = topology_read(o->root, h, &t);
	if (r < 0)
		return fail(r, "failed to read the PCIe topology");
	if (o->json) {
		_cleanup_(json_object_putp) json_object *j = NULL;

		r = topology_to_json(&t, &j);
		if (r >= 0)
			r = json_print(j, stdout);
		return r < 0 ? fail(r, "topology") : EXIT_SUCCESS;
	}
	if (t.n_gpus == 0)
		printf("No NVIDIA GPU found.\n");
	else {
		r = gpus_print(&t);
		if (r < 0)
			return fail(r, "topology");
		putchar('\n');
	}
	if (t.n_links == 0)
		printf("No RDMA link found.\n");
	else {
		r = links_print(&t);
		if (r >= 0 && (t.n_gpus > 0 || t.n_links > 1)) {
			putchar('\n');
			r = matrix_print(&t);
			if (r >= 0)
				printf("\n%s", legend);
		}
		if (r < 0)
			return fail(r, "topology");
	}
	return EXIT_SUCCESS;
}
