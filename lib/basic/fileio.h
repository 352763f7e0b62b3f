/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Read a small (sysfs-like) file relative to dirfd into buf, NUL-terminated, trailing newline
 * removed. Returns the length, -EFBIG if it does not fit, or -errno. */
ssize_t read_small_at(int dirfd, const char *path, char *buf, size_t size);
/* The same, as an allocated string. */
int read_line_at(int dirfd, const char *path, char **ret);
/* Basename of a symlink's target, allocated. */
int readlink_basename_at(int dirfd, const char *path, char **ret);
/* Join root and an absolute path ("/" root: the path itself). */
char *root_path(const char *root, const char *path);
/* fdopendir() and fdopen() that own fd either way: it is closed when they fail (errno kept), so
 * that fdopendir_consume(TAKE_FD(fd)) never leaks it. */
DIR *fdopendir_consume(int fd);
FILE *fdopen_consume(int fd, const char *mode);
/* Make dirfd/name hold text, mode (whatever the umask): written to ".NAME.tmp" beside it and
 * renamed over it, so that a reader sees the old content or the new, never a part. */
int write_file_atomic_at(int dirfd, const char *name, const char *text, mode_t mode);
/* The same at a path: its directory opened for the rename. */
int write_file_atomic(const char *path, const char *text, mode_t mode);
/* O_NONBLOCK added to fd's flags. */
int fd_nonblock(int fd);
/* Read fd (a pipe from a child) until EOF, at most max bytes, waiting until deadline
 * (CLOCK_MONOTONIC, µs) at most. *buf (allocated, NUL-terminated) and *size hold what came, even
 * on failure. Returns 0 at EOF, -ETIME at the deadline, -EFBIG past max, -ENOMEM, -errno. */
int read_all_until(int fd, uint64_t deadline_usec, size_t max, char **buf, size_t *size);
/* CLOCK_MONOTONIC, in µs. */
uint64_t now_monotonic_usec(void);
uint64_t now_monotonic_nsec(void);
