/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The profile loader against input written to hurt it (issue 16): NULs, tags, leading zeros,
 * dotted keys, aliases and alias bombs, deep nesting, invalid UTF-8 at its real position, a
 * flood of errors, lists of 500,000 items, a FIFO named *.yaml, and drop-ins that only look like
 * profiles or masks. Each with the exact diagnostic the user sees. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "profile.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

/* Loads len bytes of text as "t.yaml"; returns the diagnostics joined by newlines ("" when
 * clean) and the number of errors (counted ones included) in *ret_errors. */
static char *load_n(const char *text, size_t len, Profile ***ret, size_t *ret_n,
		    size_t *ret_errors) {
	Diagnostics d = { 0 };
	Profile **l = NULL;
	size_t n = 0, out_len = 0;
	char *out;
	int r;

	r = profile_load_string("t.yaml", text, len, &d, &l, &n);
	out = calloc(1, 1);
	for (size_t i = 0; i < d.n; i++) {
		char *s = diagnostic_format(&d.items[i]);

		out = realloc(out, out_len + strlen(s) + 2);
		out_len += sprintf(out + out_len, "%s%s", i ? "\n" : "", s);
		free(s);
	}
	CHECK((r < 0) == (d.n > 0));
	if (ret_errors)
		*ret_errors = diagnostics_n_errors(&d);
	diagnostics_done(&d);
	if (ret) {
		*ret = l;
		*ret_n = n;
	} else {
		for (size_t i = 0; i < n; i++)
			profile_free(l[i]);
		free(l);
	}
	return out;
}

static char *load(const char *text) {
	return load_n(text, strlen(text), NULL, NULL, NULL);
}

static const struct {
	const char *yaml;
	const char *error;
} invalid[] = {
	/* an escaped NUL cuts nothing short: keys, values, list items */
	{ "roce: {\"tos\\0junk\": 42}\n",
	  "t.yaml:1:8: error: 'tos\\0...': a NUL character (\\0) is not allowed in a string" },
	{ "match: {device: \"rxe0\\0junk\"}\n",
	  "t.yaml:1:17: error: 'rxe0\\0...': a NUL character (\\0) is not allowed in a string" },
	{ "netdev:\n  addresses: [\"192.0.2.7/24\\0junk\"]\n",
	  "t.yaml:2:15: error: '192.0.2.7/24\\0...': a NUL character (\\0) is not allowed in a "
	  "string" },
	/* tags: honoured or refused */
	{ "roce:\n  tos: !!str 42\n",
	  "t.yaml:2:8: error: 'roce.tos' expects an integer, got a string" },
	{ "roce:\n  tos: ! 42\n",
	  "t.yaml:2:8: error: 'roce.tos' expects an integer, got a string" },
	{ "roce: !!python/object {tos: 1}\n", "t.yaml:1:7: error: unsupported YAML tag "
					      "'!!python/object' (rdmad reads only !!str, !!int, "
					      "!!bool, !!null, !!seq and !!map)" },
	{ "roce: {mode: !local v2}\n",
	  "t.yaml:1:14: error: unsupported YAML tag '!local' (rdmad reads only !!str, !!int, "
	  "!!bool, !!null, !!seq and !!map)" },
	{ "roce: {tos: !!int ten}\n",
	  "t.yaml:1:13: error: '!!int' on 'ten', which is not an integer\n"
	  "t.yaml:1:13: error: 'roce.tos' expects an integer, got 'ten'" },
	{ "modules: !!map [a]\n", "t.yaml:1:10: error: '!!map' on a list" },
	/* dotted keys are not a shorthand */
	{ "roce: {tos: 106}\nroce.tos: 42\n",
	  "t.yaml:2:1: error: unknown key 'roce.tos': keys do not nest with dots, write 'roce.tos' "
	  "as nested mappings" },
	/* leading zeros: octal to YAML 1.1 */
	{ "roce:\n  tos: 052\n",
	  "t.yaml:2:8: error: 'roce.tos': '052' has a leading zero, which YAML 1.1 reads as octal; "
	  "write the decimal number without it" },
	{ "qos:\n  dscp-map: {-01: 3}\n",
	  "t.yaml:2:14: error: 'qos.dscp-map': '-01' has a leading zero, which YAML 1.1 reads as "
	  "octal; write the decimal number without it" },
	/* errors in what an alias brings point at the alias */
	{ "qos: {pfc: &p [3, 1]}\necn:\n  roce-np: &q [3, 9]\n  roce-rp: *q\n",
	  "t.yaml:3:19: error: 'ecn.roce-np' must be in 0..7, got 9\n"
	  "t.yaml:4:12: error: 'ecn.roce-rp' must be in 0..7, got 9" },
	{ "roce: {tos: *x}\n", "t.yaml:1:13: error: alias '*x' has no anchor '&x' before it (or is "
			       "inside it)" },
	{ "modules: &m [a, *m]\n",
	  "t.yaml:1:17: error: alias '*m' has no anchor '&m' before it (or "
	  "is inside it)" },
	/* duplicate keys, by hash */
	{ "roce:\n  tos: 1\n  mode: v2\n  tos: 2\n",
	  "t.yaml:4:3: error: duplicate key 'tos' (first set at line 2)" },
	/* invalid UTF-8 and control characters at their place (libyaml gives an offset) */
	{ "roce:\n  mode: \"v\xff"
	  "2\"\n",
	  "t.yaml:2:11: error: YAML syntax error: invalid leading UTF-8 octet (byte 0xff)" },
	{ "roce:\n  mode: v2\nmatch: {device: \"\xc3\xa9t\xc3\xa9\x80\"}\n",
	  "t.yaml:3:21: error: YAML syntax error: invalid leading UTF-8 octet (byte 0x80)" },
	{ "roce:\n  mode: v\x01"
	  "2\n",
	  "t.yaml:2:10: error: YAML syntax error: control characters are not allowed (byte 0x01)" },
};

