/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "dir-names.h"
#include "fileio.h"
#include "strv.h"

struct DirNames {
	int fd;
	char **names;
	size_t n, n_alloc;
	bool done;
};

int dir_names_new(int dirfd, DirNames **ret) {
	_cleanup_(dir_names_freep) DirNames *d = NULL;

	d = calloc(1, sizeof(DirNames));
	if (!d)
		return -ENOMEM;
	d->fd = -EBADF;
	/* an open file of its own: a dup() would share the caller's position in the directory */
	d->fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	*ret = TAKE_PTR(d);
	return 0;
}

DirNames *dir_names_free(DirNames *d) {
	if (!d)
		return NULL;
	safe_close(d->fd);
	strv_free(d->names);
	free(d);
	return NULL;
}

int dir_names_step(DirNames *d) {
	/* struct dirent64's alignment, for the records the kernel writes into it */
	union {
		struct dirent64 de;
		char bytes[DIR_NAMES_CHUNK];
	} buf;
	ssize_t len;
	int r;

	if (d->done)
		return 1;
	len = getdents64(d->fd, &buf, sizeof(buf));
	if (len < 0)
		return -errno;
	if (len == 0) {
		d->done = true;
		return 1;
	}
	for (ssize_t off = 0; off < len;) {
		const struct dirent64 *de = (const struct dirent64 *) (buf.bytes + off);

		off += de->d_reclen;
		if (de->d_name[0] == '.')
			continue;
		r = GREEDY_REALLOC(d->names, d->n_alloc, d->n + 2);
		if (r < 0)
			return r;
		d->names[d->n] = strdup(de->d_name);
		if (!d->names[d->n])
			return -ENOMEM;
		d->names[++d->n] = NULL;
	}
	return 0;
}

int dir_names_take(DirNames *d, char ***ret) {
	char **names = d->names;

	if (!names) {
		names = calloc(1, sizeof(char *));
		if (!names)
			return -ENOMEM;
	}
	strv_sort(names);
	d->names = NULL;
	d->n = d->n_alloc = 0;
	*ret = names;
	return 0;
}
