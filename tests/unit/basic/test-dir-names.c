/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A directory's names read a piece at a time (the observer's /sys/class/infiniband and
 * /sys/class/net of thousands of entries). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dir-names.h"
#include "fileio.h"
#include "strv.h"
#include "tests.h"

#define N_ENTRIES 2000
/* mkdtemp()'s template: it replaces the six X with a unique name */
#define DIR_TEMPLATE "/tmp/test-dir-names-XXXXXX"

/* A directory of N_ENTRIES files named like 4,096-link hosts' netdevs, made in an order
 * unlike the sorted one, and two dot entries besides "." and "..". */
static int make_dir(char *path) {
	int fd;

	if (!mkdtemp(path))
		return -errno;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (unsigned i = 0; i < N_ENTRIES; i++) {
		char name[64];
		int f;

		snprintf(name, sizeof(name), "enp%us0f1np1v%u", (i * 7919) % N_ENTRIES, i % 127);
		f = openat(fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (f < 0)
			return -errno;
		close(f);
	}
	close(openat(fd, ".hidden", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	close(openat(fd, "..hidden", O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	return fd;
}

static void remove_dir(const char *path, int fd) {
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_(dir_names_freep) DirNames *d = NULL;

	if (dir_names_new(fd, &d) >= 0) {
		while (dir_names_step(d) == 0)
			;
		if (dir_names_take(d, &names) >= 0)
			STRV_FOREACH (n, names)
				(void) unlinkat(fd, *n, 0);
	}
	(void) unlinkat(fd, ".hidden", 0);
	(void) unlinkat(fd, "..hidden", 0);
	close(fd);
	(void) rmdir(path);
}

TEST(pieces_sorted_no_dot_entries) {
	char path[] = DIR_TEMPLATE;
	_cleanup_strv_free_ char **names = NULL, **again = NULL;
	_cleanup_(dir_names_freep) DirNames *d = NULL, *e = NULL;
	unsigned steps = 0;
	int fd, r;

	fd = make_dir(path);
	CHECK(fd >= 0);
	CHECK_INTEQ(dir_names_new(fd, &d), 0);
	while ((r = dir_names_step(d)) == 0)
		steps++;
	CHECK_INTEQ(r, 1);
	CHECK_INTEQ(dir_names_step(d), 1); /* read: stays so */
	/* 2,000 names of some 40 bytes a record: several reads of DIR_NAMES_CHUNK, not one */
	CHECK(steps >= 5);
	CHECK_INTEQ(dir_names_take(d, &names), 0);
	CHECK_INTEQ(strv_length(names), N_ENTRIES);
	for (size_t i = 1; i < N_ENTRIES; i++)
		CHECK(strcmp(names[i - 1], names[i]) < 0);
	STRV_FOREACH (n, names)
		CHECK((*n)[0] != '.');
	CHECK(strv_contains(names, "enp0s0f1np1v0"));
	/* taken: the reader holds none */
	CHECK_INTEQ(dir_names_take(d, &again), 0);
	CHECK(again && again[0] == NULL);
	strv_free(again);
	again = NULL;
	/* a second reader of the same fd starts at the first entry */
	CHECK_INTEQ(dir_names_new(fd, &e), 0);
	while ((r = dir_names_step(e)) == 0)
		;
	CHECK_INTEQ(r, 1);
	CHECK_INTEQ(dir_names_take(e, &again), 0);
	CHECK(strv_equal(names, again));
	remove_dir(path, fd);
}

TEST(empty_and_not_a_directory) {
	char path[] = DIR_TEMPLATE;
	_cleanup_strv_free_ char **names = NULL;
	_cleanup_(dir_names_freep) DirNames *d = NULL;
	int fd, f;

	CHECK(mkdtemp(path));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_INTEQ(dir_names_new(fd, &d), 0);
	/* "." and "..", left out; then the end */
	CHECK_INTEQ(dir_names_step(d), 0);
	CHECK_INTEQ(dir_names_step(d), 1);
	CHECK_INTEQ(dir_names_take(d, &names), 0);
	CHECK(names && names[0] == NULL);
	/* a file, not a directory: refused when the reader is made */
	f = openat(fd, "file", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CHECK(f >= 0);
	CHECK_INTEQ(dir_names_new(f, &d), -ENOTDIR);
	close(f);
	(void) unlinkat(fd, "file", 0);
	close(fd);
	(void) rmdir(path);
}
TESTS_MAIN(TEST_ENTRY(pieces_sorted_no_dot_entries), TEST_ENTRY(empty_and_not_a_directory))
