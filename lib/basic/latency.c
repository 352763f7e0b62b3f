/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "latency.h"

/* Prometheus' usual 1-2.5-5 steps, from a RoCE round trip on one switch (some microseconds) to
 * the longest timeout a probe is given. */
const uint64_t latency_bounds_ns[LATENCY_BUCKETS] = {
	5000,	 10000,	   25000,    50000,    100000,	  250000,    500000,	1000000,    2500000,
	5000000, 10000000, 25000000, 50000000, 100000000, 250000000, 500000000, 1000000000,
};

void latency_histogram_add(LatencyHistogram *h, uint64_t rtt_ns) {
	size_t i = 0;

	while (i < LATENCY_BUCKETS && rtt_ns > latency_bounds_ns[i])
		i++;
	h->counts[i]++;
	h->count++;
	h->sum_ns += rtt_ns;
}

int latency_window_init(LatencyWindow *w, uint64_t span_ns, size_t capacity) {
	if (capacity == 0 || span_ns == 0)
		return -EINVAL;
	*w = (LatencyWindow){ .capacity = capacity, .span_ns = span_ns };
	w->ring = calloc(capacity, sizeof(LatencySample));
	return w->ring ? 0 : -ENOMEM;
}

void latency_window_done(LatencyWindow *w) {
	free(w->ring);
	*w = (LatencyWindow){ 0 };
}

void latency_window_add(LatencyWindow *w, uint64_t at_ns, uint64_t rtt_ns) {
	w->ring[w->next] = (LatencySample){ .at_ns = at_ns, .rtt_ns = rtt_ns };
	w->next = (w->next + 1) % w->capacity;
	if (w->n < w->capacity)
		w->n++;
}

static int u64_compare(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* The rank-th smallest of n sorted values, rank = ceil(q * n) (q in hundredths), at least 1. */
static uint64_t nearest_rank(const uint64_t *sorted, size_t n, unsigned q) {
	size_t rank = (n * q + 99) / 100;

	return sorted[(rank > 0 ? rank : 1) - 1];
}

int latency_window_summary(const LatencyWindow *w, uint64_t now_ns, LatencySummary *ret) {
	_cleanup_free_ uint64_t *rtts = NULL;
	LatencySummary s = { 0 };
	size_t n = 0;

	rtts = calloc(w->n + 1, sizeof(uint64_t));
	if (!rtts)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++) {
		const LatencySample *x = &w->ring[i];

		if (x->at_ns > now_ns || now_ns - x->at_ns > w->span_ns)
			continue;
		s.sent++;
		if (x->rtt_ns == LATENCY_LOST)
			s.lost++;
		else
			rtts[n++] = x->rtt_ns;
	}
	if (n > 0) {
		qsort(rtts, n, sizeof(uint64_t), u64_compare);
		s.min_ns = rtts[0];
		s.p50_ns = nearest_rank(rtts, n, 50);
		s.p99_ns = nearest_rank(rtts, n, 99);
		s.max_ns = rtts[n - 1];
	}
	*ret = s;
	return 0;
}

uint64_t latency_device_ns(uint64_t from, uint64_t to, uint64_t mask, uint64_t khz) {
	uint64_t ticks = (to - from) & mask;

	if (khz == 0)
		return 0;
	/* ticks / khz ms, in two parts: ticks * 1,000,000 would overflow past 2^44 ticks */
	return ticks / khz * 1000000 + ticks % khz * 1000000 / khz;
}
