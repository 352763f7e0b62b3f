/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A link against its peer's and against its switch port's settings (fabric-agree.h): each
 * disagreement that breaks RoCE, by name and with both sides' values, and nothing where the two
 * agree or where one side cannot tell. */
#include <string.h>

#include "fabric-agree.h"
#include "tests.h"

/* RoCE v2, ToS 106 (DSCP 26) on priority 3, PFC and ECN on 3, CNP DSCP 48 on 6, MTU 9000/4096 */
static ProbeLinkSettings roce(void) {
	return (ProbeLinkSettings){ .known = PROBE_KNOWN_ALL,
				    .netdev_mtu = 9000,
				    .roce_mtu = 4096,
				    .roce_mode = 2,
				    .tos = 106,
				    .trust = PROBE_TRUST_DSCP,
				    .priority = 3,
				    .pfc = 0x08,
				    .ecn = 0x08,
				    .cnp_dscp = 48,
				    .cnp_priority = 6 };
}

static const FabricMismatch *find(const FabricMismatch *m, size_t n, const char *setting) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(m[i].setting, setting) == 0)
			return &m[i];
	return NULL;
}

TEST(peer_agrees) {
	ProbeLinkSettings a = roce(), b = roce();
	FabricMismatch m[FABRIC_MISMATCHES_MAX];

	CHECK_INTEQ(fabric_compare_peer(&a, &b, m), 0);
	/* another CNP DSCP, trust or ToS ECN bits break nothing by themselves */
	b.cnp_dscp = 46;
	b.tos = 104; /* DSCP 26, ECN bits 0 */
	CHECK_INTEQ(fabric_compare_peer(&a, &b, m), 0);
	/* what one side cannot tell is not compared */
	b = roce();
	b.priority = 4;
	b.known &= (uint16_t) ~PROBE_KNOWN_PRIORITY;
	b.priority = 0;
	CHECK_INTEQ(fabric_compare_peer(&a, &b, m), 0);
	CHECK_INTEQ(fabric_compare_peer(&a, &(ProbeLinkSettings){ 0 }, m), 0);
}

TEST(peer_mismatches) {
	ProbeLinkSettings a = roce(), b = roce();
	FabricMismatch m[FABRIC_MISMATCHES_MAX];
	const FabricMismatch *x;
	size_t n;

	b.tos = 96;	/* DSCP 24 */
	b.priority = 4; /* and its priority 4, PFC and ECN on 3 only: off on its own */
	b.roce_mtu = 1024;
	b.netdev_mtu = 1500;
	b.roce_mode = 1;
	n = fabric_compare_peer(&a, &b, m);
	CHECK_INTEQ(n, 6);
	CHECK((x = find(m, n, "roce-mode")) && strcmp(x->local, "RoCE v2") == 0 &&
	      strcmp(x->other, "RoCE v1") == 0);
	CHECK((x = find(m, n, "dscp")) && strcmp(x->local, "DSCP 26 (ToS 106)") == 0 &&
	      strcmp(x->other, "DSCP 24 (ToS 96)") == 0);
	CHECK((x = find(m, n, "priority")) && strcmp(x->other, "priority 4") == 0);
	CHECK((x = find(m, n, "pfc")) && strcmp(x->local, "priority 3: PFC on") == 0 &&
	      strcmp(x->other, "priority 4: PFC off") == 0);
	CHECK((x = find(m, n, "ecn")) && strcmp(x->other, "priority 4: ECN off") == 0);
	CHECK((x = find(m, n, "mtu")) && strcmp(x->local, "RoCE MTU 4096 (netdev MTU 9000)") == 0 &&
	      strcmp(x->other, "RoCE MTU 1024 (netdev MTU 1500)") == 0);

	/* PFC alone: on the same priority, on one side only */
	b = roce();
	b.pfc = 0x10;
	n = fabric_compare_peer(&a, &b, m);
	CHECK_INTEQ(n, 1);
	CHECK_STREQ(m[0].setting, "pfc");
	/* the netdev MTU where a side cannot tell its RoCE MTU */
	b = roce();
	b.known &= (uint16_t) ~PROBE_KNOWN_ROCE_MTU;
	b.roce_mtu = 0;
	b.netdev_mtu = 1500;
	n = fabric_compare_peer(&a, &b, m);
	CHECK_INTEQ(n, 1);
	CHECK(strcmp(m[0].setting, "mtu") == 0 && strcmp(m[0].other, "netdev MTU 1500") == 0);
}

static LldpDcb switch_port(void) {
	LldpDcb sw = { .has_pfc = true,
		       .pfc = { .cap = 8, .enable = 0x08 },
		       .has_app = true,
		       .apps = { { 3, LLDP_APP_SEL_DSCP, 26 }, { 6, LLDP_APP_SEL_DSCP, 48 } },
		       .n_apps = 2,
		       .has_ets = true,
		       .ets = { .max_tcs = 8,
				.prio_tc = { 0, 0, 0, 3, 0, 0, 6, 0 },
				.tc_bw = { 50, 0, 0, 50, 0, 0, 0, 0 } },
		       .has_max_frame = true,
		       .max_frame = 9216 };
	return sw;
}

