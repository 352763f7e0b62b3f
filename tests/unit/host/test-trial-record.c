/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trial record (issue 45): what is written reads back the same, a record cut anywhere or
 * with bytes changed reads as torn (never as a shorter trial), names and values that would not
 * read back are refused when it is written. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "tests.h"
#include "trial-record.h"

static TrialRecord record_new(void) {
	TrialRecord r = { .started_usec = 1733500000123456ULL, .timeout_usec = 120000000ULL };

	CHECK_INTEQ(trial_record_add_file(&r, "50-tos.yaml",
					  "match:\n  device: rxe0\nroce:\n  tos: 184\n"),
		    0);
	/* a file with no final newline, and one that is empty */
	CHECK_INTEQ(trial_record_add_file(&r, "60-mtu.yml", "netdev: {mtu: 1400}"), 0);
	CHECK_INTEQ(trial_record_add_file(&r, "70-empty.yaml", ""), 0);
	CHECK_INTEQ(trial_record_add_object(&r, "rxe0/1", "veth0", KEY_ROCE_TOS, "106"), 0);
	CHECK_INTEQ(trial_record_add_object(&r, "rxe0/1", "veth0", KEY_NETDEV_MTU, "1500"), 0);
	CHECK_INTEQ(trial_record_add_object(&r, "mlx5_0/1", NULL, KEY_ROCE_MODE, "v2"), 0);
	return r;
}

static void check_equal(const TrialRecord *a, const TrialRecord *b) {
	CHECK(a->started_usec == b->started_usec);
	CHECK(a->timeout_usec == b->timeout_usec);
	CHECK_INTEQ(a->n_files, b->n_files);
	for (size_t i = 0; i < a->n_files && i < b->n_files; i++) {
		CHECK_STREQ(a->files[i].name, b->files[i].name);
		CHECK_STREQ(a->files[i].content, b->files[i].content);
	}
	CHECK_INTEQ(a->n_objects, b->n_objects);
	for (size_t i = 0; i < a->n_objects && i < b->n_objects; i++) {
		CHECK_STREQ(a->objects[i].link, b->objects[i].link);
		CHECK((a->objects[i].netdev == NULL) == (b->objects[i].netdev == NULL));
		if (a->objects[i].netdev)
			CHECK_STREQ(a->objects[i].netdev, b->objects[i].netdev);
		CHECK_INTEQ(a->objects[i].key, b->objects[i].key);
		CHECK_STREQ(a->objects[i].value, b->objects[i].value);
	}
}

TEST(round_trip) {
	TrialRecord r = record_new(), back = { 0 };
	char *text = NULL;

	CHECK_INTEQ(trial_record_format(&r, &text), 0);
	CHECK_STREQ(text, "rdmad-trial 1\n"
			  "started 1733500000123456\n"
			  "timeout 120000000\n"
			  "file 50-tos.yaml 39\n"
			  "match:\n  device: rxe0\nroce:\n  tos: 184\n\n"
			  "file 60-mtu.yml 19\n"
			  "netdev: {mtu: 1400}\n"
			  "file 70-empty.yaml 0\n\n"
			  "object rxe0/1 veth0 roce.tos 106\n"
			  "object rxe0/1 veth0 netdev.mtu 1500\n"
			  "object mlx5_0/1 - roce.mode v2\n"
			  "end\n");
	CHECK_INTEQ(trial_record_parse(text, strlen(text), &back), 0);
	check_equal(&r, &back);
	trial_record_done(&back);
	free(text);
	trial_record_done(&r);
}

/* Every prefix of a record is torn, and so is a record with a byte changed in its framing: a
 * trial is rolled back from all of its record or not at all. */
TEST(torn) {
	TrialRecord r = record_new(), back = { 0 };
	char *text = NULL;
	size_t n;

	CHECK_INTEQ(trial_record_format(&r, &text), 0);
	n = strlen(text);
	for (size_t cut = 0; cut < n; cut++)
		if (trial_record_parse(text, cut, &back) != -EBADMSG) {
			printf("#   a record cut at %zu bytes of %zu parsed\n", cut, n);
			test_failed = 1;
			trial_record_done(&back);
		}
	/* a file's size one more or one less than its content */
	{
		char *t = strdup(text), *p = strstr(t, "file 60-mtu.yml 19");

		p[strlen("file 60-mtu.yml 1")] = '8';
		CHECK_INTEQ(trial_record_parse(t, n, &back), -EBADMSG);
		p[strlen("file 60-mtu.yml 1")] = '0'; /* 10: lands mid-content */
		CHECK_INTEQ(trial_record_parse(t, n, &back), -EBADMSG);
		free(t);
	}
	/* something after the end, an unknown line, an unknown key, another version */
	{
		char *t = NULL;

		CHECK(asprintf(&t, "%sobject rxe0/1 - roce.tos 0\n", text) > 0);
		CHECK_INTEQ(trial_record_parse(t, strlen(t), &back), -EBADMSG);
		free(t);
	}
	CHECK_INTEQ(
		trial_record_parse("rdmad-trial 1\nstarted 1\ntimeout 2\nwhat\nend\n", 42, &back),
		-EBADMSG);
	{
		const char *t =
			"rdmad-trial 1\nstarted 1\ntimeout 2\nobject a/1 - roce.nope 1\nend\n";

		CHECK_INTEQ(trial_record_parse(t, strlen(t), &back), -EBADMSG);
		t = "rdmad-trial 2\nstarted 1\ntimeout 2\nend\n";
		CHECK_INTEQ(trial_record_parse(t, strlen(t), &back), -EBADMSG);
		t = "rdmad-trial 1\nstarted 1\ntimeout 2\nend\n";
		CHECK_INTEQ(trial_record_parse(t, strlen(t), &back), 0);
		CHECK_INTEQ(back.n_files + back.n_objects, 0);
		trial_record_done(&back);
	}
	free(text);
	trial_record_done(&r);
}

