/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "metrics.h"

static const char *const type_table[_METRIC_TYPE_MAX] = {
	[METRIC_GAUGE] = "gauge",
	[METRIC_COUNTER] = "counter",
	[METRIC_HISTOGRAM] = "histogram",
};

bool metric_name_valid(const char *s, bool label) {
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
			     (!label && *p == ':');

		if (!alpha && (p == s || *p < '0' || *p > '9'))
			return false;
	}
	return true;
}

void metrics_done(Metrics *m) {
	for (size_t i = 0; i < m->n; i++)
		free(m->samples[i].labels);
	free(m->samples);
	for (size_t i = 0; i < m->n_families; i++) {
		free((char *) m->families[i]->name);
		free((char *) m->families[i]->help);
		free(m->families[i]);
	}
	free(m->families);
	*m = (Metrics){ 0 };
}

int metrics_family_new(Metrics *m, const char *name, MetricType type, const char *help,
		       const MetricFamily **ret) {
	_cleanup_free_ MetricFamily *f = NULL;
	MetricFamily **l;

	if (!metric_name_valid(name, false) || strchr(help, '\n') || strchr(help, '\\'))
		return -EINVAL;
	for (size_t i = 0; i < m->n_families; i++)
		if (streq(m->families[i]->name, name)) {
			*ret = m->families[i];
			return 0;
		}
	l = realloc(m->families, (m->n_families + 1) * sizeof(MetricFamily *));
	if (!l)
		return -ENOMEM;
	m->families = l;
	f = calloc(1, sizeof(MetricFamily));
	if (!f)
		return -ENOMEM;
	*f = (MetricFamily){ .name = strdup(name), .type = type, .help = strdup(help) };
	if (!f->name || !f->help) {
		free((char *) f->name);
		free((char *) f->help);
		return -ENOMEM;
	}
	m->families[m->n_families++] = f;
	*ret = TAKE_PTR(f);
	return 0;
}

/* name="value" pairs, escaped as the format says: \ " and newline. */
static int labels_format(va_list ap, char **ret) {
	_cleanup_free_ char *s = NULL;
	size_t size = 0;
	const char *name;
	bool first = true;
	FILE *f;

	f = open_memstream(&s, &size);
	if (!f)
		return -ENOMEM;
	while ((name = va_arg(ap, const char *))) {
		const char *value = va_arg(ap, const char *);

		if (!value)
			continue;
		if (!metric_name_valid(name, true)) {
			fclose(f);
			return -EINVAL;
		}
		fprintf(f, "%s%s=\"", first ? "" : ",", name);
		for (const char *p = value; *p; p++)
			if (*p == '\\' || *p == '"')
				fprintf(f, "\\%c", *p);
			else if (*p == '\n')
				fputs("\\n", f);
			else
				fputc(*p, f);
		fputc('"', f);
		first = false;
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}

/* s with its labels (taken, freed on failure too). */
static int sample_append(Metrics *m, const MetricFamily *f, MetricSample s) {
	MetricSample *l;

	l = realloc(m->samples, (m->n + 1) * sizeof(MetricSample));
	if (!l) {
		free(s.labels);
		return -ENOMEM;
	}
	m->samples = l;
	s.family = f;
	m->samples[m->n++] = s;
	return 0;
}

static int sample_add(Metrics *m, const MetricFamily *f, MetricSample s, va_list ap) {
	int r;

	if (!f || f->type == METRIC_HISTOGRAM)
		return -EINVAL;
	r = labels_format(ap, &s.labels);
	if (r < 0)
		return r;
	return sample_append(m, f, s);
}

int metrics_add_u64(Metrics *m, const MetricFamily *f, uint64_t value, ...) {
	va_list ap;
	int r;

	va_start(ap, value);
	r = sample_add(m, f, (MetricSample){ .integer = true, .u = value }, ap);
	va_end(ap);
	return r;
}

int metrics_add_double(Metrics *m, const MetricFamily *f, double value, ...) {
	va_list ap;
	int r;

	va_start(ap, value);
	r = sample_add(m, f, (MetricSample){ .d = value }, ap);
	va_end(ap);
	return r;
}

/* The fewest significant digits that read back as v: le="5e-06", as Prometheus' own clients
 * write it (strconv.FormatFloat(v, 'g', -1, 64)), not 5.0000000000000004e-06. */
static int shortest_precision(double v) {
	char buf[32];

	for (int p = 1; p < 17; p++) {
		snprintf(buf, sizeof(buf), "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return p;
	}
	return 17;
}

int metrics_add_histogram(Metrics *m, const MetricFamily *f, const double *bounds, size_t n_bounds,
			  const uint64_t *counts, double sum, ...) {
	_cleanup_free_ char *labels = NULL, *sum_labels = NULL;
	uint64_t cumulative = 0;
	va_list ap;
	int r;

	if (!f || f->type != METRIC_HISTOGRAM)
		return -EINVAL;
	for (size_t i = 1; i < n_bounds; i++)
		if (!(bounds[i - 1] < bounds[i]))
			return -EINVAL;
	va_start(ap, sum);
	r = labels_format(ap, &labels);
	va_end(ap);
	if (r < 0)
		return r;
	for (size_t i = 0; i <= n_bounds; i++) {
		char *l;

		cumulative += counts[i];
		if (i < n_bounds)
			r = asprintf(&l, "%s%sle=\"%.*g\"", labels, *labels ? "," : "",
				     shortest_precision(bounds[i]), bounds[i]);
		else
			r = asprintf(&l, "%s%sle=\"+Inf\"", labels, *labels ? "," : "");
		if (r < 0)
			return -ENOMEM;
		r = sample_append(m, f,
				  (MetricSample){ .suffix = "_bucket",
						  .labels = l,
						  .integer = true,
						  .u = cumulative });
		if (r < 0)
			return r;
	}
	sum_labels = strdup(labels);
	if (!sum_labels)
		return -ENOMEM;
	r = sample_append(
		m, f, (MetricSample){ .suffix = "_sum", .labels = TAKE_PTR(sum_labels), .d = sum });
	if (r < 0)
		return r;
	r = sample_append(m, f,
			  (MetricSample){ .suffix = "_count",
					  .labels = TAKE_PTR(labels),
					  .integer = true,
					  .u = cumulative });
	return r;
}

static void value_print(FILE *f, const MetricSample *s) {
	if (s->integer)
		fprintf(f, "%" PRIu64, s->u);
	else if (isnan(s->d))
		fputs("NaN", f);
	else if (isinf(s->d))
		fputs(s->d > 0 ? "+Inf" : "-Inf", f);
	else
		fprintf(f, "%.17g", s->d);
}

int metrics_format(const Metrics *m, char **ret) {
	_cleanup_free_ bool *done = calloc(m->n + 1, sizeof(bool));
	_cleanup_free_ char *s = NULL;
	size_t size = 0;
	FILE *f;

	if (!done)
		return -ENOMEM;
	f = open_memstream(&s, &size);
	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		const MetricFamily *fam = m->samples[i].family;

		if (done[i])
			continue;
		fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
			type_table[fam->type]);
		for (size_t j = i; j < m->n; j++) {
			const MetricSample *x = &m->samples[j];

			if (done[j] || !streq(x->family->name, fam->name))
				continue;
			done[j] = true;
			fprintf(f, "%s%s%s%s%s ", fam->name, x->suffix ? x->suffix : "",
				*x->labels ? "{" : "", x->labels, *x->labels ? "}" : "");
			value_print(f, x);
			fputc('\n', f);
		}
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}
