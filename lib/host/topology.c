/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* GPUs, RDMA links and the links nearest to each GPU (topology.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "json-util.h"
#include "pci-config.h"
#include "strv.h"
#include "topology.h"

void topology_done(Topology *t) {
	if (!t)
		return;
	for (size_t i = 0; i < t->n_gpus; i++) {
		pci_place_done(&t->gpus[i].place);
		free(t->gpus[i].acs);
		free(t->gpus[i].nearest);
	}
	free(t->gpus);
	for (size_t i = 0; i < t->n_links; i++) {
		free(t->links[i].name);
		pci_place_done(&t->links[i].place);
		free(t->links[i].acs);
	}
	free(t->links);
	*t = (Topology){ 0 };
}

/* The PCI function nearest below netdev nd: the last PCI address in the real path of
 * <root>/sys/class/net/<nd>/device (a virtio NIC's netdev hangs off virtio0, below the PCI
 * function). NULL, and 0, when there is none (a veth). */
static int netdev_function(const char *root, const char *nd, char **ret) {
	_cleanup_strv_free_ char **components = NULL;
	_cleanup_free_ char *rel = NULL;
	const char *fn = NULL;
	int r;

	*ret = NULL;
	if (strchr(nd, '/') || streq(nd, "..") || streq(nd, "."))
		return 0;
	if (asprintf(&rel, "/sys/class/net/%s/device", nd) < 0)
		return -ENOMEM;
	r = sysfs_link_components(root, rel, &components);
	if (r < 0)
		return r == -ENOMEM ? r : 0;
	STRV_FOREACH (c, components)
		if (pci_address_valid(*c))
			fn = *c;
	if (fn && !(*ret = strdup(fn)))
		return -ENOMEM;
	return 0;
}

/* The PCI function a port's link sits on: its device's, else its netdev's (rxe on a NIC). */
static int link_function(const char *root, const HostDevice *d, const HostPort *p, char **ret) {
	const char *nd = p->netdev ? p->netdev : d->parent;

	if (d->pci)
		return (*ret = strdup(d->pci)) ? 0 : -ENOMEM;
	if (!nd) {
		*ret = NULL;
		return 0;
	}
	return netdev_function(root, nd, ret);
}

/* The ACS of each bridge above p; one whose config space cannot be read is unreadable. */
static int acs_read(const char *root, const PciPlace *p, PciAcsState **ret) {
	size_t n = strv_length(p->bridges);
	PciAcsState *a = calloc(n ? n : 1, sizeof(PciAcsState));

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (pci_bridge_acs(root, p->bridges[i], &a[i]) < 0)
			a[i] = PCI_ACS_STATE_UNREADABLE;
	*ret = a;
	return 0;
}

static int links_read(const char *root, const HostState *h, Topology *t) {
	size_t n = 0;
	int r;

	for (size_t i = 0; i < h->n_devices; i++)
		n += h->devices[i].n_ports;
	t->links = calloc(n ? n : 1, sizeof(TopologyLink));
	if (!t->links)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostDevice *d = &h->devices[i];
			const HostPort *p = &d->ports[k];
			TopologyLink *l = &t->links[t->n_links++];
			_cleanup_free_ char *fn = NULL;

			l->place.numa_node = -1;
			l->netdev = p->netdev;
			if (asprintf(&l->name, "%s/%u", d->name, p->port) < 0) {
				l->name = NULL;
				return -ENOMEM;
			}
			r = link_function(root, d, p, &fn);
			if (r < 0)
				return r;
			if (!fn)
				continue;
			r = pci_place_read(root, fn, &l->place);
			if (r == -ENOMEM)
				return r;
			l->has_place = r >= 0;
			l->error = r < 0 ? r : 0;
			if (l->has_place) {
				r = acs_read(root, &l->place, &l->acs);
				if (r < 0)
					return r;
			}
		}
	return 0;
}

PciPathType topology_path(const Topology *t, size_t g, size_t l) {
	if (g >= t->n_gpus || l >= t->n_links || t->gpus[g].error < 0 || !t->links[l].has_place)
		return _PCI_PATH_TYPE_INVALID;
	return pci_path_type(&t->gpus[g].place, &t->links[l].place);
}

/* The links at the GPU's best path type, in link order (by device name, then port). */
static int gpu_nearest(Topology *t, size_t g) {
	TopologyGpu *gpu = &t->gpus[g];
	PciPathType best = _PCI_PATH_TYPE_INVALID;

	for (size_t l = 0; l < t->n_links; l++) {
		PciPathType x = topology_path(t, g, l);

		if (x >= 0 && (best < 0 || x < best))
			best = x;
	}
	gpu->nearest_path = best;
	if (best < 0)
		return 0;
	gpu->nearest = calloc(t->n_links, sizeof(size_t));
	if (!gpu->nearest)
		return -ENOMEM;
	for (size_t l = 0; l < t->n_links; l++)
		if (topology_path(t, g, l) == best)
			gpu->nearest[gpu->n_nearest++] = l;
	return 0;
}

