/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The Prometheus text exposition, byte for byte: a histogram's buckets cumulative with their le
 * label last, _sum and _count, under one HELP and TYPE; samples of other types refused for it. */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "metrics.h"
#include "tests.h"

TEST(histogram) {
	static const MetricFamily rtt = { "rdmad_probe_rtt_seconds", METRIC_HISTOGRAM,
					  "Round trips of the probes of a path." };
	static const MetricFamily sent = { "rdmad_probe_sent_total", METRIC_COUNTER,
					   "Probes sent on a path." };
	const double bounds[] = { 5e-06, 1e-05, 2.5e-05 };
	const uint64_t counts[] = { 1, 0, 2, 1 };
	_cleanup_free_ char *text = NULL;
	Metrics m = { 0 };

	CHECK_INTEQ(metrics_add_histogram(&m, &rtt, bounds, 3, counts, 0.25, "link", "rxe0/1",
					  "peer", "10.0.0.2", NULL),
		    0);
	CHECK_INTEQ(metrics_add_u64(&m, &sent, 4, "link", "rxe0/1", NULL), 0);
	CHECK_INTEQ(metrics_add_histogram(&m, &rtt, bounds, 3, counts, 0.5, NULL), 0);
	CHECK_INTEQ(metrics_format(&m, &text), 0);
	CHECK_STREQ(
		text,
		"# HELP rdmad_probe_rtt_seconds Round trips of the probes of a path.\n"
		"# TYPE rdmad_probe_rtt_seconds histogram\n"
		"rdmad_probe_rtt_seconds_bucket{link=\"rxe0/"
		"1\",peer=\"10.0.0.2\",le=\"5e-06\"} 1\n"
		"rdmad_probe_rtt_seconds_bucket{link=\"rxe0/"
		"1\",peer=\"10.0.0.2\",le=\"1e-05\"} 1\n"
		"rdmad_probe_rtt_seconds_bucket{link=\"rxe0/"
		"1\",peer=\"10.0.0.2\",le=\"2.5e-05\"} 3\n"
		"rdmad_probe_rtt_seconds_bucket{link=\"rxe0/1\",peer=\"10.0.0.2\",le=\"+Inf\"} 4\n"
		"rdmad_probe_rtt_seconds_sum{link=\"rxe0/1\",peer=\"10.0.0.2\"} 0.25\n"
		"rdmad_probe_rtt_seconds_count{link=\"rxe0/1\",peer=\"10.0.0.2\"} 4\n"
		"rdmad_probe_rtt_seconds_bucket{le=\"5e-06\"} 1\n"
		"rdmad_probe_rtt_seconds_bucket{le=\"1e-05\"} 1\n"
		"rdmad_probe_rtt_seconds_bucket{le=\"2.5e-05\"} 3\n"
		"rdmad_probe_rtt_seconds_bucket{le=\"+Inf\"} 4\n"
		"rdmad_probe_rtt_seconds_sum 0.5\n"
		"rdmad_probe_rtt_seconds_count 4\n"
		"# HELP rdmad_probe_sent_total Probes sent on a path.\n"
		"# TYPE rdmad_probe_sent_total counter\n"
		"rdmad_probe_sent_total{link=\"rxe0/1\"} 4\n");
	metrics_done(&m);
}

TEST(histogram_refusals) {
	static const MetricFamily rtt = { "x_seconds", METRIC_HISTOGRAM, "x" };
	static const MetricFamily g = { "x_gauge", METRIC_GAUGE, "x" };
	const double unordered[] = { 1e-05, 5e-06 };
	const uint64_t counts[] = { 0, 0, 0 };
	Metrics m = { 0 };

	CHECK_INTEQ(metrics_add_histogram(&m, &g, unordered, 1, counts, 0, NULL), -EINVAL);
	CHECK_INTEQ(metrics_add_histogram(&m, &rtt, unordered, 2, counts, 0, NULL), -EINVAL);
	CHECK_INTEQ(metrics_add_u64(&m, &rtt, 1, NULL), -EINVAL);
	CHECK_INTEQ(metrics_add_histogram(&m, &rtt, unordered, 1, counts, 0, "le x", "1", NULL),
		    -EINVAL);
	CHECK_INTEQ(m.n, 0);
	metrics_done(&m);
}

TESTS_MAIN(TEST_ENTRY(histogram), TEST_ENTRY(histogram_refusals))
