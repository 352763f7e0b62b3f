/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric-host.h"
#include "roce-facts.h"

void fabric_host_observed(const HostPort *p, const HostNetdev *n, FabricHost *ret) {
	FabricHost f = { 0 };
	ProbeLinkSettings *s = &f.link;
	RoceFacts facts;

	/* the facts rdmad publishes (RoceFacts) and a peer's prober compares: one reading */
	roce_facts_from_host(p, n, &facts);
	if (roce_facts_has(&facts, ROCE_FACT_TOS)) {
		s->tos = facts.tos;
		s->known |= PROBE_KNOWN_TOS;
	}
	if (roce_facts_has(&facts, ROCE_FACT_NETDEV_MTU) && facts.netdev_mtu <= UINT16_MAX) {
		s->netdev_mtu = (uint16_t) facts.netdev_mtu;
		s->known |= PROBE_KNOWN_NETDEV_MTU;
	}
	if (roce_facts_has(&facts, ROCE_FACT_PFC)) {
		s->pfc = facts.pfc;
		s->known |= PROBE_KNOWN_PFC;
	}
	if (roce_facts_has(&facts, ROCE_FACT_PRIORITY)) {
		s->priority = facts.priority;
		s->known |= PROBE_KNOWN_PRIORITY;
	}
	if (roce_facts_has(&facts, ROCE_FACT_CNP_DSCP) &&
	    roce_facts_has(&facts, ROCE_FACT_CNP_PRIORITY)) {
		s->cnp_dscp = facts.cnp_dscp;
		s->cnp_priority = facts.cnp_priority;
		s->known |= PROBE_KNOWN_CNP_DSCP | PROBE_KNOWN_CNP_PRIORITY;
	}
	/* the traffic classes, which only the switch's ETS is compared with */
	if (n && n->dcb_observed && n->dcb_error == 0 && n->dcb.has_ets) {
		f.has_ets = true;
		memcpy(f.prio_tc, n->dcb.ets.prio_tc, sizeof(f.prio_tc));
		memcpy(f.tc_bw, n->dcb.ets.tc_tx_bw, sizeof(f.tc_bw));
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

/* "switch mac 00:11:22:33:44:55 (leaf1) port ifname Ethernet12" */
int fabric_switch_name(const LldpNeighbor *nb, char **ret) {
	if (asprintf(ret, "switch %s%s%s%s port %s",
		     nb->chassis_id ? nb->chassis_id : "(no chassis id)",
		     nb->system_name ? " (" : "", nb->system_name ? nb->system_name : "",
		     nb->system_name ? ")" : "", nb->port_id ? nb->port_id : "(no port id)") < 0)
		return -ENOMEM;
	return 0;
}

/* What the switch advertises, in words: "PFC on 3; DSCP 26 -> priority 3; ..." */
int fabric_switch_describe(const LldpNeighbor *nb, const FabricHost *host, char **ret) {
	const LldpDcb *d = &nb->dcb;
	_cleanup_free_ char *s = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);
	const char *sep = "";

	if (!f)
		return -ENOMEM;
	if (d->has_pfc) {
		char bits[32];

		fabric_priorities_format(d->pfc.enable, bits, sizeof(bits));
		fprintf(f, "PFC on %s (willing %s)", bits, d->pfc.willing ? "yes" : "no");
		sep = "; ";
	}
	if (d->has_app) {
		fprintf(f, "%sApplication table", sep);
		for (size_t i = 0; i < d->n_apps; i++)
			if (d->apps[i].selector == LLDP_APP_SEL_DSCP)
				fprintf(f, "%s DSCP %u -> priority %u", i ? "," : "",
					d->apps[i].protocol, d->apps[i].priority);
			else
				fprintf(f, "%s selector %u protocol %u -> priority %u",
					i ? "," : "", d->apps[i].selector, d->apps[i].protocol,
					d->apps[i].priority);
		if (d->n_apps == 0)
			fprintf(f, " empty");
		sep = "; ";
	}
	if (d->has_ets) {
		fprintf(f, "%sETS", sep);
		for (unsigned tc = 0; tc < 8; tc++)
			if (d->ets.tc_bw[tc] > 0)
				fprintf(f, " TC%u %u%%", tc, d->ets.tc_bw[tc]);
		if ((host->link.known & PROBE_KNOWN_PRIORITY) && host->link.priority < 8)
			fprintf(f, " (priority %u in TC %u)", host->link.priority,
				d->ets.prio_tc[host->link.priority]);
		sep = "; ";
	}
	if (d->has_max_frame) {
		fprintf(f, "%smaximum frame size %u", sep, d->max_frame);
		sep = "; ";
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}
