/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The DCB state of the netdevs RDMA ports sit on: one dcbnl IEEE_GET each, in the current
 * network namespace (under a fixture root, the stand-in veths, which have no dcbnl). Only those
 * netdevs: a host with many unrelated interfaces costs nothing more. */
#include "dcbnl-talk.h"
#include "host.h"

static HostNetdev *netdev_find(HostState *h, const char *name) {
	return (HostNetdev *) host_netdev_find(h, name);
}

int host_dcb_observe_port(HostState *h, struct nl_sock *sk, int open_error, const HostPort *p) {
	HostNetdev *n = netdev_find(h, p->netdev);
	int r;

	if (!n || n->dcb_observed)
		return 0; /* no netdev, or one read for another port already */
	n->dcb_observed = true;
	n->dcb = (DcbState){ 0 };
	r = open_error < 0 ? open_error : dcbnl_ieee_read(sk, n->name, &n->dcb);
	if (r == -ENOMEM)
		return r;
	n->dcb_error = r < 0 ? r : 0;
	return 0;
}
