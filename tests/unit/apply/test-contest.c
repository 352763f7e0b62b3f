/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Contested settings on a made-up clock: an agent reverting a setting gets it rewritten at
 * most CONTEST_REVERTS times in a window, then held off with a growing hold and one probe
 * write after each; a setting that stays put is settled. */
#include "contest.h"
#include "tests.h"

#define SEC (UINT64_C(1000) * 1000)

TEST(fight_then_hold) {
	ContestHistory h = { 0 };
	uint64_t t = 1000 * SEC;

	/* The first write, then two reverts undone: three writes in 2 s. */
	for (unsigned i = 0; i < CONTEST_REVERTS; i++) {
		CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
		contest_written(&h, t);
		t += SEC;
	}
	CHECK_INTEQ(contest_recent_writes(&h, t), 3);
	/* Reverted a third time: contested, no write, held for 10 s. */
	CHECK_INTEQ(contest_check(&h, t), CONTEST_CONTESTED);
	CHECK_INTEQ(h.level, 1);
	CHECK_INTEQ(h.hold_until, t + CONTEST_HOLD_USEC);
	CHECK_INTEQ(contest_check(&h, t + 5 * SEC), CONTEST_HOLD);
	CHECK(!contest_settled(&h, t + 5 * SEC));

	/* After the hold: one probe write; reverted again, contested again at once, held 20 s. */
	t += CONTEST_HOLD_USEC;
	CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
	contest_written(&h, t);
	t += SEC;
	CHECK_INTEQ(contest_check(&h, t), CONTEST_CONTESTED);
	CHECK_INTEQ(h.level, 2);
	CHECK_INTEQ(h.hold_until, t + 2 * CONTEST_HOLD_USEC);

	/* The hold grows to its cap. */
	for (unsigned i = 0; i < 10; i++) {
		t = h.hold_until;
		CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
		contest_written(&h, t);
		CHECK_INTEQ(contest_check(&h, t + SEC), CONTEST_CONTESTED);
	}
	CHECK_INTEQ(h.hold_until - (t + SEC), CONTEST_HOLD_MAX_USEC);

	/* The agent stops: the probe write stays, and a window later the setting is settled. */
	t = h.hold_until;
	CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
	contest_written(&h, t);
	CHECK(!contest_settled(&h, t + 30 * SEC));
	CHECK(contest_settled(&h, t + CONTEST_WINDOW_USEC));
	CHECK_INTEQ(h.level, 0);
	CHECK_INTEQ(contest_recent_writes(&h, t + CONTEST_WINDOW_USEC), 0);
}

/* Contested, then a probe write that stood, on a port nothing looked at again: weeks later
 * two ordinary writes within a minute are not a contest (the history started over). */
TEST(settles_unobserved) {
	ContestHistory h = { 0 };
	uint64_t t = 1000 * SEC;

	for (unsigned i = 0; i < CONTEST_REVERTS; i++) {
		contest_written(&h, t);
		t += SEC;
	}
	CHECK_INTEQ(contest_check(&h, t), CONTEST_CONTESTED);
	t = h.hold_until;
	CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE); /* the probe */
	contest_written(&h, t);
	t += 14 * 24 * 3600 * SEC;
	CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
	CHECK_INTEQ(h.level, 0);
	contest_written(&h, t);
	CHECK_INTEQ(contest_check(&h, t + SEC), CONTEST_WRITE);
	CHECK_INTEQ(contest_hold_usec(1), CONTEST_HOLD_USEC);
	CHECK_INTEQ(contest_hold_usec(2), 2 * CONTEST_HOLD_USEC);
	CHECK_INTEQ(contest_hold_usec(70), CONTEST_HOLD_MAX_USEC); /* no shift out of range */
}

/* Writes spread wider than the window (a driver reload now and then) never contest. */
TEST(occasional_rewrites) {
	ContestHistory h = { 0 };
	uint64_t t = 1000 * SEC;

	for (unsigned i = 0; i < 20; i++) {
		CHECK_INTEQ(contest_check(&h, t), CONTEST_WRITE);
		contest_written(&h, t);
		t += 25 * SEC; /* at most 3 writes in any 60 s, the third is not a fourth */
	}
	CHECK_INTEQ(h.level, 0);
	CHECK(!contest_settled(&h, t - 20 * SEC));	      /* the last write is recent */
	CHECK(!contest_settled(&h, t + CONTEST_WINDOW_USEC)); /* never contested */
}

TESTS_MAIN(TEST_ENTRY(fight_then_hold), TEST_ENTRY(occasional_rewrites),
	   TEST_ENTRY(settles_unobserved))
