/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdlib.h>
#include <string.h>

#include "verbs-facts.h"
#include "verbs-util.h"

/* enum ibv_mtu (IBV_MTU_256 = 1 .. IBV_MTU_4096 = 5) in bytes; 0 for anything else. */
static unsigned mtu_bytes(enum ibv_mtu mtu) {
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128U << mtu : 0;
}

/* NCCL's probe for dma-buf MRs (ncclIbDmaBufSupport): registering fd -1 fails with
 * EOPNOTSUPP or EPROTONOSUPPORT where the provider or the kernel has no dma-buf MRs, and with
 * EBADF where it has them and looked the fd up. */
static int dmabuf_probe(struct ibv_context *c) {
	struct ibv_pd *pd = ibv_alloc_pd(c);
	struct ibv_mr *mr;
	int r;

	if (!pd)
		return -1;
	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, 0, 0, 0, -1, 0);
	r = errno != EOPNOTSUPP && errno != EPROTONOSUPPORT;
	if (mr)
		(void) ibv_dereg_mr(mr);
	(void) ibv_dealloc_pd(pd);
	return r;
}

/* Fills d (whose name is set) from the device; a failure to open or query goes in d->error.
 * -ENOMEM only. */
static int device_read(struct ibv_device *dev, VerbsDevice *d) {
	_cleanup_(ibv_close_devicep) struct ibv_context *c = NULL;
	struct ibv_device_attr attr;
	int r;

	d->dmabuf = -1;
	c = ibv_open_device(dev);
	if (!c) {
		d->error = negative_errno();
		return 0;
	}
	r = ibv_query_device(c, &attr);
	if (r != 0) {
		d->error = r > 0 ? -r : negative_errno();
		return 0;
	}
	d->dmabuf = dmabuf_probe(c);
	if (attr.phys_port_cnt == 0)
		return 0;
	d->ports = calloc(attr.phys_port_cnt, sizeof(*d->ports));
	if (!d->ports)
		return -ENOMEM;
	for (uint8_t n = 1; n <= attr.phys_port_cnt; n++) {
		struct ibv_port_attr pa;

		r = ibv_query_port(c, n, &pa);
		if (r != 0) {
			d->error = r > 0 ? -r : negative_errno();
			continue;
		}
		d->ports[d->n_ports++] = (VerbsPort){
			.port = n,
			.state = pa.state,
			.active_mtu = mtu_bytes(pa.active_mtu),
			.max_mtu = mtu_bytes(pa.max_mtu),
		};
	}
	return 0;
}

int verbs_facts_read(VerbsFacts *ret) {
	_cleanup_(ibv_free_device_listp) struct ibv_device **list = NULL;
	_cleanup_(verbs_facts_done) VerbsFacts v = { 0 };
	int n = 0, r;

	errno = 0;
	list = ibv_get_device_list(&n);
	if (!list) {
		/* ENOSYS: no kernel support (ib_uverbs not loaded); ENOMEM is ours to return. */
		if (errno == ENOMEM)
			return -ENOMEM;
		*ret = (VerbsFacts){ .error = negative_errno() };
		return 0;
	}
	if (n > 0) {
		v.devices = calloc((size_t) n, sizeof(*v.devices));
		if (!v.devices)
			return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		VerbsDevice *d = &v.devices[v.n_devices];

		d->name = strdup(ibv_get_device_name(list[i]));
		if (!d->name)
			return -ENOMEM;
		v.n_devices++;
		r = device_read(list[i], d);
		if (r < 0)
			return r;
	}
	*ret = v;
	v = (VerbsFacts){ 0 };
	return 0;
}