int topology_read(const char *root, const HostState *h, Topology *ret) {
	_cleanup_strv_free_ char **gpus = NULL;
	Topology t = { 0 };
	int r;

	r = pci_nvidia_gpus(root, &gpus);
	if (r < 0)
		return r;
	r = links_read(root, h, &t);
	if (r >= 0) {
		t.gpus = calloc(strv_length(gpus) + 1, sizeof(TopologyGpu));
		if (!t.gpus)
			r = -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && gpus[i]; i++) {
		TopologyGpu *gpu = &t.gpus[t.n_gpus++];

		gpu->error = pci_place_read(root, gpus[i], &gpu->place);
		if (gpu->error == -ENOMEM)
			r = -ENOMEM;
		else if (gpu->error >= 0)
			r = acs_read(root, &gpu->place, &gpu->acs);
		else if (gpu->error < 0) {
			/* keep the address, so that the error names it */
			gpu->place.address = strdup(gpus[i]);
			if (!gpu->place.address)
				r = -ENOMEM;
		}
	}
	for (size_t g = 0; r >= 0 && g < t.n_gpus; g++)
		r = gpu_nearest(&t, g);
	if (r < 0) {
		topology_done(&t);
		return r;
	}
	*ret = t;
	return 0;
}

int topology_link_nearest_gpus(const Topology *t, size_t l, char **ret) {
	_cleanup_strv_free_ char **l_gpus = NULL;
	char *s = NULL;
	int r;

	for (size_t g = 0; g < t->n_gpus; g++)
		for (size_t k = 0; k < t->gpus[g].n_nearest; k++)
			if (t->gpus[g].nearest[k] == l) {
				r = strv_extend(&l_gpus, t->gpus[g].place.address);
				if (r < 0)
					return r;
			}
	if (l_gpus) {
		s = strv_join(l_gpus, ",");
		if (!s)
			return -ENOMEM;
	}
	*ret = s;
	return 0;
}

static int place_json(json_object *o, const PciPlace *p, const PciAcsState *acs) {
	json_object *pcie, *bridges, *b;
	int r;

	r = json_add_string(o, "address", p->address);
	if (r >= 0)
		r = p->numa_node >= 0 ? json_add_int(o, "numa_node", p->numa_node)
				      : json_object_object_add(o, "numa_node", NULL);
	if (r >= 0)
		r = json_add_object(o, "pcie", &pcie);
	if (r >= 0)
		r = json_add_string(pcie, "speed", p->link.speed);
	if (r >= 0)
		r = json_add_string(pcie, "max_speed", p->link.max_speed);
	if (r >= 0)
		r = json_add_int(pcie, "width", p->link.width);
	if (r >= 0)
		r = json_add_int(pcie, "max_width", p->link.max_width);
	if (r >= 0)
		r = json_add_bool(pcie, "narrower", pci_link_narrower(&p->link));
	if (r >= 0)
		r = json_add_bool(pcie, "slower", pci_link_slower(&p->link));
	if (r >= 0)
		r = json_add_string(o, "host_bridge", p->host_bridge);
	if (r >= 0)
		r = json_add_array(o, "bridges", &bridges);
	for (size_t i = 0; r >= 0 && p->bridges && p->bridges[i]; i++) {
		r = json_add_object(bridges, NULL, &b);
		if (r >= 0)
			r = json_add_string(b, "address", p->bridges[i]);
		if (r >= 0)
			r = json_add_string(b, "acs", acs ? pci_acs_state_to_string(acs[i]) : NULL);
	}
	return r;
}

static int path_json(json_object *paths, const char *a, const char *b, PciPathType type) {
	json_object *o;
	int r;

	if (type < 0)
		return 0;
	r = json_add_object(paths, NULL, &o);
	if (r >= 0)
		r = json_add_string(o, "a", a);
	if (r >= 0)
		r = json_add_string(o, "b", b);
	if (r >= 0)
		r = json_add_string(o, "path", pci_path_type_to_string(type));
	return r;
}

