/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strset.h"
#include "strv.h"

int strset_add(StrSet *set, const char *s) {
	size_t len = strlen(s);
	char *copy;
	int r;

	if (strmap_get(&set->index, s, len, NULL))
		return 0;
	if (GREEDY_REALLOC(set->strv, set->n_alloc, set->n + 2) < 0)
		return -ENOMEM;
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	r = strmap_add(&set->index, s, len, set->n, NULL);
	if (r < 0) {
		free(copy);
		return r;
	}
	set->strv[set->n++] = copy;
	set->strv[set->n] = NULL;
	return 1;
}

bool strset_contains(const StrSet *set, const char *s) {
	return strmap_get(&set->index, s, strlen(s), NULL);
}

char **strset_steal(StrSet *set) {
	char **l = TAKE_PTR(set->strv);

	strmap_done(&set->index);
	*set = (StrSet){ 0 };
	return l;
}

void strset_done(StrSet *set) {
	strv_free(strset_steal(set));
}
