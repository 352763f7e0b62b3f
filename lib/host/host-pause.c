/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The global (802.3x) pause parameters of the netdevs RDMA ports sit on: one ethtool netlink
 * PAUSE_GET each, in the current network namespace, with the DCB state (host-dcb.c). Only those
 * netdevs, each once. */
#include "ethtool-pause-talk.h"
#include "host.h"

int host_pause_observe_port(HostState *h, struct nl_sock *sk, uint16_t family, int open_error,
			    const HostPort *p) {
	HostNetdev *n = (HostNetdev *) host_netdev_find(h, p->netdev);
	int r;

	if (!n || n->pause_observed)
		return 0;
	n->pause_observed = true;
	n->pause = (PauseParams){ 0 };
	r = open_error < 0 ? open_error : ethtool_pause_read(sk, family, n->name, &n->pause);
	if (r == -ENOMEM)
		return r;
	n->pause_error = r < 0 ? r : 0;
	return 0;
}
