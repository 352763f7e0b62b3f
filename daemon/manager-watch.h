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
/* the host name, for rdma.node-description (%h) */
int manager_watch_hostname(Manager *m);
