/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "roce-facts.h"

static const char *const roce_fact_table[_ROCE_FACT_MAX] = {
	[ROCE_FACT_NETDEV_MTU] = "netdev-mtu",
	[ROCE_FACT_ROCE_MODE] = "roce-mode",
	[ROCE_FACT_TOS] = "tos",
	[ROCE_FACT_TRUST] = "trust",
	[ROCE_FACT_PRIORITY] = "priority",
	[ROCE_FACT_PFC] = "pfc",
	[ROCE_FACT_ECN_NP] = "ecn-np",
	[ROCE_FACT_ECN_RP] = "ecn-rp",
	[ROCE_FACT_CNP_DSCP] = "cnp-dscp",
	[ROCE_FACT_CNP_PRIORITY] = "cnp-priority",
};
DEFINE_STRING_TABLE_LOOKUP(roce_fact, RoceFact)

static bool dscp_entries(const DcbState *dcb) {
	for (unsigned d = 0; d < N_DSCP; d++)
		if (dcb->dscp_prio[d])
			return true;
	return false;
}

static void dcb_facts(const HostNetdev *nd, RoceFacts *f) {
	const DcbState *dcb = &nd->dcb;

	if (!nd->dcb_observed || nd->dcb_error != 0)
		return;
	f->known |= ROCE_FACT_BIT(ROCE_FACT_TRUST);
	f->trust = dscp_entries(dcb) ? QOS_TRUST_DSCP : QOS_TRUST_PCP;
	if (roce_facts_has(f, ROCE_FACT_TOS) && dcb->dscp_prio[f->tos >> 2]) {
		unsigned bits = dcb->dscp_prio[f->tos >> 2];

		/* of several entries for the DSCP, the highest priority: as IEEE 802.1Q's
		 * Application Priority table resolves them, and as a switch's is read
		 * (lldp_dcb_dscp_priority()) */
		f->known |= ROCE_FACT_BIT(ROCE_FACT_PRIORITY);
		f->priority = (uint8_t) (31 - __builtin_clz(bits));
	}
	if (dcb->has_pfc) {
		f->known |= ROCE_FACT_BIT(ROCE_FACT_PFC);
		f->pfc = dcb->pfc.pfc_en;
	}
}

void roce_facts_from_host(const HostPort *p, const HostNetdev *nd, RoceFacts *ret) {
	RoceFacts f = { 0 };

	if (p->has_roce_mode) {
		f.known |= ROCE_FACT_BIT(ROCE_FACT_ROCE_MODE);
		f.roce_mode = p->roce_mode;
	}
	if (p->has_roce_tos && p->roce_tos <= 255) {
		f.known |= ROCE_FACT_BIT(ROCE_FACT_TOS);
		f.tos = (uint8_t) p->roce_tos;
	}
	if (nd) {
		/* 0: not read (the observation records why); no netdev carries frames at 0 */
		if (nd->mtu > 0) {
			f.known |= ROCE_FACT_BIT(ROCE_FACT_NETDEV_MTU);
			f.netdev_mtu = nd->mtu;
		}
		dcb_facts(nd, &f);
		if (nd->ecn_supported) {
			f.known |=
				ROCE_FACT_BIT(ROCE_FACT_ECN_NP) | ROCE_FACT_BIT(ROCE_FACT_ECN_RP);
			f.ecn_np = nd->ecn_roce_np;
			f.ecn_rp = nd->ecn_roce_rp;
		}
		if (nd->cnp_supported && nd->cnp_dscp < N_DSCP && nd->cnp_prio < 8) {
			f.known |= ROCE_FACT_BIT(ROCE_FACT_CNP_DSCP) |
				   ROCE_FACT_BIT(ROCE_FACT_CNP_PRIORITY);
			f.cnp_dscp = (uint8_t) nd->cnp_dscp;
			f.cnp_priority = (uint8_t) nd->cnp_prio;
		}
	}
	*ret = f;
}

bool roce_facts_equal(const RoceFacts *a, const RoceFacts *b) {
	/* the values of facts not known are 0 on both: roce_facts_from_host() sets no other */
	return a->known == b->known && a->netdev_mtu == b->netdev_mtu &&
	       a->roce_mode == b->roce_mode && a->trust == b->trust && a->tos == b->tos &&
	       a->priority == b->priority && a->pfc == b->pfc && a->ecn_np == b->ecn_np &&
	       a->ecn_rp == b->ecn_rp && a->cnp_dscp == b->cnp_dscp &&
	       a->cnp_priority == b->cnp_priority;
}
