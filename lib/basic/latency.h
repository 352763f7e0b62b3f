/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The round trips of one probed path: a cumulative histogram since the start, as Prometheus
 * takes it (rdmad_probe_rtt_seconds), and the samples of the last window (a minute), from which
 * rdmactl probe shows sent, lost, p50, p99 and max as mtr does. No I/O and no clock: the caller
 * gives the times, in nanoseconds of CLOCK_MONOTONIC. */

#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* The histogram's upper bounds, 5 us to 1 s; one bucket more holds what is above them all. */
#define LATENCY_BUCKETS 17
extern const uint64_t latency_bounds_ns[LATENCY_BUCKETS];

typedef struct LatencyHistogram {
	uint64_t counts[LATENCY_BUCKETS + 1]; /* per bucket, not cumulative */
	uint64_t count;
	uint64_t sum_ns;
} LatencyHistogram;

void latency_histogram_add(LatencyHistogram *h, uint64_t rtt_ns);

/* A probe that got no answer within its timeout. */
#define LATENCY_LOST UINT64_MAX

typedef struct LatencySample {
	uint64_t at_ns;	 /* when it was sent */
	uint64_t rtt_ns; /* or LATENCY_LOST */
} LatencySample;

/* The last span_ns of samples, at most capacity of them (the oldest go first). */
typedef struct LatencyWindow {
	LatencySample *ring;
	size_t capacity, next, n;
	uint64_t span_ns;
} LatencyWindow;

int latency_window_init(LatencyWindow *w, uint64_t span_ns, size_t capacity);
void latency_window_done(LatencyWindow *w);
void latency_window_add(LatencyWindow *w, uint64_t at_ns, uint64_t rtt_ns);

typedef struct LatencySummary {
	uint64_t sent, lost;
	/* of those answered; 0 when none was. The minimum is what a fixed delay on the path shows
	 * whatever the load of the machines: load raises round trips, never lowers them. */
	uint64_t min_ns, p50_ns, p99_ns, max_ns;
} LatencySummary;

/* What the window holds of the span_ns before now_ns. Quantiles by nearest rank: the p99 of
 * fewer than 100 answers is their largest. */
int latency_window_summary(const LatencyWindow *w, uint64_t now_ns, LatencySummary *ret);

/* A round trip from a device's completion timestamps: from and to are ticks of its free-running
 * clock (ibv_wc_read_completion_ts()), which counts at khz (hca_core_clock) and wraps at mask
 * (completion_timestamp_mask); to is taken to be after from. Nanoseconds, without overflow for
 * any 64-bit tick count; 0 when khz is 0. */
uint64_t latency_device_ns(uint64_t from, uint64_t to, uint64_t mask, uint64_t khz);
