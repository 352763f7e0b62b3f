/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "config.h"
#include "profile.h"
#include "strv.h"

/* The build's search path (meson.build: RDMAD_PROFILE_DIRS), highest priority first. */
const char *const profile_dirs_default[] = {
	RDMAD_PROFILE_DIRS,
	NULL,
};

typedef struct Dropin {
	char *name; /* file name: the sort and masking key */
	char *path; /* full path, root included */
	bool masked;
} Dropin;

static bool name_is_profile(const char *name) {
	size_t n = strlen(name);

	if (name[0] == '.')
		return false;
	return (n > 5 && streq(name + n - 5, ".yaml")) || (n > 4 && streq(name + n - 4, ".yml"));
}

/* A mask is an empty file or a symlink to /dev/null (checked by target text: under a fixture
 * root the link cannot be followed to the real /dev/null). */
static bool dropin_is_mask(int dirfd, const char *name) {
	char target[32];
	struct stat st;
	ssize_t n;

	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = 0;
		if (streq(target, "/dev/null"))
			return true;
	}
	if (fstatat(dirfd, name, &st, 0) < 0)
		return false;
	return S_ISCHR(st.st_mode) || (S_ISREG(st.st_mode) && st.st_size == 0);
}

static int dropin_compare(const void *a, const void *b) {
	return strcmp(((const Dropin *) a)->name, ((const Dropin *) b)->name);
}

static void dropins_free(Dropin *l, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].path);
	}
	free(l);
}

static int dropins_scan(const char *root, const char *dir, Dropin **list, size_t *n,
			size_t *n_alloc) {
	_cleanup_free_ char *path = NULL;
	DIR *d;
	int r = 0;

	if (asprintf(&path, "%s%s", streq(root, "/") ? "" : root, dir) < 0)
		return -ENOMEM;
	d = opendir(path);
	if (!d)
		return errno == ENOENT || errno == ENOTDIR ? 0 : negative_errno();

	for (struct dirent *de; (de = readdir(d));) {
		Dropin *existing = NULL;
		char *full;

		if (!name_is_profile(de->d_name))
			continue;
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < *n; i++)
			if (streq((*list)[i].name, de->d_name))
				existing = &(*list)[i];
		if (existing) { /* an earlier directory has priority */
			free(full);
			continue;
		}
		r = GREEDY_REALLOC(*list, *n_alloc, *n + 1);
		if (r < 0) {
			free(full);
			break;
		}
		(*list)[*n] = (Dropin){
			.name = strdup(de->d_name),
			.path = full,
			.masked = dropin_is_mask(dirfd(d), de->d_name),
		};
		if (!(*list)[(*n)++].name) {
			r = -ENOMEM;
			break;
		}
	}
	closedir(d);
	return r;
}

int profile_dropins_find(const char *root, const char *const *dirs, char ***ret) {
	_cleanup_strv_free_ char **files = NULL;
	Dropin *list = NULL;
	size_t n = 0, n_alloc = 0;
	int r = 0;

	if (!root)
		root = "/";
	if (!dirs)
		dirs = profile_dirs_default;

	for (const char *const *d = dirs; *d && r >= 0; d++)
		r = dropins_scan(root, *d, &list, &n, &n_alloc);
	if (r >= 0 && n > 0)
		qsort(list, n, sizeof(Dropin), dropin_compare);
	files = calloc(1, sizeof(char *));
	if (!files)
		r = -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (!list[i].masked)
			r = strv_extend(&files, list[i].path);
	dropins_free(list, n);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(files);
	return 0;
}
