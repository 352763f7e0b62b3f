/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A probed path's round trips: the histogram's buckets at and around their bounds, and the
 * last minute's sent, lost and quantiles as rdmactl probe shows them. */
#include <stdio.h>

#include "latency.h"
#include "tests.h"

#define US 1000ULL
#define MS (1000 * US)
#define S  (1000 * MS)

TEST(histogram_bounds) {
	LatencyHistogram h = { 0 };

	/* a bound is in its own bucket (le: less or equal) */
	latency_histogram_add(&h, 5 * US);
	latency_histogram_add(&h, 5 * US + 1);
	latency_histogram_add(&h, 0);
	latency_histogram_add(&h, 1 * S);
	latency_histogram_add(&h, 1 * S + 1); /* above every bound */
	CHECK_INTEQ(h.counts[0], 2);
	CHECK_INTEQ(h.counts[1], 1); /* 10 us */
	CHECK_INTEQ(h.counts[LATENCY_BUCKETS - 1], 1);
	CHECK_INTEQ(h.counts[LATENCY_BUCKETS], 1);
	CHECK_INTEQ(h.count, 5);
	CHECK(h.sum_ns == 10 * US + 1 + 2 * S + 1);
	/* ascending, 5 us to 1 s */
	CHECK(latency_bounds_ns[0] == 5 * US && latency_bounds_ns[LATENCY_BUCKETS - 1] == 1 * S);
	for (size_t i = 1; i < LATENCY_BUCKETS; i++)
		CHECK(latency_bounds_ns[i - 1] < latency_bounds_ns[i]);
}

TEST(window_quantiles_and_losses) {
	LatencyWindow w;
	LatencySummary s;

	CHECK_INTEQ(latency_window_init(&w, 60 * S, 600), 0);
	/* 100 answers of 1..100 us, one a second from t = 1 s, and 5 losses */
	for (unsigned i = 1; i <= 100; i++)
		latency_window_add(&w, i * S, i * US);
	for (unsigned i = 101; i <= 105; i++)
		latency_window_add(&w, i * S, LATENCY_LOST);
	/* at 105 s the last minute is 45..105 s: 56 answers (45..100 us) and the 5 losses */
	CHECK_INTEQ(latency_window_summary(&w, 105 * S, &s), 0);
	CHECK_INTEQ(s.sent, 61);
	CHECK_INTEQ(s.lost, 5);
	CHECK(s.min_ns == 45 * US);
	CHECK(s.p50_ns == 72 * US); /* rank ceil(0.5 * 56) = 28: 45 + 27 */
	CHECK(s.p99_ns == 100 * US);
	CHECK(s.max_ns == 100 * US);
	/* long after: nothing in the window */
	CHECK_INTEQ(latency_window_summary(&w, 1000 * S, &s), 0);
	CHECK(s.sent == 0 && s.lost == 0 && s.min_ns == 0 && s.p50_ns == 0 && s.max_ns == 0);
	latency_window_done(&w);
}

TEST(window_keeps_at_most_capacity) {
	LatencyWindow w;
	LatencySummary s;

	/* a ring of 10: 1,000 samples in one second keep the last 10 */
	CHECK_INTEQ(latency_window_init(&w, 60 * S, 10), 0);
	for (unsigned i = 0; i < 1000; i++)
		latency_window_add(&w, S + i * MS, (i + 1) * US);
	CHECK_INTEQ(latency_window_summary(&w, 2 * S, &s), 0);
	CHECK_INTEQ(s.sent, 10);
	CHECK(s.min_ns == 991 * US);
	CHECK(s.p50_ns == 995 * US); /* 991..1000 us: rank 5 */
	CHECK(s.max_ns == 1000 * US);
	latency_window_done(&w);
	CHECK_INTEQ(latency_window_init(&w, 60 * S, 0), -EINVAL);
}

TEST(device_clock_round_trips) {
	/* 1 GHz: a tick a nanosecond */
	CHECK(latency_device_ns(1000, 3500, UINT64_MAX, 1000000) == 2500);
	/* mlx5's 156.25 MHz: 156,250 ticks a millisecond, 25 ticks 160 ns */
	CHECK(latency_device_ns(0, 156250, UINT64_MAX, 156250) == 1 * MS);
	CHECK(latency_device_ns(7, 32, UINT64_MAX, 156250) == 160);
	/* a 48-bit clock that wrapped between the send and the answer */
	CHECK(latency_device_ns(0xFFFFFFFFFFF0ULL, 0x10, 0xFFFFFFFFFFFFULL, 1000000) == 32);
	/* far past where ticks * 1e6 overflows 64 bits: 2^50 ticks at 1 MHz */
	CHECK(latency_device_ns(0, 1ULL << 50, UINT64_MAX, 1000) == (1ULL << 50) * 1000);
	/* no clock rate: no figure */
	CHECK(latency_device_ns(0, 100, UINT64_MAX, 0) == 0);
}

TESTS_MAIN(TEST_ENTRY(histogram_bounds), TEST_ENTRY(device_clock_round_trips),
	   TEST_ENTRY(window_quantiles_and_losses), TEST_ENTRY(window_keeps_at_most_capacity))
