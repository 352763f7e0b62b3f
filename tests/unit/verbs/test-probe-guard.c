/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a prober's endpoint lets in (lib/verbs/probe-guard.c), on a clock the test sets: an
 * answer counts only from its path's peer, GID and QP number both; each source, and the sources
 * together, get a bounded number of answers a window. */
#include <string.h>

#include "probe-guard.h"
#include "tests.h"

static ProbePeer peer(uint8_t last, uint32_t qpn) {
	ProbePeer p = { .gid = { [10] = 0xff, [11] = 0xff, 192, 0, 2, last }, .qpn = qpn };

	return p;
}

TEST(reply_from_the_path_peer_only) {
	const ProbeMessage m = { .kind = PROBE_REPLY, .sender = 0xabcd, .path = 3, .seq = 9 };
	ProbePeer want = peer(2, 17), other_gid = peer(3, 17), other_qp = peer(2, 18);

	CHECK_INTEQ(probe_reply_judge(&m, 0xabcd, &want, &want), PROBE_REPLY_OK);
	/* the right path and sequence number, from anyone else: not counted */
	CHECK_INTEQ(probe_reply_judge(&m, 0xabcd, &want, &other_gid), PROBE_REPLY_NOT_THE_PEER);
	CHECK_INTEQ(probe_reply_judge(&m, 0xabcd, &want, &other_qp), PROBE_REPLY_NOT_THE_PEER);
	/* each byte of the GID counts, not only the address's */
	for (size_t i = 0; i < sizeof(want.gid); i++) {
		ProbePeer f = want;

		f.gid[i] ^= 0x01;
		CHECK_INTEQ(probe_reply_judge(&m, 0xabcd, &want, &f), PROBE_REPLY_NOT_THE_PEER);
	}
	/* another prober's answer, from the right peer */
	CHECK_INTEQ(probe_reply_judge(&m, 0xabce, &want, &want), PROBE_REPLY_NOT_OURS);
	/* a path the link does not have, or not resolved yet: no peer to come from */
	CHECK_INTEQ(probe_reply_judge(&m, 0xabcd, NULL, &want), PROBE_REPLY_UNKNOWN_PATH);
	/* a request is no answer */
	CHECK_INTEQ(probe_reply_judge(&(ProbeMessage){ .kind = PROBE_REQUEST, .sender = 0xabcd },
				      0xabcd, &want, &want),
		    PROBE_REPLY_NOT_OURS);
}

TEST(peer_equal) {
	ProbePeer a = peer(2, 17), b = peer(2, 17);

	CHECK(probe_peer_equal(&a, &b));
	b.qpn = 0x1000011; /* the same low bits */
	CHECK(!probe_peer_equal(&a, &b));
}

/* Answers to source at now until refused: how many were taken. */
static unsigned take_all(ProbeBudget *b, const ProbePeer *source, uint64_t now) {
	unsigned n = 0;

	while (n < 10000 && probe_budget_take(b, source, now))
		n++;
	return n;
}

TEST(budget_a_source) {
	ProbeBudget b = { 0 };
	ProbePeer flood = peer(1, 100), other = peer(1, 101);
	uint64_t t0 = 5 * PROBE_BUDGET_WINDOW_NS;

	CHECK_INTEQ(take_all(&b, &flood, t0), PROBE_BUDGET_SOURCE);
	CHECK_INTEQ(b.refused, 1);
	/* another QP of the same host has its own */
	CHECK(probe_budget_take(&b, &other, t0 + 1));
	/* within the window, the flood stays refused; the next window gives it its budget again */
	CHECK(!probe_budget_take(&b, &flood, t0 + PROBE_BUDGET_WINDOW_NS - 1));
	CHECK_INTEQ(take_all(&b, &flood, t0 + PROBE_BUDGET_WINDOW_NS), PROBE_BUDGET_SOURCE);
	/* a clock that went back begins a window too */
	CHECK_INTEQ(take_all(&b, &flood, t0), PROBE_BUDGET_SOURCE);
}

TEST(budget_many_sources) {
	ProbeBudget b = { 0 };
	unsigned taken = 0;
	uint64_t now = 1;

	/* each of the table's sources, a few answers each: all taken */
	for (uint32_t q = 0; q < PROBE_BUDGET_SOURCES; q++)
		for (unsigned i = 0; i < 2; i++)
			taken += probe_budget_take(&b, &(ProbePeer){ .qpn = q }, now);
	CHECK_INTEQ(taken, 2 * PROBE_BUDGET_SOURCES);
	/* the sources beyond the table (a flood from forged sources) share one budget */
	taken = 0;
	for (uint32_t q = 1000; q < 1000 + 10 * PROBE_BUDGET_SOURCE; q++)
		taken += probe_budget_take(&b, &(ProbePeer){ .qpn = q }, now);
	CHECK_INTEQ(taken, PROBE_BUDGET_SOURCE);
	/* a source of the table still has its own */
	CHECK(probe_budget_take(&b, &(ProbePeer){ .qpn = 0 }, now));
}

TEST(budget_total) {
	ProbeBudget b = { 0 };
	unsigned taken = 0;

	/* the table's sources, each to its limit: the link's total caps them */
	for (uint32_t q = 0; q < PROBE_BUDGET_SOURCES; q++)
		taken += take_all(&b, &(ProbePeer){ .qpn = q }, 7);
	CHECK(PROBE_BUDGET_SOURCES * PROBE_BUDGET_SOURCE > PROBE_BUDGET_TOTAL);
	CHECK_INTEQ(taken, PROBE_BUDGET_TOTAL);
	CHECK_INTEQ(b.used, PROBE_BUDGET_TOTAL);
	CHECK(!probe_budget_take(&b, &(ProbePeer){ .qpn = 5000 }, 7));
	CHECK(probe_budget_take(&b, &(ProbePeer){ .qpn = 5000 }, 7 + PROBE_BUDGET_WINDOW_NS));
}

TESTS_MAIN(TEST_ENTRY(reply_from_the_path_peer_only), TEST_ENTRY(peer_equal),
	   TEST_ENTRY(budget_a_source), TEST_ENTRY(budget_many_sources), TEST_ENTRY(budget_total))
