/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The DCB state of the netdevs RDMA ports sit on: one dcbnl IEEE_GET each, in the current
 * network namespace (under a fixture root, the stand-in veths, which have no dcbnl). Only those
 * netdevs: a host with many unrelated interfaces costs nothing more. */
#include "dcbnl-talk.h"
#include "host.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

static HostNetdev *netdev_find(HostState *h, const char *name) {
	return (HostNetdev *) host_netdev_find(h, name);
}

int host_dcb_observe(HostState *h) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	int r, open_error;

	open_error = dcbnl_socket_open(&sk);
	if (open_error == -ENOMEM)
		return open_error;
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			HostNetdev *n = netdev_find(h, h->devices[i].ports[k].netdev);

			if (!n || n->dcb_observed)
				continue;
			n->dcb_observed = true;
			n->dcb = (DcbState){ 0 };
			r = open_error < 0 ? open_error : dcbnl_ieee_read(sk, n->name, &n->dcb);
			if (r == -ENOMEM)
				return r;
			n->dcb_error = r < 0 ? r : 0;
		}
	return 0;
}