static FabricHost host(void) {
	return (FabricHost){ .link = roce(),
			     .has_ets = true,
			     .prio_tc = { 0, 0, 0, 3, 0, 0, 6, 0 },
			     .tc_bw = { 50, 0, 0, 50, 0, 0, 0, 0 } };
}

TEST(switch_agrees) {
	FabricHost h = host();
	LldpDcb sw = switch_port();
	FabricMismatch m[FABRIC_MISMATCHES_MAX];

	CHECK_INTEQ(fabric_compare_switch(&h, &sw, m), 0);
	/* a switch that says nothing of a setting is not compared on it */
	CHECK_INTEQ(fabric_compare_switch(&h, &(LldpDcb){ 0 }, m), 0);
	/* 9000 + 18 fits in 9018 */
	sw.max_frame = 9018;
	CHECK_INTEQ(fabric_compare_switch(&h, &sw, m), 0);
}

TEST(switch_mismatches) {
	FabricHost h = host();
	LldpDcb sw = switch_port();
	FabricMismatch m[FABRIC_MISMATCHES_MAX];
	const FabricMismatch *x;
	size_t n;

	sw.pfc.enable = 0x18;
	sw.apps[0].priority = 4; /* DSCP 26 -> 4 */
	sw.n_apps = 1;		 /* no entry for CNP's 48 */
	sw.ets.tc_bw[3] = 40;
	sw.max_frame = 1522;
	n = fabric_compare_switch(&h, &sw, m);
	CHECK_INTEQ(n, 5);
	CHECK((x = find(m, n, "pfc")) && strcmp(x->local, "PFC on 3") == 0 &&
	      strcmp(x->other, "PFC on 3,4") == 0);
	CHECK((x = find(m, n, "app-priority")) && strcmp(x->local, "DSCP 26 -> priority 3") == 0 &&
	      strcmp(x->other, "DSCP 26 -> priority 4") == 0);
	CHECK((x = find(m, n, "cnp-priority")) &&
	      strcmp(x->other, "CNP DSCP 48: no Application entry (priority 0)") == 0);
	CHECK((x = find(m, n, "ets")) && strcmp(x->local, "priority 3 in TC 3, 50%") == 0 &&
	      strcmp(x->other, "priority 3 in TC 3, 40%") == 0);
	CHECK((x = find(m, n, "max-frame")) &&
	      strcmp(x->local, "netdev MTU 9000 (frames of 9018 bytes)") == 0 &&
	      strcmp(x->other, "maximum frame size 1522") == 0);
}

static bool listed(const char *const *l, size_t n, const char *setting) {
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i], setting) == 0)
			return true;
	return false;
}

/* What is compared is what both sides know, and every mismatch is among it: over each subset of
 * the known bits on one side, with every setting different. */
TEST(peer_compared) {
	ProbeLinkSettings a = roce(), b = roce();
	FabricMismatch m[FABRIC_MISMATCHES_MAX];
	const char *c[FABRIC_MISMATCHES_MAX];
	size_t n;

	CHECK_INTEQ(fabric_peer_compared(&a, &b, c), 6);
	b = (ProbeLinkSettings){ .known = PROBE_KNOWN_ALL,
				 .netdev_mtu = 1500,
				 .roce_mtu = 1024,
				 .roce_mode = 1,
				 .tos = 96,
				 .trust = PROBE_TRUST_PCP,
				 .priority = 4,
				 .pfc = 0x08,
				 .ecn = 0x08 };
	for (unsigned known = 0; known <= PROBE_KNOWN_ALL; known++) {
		a.known = (uint16_t) known;
		n = fabric_peer_compared(&a, &b, c);
		CHECK(n <= FABRIC_MISMATCHES_MAX);
		for (size_t i = 0, k = fabric_compare_peer(&a, &b, m); i < k; i++)
			CHECK(listed(c, n, m[i].setting));
	}
	/* a v1 prober's peer tells nothing: nothing compared */
	a.known = PROBE_KNOWN_ALL;
	b.known = 0;
	CHECK_INTEQ(fabric_peer_compared(&a, &b, c), 0);
	/* the netdev MTU where one side cannot tell its RoCE MTU */
	b.known = PROBE_KNOWN_NETDEV_MTU;
	CHECK_INTEQ(fabric_peer_compared(&a, &b, c), 1);
	CHECK_STREQ(c[0], "mtu");
}

TEST(priorities_format) {
	char buf[32];

	fabric_priorities_format(0, buf, sizeof(buf));
	CHECK_STREQ(buf, "none");
	fabric_priorities_format(0x89, buf, sizeof(buf));
	CHECK_STREQ(buf, "0,3,7");
	fabric_priorities_format(0xff, buf, 6);
	CHECK_STREQ(buf, "0,1,2"); /* cut at an entry, never inside one */
}

TESTS_MAIN(TEST_ENTRY(peer_agrees), TEST_ENTRY(peer_mismatches), TEST_ENTRY(switch_agrees),
	   TEST_ENTRY(switch_mismatches), TEST_ENTRY(peer_compared), TEST_ENTRY(priorities_format))
