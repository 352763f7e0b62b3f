/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Prometheus text exposition format (version 0.0.4), built in memory and written once: the
 * samples of one metric family together under its HELP and TYPE lines (the format requires
 * it), families in the order they first appear, label values escaped. No I/O. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum MetricType {
	METRIC_GAUGE,
	METRIC_COUNTER,
	METRIC_HISTOGRAM,
	_METRIC_TYPE_MAX,
} MetricType;

typedef struct MetricFamily {
	const char *name; /* "rdmad_port_data_received_bytes_total" */
	MetricType type;
	const char *help;
} MetricFamily;

typedef struct MetricSample {
	const MetricFamily *family; /* not owned: static, or owned by Metrics.families */
	const char *suffix; /* after the family's name: "_bucket", "_sum", "_count"; or NULL */
	char *labels;	    /* "device=\"mlx5_0\",port=\"1\"", escaped; "" for none */
	bool integer;
	uint64_t u;
	double d;
} MetricSample;

typedef struct Metrics {
	MetricSample *samples;
	size_t n;
	MetricFamily **families; /* those made by metrics_family_new(), each its own allocation */
	size_t n_families;
} Metrics;

void metrics_done(Metrics *m);

/* A family whose name is made at run time (one per counter file); the same name twice gives the
 * same family. */
int metrics_family_new(Metrics *m, const char *name, MetricType type, const char *help,
		       const MetricFamily **ret);

/* A sample; the labels are NAME, VALUE pairs ending with NULL (a NULL value leaves the label
 * out). */
int metrics_add_u64(Metrics *m, const MetricFamily *f, uint64_t value, ...)
	__attribute__((sentinel));
int metrics_add_double(Metrics *m, const MetricFamily *f, double value, ...)
	__attribute__((sentinel));

/* A histogram's samples, for a family of METRIC_HISTOGRAM: NAME_bucket with le="B" for each of
 * the n_bounds upper bounds (ascending) and le="+Inf", each the number of values at most B;
 * NAME_sum and NAME_count. counts[] are n_bounds + 1 per-bucket counts (not cumulative), the
 * last one of the values above every bound. */
int metrics_add_histogram(Metrics *m, const MetricFamily *f, const double *bounds, size_t n_bounds,
			  const uint64_t *counts, double sum, ...) __attribute__((sentinel));

/* The exposition text. */
int metrics_format(const Metrics *m, char **ret);

/* Whether s is a valid metric or label name ([a-zA-Z_:][a-zA-Z0-9_:]*; labels without ':'). */
bool metric_name_valid(const char *s, bool label);
