/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

char **strv_free(char **l) {
	STRV_FOREACH (s, l)
		free(*s);
	free(l);
	return NULL;
}

size_t strv_length(char *const *l) {
	size_t n = 0;

	STRV_FOREACH (s, l)
		n++;
	return n;
}

bool strv_contains(char *const *l, const char *s) {
	STRV_FOREACH (i, l)
		if (streq(*i, s))
			return true;
	return false;
}

/* Takes ownership of s, also on failure. */
int strv_consume(char ***l, char *s) {
	size_t n;
	char **c;

	if (!s)
		return -ENOMEM;
	n = strv_length(*l);
	c = realloc(*l, sizeof(char *) * (n + 2));
	if (!c) {
		free(s);
		return -ENOMEM;
	}
	c[n] = s;
	c[n + 1] = NULL;
	*l = c;
	return 0;
}

int strv_extend(char ***l, const char *s) {
	return strv_consume(l, strdup(s));
}

int strv_extend_strv(char ***a, char *const *b, bool uniq) {
	int r;

	STRV_FOREACH (s, b) {
		if (uniq && strv_contains(*a, *s))
			continue;
		r = strv_extend(a, *s);
		if (r < 0)
			return r;
	}
	return 0;
}

char **strv_copy(char *const *l) {
	_cleanup_strv_free_ char **c = NULL;

	c = calloc(strv_length(l) + 1, sizeof(char *));
	if (!c)
		return NULL;
	for (size_t i = 0; l && l[i]; i++) {
		c[i] = strdup(l[i]);
		if (!c[i])
			return NULL;
	}
	return TAKE_PTR(c);
}

bool strv_equal(char *const *a, char *const *b) {
	for (;; a++, b++) {
		if (!a || !*a)
			return !b || !*b;
		if (!b || !*b || !streq(*a, *b))
			return false;
	}
}

int str_compare(const void *a, const void *b) {
	return strcmp(*(char *const *) a, *(char *const *) b);
}

void strv_sort(char **l) {
	size_t n = strv_length(l);

	if (n > 1) /* qsort() wants a non-NULL base even for 0 elements (UBSan) */
		qsort(l, n, sizeof(char *), str_compare);
}

bool strv_contains_sorted(char *const *sorted, size_t n, const char *s) {
	return n > 0 && bsearch(&s, sorted, n, sizeof(char *), str_compare);
}

char *strv_join(char *const *l, const char *sep) {
	size_t n = 1, k = strlen(sep);
	char *r, *p;

	STRV_FOREACH (s, l)
		n += strlen(*s) + k;
	r = p = malloc(n);
	if (!r)
		return NULL;
	*p = 0;
	STRV_FOREACH (s, l) {
		if (s != l)
			p = stpcpy(p, sep);
		p = stpcpy(p, *s);
	}
	return r;
}
