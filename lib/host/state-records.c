/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "macro.h"
#include "state-records.h"

int state_records_list(const char *state_dir, const char *subdir, size_t size,
		       state_record_load_t load, state_record_done_t done,
		       int (*compare)(const void *, const void *), void **ret, size_t *ret_n) {
	_cleanup_free_ char *dir = NULL;
	uint8_t *l = NULL;
	size_t n = 0, n_alloc = 0;
	DIR *d;
	int r = 0;

	if (asprintf(&dir, "%s/%s", state_dir, subdir) < 0)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		r = greedy_realloc((void **) &l, &n_alloc, n + 1, size);
		if (r < 0)
			break;
		r = load(dirfd(d), de->d_name, l + n * size);
		if (r == -ENOMEM)
			break;
		if (r >= 0)
			n++;
		r = 0;
	}
	closedir(d);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			done(l + i * size);
		free(l);
		return r;
	}
	if (n > 1)
		qsort(l, n, size, compare);
	*ret = l;
	*ret_n = n;
	return 0;
}