TEST(refused) {
	static const char *const bad_names[] = { "",	     ".hidden.yaml", "a/b.yaml",  "x.conf",
						 "a b.yaml", ".yaml",	     "tab\t.yaml" };
	TrialRecord r = { 0 };
	char *text = NULL;

	for (size_t i = 0; i < ELEMENTSOF(bad_names); i++)
		CHECK(!trial_file_name_valid(bad_names[i]));
	CHECK(trial_file_name_valid("50-tos.yaml") && trial_file_name_valid("a.yml"));
	CHECK_INTEQ(trial_record_add_object(&r, "rxe0/1", NULL, KEY_ROCE_TOS, "1\n2"), 0);
	CHECK_INTEQ(trial_record_format(&r, &text), -EINVAL);
	trial_record_done(&r);
	CHECK_INTEQ(trial_record_add_object(&r, "rxe 0/1", NULL, KEY_ROCE_TOS, "1"), 0);
	CHECK_INTEQ(trial_record_format(&r, &text), -EINVAL);
	trial_record_done(&r);
	CHECK_INTEQ(trial_record_add_file(&r, "../x.yaml", ""), 0);
	CHECK_INTEQ(trial_record_format(&r, &text), -EINVAL);
	trial_record_done(&r);
}

TEST(files) {
	char dir[] = "/tmp/rdmad-test-trial-record-XXXXXX", *path = NULL;
	TrialRecord r = record_new(), back = { 0 };

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INTEQ(trial_record_read(dir, &back), -ENOENT);
	CHECK_INTEQ(trial_record_remove(dir), 0); /* none there is fine */
	CHECK_INTEQ(trial_record_write(dir, &r), 0);
	CHECK_INTEQ(trial_record_read(dir, &back), 0);
	check_equal(&r, &back);
	trial_record_done(&back);
	/* torn on disk: set aside, not read again */
	CHECK(asprintf(&path, "%s/trial/record", dir) > 0);
	CHECK(truncate(path, 30) == 0);
	CHECK_INTEQ(trial_record_read(dir, &back), -EBADMSG);
	CHECK_INTEQ(trial_record_set_aside(dir), 0);
	CHECK_INTEQ(trial_record_read(dir, &back), -ENOENT);
	CHECK_INTEQ(trial_record_write(dir, &r), 0);
	CHECK_INTEQ(trial_record_remove(dir), 0);
	CHECK_INTEQ(trial_record_read(dir, &back), -ENOENT);
	/* the last outcome kept */
	{
		char *s = NULL;

		CHECK_INTEQ(trial_last_read(dir, &s), -ENOENT);
		CHECK_INTEQ(trial_last_write(dir, "{\"outcome\":\"confirmed\"}"), 0);
		CHECK_INTEQ(trial_last_read(dir, &s), 0);
		CHECK_STREQ(s, "{\"outcome\":\"confirmed\"}");
		free(s);
	}
	/* an installed file holds the content */
	CHECK_INTEQ(trial_file_install(dir, "50-tos.yaml", "roce: {tos: 1}\n"), 0);
	CHECK_INTEQ(trial_file_install(dir, "../50-tos.yaml", "x"), -EINVAL);
	free(path);
	CHECK(asprintf(&path, "rm -rf '%s'", dir) > 0);
	CHECK(system(path) == 0);
	free(path);
	trial_record_done(&r);
}

/* The rollback profile: a document per link, a section once, and it loads as any profile. */
TEST(rollback_yaml) {
	TrialRecord r = record_new();
	Diagnostics diags = { 0 };
	Profile **p = NULL;
	size_t n = 0;
	char *text = NULL;

	CHECK_INTEQ(trial_record_add_object(&r, "rxe0/1", "veth0", KEY_ROCE_MODE, "v2"), 0);
	CHECK_INTEQ(trial_record_rollback_yaml(&r, &text), 0);
	CHECK_STREQ(text, "---\nmatch:\n  device: \"rxe0\"\n  port: [1]\n"
			  "roce:\n  tos: 106\n  mode: v2\n"
			  "netdev:\n  mtu: 1500\n"
			  "---\nmatch:\n  device: \"mlx5_0\"\n  port: [1]\n"
			  "roce:\n  mode: v2\n");
	CHECK_INTEQ(profile_load_string("rollback", text, strlen(text), &diags, &p, &n), 0);
	CHECK_INTEQ(n, 2);
	for (size_t i = 0; i < diags.n; i++) {
		char *line = diagnostic_format(&diags.items[i]);

		printf("#   %s\n", line);
		free(line);
	}
	if (n == 2) {
		CHECK(p[0]->settings.roce_tos == 106 && p[0]->settings.roce_mode == ROCE_MODE_V2);
		CHECK(p[0]->settings.netdev_mtu == 1500);
		CHECK(p[0]->settings.set & KEY_BIT(KEY_NETDEV_MTU));
		CHECK(!(p[1]->settings.set & KEY_BIT(KEY_ROCE_TOS)));
	}
	for (size_t i = 0; i < n; i++)
		profile_free(p[i]);
	free(p);
	diagnostics_done(&diags);
	free(text);
	trial_record_done(&r);
	CHECK_INTEQ(trial_record_add_object(&r, "rxe0", NULL, KEY_ROCE_TOS, "1"), 0);
	CHECK_INTEQ(trial_record_rollback_yaml(&r, &text), -EINVAL);
	trial_record_done(&r);
}

TESTS_MAIN(TEST_ENTRY(round_trip), TEST_ENTRY(torn), TEST_ENTRY(refused), TEST_ENTRY(files),
	   TEST_ENTRY(rollback_yaml))
