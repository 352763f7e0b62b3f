/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/ratelimit.h on a clock the test sets: the verdicts depend on the times given, never on
 * how fast the machine runs. */
#include "ratelimit.h"
#include "tests.h"

TEST(burst_then_refused) {
	RateLimit rl = { .interval_usec = 1000000, .burst = 64 };

	for (unsigned i = 0; i < 64; i++)
		CHECK(ratelimit_below(&rl, 5000000 + i));
	CHECK(!ratelimit_below(&rl, 5000100));
	CHECK(!ratelimit_below(&rl, 5999999)); /* the same window */
	CHECK_INTEQ(rl.n, 64);
}

TEST(next_window) {
	RateLimit rl = { .interval_usec = 1000000, .burst = 2 };

	CHECK(ratelimit_below(&rl, 10));
	CHECK(ratelimit_below(&rl, 20));
	CHECK(!ratelimit_below(&rl, 30));
	CHECK(ratelimit_below(&rl, 1000010)); /* a window after the first call */
	CHECK(ratelimit_below(&rl, 1000011));
	CHECK(!ratelimit_below(&rl, 1000012));
}

TEST(clock_at_zero) {
	/* sd_event_now() before the first iteration gives 0: a window starts all the same */
	RateLimit rl = { .interval_usec = 1000000, .burst = 1 };

	CHECK(ratelimit_below(&rl, 0));
	CHECK(!ratelimit_below(&rl, 0));
	CHECK(!ratelimit_below(&rl, 999999));
	CHECK(ratelimit_below(&rl, 1000001));
}

TESTS_MAIN(TEST_ENTRY(burst_then_refused), TEST_ENTRY(next_window), TEST_ENTRY(clock_at_zero))
