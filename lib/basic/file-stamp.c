/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "file-stamp.h"
#include "strv.h"

static uint64_t timespec_nsec(const struct timespec *ts) {
	return (uint64_t) ts->tv_sec * 1000000000ULL + (uint64_t) ts->tv_nsec;
}

void file_stamps_done(FileStamps *s) {
	for (size_t i = 0; i < s->n; i++)
		free(s->items[i].path);
	free(s->items);
	*s = (FileStamps){ 0 };
}

int file_stamps_take(char *const *files, FileStamps *ret) {
	FileStamps s = { 0 };
	size_t n = 0;

	while (files && files[n])
		n++;
	if (n > 0) {
		s.items = calloc(n, sizeof(FileStamp));
		if (!s.items)
			return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		FileStamp *f = &s.items[s.n];
		struct stat st;

		f->path = strdup(files[i]);
		if (!f->path) {
			file_stamps_done(&s);
			return -ENOMEM;
		}
		s.n++;
		if (stat(files[i], &st) < 0) {
			f->error = negative_errno();
			continue;
		}
		f->dev = st.st_dev;
		f->ino = st.st_ino;
		f->mode = st.st_mode;
		f->size = st.st_size;
		/* A mask (/dev/null): its times are the device's, not the profile's. */
		if (!S_ISCHR(st.st_mode)) {
			f->mtime_nsec = timespec_nsec(&st.st_mtim);
			f->ctime_nsec = timespec_nsec(&st.st_ctim);
		}
	}
	*ret = s;
	return 0;
}

static bool name_has_suffix(const char *name, const char *const *suffixes) {
	size_t n = strlen(name);

	for (const char *const *x = suffixes; *x; x++) {
		size_t k = strlen(*x);

		if (n > k && streq(name + n - k, *x))
			return true;
	}
	return false;
}

static int path_compare(const void *a, const void *b) {
	return strcmp(*(char *const *) a, *(char *const *) b);
}

int file_stamps_take_dirs(const char *root, const char *const *dirs, const char *const *suffixes,
			  FileStamps *ret) {
	_cleanup_strv_free_ char **paths = NULL;
	int r;

	if (!(paths = calloc(1, sizeof(char *))))
		return -ENOMEM;
	for (const char *const *d = dirs; *d; d++) {
		_cleanup_free_ char *dir = NULL;
		struct dirent *de;
		DIR *dp;

		if (asprintf(&dir, "%s%s", streq(root, "/") ? "" : root, *d) < 0)
			return -ENOMEM;
		dp = opendir(dir);
		if (!dp)
			continue;
		r = 0;
		while (r >= 0 && (de = readdir(dp))) {
			char *path;

			if (!name_has_suffix(de->d_name, suffixes))
				continue;
			if (asprintf(&path, "%s/%s", dir, de->d_name) < 0)
				r = -ENOMEM;
			else
				r = strv_consume(&paths, path);
		}
		closedir(dp);
		if (r < 0)
			return r;
	}
	qsort(paths, strv_length(paths), sizeof(char *), path_compare);
	return file_stamps_take(paths, ret);
}

static bool file_stamp_equal(const FileStamp *a, const FileStamp *b) {
	return streq(a->path, b->path) && a->error == b->error && a->dev == b->dev &&
	       a->ino == b->ino && a->mode == b->mode && a->size == b->size &&
	       a->mtime_nsec == b->mtime_nsec && a->ctime_nsec == b->ctime_nsec;
}

bool file_stamps_equal(const FileStamps *a, const FileStamps *b, const char **ret_path) {
	size_t n = a->n < b->n ? a->n : b->n;

	for (size_t i = 0; i < n; i++)
		if (!file_stamp_equal(&a->items[i], &b->items[i])) {
			*ret_path = a->items[i].path;
			return false;
		}
	if (a->n != b->n) {
		*ret_path = a->n > n ? a->items[n].path : b->items[n].path;
		return false;
	}
	return true;
}

int file_stamps_newest(const FileStamps *s, const char **ret_path, uint64_t *ret_nsec) {
	const FileStamp *newest = NULL;
	uint64_t t = 0;

	for (size_t i = 0; i < s->n; i++) {
		const FileStamp *f = &s->items[i];
		uint64_t u = f->mtime_nsec > f->ctime_nsec ? f->mtime_nsec : f->ctime_nsec;

		if (f->error < 0 || (newest && u <= t))
			continue;
		newest = f;
		t = u;
	}
	if (!newest)
		return -ENOENT;
	*ret_path = newest->path;
	*ret_nsec = t;
	return 0;
}
