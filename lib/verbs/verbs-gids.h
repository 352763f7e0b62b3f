/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "host.h"

/* The GID tables of h's ports (h observed with or without HOST_OBSERVE_GIDS: each table is
 * replaced), the same entries host_observe() reads from sysfs, in the same order: one
 * ibv_query_gid_table() per device, which the kernel answers with the whole table in one
 * ioctl (UVERBS_METHOD_QUERY_GID_TABLE, Linux 5.10) instead of three files per slot. The
 * query needs the device opened (a ucontext), so only the CLI links this; rdmad reads sysfs.
 *
 * A device that libibverbs does not list, that cannot be opened (no access to its uverbs
 * node) or whose table cannot be queried, or one with a GID whose netdev has no name in this
 * network namespace, is read from sysfs instead (host_device_gids_observe()); so is every
 * device under a root other than "/", which the live kernel knows nothing of. On a kernel
 * without the method libibverbs itself falls back to reading sysfs slot by slot. The kernel
 * gives a GID's netdev as an ifindex of the netdev's own namespace; one in another namespace
 * (shared RDMA netns mode, a netdev moved into a container) that happens to be the ifindex of
 * a different netdev here would be named after that one, where sysfs gives the right name:
 * run it in the namespace of the devices' netdevs.
 *
 * Returns how many devices the query answered, or -ENOMEM. */
int verbs_gids_observe(HostState *h);

/* One entry of the answer as host_observe() reads the slot from sysfs: 1 and *ret, 0 for a
 * zero GID (sysfs lists none), -EINVAL for a type sysfs does not print, -ENXIO when its netdev
 * (ndev_ifindex) has no name in this network namespace. The kernel prints IB and RoCE v1 alike
 * in sysfs ("IB/RoCE v1"): the port's link layer tells them apart. Exposed for the tests. */
struct ibv_gid_entry;
int verbs_gid_from_entry(const struct ibv_gid_entry *e, LinkLayer ll, Gid *ret);
