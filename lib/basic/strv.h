/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* NULL-terminated arrays of owned strings. */
char **strv_free(char **l);
DEFINE_TRIVIAL_CLEANUP_FUNC(char **, strv_free)
#define _cleanup_strv_free_ _cleanup_(strv_freep)

size_t strv_length(char *const *l) _pure_;
bool strv_contains(char *const *l, const char *s) _pure_;
int strv_extend(char ***l, const char *s);
int strv_consume(char ***l, char *s);
int strv_extend_strv(char ***a, char *const *b, bool uniq);
char **strv_copy(char *const *l);
bool strv_equal(char *const *a, char *const *b) _pure_;
void strv_sort(char **l);
/* For qsort() and bsearch() over arrays of char *. */
int str_compare(const void *a, const void *b) _pure_;
/* s in the first n entries of a sorted array: bsearch, for lookups inside loops over objects. */
bool strv_contains_sorted(char *const *sorted, size_t n, const char *s) _pure_;
char *strv_join(char *const *l, const char *sep);

#define STRV_FOREACH(s, l) for (char *const *s = (l); s && *s; s++)
