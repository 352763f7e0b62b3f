/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <infiniband/verbs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "verbs-gids.h"
#include "verbs-util.h"

typedef struct PortTable {
	Gid *gids;
	size_t n_gids;
} PortTable;

static void port_tables_free(PortTable *t, size_t n) {
	for (size_t i = 0; t && i < n; i++)
		free(t[i].gids);
	free(t);
}

static int entry_compare(const void *a, const void *b) {
	const struct ibv_gid_entry *x = a, *y = b;

	if (x->port_num != y->port_num)
		return x->port_num < y->port_num ? -1 : 1;
	return x->gid_index < y->gid_index ? -1 : x->gid_index > y->gid_index;
}

int verbs_gid_from_entry(const struct ibv_gid_entry *e, LinkLayer ll, Gid *ret) {
	Gid g = { .index = e->gid_index };

	memcpy(g.raw, e->gid.raw, sizeof(g.raw));
	if (gid_is_zero(g.raw))
		return 0;
	switch (e->gid_type) {
	case IBV_GID_TYPE_IB:
	case IBV_GID_TYPE_ROCE_V1:
		g.type = ll == LINK_LAYER_INFINIBAND ? GID_TYPE_IB : GID_TYPE_ROCE_V1;
		break;
	case IBV_GID_TYPE_ROCE_V2:
		g.type = GID_TYPE_ROCE_V2;
		break;
	default:
		return -EINVAL;
	}
	if (e->ndev_ifindex != 0 && !if_indextoname(e->ndev_ifindex, g.netdev))
		return -ENXIO;
	*ret = g;
	return 1;
}

/* d's tables from one ibv_query_gid_table(), sized by the ports' gid_tbl_len: 1 when it
 * answered (d's tables replaced), 0 when it could not (d unchanged), -ENOMEM. */
static int device_query(struct ibv_device *dev, HostDevice *d) {
	_cleanup_(ibv_close_devicep) struct ibv_context *c = NULL;
	_cleanup_free_ struct ibv_gid_entry *entries = NULL;
	PortTable *tables = NULL;
	struct ibv_device_attr attr;
	size_t max_entries = 0, n, k = 0;
	ssize_t r;

	c = ibv_open_device(dev);
	if (!c || ibv_query_device(c, &attr) != 0)
		return 0;
	for (unsigned port = 1; port <= attr.phys_port_cnt; port++) {
		struct ibv_port_attr pa;

		if (ibv_query_port(c, (uint8_t) port, &pa) != 0)
			return 0;
		max_entries += (size_t) pa.gid_tbl_len;
	}
	if (max_entries > 0) {
		entries = calloc(max_entries, sizeof(*entries));
		if (!entries)
			return -ENOMEM;
		r = ibv_query_gid_table(c, entries, max_entries, 0);
		if (r < 0 || (size_t) r > max_entries)
			return 0;
		n = (size_t) r;
		if (n > 1)
			qsort(entries, n, sizeof(*entries), entry_compare);
	} else
		n = 0;

	if (d->n_ports > 0) {
		tables = calloc(d->n_ports, sizeof(*tables));
		if (!tables)
			return -ENOMEM;
	}
	/* both sorted by port: entries of a port sysfs did not show are left out */
	for (size_t i = 0; i < d->n_ports; i++) {
		const HostPort *p = &d->ports[i];
		size_t first;

		while (k < n && entries[k].port_num < p->port)
			k++;
		for (first = k; k < n && entries[k].port_num == p->port; k++)
			;
		if (k == first)
			continue;
		tables[i].gids = calloc(k - first, sizeof(Gid));
		if (!tables[i].gids) {
			port_tables_free(tables, d->n_ports);
			return -ENOMEM;
		}
		for (size_t e = first; e < k; e++) {
			Gid g;

			r = verbs_gid_from_entry(&entries[e], p->link_layer, &g);
			if (r < 0) {
				port_tables_free(tables, d->n_ports);
				return 0;
			}
			if (r > 0)
				tables[i].gids[tables[i].n_gids++] = g;
		}
	}
	for (size_t i = 0; i < d->n_ports; i++) {
		free(d->ports[i].gids);
		d->ports[i].gids = tables[i].gids;
		d->ports[i].n_gids = tables[i].n_gids;
	}
	free(tables);
	return 1;
}

int verbs_gids_observe(HostState *h) {
	_cleanup_(ibv_free_device_listp) struct ibv_device **list = NULL;
	_cleanup_free_ bool *answered = NULL;
	int n = 0, n_answered = 0, r;

	if (h->n_devices == 0)
		return 0;
	answered = calloc(h->n_devices, sizeof(bool));
	if (!answered)
		return -ENOMEM;
	if (streq_ptr(h->root, "/")) {
		errno = 0;
		list = ibv_get_device_list(&n);
		/* without it (ENOSYS: no ib_uverbs), every device is read from sysfs */
		if (!list && errno == ENOMEM)
			return -ENOMEM;
	}
	for (int i = 0; list && i < n; i++) {
		const HostDevice *d = host_device_find(h, ibv_get_device_name(list[i]));
		size_t k;

		if (!d)
			continue; /* appeared after h was observed */
		k = (size_t) (d - h->devices);
		if (answered[k])
			continue;
		r = device_query(list[i], &h->devices[k]);
		if (r < 0)
			return r;
		answered[k] = r > 0;
		n_answered += r > 0;
	}
	for (size_t k = 0; k < h->n_devices; k++)
		if (!answered[k]) {
			r = host_device_gids_observe(h->root, &h->devices[k]);
			if (r < 0)
				return r;
		}
	return n_answered;
}
