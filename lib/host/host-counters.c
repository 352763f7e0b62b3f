/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hw counters of each port and which optional ones are enabled, over RDMA netlink
 * (NLDEV STAT_GET_STATUS, as `rdma statistic mode supported` reads them): what
 * counters.optional is planned against. */
#include <errno.h>

#include "host-internal.h"
#include "netlink-io.h"
#include "rdmanl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

typedef struct IndexLookup {
	HostState *h;
	uint32_t *indices; /* per h->devices[i], UINT32_MAX: not listed */
} IndexLookup;

static int dev_reply(const struct nlmsghdr *nlh, void *userdata) {
	char name[RDMANL_DEV_NAME_MAX];
	IndexLookup *l = userdata;
	uint32_t index;

	if (rdmanl_dev_parse(nlh, nlh->nlmsg_len, &index, name) < 0)
		return 0;
	for (size_t i = 0; i < l->h->n_devices; i++)
		if (streq(l->h->devices[i].name, name))
			l->indices[i] = index;
	return 0;
}

static void ports_fail(HostDevice *d, int r) {
	for (size_t k = 0; k < d->n_ports; k++)
		d->ports[k].hw_counters_error = r;
}

int host_hw_counters_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_free_ uint32_t *indices = NULL;
	IndexLookup l = { .h = h };
	int r;

	if (h->n_devices == 0)
		return 0;
	indices = malloc(sizeof(uint32_t) * h->n_devices);
	if (!indices)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_devices; i++)
		indices[i] = UINT32_MAX;
	l.indices = indices;

	/* One GET dump names every device's index, then one STAT_GET_STATUS per port. */
	r = rdmanl_socket_open(&sk);
	if (r >= 0)
		r = rdmanl_dev_get_dump_new(&m);
	if (r >= 0)
		r = netlink_transact(sk, m, dev_reply, &l);
	if (r == -ENOMEM)
		return r;
	for (size_t i = 0; i < h->n_devices; i++) {
		HostDevice *d = &h->devices[i];

		if (r < 0) {
			ports_fail(d, r);
			continue;
		}
		if (indices[i] == UINT32_MAX) {
			ports_fail(d, -ENODEV); /* gone, or in another network namespace */
			continue;
		}
		for (size_t k = 0; k < d->n_ports; k++) {
			HostPort *p = &d->ports[k];
			int q;

			hw_counters_free(p->hw_counters, p->n_hw_counters);
			p->hw_counters = NULL;
			p->n_hw_counters = 0;
			q = rdmanl_hw_counters_read(sk, indices[i], p->port, &p->hw_counters,
						    &p->n_hw_counters);
			if (q == -ENOMEM)
				return q;
			p->hw_counters_observed = q >= 0;
			p->hw_counters_error = q < 0 ? q : 0;
		}
	}
	return 0;
}
