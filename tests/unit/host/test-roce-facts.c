/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A link's RoCE facts from one observation (roce-facts.h): each fact the observation tells,
 * and none it cannot tell, never a default in its place. */
#include <string.h>

#include "roce-facts.h"
#include "tests.h"

TEST(fact_names_round_trip) {
	for (RoceFact f = 0; f < _ROCE_FACT_MAX; f++) {
		CHECK(roce_fact_to_string(f) != NULL);
		CHECK_INTEQ(roce_fact_from_string(roce_fact_to_string(f)), f);
	}
	CHECK_INTEQ(roce_fact_from_string("mtu"), _ROCE_FACT_INVALID);
	CHECK(roce_fact_to_string(_ROCE_FACT_MAX) == NULL);
}

/* An mlx5-like port: configfs read, DCB with DSCP 26 -> 3 and PFC on 3, ECN and CNP sysfs. */
TEST(everything_observed) {
	HostPort p = { .has_roce_mode = true,
		       .roce_mode = ROCE_MODE_V2,
		       .has_roce_tos = true,
		       .roce_tos = 106 };
	HostNetdev nd = { .mtu = 9000,
			  .dcb_observed = true,
			  .ecn_supported = true,
			  .ecn_roce_np = 0x08,
			  .ecn_roce_rp = 0x18,
			  .cnp_supported = true,
			  .cnp_dscp = 48,
			  .cnp_prio = 6 };
	RoceFacts f;

	nd.dcb.has_pfc = true;
	nd.dcb.pfc.pfc_en = 0x08;
	nd.dcb.dscp_prio[26] = 0x08 | 0x20; /* two entries for DSCP 26: the highest, 5 */
	nd.dcb.dscp_prio[48] = 0x40;
	roce_facts_from_host(&p, &nd, &f);
	CHECK_INTEQ(f.known, (1u << _ROCE_FACT_MAX) - 1);
	CHECK_INTEQ(f.netdev_mtu, 9000);
	CHECK_INTEQ(f.roce_mode, ROCE_MODE_V2);
	CHECK_INTEQ(f.tos, 106);
	CHECK_INTEQ(f.trust, QOS_TRUST_DSCP);
	CHECK_INTEQ(f.priority, 5);
	CHECK_INTEQ(f.pfc, 0x08);
	CHECK_INTEQ(f.ecn_np, 0x08);
	CHECK_INTEQ(f.ecn_rp, 0x18);
	CHECK_INTEQ(f.cnp_dscp, 48);
	CHECK_INTEQ(f.cnp_priority, 6);
}

/* rxe on virtio: no dcbnl, no ECN sysfs, no rdma_cm directory: the MTU only. */
TEST(only_what_is_observed) {
	HostPort p = { 0 };
	HostNetdev nd = { .mtu = 1500, .dcb_observed = true, .dcb_error = -EOPNOTSUPP };
	RoceFacts f, g;

	roce_facts_from_host(&p, &nd, &f);
	CHECK_INTEQ(f.known, ROCE_FACT_BIT(ROCE_FACT_NETDEV_MTU));
	roce_facts_from_host(&p, NULL, &g);
	CHECK_INTEQ(g.known, 0);
	CHECK(!roce_facts_equal(&f, &g));
	/* an MTU not read is not 0 */
	nd.mtu = 0;
	roce_facts_from_host(&p, &nd, &f);
	CHECK_INTEQ(f.known, 0);
	CHECK(roce_facts_equal(&f, &g));
}

/* dcbnl read, but no DSCP entry: PCP trust, and no priority for RoCE's DSCP; an entry for
 * another DSCP only: DSCP trust, still no priority for this one. */
TEST(priority_only_from_an_entry) {
	HostPort p = { .has_roce_tos = true, .roce_tos = 106 };
	HostNetdev nd = { .mtu = 1500, .dcb_observed = true };
	RoceFacts f;

	roce_facts_from_host(&p, &nd, &f);
	CHECK(roce_facts_has(&f, ROCE_FACT_TRUST) && f.trust == QOS_TRUST_PCP);
	CHECK(!roce_facts_has(&f, ROCE_FACT_PRIORITY));
	CHECK(!roce_facts_has(&f, ROCE_FACT_PFC)); /* the driver has no PFC op */
	nd.dcb.dscp_prio[24] = 0x10;
	roce_facts_from_host(&p, &nd, &f);
	CHECK(f.trust == QOS_TRUST_DSCP && !roce_facts_has(&f, ROCE_FACT_PRIORITY));
	/* without a ToS there is no RoCE DSCP to look up */
	p.has_roce_tos = false;
	nd.dcb.dscp_prio[26] = 0x08;
	roce_facts_from_host(&p, &nd, &f);
	CHECK(!roce_facts_has(&f, ROCE_FACT_PRIORITY) && !roce_facts_has(&f, ROCE_FACT_TOS));
}

TEST(equal) {
	HostPort p = { .has_roce_tos = true, .roce_tos = 106 };
	HostNetdev nd = { .mtu = 1500 };
	RoceFacts a, b;

	roce_facts_from_host(&p, &nd, &a);
	roce_facts_from_host(&p, &nd, &b);
	CHECK(roce_facts_equal(&a, &b));
	nd.mtu = 9000;
	roce_facts_from_host(&p, &nd, &b);
	CHECK(!roce_facts_equal(&a, &b));
	p.roce_tos = 96;
	nd.mtu = 1500;
	roce_facts_from_host(&p, &nd, &b);
	CHECK(!roce_facts_equal(&a, &b));
}

TESTS_MAIN(TEST_ENTRY(fact_names_round_trip), TEST_ENTRY(everything_observed),
	   TEST_ENTRY(only_what_is_observed), TEST_ENTRY(priority_only_from_an_entry),
	   TEST_ENTRY(equal))
