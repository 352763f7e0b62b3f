/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host's side of a link, as fabric-agree.h compares it, from what was observed (host.h):
 * what the host does now, not what its profiles declare. Pure. */

#include "fabric-agree.h"
#include "host.h"

/* Port p on netdev n (NULL: not observed): the netdev MTU; rdma_cm's ToS (configfs) and the
 * priority the netdev's DSCP app table gives its DSCP (trust dscp: known only when there is an
 * entry, the highest priority of several); PFC and ETS where dcbnl answered; the CNP's DSCP and
 * priority where the driver exposes them. The same reading as roce_facts_from_host(), what rdmad
 * publishes and a peer's prober compares, with the ETS tables besides. */
void fabric_host_observed(const HostPort *p, const HostNetdev *n, FabricHost *ret);

/* The neighbour of n to compare with: its only one with any DCB TLV (lldp-dcb.h), else its
 * first; NULL when lldpd was not asked or heard none. */
const LldpNeighbor *fabric_switch_neighbor(const HostNetdev *n);

/* Whether nb sent anything fabric_compare_switch() looks at. */
bool fabric_switch_has_dcb(const LldpNeighbor *nb);

/* "switch mac 00:11:22:33:44:55 (leaf1) port ifname Ethernet12": the neighbour's chassis id,
 * system name and port id as lldpd formats them. -ENOMEM. */
int fabric_switch_name(const LldpNeighbor *nb, char **ret);

/* What nb advertises, in words: "PFC on 3,4 (willing no); Application table DSCP 26 ->
 * priority 3; ETS TC0 50% TC1 50% (priority 3 in TC 1); maximum frame size 9216"; host gives
 * the RoCE priority whose traffic class is named. -ENOMEM. */
int fabric_switch_describe(const LldpNeighbor *nb, const FabricHost *host, char **ret);
