/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "fabric-host.h"

static int highest_bit(uint8_t bits) {
	for (int i = 7; i >= 0; i--)
		if (bits & (1U << i))
			return i;
	return -1;
}

void fabric_host_observed(const HostPort *p, const HostNetdev *n, FabricHost *ret) {
	FabricHost f = { 0 };
	ProbeLinkSettings *s = &f.link;

	if (p->has_roce_tos) {
		s->tos = (uint8_t) p->roce_tos;
		s->known |= PROBE_KNOWN_TOS;
	}
	if (n) {
		if (n->mtu > 0 && n->mtu <= UINT16_MAX) {
			s->netdev_mtu = (uint16_t) n->mtu;
			s->known |= PROBE_KNOWN_NETDEV_MTU;
		}
		if (n->dcb_observed && n->dcb_error == 0) {
			if (n->dcb.has_pfc) {
				s->pfc = n->dcb.pfc.pfc_en;
				s->known |= PROBE_KNOWN_PFC;
			}
			if (p->has_roce_tos) {
				int prio = highest_bit(n->dcb.dscp_prio[p->roce_tos >> 2]);

				if (prio >= 0) {
					s->priority = (uint8_t) prio;
					s->known |= PROBE_KNOWN_PRIORITY;
				}
			}
			if (n->dcb.has_ets) {
				f.has_ets = true;
				memcpy(f.prio_tc, n->dcb.ets.prio_tc, sizeof(f.prio_tc));
				memcpy(f.tc_bw, n->dcb.ets.tc_tx_bw, sizeof(f.tc_bw));
			}
		}
		if (n->cnp_supported && n->cnp_dscp < 64 && n->cnp_prio < 8) {
			s->cnp_dscp = (uint8_t) n->cnp_dscp;
			s->cnp_priority = (uint8_t) n->cnp_prio;
			s->known |= PROBE_KNOWN_CNP_DSCP | PROBE_KNOWN_CNP_PRIORITY;
		}
	}
	*ret = f;
}

bool fabric_switch_has_dcb(const LldpNeighbor *nb) {
	const LldpDcb *d = &nb->dcb;

	return d->has_ets || d->has_ets_reco || d->has_pfc || d->has_app || d->has_max_frame;
}

const LldpNeighbor *fabric_switch_neighbor(const HostNetdev *n) {
	if (!n || !n->lldp || n->lldp->error < 0 || n->lldp->n_neighbors == 0)
		return NULL;
	for (size_t i = 0; i < n->lldp->n_neighbors; i++)
		if (fabric_switch_has_dcb(&n->lldp->neighbors[i]))
			return &n->lldp->neighbors[i];
	return &n->lldp->neighbors[0];
}
