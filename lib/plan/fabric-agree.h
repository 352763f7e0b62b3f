/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether a link agrees with the other end of its RoCE traffic (issue 44): a peer host's link,
 * as its prober tells it (probe-wire.h's settings exchange), or the switch port, as its LLDP
 * says (lldp-dcb.h). Each disagreement that breaks RoCE between the two, by name:
 *
 *   peer:   roce-mode, dscp (rdma_cm's ToS >> 2), priority (what the DSCP maps to), pfc (PFC on
 *           the RoCE priority on one side only), ecn (the same for ECN), mtu (the active RoCE
 *           MTU, or the netdev MTU where a side cannot tell its RoCE MTU);
 *   switch: pfc (the PFC-enabled priorities), app-priority (the switch's Application table for
 *           RoCE's DSCP), cnp-priority (the same for the CNP DSCP), ets (the bandwidth of the
 *           RoCE priority's traffic class), max-frame (smaller than the netdev MTU's frame).
 *
 * A setting is compared only where both sides know it. Pure functions, no I/O. */

#include <stddef.h>

#include "lldp-dcb.h"
#include "probe-wire.h"

#define FABRIC_MISMATCHES_MAX 8

typedef struct FabricMismatch {
	const char *setting;
	char local[64], other[64]; /* what each side has, as rdmactl and the metrics show it */
} FabricMismatch;

/* The host's side as the switch comparison needs it: its link's settings and, where dcbnl
 * reads them, its ETS tables. */
typedef struct FabricHost {
	ProbeLinkSettings link;
	bool has_ets;
	uint8_t prio_tc[8], tc_bw[8];
} FabricHost;

/* The disagreements of local with peer, into ret: how many (0: they agree on all both know). */
size_t fabric_compare_peer(const ProbeLinkSettings *local, const ProbeLinkSettings *peer,
			   FabricMismatch ret[FABRIC_MISMATCHES_MAX]);

/* The settings fabric_compare_peer() judges for local and peer, those both sides can tell, by
 * name, into ret: how many. A mismatch's setting is always among them; the others agree. */
size_t fabric_peer_compared(const ProbeLinkSettings *local, const ProbeLinkSettings *peer,
			    const char *ret[FABRIC_MISMATCHES_MAX]);

/* The disagreements of the host's link with the switch port's LLDP. */
size_t fabric_compare_switch(const FabricHost *host, const LldpDcb *sw,
			     FabricMismatch ret[FABRIC_MISMATCHES_MAX]);

/* "3,4" for the bits of a priority bitmap, "none" for none. */
void fabric_priorities_format(uint8_t bits, char *buf, size_t size);