TEST(invalid) {
	for (size_t i = 0; i < ELEMENTSOF(invalid); i++) {
		char *e = load(invalid[i].yaml);

		CHECK_STREQ(e, invalid[i].error);
		free(e);
	}
}

/* Tags that say what the value is are fine; an alias carries its anchor's value. */
TEST(valid_tags_and_aliases) {
	Profile **l = NULL;
	size_t n = 0;
	char *e;

	static const char text[] = "roce: !!map {tos: !!int 106, mode: !!str v2}\n"
				   "qos: {pfc: &p [3]}\necn: {roce-np: *p, roce-rp: *p}\n"
				   "modules: !!seq [a]\n";

	e = load_n(text, strlen(text), &l, &n, NULL);
	CHECK_STREQ(e, "");
	CHECK_INTEQ(n, 1);
	if (n == 1) {
		CHECK_INTEQ(l[0]->settings.roce_tos, 106);
		CHECK_INTEQ(l[0]->settings.ecn_roce_np, 1 << 3);
		CHECK_INTEQ(l[0]->settings.ecn_roce_rp, 1 << 3);
		profile_free(l[0]);
	}
	free(l);
	free(e);
}

/* A raw NUL byte in the file (not the \0 escape) is a syntax error at its position. */
TEST(raw_nul) {
	static const char text[] = "roce:\n  tos: 4\0 2\n";
	char *e = load_n(text, sizeof(text) - 1, NULL, NULL, NULL);

	CHECK_STREQ(e, "t.yaml:2:9: error: YAML syntax error: control characters are not allowed "
		       "(byte 0x00)");
	free(e);
}

/* Nesting stops at 64 levels, where it passes the limit, for flow and block forms. */
TEST(depth) {
	size_t len = 4 * 1024 * 1024, n;
	char *text = malloc(len), *e;

	memset(text, '[', len);
	e = load_n(text, len, NULL, NULL, NULL);
	CHECK_STREQ(e, "t.yaml:1:65: error: nested deeper than 64 levels (a profile needs 4)");
	free(e);

	n = 0;
	for (int i = 0; i < 100; i++)
		n += sprintf(text + n, "%*sa:\n", i, "");
	e = load_n(text, n, NULL, NULL, NULL);
	CHECK_STREQ(e, "t.yaml:65:65: error: nested deeper than 64 levels (a profile needs 4)");
	free(e);
	free(text);
}

