/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A port's GID table as the daemon keeps it from one reconcile to the next: 20 bytes a GID
 * rather than the host model's 40 (Gid carries its netdev's name). At 4,096 links of 16 GIDs
 * that is 1.3 MB of rdmad's heap. A GID's netdev is most often the port's own, so only the
 * others (a VLAN's, a macvlan's) are named, once per table. */

#include <stdbool.h>
#include <stdint.h>

#include "host.h"

enum {
	STATUS_GID_NETDEV_NONE, /* the kernel names no netdev (an IB GID) */
	STATUS_GID_NETDEV_PORT, /* the port's own netdev */
	STATUS_GID_NETDEV_OTHER /* and up: GidTable.netdevs[netdev - STATUS_GID_NETDEV_OTHER] */
};

typedef struct StatusGid {
	uint8_t raw[16];
	uint16_t index;
	uint8_t type;	/* GidType */
	uint8_t netdev; /* STATUS_GID_NETDEV_* */
} StatusGid;

typedef struct GidTable {
	StatusGid *gids;
	size_t n;
	char **netdevs; /* the netdevs other than the port's, in order of first use; NULL if none */
} GidTable;

/* Copies n GIDs of a port whose netdev is port_netdev (NULL: none). -ERANGE for an index above
 * 65,535 or more than 254 netdevs besides the port's, which no kernel driver has; t is
 * untouched then. */
int gid_table_copy(GidTable *t, const Gid *gids, size_t n, const char *port_netdev);
void gid_table_done(GidTable *t);
/* GID i (< t->n) as the host model has it. */
void gid_table_get(const GidTable *t, size_t i, const char *port_netdev, Gid *ret);
/* The whole table as the host model has it, for gid.h's choices. */
int gid_table_expand(const GidTable *t, const char *port_netdev, Gid **ret, size_t *ret_n);
bool gid_table_equal(const GidTable *a, const GidTable *b) _pure_;
