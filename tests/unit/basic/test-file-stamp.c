/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the daemon compares around a profile load (issue 16): the same files unchanged are
 * equal; a rewrite in place, a truncation to a mask, a file added or removed are told apart
 * and named; the newest change is found; and the write faults tests inject under a fixture
 * root (RDMAD_TEST_FAULTS) apply there only. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "apply.h"
#include "file-stamp.h"
#include "macro.h"
#include "tests.h"

static const char *const suffixes[] = { ".yaml", ".yml", NULL };

static void put(const char *path, const char *text) {
	FILE *f = fopen(path, "we");

	CHECK(f);
	fputs(text, f);
	CHECK(fclose(f) == 0);
}

TEST(stamps) {
	char dir[] = "/tmp/test-file-stamp-XXXXXX", a[128], b[128], other[128];
	const char *dirv[2] = { dir, NULL };
	FileStamps s0 = { 0 }, s1 = { 0 };
	const char *path = NULL;
	uint64_t t;

	CHECK(mkdtemp(dir));
	snprintf(a, sizeof(a), "%s/50-a.yaml", dir);
	snprintf(b, sizeof(b), "%s/60-b.yml", dir);
	snprintf(other, sizeof(other), "%s/50-a.yaml.swp", dir);
	put(a, "roce: {tos: 1}\n");

	CHECK_INTEQ(file_stamps_take_dirs("/", dirv, suffixes, &s0), 0);
	CHECK_INTEQ(s0.n, 1);
	CHECK_INTEQ(file_stamps_newest(&s0, &path, &t), 0);
	CHECK_STREQ(path, a);
	put(other, "editor swap file"); /* not a profile: ignored */
	CHECK_INTEQ(file_stamps_take_dirs("/", dirv, suffixes, &s1), 0);
	CHECK(file_stamps_equal(&s0, &s1, &path));
	file_stamps_done(&s1);

	/* truncated: an empty file is a mask, still stamped */
	CHECK(truncate(a, 0) == 0);
	CHECK_INTEQ(file_stamps_take_dirs("/", dirv, suffixes, &s1), 0);
	CHECK_INTEQ(s1.n, 1);
	CHECK(!file_stamps_equal(&s0, &s1, &path));
	CHECK_STREQ(path, a);
	file_stamps_done(&s1);

	/* a file added */
	put(b, "roce: {tos: 2}\n");
	CHECK_INTEQ(file_stamps_take_dirs("/", dirv, suffixes, &s1), 0);
	CHECK_INTEQ(s1.n, 2);
	path = NULL;
	CHECK(!file_stamps_equal(&s0, &s1, &path));
	CHECK(path);
	file_stamps_done(&s1);

	/* a missing directory: no files */
	dirv[0] = "/nonexistent-rdmad-profiles";
	CHECK_INTEQ(file_stamps_take_dirs("/", dirv, suffixes, &s1), 0);
	CHECK_INTEQ(s1.n, 0);
	CHECK_INTEQ(file_stamps_newest(&s1, &path, &t), -ENOENT);
	file_stamps_done(&s1);
	file_stamps_done(&s0);

	unlink(a);
	unlink(b);
	unlink(other);
	CHECK(rmdir(dir) == 0);
}

TEST(write_faults) {
	char dir[] = "/tmp/test-write-fault-XXXXXX", faults[128];
	_cleanup_(applier_freep) Applier *a = NULL, *real = NULL;

	CHECK(mkdtemp(dir));
	snprintf(faults, sizeof(faults), "%s/faults", dir);
	CHECK_INTEQ(applier_new(dir, dir, &a), 0);
	CHECK_INTEQ(applier_write_fault(a, "sys/x"), 0); /* none set */
	CHECK_INTEQ(applier_set_fault_file(a, faults), 0);
	CHECK_INTEQ(applier_write_fault(a, "sys/x"), 0); /* no file yet */
	put(faults, "# comment\n/sys/x EBUSY\nsys/y EIO\nsys/z ENOSUCHERRNO\n");
	CHECK_INTEQ(applier_write_fault(a, "sys/x"), -EBUSY);
	CHECK_INTEQ(applier_write_fault(a, "sys/y"), -EIO);
	CHECK_INTEQ(applier_write_fault(a, "sys/z"), 0);
	CHECK_INTEQ(applier_write_fault(a, "sys/w"), 0);
	put(faults, ""); /* cleared while running */
	CHECK_INTEQ(applier_write_fault(a, "sys/x"), 0);

	/* never on the real root */
	CHECK_INTEQ(applier_new("/", dir, &real), 0);
	CHECK_INTEQ(applier_set_fault_file(real, faults), -EPERM);

	unlink(faults);
	(void) rmdir(dir);
}

TESTS_MAIN(TEST_ENTRY(stamps), TEST_ENTRY(write_faults))
