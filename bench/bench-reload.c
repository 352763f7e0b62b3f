/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What a reload costs in profiles: config_load_files() (read, parse, check every key, merge into
 * a Config) over every *.yaml file of DIR, against libyaml's bare parse of the same files (read
 * each, pull its events to the end of the stream, nothing kept): the least any YAML-based
 * loader pays. CPU time of this process, median of 7 runs each. Prints figures; asserts
 * nothing.
 *
 *   bench-reload DIR */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yaml.h>

#include "profile.h"
#include "strv.h"

#define RUNS 7

static double cpu_ms(void) {
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

static double median(double *v) {
	qsort(v, RUNS, sizeof(double), cmp_double);
	return v[RUNS / 2];
}

/* libyaml alone: every event of one file, none kept. */
static int yaml_bare(const char *path) {
	yaml_parser_t parser;
	yaml_event_t event;
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int done = 0, ok = 1;

	f = fopen(path, "re");
	if (!f)
		return -1;
	{
		FILE *m = open_memstream(&text, &size);
		char buf[65536];
		size_t n;

		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, m);
		fclose(m);
	}
	fclose(f);
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *) text, size);
	while (!done && ok) {
		ok = yaml_parser_parse(&parser, &event);
		if (ok) {
			done = event.type == YAML_STREAM_END_EVENT;
			yaml_event_delete(&event);
		}
	}
	yaml_parser_delete(&parser);
	free(text);
	return ok ? 0 : -1;
}

int main(int argc, char **argv) {
	_cleanup_strv_free_ char **files = NULL;
	double load[RUNS], bare[RUNS];
	size_t n = 0;
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: bench-reload DIR\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	while ((de = readdir(d))) {
		char *p;

		if (!strstr(de->d_name, ".yaml"))
			continue;
		if (asprintf(&p, "%s/%s", argv[1], de->d_name) < 0 || strv_consume(&files, p) < 0)
			return 1;
		n++;
	}
	closedir(d);
	strv_sort(files);

	for (int i = 0; i < RUNS; i++) {
		Diagnostics diags = { 0 };
		Config *c = NULL;
		double t0 = cpu_ms();

		if (config_load_files(files, &diags, &c) < 0) {
			fprintf(stderr, "bench-reload: the profiles do not load\n");
			return 1;
		}
		load[i] = cpu_ms() - t0;
		config_free(c);
		diagnostics_done(&diags);
	}
	for (int i = 0; i < RUNS; i++) {
		double t0 = cpu_ms();

		STRV_FOREACH (f, files)
			if (yaml_bare(*f) < 0) {
				fprintf(stderr, "bench-reload: libyaml cannot parse %s\n", *f);
				return 1;
			}
		bare[i] = cpu_ms() - t0;
	}
	double l = median(load), b = median(bare);
	printf("bench reload: %zu profile files: config_load_files() %.1f ms CPU; libyaml's bare "
	       "parse "
	       "of the same files %.1f ms; ratio %.2fx (median of %d)\n",
	       n, l, b, b > 0 ? l / b : 0, RUNS);
	return 0;
}
