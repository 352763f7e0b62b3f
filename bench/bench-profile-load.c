/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* CPU time and peak memory of profile_load_string() on hostile inputs, in memory (past the 4 MiB
 * a file may have: the loader itself must be linear whatever the size), at 2.5, 5 and 10 MiB:
 * the figure should double with the size, not quadruple. Prints figures; asserts nothing.
 *
 *   bench-profile-load [CASE]   */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "profile.h"

typedef size_t (*generate_t)(char *buf, size_t size);

static size_t gen_deep_flow(char *buf, size_t size) {
	memset(buf, '[', size);
	return size;
}

static size_t gen_deep_block(char *buf, size_t size) {
	size_t n = 0;

	for (int i = 0; n + i + 4 < size; i++)
		n += sprintf(buf + n, "%*sa:\n", i % 4000, "");
	return n;
}

static size_t gen_modules(char *buf, size_t size) {
	size_t n = sprintf(buf, "modules: [");

	for (unsigned i = 0; n + 16 < size; i++)
		n += sprintf(buf + n, "m%u,", i);
	n += sprintf(buf + n, "m7]\n"); /* a duplicate: found by hash */
	return n;
}

static size_t gen_keys(char *buf, size_t size) {
	size_t n = 0;

	for (unsigned i = 0; n + 24 < size; i++)
		n += sprintf(buf + n, "k%u: 1\n", i);
	return n;
}

static size_t gen_dup_keys(char *buf, size_t size) {
	size_t n = sprintf(buf, "qos:\n  dscp-map:\n");

	for (unsigned i = 0; n + 24 < size; i++)
		n += sprintf(buf + n, "    %u: 1\n", i % 64);
	return n;
}

static size_t gen_anchors(char *buf, size_t size) {
	size_t n = sprintf(buf, "modules: [");

	for (unsigned i = 0; n + 32 < size; i++)
		n += sprintf(buf + n, "&a%u m%u, *a%u,", i, i, i);
	n += sprintf(buf + n, "x]\n");
	return n;
}

static const struct {
	const char *name;
	generate_t generate;
} cases[] = {
	{ "deep-flow", gen_deep_flow },	    { "deep-block", gen_deep_block },
	{ "modules", gen_modules },	    { "unknown-keys", gen_keys },
	{ "duplicate-keys", gen_dup_keys }, { "anchors-aliases", gen_anchors },
};

/* One load in a child: its CPU time and peak RSS are its own. */
static void measure(const char *name, generate_t generate, size_t size) {
	struct rusage ru;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		Diagnostics d = { 0 };
		char *buf = malloc(size + 64);
		Profile **l = NULL;
		size_t n = 0, len;
		int r;

		len = generate(buf, size);
		r = profile_load_string("bench.yaml", buf, len, &d, &l, &n);
		printf("%-16s %5.1f MiB  %s, %zu error(s)", name, len / 1048576.0,
		       r < 0 ? "refused" : "loaded", diagnostics_n_errors(&d));
		fflush(stdout);
		_exit(0);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return;
	printf("  %6.0f ms CPU  %4ld MiB peak RSS (generation included)\n",
	       ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 +
		       ru.ru_stime.tv_usec / 1e3,
	       ru.ru_maxrss / 1024);
	fflush(stdout);
}

int main(int argc, char **argv) {
	static const size_t sizes[] = { 5 * 1024 * 1024 / 2, 5 * 1024 * 1024, 10 * 1024 * 1024 };

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		if (argc > 1 && !streq(argv[1], cases[i].name))
			continue;
		for (size_t k = 0; k < ELEMENTSOF(sizes); k++)
			measure(cases[i].name, cases[i].generate, sizes[k]);
	}
	return 0;
}
