/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"

ssize_t read_small_at(int dirfd, const char *path, char *buf, size_t size) {
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size);
	if (n < 0)
		return -errno;
	if ((size_t) n == size)
		return -EFBIG;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return n;
}

int read_line_at(int dirfd, const char *path, char **ret) {
	char buf[4096], *s;
	ssize_t n;

	n = read_small_at(dirfd, path, buf, sizeof(buf));
	if (n < 0)
		return (int) n;
	s = strdup(buf);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int readlink_basename_at(int dirfd, const char *path, char **ret) {
	char buf[PATH_MAX], *p, *s;
	ssize_t n;

	n = readlinkat(dirfd, path, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	p = strrchr(buf, '/');
	s = strdup(p ? p + 1 : buf);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

char *root_path(const char *root, const char *path) {
	char *s;

	if (!root || streq(root, "/"))
		return strdup(path);
	if (asprintf(&s, "%s%s", root, path) < 0)
		return NULL;
	return s;
}

DIR *fdopendir_consume(int fd) {
	DIR *d = fdopendir(fd);

	if (!d) {
		int e = errno;

		safe_close(fd);
		errno = e;
	}
	return d;
}

FILE *fdopen_consume(int fd, const char *mode) {
	FILE *f = fdopen(fd, mode);

	if (!f) {
		int e = errno;

		safe_close(fd);
		errno = e;
	}
	return f;
}

int write_file_atomic_at(int dirfd, const char *name, const char *text, mode_t mode) {
	_cleanup_free_ char *tmp = NULL;
	size_t n = strlen(text);
	int fd, r = 0;

	if (asprintf(&tmp, ".%s.tmp", name) < 0)
		return -ENOMEM;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (fchmod(fd, mode) < 0 || write(fd, text, n) != (ssize_t) n)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	if (r >= 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0)
		(void) unlinkat(dirfd, tmp, 0);
	return r;
}

uint64_t now_monotonic_nsec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

int write_file_atomic(const char *path, const char *text, mode_t mode) {
	_cleanup_free_ char *d = strdup(path), *b = strdup(path);
	_cleanup_close_ int dirfd = -EBADF;

	if (!d || !b)
		return -ENOMEM;
	dirfd = open(dirname(d), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	return write_file_atomic_at(dirfd, basename(b), text, mode);
}

int fd_nonblock(int fd) {
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

uint64_t now_monotonic_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

int read_all_until(int fd, uint64_t deadline_usec, size_t max, char **buf, size_t *size) {
	size_t alloc = *buf ? *size + 1 : 0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = now_monotonic_usec();
		ssize_t n;
		int k;

		if (now >= deadline_usec)
			return -ETIME;
		k = poll(&p, 1, (int) ((deadline_usec - now + 999) / 1000));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			return -ETIME;
		if (alloc - *size < 4097) {
			char *b = realloc(*buf, alloc + 16384);

			if (!b)
				return -ENOMEM;
			*buf = b;
			alloc += 16384;
		}
		n = read(fd, *buf + *size, alloc - *size - 1);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		(*buf)[*size + (size_t) n] = 0;
		if (n == 0)
			return 0;
		*size += (size_t) n;
		if (*size > max)
			return -EFBIG;
	}
}