/* Billion laughs: nine levels of nine aliases would be 387 million nodes. */
TEST(alias_bomb) {
	char text[1024];
	size_t n = 0;
	char *e;

	n += sprintf(text + n, "a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
	for (int i = 1; i < 9; i++)
		n += sprintf(text + n,
			     "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
			     "*a%d]\n",
			     i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
	e = load_n(text, n, NULL, NULL, NULL);
	/* a4's first alias would copy a3's 7,381 nodes: past the 10,000 with the 8,289 before. */
	CHECK_STREQ(e, "t.yaml:5:10: error: alias '*a3': aliases expand to more than 10000 nodes "
		       "in this document");
	free(e);
}

/* 40,000 errors: 20 shown, the rest counted; and a value of 1 MB is cut in the message. */
TEST(errors_capped) {
	size_t len = 40000 * 16, n = 0, errors = 0;
	char *text = malloc(len), *e, *expected = calloc(1, 4096);
	size_t k = 0;

	for (int i = 0; i < 40000; i++)
		n += sprintf(text + n, "k%d: 1\n", i);
	for (int i = 0; i < 20; i++)
		k += sprintf(expected + k, "t.yaml:%d:1: error: unknown key 'k%d'\n", i + 1, i);
	sprintf(expected + k, "t.yaml: and 39980 more errors");
	e = load_n(text, n, NULL, NULL, &errors);
	CHECK_STREQ(e, expected);
	CHECK_INTEQ(errors, 40000);
	free(e);
	free(text);

	text = malloc(1024 * 1024 + 32);
	if (!text)
		return;
	strcpy(text, "roce: {mode: ");
	memset(text + 13, 'k', 1024 * 1024);
	strcpy(text + 13 + 1024 * 1024, "}\n");
	e = load_n(text, strlen(text), NULL, NULL, NULL);
	CHECK(strlen(e) < DIAGNOSTIC_MESSAGE_MAX + 64);
	CHECK(strstr(e, "kkk...") != NULL);
	free(e);
	free(text);
	free(expected);
}

/* 500,000 modules: all kept, a duplicate at the end found (by hash: linear). */
TEST(long_lists) {
	size_t len = 500001 * 12, n = 0, count = 0;
	char *text = malloc(len), *e;
	Profile **l = NULL;

	n += sprintf(text + n, "modules: [");
	for (int i = 0; i < 500000; i++)
		n += sprintf(text + n, "m%d,", i);
	n += sprintf(text + n, "m0]\n");
	e = load_n(text, n, NULL, NULL, NULL);
	CHECK(strstr(e, "error: 'modules': module 'm0' is listed twice") != NULL);
	free(e);

	text[n - 5] = ']';
	e = load_n(text, n - 4, &l, &count, NULL);
	CHECK_STREQ(e, "");
	CHECK_INTEQ(count, 1);
	if (count == 1) {
		CHECK_INTEQ(strv_length(l[0]->modules), 500000);
		CHECK_STREQ(l[0]->modules[499999], "m499999");
		profile_free(l[0]);
	}
	free(l);
	free(e);
	free(text);
}

/* Nodes and documents per file are bounded (memory). */
TEST(file_limits) {
	size_t len = 4 * 1024 * 1024, n = 0;
	char *text = malloc(len), *e;

	n += sprintf(text + n, "modules: [");
	while (n < len - 4)
		n += sprintf(text + n, "a,");
	text[n - 1] = ']';
	e = load_n(text, n, NULL, NULL, NULL);
	CHECK(strstr(e, "error: more than 1000000 YAML nodes in one file") != NULL);
	free(e);

	n = 0;
	for (int i = 0; i < 5000; i++)
		n += sprintf(text + n, "{}\n---\n");
	e = load_n(text, n, NULL, NULL, NULL);
	CHECK_STREQ(e, "t.yaml:8192:1: error: more than 4096 documents in one file");
	free(e);
	free(text);
}

static char dir[] = "/tmp/rdmad-test-hostile-XXXXXX";

static char *load_path(const char *path) {
	Diagnostics d = { 0 };
	Profile **l = NULL;
	size_t n = 0;
	char *s;

	CHECK(profile_load_file(path, &d, &l, &n) < 0);
	CHECK_INTEQ(d.n, 1);
	s = d.n > 0 ? diagnostic_format(&d.items[0]) : strdup("");
	diagnostics_done(&d);
	return s;
}

/* A FIFO named *.yaml is refused at once, not waited on; a symlink loop is named. */
TEST(special_files) {
	char path[256], expected[512], *e;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/fifo.yaml", dir);
	CHECK(mkfifo(path, 0644) == 0);
	alarm(10); /* a hang fails the test instead of blocking it */
	e = load_path(path);
	alarm(0);
	snprintf(expected, sizeof(expected), "%s: error: not a regular file (a FIFO)", path);
	CHECK_STREQ(e, expected);
	free(e);

	snprintf(path, sizeof(path), "%s/loop.yaml", dir);
	CHECK(symlink("loop.yaml", path) == 0);
	e = load_path(path);
	snprintf(expected, sizeof(expected),
		 "%s: error: cannot open: Too many levels of symbolic links (a symlink loop?)",
		 path);
	CHECK_STREQ(e, expected);
	free(e);
}

static void link_to(const char *path, const char *target) {
	char full[512];

	snprintf(full, sizeof(full), "%s%s", dir, path);
	CHECK(symlink(target, full) == 0);
}

/* Only a symlink to /dev/null masks; near-miss names and a directory that is a file are
 * warnings, not silence. */
TEST(dropins) {
	Diagnostics d = { 0 };
	char **l = NULL, *s, expected[1024];
	size_t k = 0;

	put_file(dir, "/usr/lib/rdmad/10-a.yaml", "roce: {tos: 1}\n");
	put_file(dir, "/usr/lib/rdmad/20-b.yaml", "roce: {tos: 2}\n");
	put_file(dir, "/usr/lib/rdmad/30-c.yaml", "roce: {tos: 3}\n");
	put_file(dir, "/etc/rdmad/40-d.YAML", "roce: {tos: 4}\n");
	put_file(dir, "/run/rdmad", "a file\n");
	link_to("/etc/rdmad/10-a.yaml", "/dev/null");
	link_to("/etc/rdmad/20-b.yaml", "/dev/zero");
	link_to("/etc/rdmad/30-c.yaml", "/proc/self/status");

	CHECK(profile_dropins_find(dir, NULL, &d, &l) == 0);
	s = strv_join(l, ",");
	k += snprintf(expected + k, sizeof(expected) - k, "%s/etc/rdmad/20-b.yaml,", dir);
	k += snprintf(expected + k, sizeof(expected) - k, "%s/etc/rdmad/30-c.yaml", dir);
	CHECK_STREQ(s, expected);
	free(s);
	CHECK_INTEQ(d.n, 2);
	CHECK_INTEQ(diagnostics_n_errors(&d), 0);
	if (d.n == 2) {
		s = diagnostic_format(&d.items[0]);
		snprintf(expected, sizeof(expected),
			 "%s/etc/rdmad: warning: '40-d.YAML' is not read: profiles end in .yaml or "
			 ".yml, lower case",
			 dir);
		CHECK_STREQ(s, expected);
		free(s);
		s = diagnostic_format(&d.items[1]);
		snprintf(expected, sizeof(expected),
			 "%s/run/rdmad: warning: not a directory: no profiles read from it", dir);
		CHECK_STREQ(s, expected);
		free(s);
	}
	diagnostics_done(&d);
	strv_free(l);
}

TEST(cleanup) {
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

TESTS_MAIN(TEST_ENTRY(invalid), TEST_ENTRY(valid_tags_and_aliases), TEST_ENTRY(raw_nul),
	   TEST_ENTRY(depth), TEST_ENTRY(alias_bomb), TEST_ENTRY(errors_capped),
	   TEST_ENTRY(long_lists), TEST_ENTRY(file_limits), TEST_ENTRY(special_files),
	   TEST_ENTRY(dropins), TEST_ENTRY(cleanup))
