/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Event sources (manager-watch.c): udev, rtnetlink and nftables. They mark what to look at again.
 */

#include "manager.h"

int manager_watch_udev(Manager *m);
int manager_watch_rtnl(Manager *m);
int manager_watch_nft(Manager *m);
/* ethtool netlink's monitor group: pause changes (netdev.pause.*). */
int manager_watch_ethtool(Manager *m);

/* A generic netlink family's multicast group on a socket of its own: resolve gives the family
 * and the group, each message goes to on_message, on_io reads the socket on the loop. A family
 * or group that is not there (absent_level), or a socket that cannot join (a warning), is
 * logged and not fatal: *ret_sk NULL, what it would watch is put back on the next reconcile
 * only ("lost" says what). Negative only for OOM or the loop. */
typedef struct GenlWatchSpec {
	const char *what; /* "devlink-config": the log's and the event source's name */
	const char *lost; /* "a changed devlink parameter is put back" */
	int absent_level;
	int (*resolve)(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_group);
	nl_recvmsg_msg_cb_t on_message;
	sd_event_io_handler_t on_io;
} GenlWatchSpec;
int manager_genl_watch(Manager *m, const GenlWatchSpec *spec, struct nl_sock **ret_sk,
		       sd_event_source **ret_source, uint16_t *ret_family);
/* the host name, for rdma.node-description (%h) */
int manager_watch_hostname(Manager *m);
