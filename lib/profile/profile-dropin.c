/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <strings.h>
#include <sys/stat.h>

#include "config.h"
#include "profile.h"
#include "strmap.h"
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

static bool name_has_suffix(const char *name, const char *suffix, bool ignore_case) {
	size_t n = strlen(name), k = strlen(suffix);

	if (n <= k)
		return false;
	return ignore_case ? strcasecmp(name + n - k, suffix) == 0 : streq(name + n - k, suffix);
}

static bool name_is_profile(const char *name) {
	if (name[0] == '.')
		return false;
	return name_has_suffix(name, ".yaml", false) || name_has_suffix(name, ".yml", false);
}

/* "10-roce.YAML", "10-roce.Yml": meant as a profile, surely, but not read: say so. */
static bool name_is_near_miss(const char *name) {
	if (name[0] == '.' || name_is_profile(name))
		return false;
	return name_has_suffix(name, ".yaml", true) || name_has_suffix(name, ".yml", true);
}

/* A mask is an empty file or a symlink to /dev/null (checked by target text: under a fixture
 * root the link cannot be followed to the real /dev/null). Nothing else is: a symlink to
 * another character device is loaded, and refused there as not a regular file; a symlink to an
 * empty file (a /proc file looks empty) is loaded too, as the nothing it declares. */
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
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	return S_ISREG(st.st_mode) && st.st_size == 0;
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

/* Adds the profiles of root/dir to list, unless a name is there already (an earlier directory
 * has priority; seen holds the names). A directory that does not exist is no problem; a path
 * that is not a directory and a name that looks meant as a profile but is not read are
 * warnings; a directory that cannot be read is an error, with its path. */
static int dropins_scan(const char *root, const char *dir, Diagnostics *diags, StrMap *seen,
			Dropin **list, size_t *n, size_t *n_alloc) {
	_cleanup_free_ char *path = NULL;
	DIR *d;
	int r = 0;

	if (asprintf(&path, "%s%s", streq(root, "/") ? "" : root, dir) < 0)
		return -ENOMEM;
	d = opendir(path);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		if (errno == ENOTDIR) {
			if (diags)
				r = diagnostics_warn(diags, path, 0, 0,
						     "not a directory: no profiles read from it");
			return r < 0 ? r : 0;
		}
		r = -errno;
		if (diags)
			(void) diagnostics_add(diags, path, 0, 0, "cannot list profiles: %s",
					       strerror(-r));
		return r;
	}

	for (struct dirent *de; (errno = 0, de = readdir(d));) {
		char *full;

		if (!name_is_profile(de->d_name)) {
			if (name_is_near_miss(de->d_name) && diags) {
				r = diagnostics_warn(diags, path, 0, 0,
						     "'%s' is not read: profiles end in .yaml or "
						     ".yml, lower case",
						     de->d_name);
				if (r < 0)
					break;
			}
			continue;
		}
		r = strmap_add(seen, de->d_name, strlen(de->d_name), 0, NULL);
		if (r == -EEXIST) { /* an earlier directory has priority */
			r = 0;
			continue;
		}
		if (r < 0)
			break;
		if (asprintf(&full, "%s/%s", path, de->d_name) < 0) {
			r = -ENOMEM;
			break;
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
	if (r >= 0 && errno != 0) {
		r = -errno;
		if (diags)
			(void) diagnostics_add(diags, path, 0, 0, "cannot list profiles: %s",
					       strerror(-r));
	}
	closedir(d);
	return r;
}

int profile_dropins_find(const char *root, const char *const *dirs, Diagnostics *diags,
			 char ***ret) {
	_cleanup_(strmap_done) StrMap seen = { 0 };
	_cleanup_strv_free_ char **files = NULL;
	Dropin *list = NULL;
	size_t n = 0, n_alloc = 0;
	int r = 0;

	if (!root)
		root = "/";
	if (!dirs)
		dirs = profile_dirs_default;

	for (const char *const *d = dirs; *d && r >= 0; d++)
		r = dropins_scan(root, *d, diags, &seen, &list, &n, &n_alloc);
	if (r >= 0 && n > 0)
		qsort(list, n, sizeof(Dropin), dropin_compare);
	files = calloc(n + 1, sizeof(char *));
	if (!files)
		r = -ENOMEM;
	for (size_t i = 0, k = 0; r >= 0 && i < n; i++)
		if (!list[i].masked)
			files[k++] = TAKE_PTR(list[i].path);
	dropins_free(list, n);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(files);
	return 0;
}
