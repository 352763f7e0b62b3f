/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host's side of a link, as fabric-agree.h compares it, from what was observed (host.h):
 * what the host does now, not what its profiles declare. Pure. */

#include "fabric-agree.h"
#include "host.h"

/* Port p on netdev n (NULL: not observed): the netdev MTU; rdma_cm's ToS (configfs) and the
 * priority the netdev's DSCP app table gives its DSCP (trust dscp: known only when there is an
 * entry, the highest priority of several); PFC and ETS where dcbnl answered; the CNP's DSCP and
 * priority where the driver exposes them. */
void fabric_host_observed(const HostPort *p, const HostNetdev *n, FabricHost *ret);

/* The neighbour of n to compare with: its only one with any DCB TLV (lldp-dcb.h), else its
 * first; NULL when lldpd was not asked or heard none. */
const LldpNeighbor *fabric_switch_neighbor(const HostNetdev *n);

/* Whether nb sent anything fabric_compare_switch() looks at. */
bool fabric_switch_has_dcb(const LldpNeighbor *nb);