int topology_to_json(const Topology *t, json_object **ret) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *gpus, *links, *paths, *x, *near;
	int r;

	if (!o)
		return -ENOMEM;
	r = json_add_array(o, "gpus", &gpus);
	for (size_t g = 0; r >= 0 && g < t->n_gpus; g++) {
		const TopologyGpu *gpu = &t->gpus[g];

		r = json_add_object(gpus, NULL, &x);
		if (r >= 0 && gpu->error < 0)
			r = json_add_string(x, "address", gpu->place.address);
		else if (r >= 0)
			r = place_json(x, &gpu->place, gpu->acs);
		if (r >= 0)
			r = json_add_string(x, "error",
					    gpu->error < 0 ? strerror(-gpu->error) : NULL);
		if (r >= 0)
			r = json_add_string(x, "nearest_path",
					    pci_path_type_to_string(gpu->nearest_path));
		if (r >= 0)
			r = json_add_array(x, "nearest", &near);
		for (size_t k = 0; r >= 0 && k < gpu->n_nearest; k++) {
			json_object *s = json_object_new_string(t->links[gpu->nearest[k]].name);

			r = s && json_object_array_add(near, s) >= 0 ? 0 : -ENOMEM;
		}
	}
	if (r >= 0)
		r = json_add_array(o, "links", &links);
	for (size_t l = 0; r >= 0 && l < t->n_links; l++) {
		const TopologyLink *link = &t->links[l];

		r = json_add_object(links, NULL, &x);
		if (r >= 0)
			r = json_add_string(x, "link", link->name);
		if (r >= 0)
			r = json_add_string(x, "netdev", link->netdev);
		if (r >= 0 && link->has_place)
			r = place_json(x, &link->place, link->acs);
		else if (r >= 0)
			r = json_add_string(x, "address", NULL);
		if (r >= 0)
			r = json_add_string(x, "error",
					    link->error < 0 ? strerror(-link->error) : NULL);
	}
	if (r >= 0)
		r = json_add_array(o, "paths", &paths);
	for (size_t g = 0; r >= 0 && g < t->n_gpus; g++)
		for (size_t l = 0; r >= 0 && l < t->n_links; l++)
			r = path_json(paths, t->gpus[g].place.address, t->links[l].name,
				      topology_path(t, g, l));
	for (size_t a = 0; r >= 0 && a < t->n_links; a++)
		for (size_t b = a + 1; r >= 0 && b < t->n_links; b++)
			if (t->links[a].has_place && t->links[b].has_place)
				r = path_json(
					paths, t->links[a].name, t->links[b].name,
					pci_path_type(&t->links[a].place, &t->links[b].place));
	if (r < 0)
		return r;
	*ret = TAKE_PTR(o);
	return 0;
}

void topology_gpus_free(PciPlace *gpus, size_t n) {
	for (size_t i = 0; i < n; i++)
		pci_place_done(&gpus[i]);
	free(gpus);
}

int topology_gpus_read(const char *root, PciPlace **ret, size_t *ret_n) {
	_cleanup_strv_free_ char **l = NULL;
	PciPlace *gpus;
	size_t n = 0;
	int r;

	r = pci_nvidia_gpus(root, &l);
	if (r < 0)
		return r;
	if (!l[0]) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	gpus = calloc(strv_length(l), sizeof(PciPlace));
	if (!gpus)
		return -ENOMEM;
	for (size_t i = 0; l[i]; i++) {
		r = pci_place_read(root, l[i], &gpus[n]);
		if (r == -ENOMEM) {
			topology_gpus_free(gpus, n);
			return r;
		}
		if (r >= 0)
			n++;
	}
	*ret = gpus;
	*ret_n = n;
	return 0;
}

int topology_link_place(const char *root, const HostDevice *d, const HostPort *p, PciPlace *ret) {
	_cleanup_free_ char *fn = NULL;
	int r;

	r = link_function(root, d, p, &fn);
	if (r < 0)
		return r;
	if (!fn)
		return -ENOENT;
	return pci_place_read(root, fn, ret);
}

int topology_nearest_gpus(const PciPlace *gpus, size_t n_gpus, const PciPlace *place, char **ret) {
	_cleanup_strv_free_ char **l = NULL;
	PciPathType best = _PCI_PATH_TYPE_INVALID;
	char *s = NULL;
	int r;

	for (size_t i = 0; i < n_gpus; i++) {
		PciPathType x = pci_path_type(place, &gpus[i]);

		if (best < 0 || x < best)
			best = x;
	}
	for (size_t i = 0; i < n_gpus; i++)
		if (pci_path_type(place, &gpus[i]) == best) {
			r = strv_extend(&l, gpus[i].address);
			if (r < 0)
				return r;
		}
	if (l && !(s = strv_join(l, ",")))
		return -ENOMEM;
	*ret = s;
	return 0;
}
