/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Strings each kept once, in the order first added, with an O(1) lookup: what a daemon notes
 * while thousands of netlink events name the same few thousand netdevs (a strv with
 * strv_contains() and strv_extend() per event is a scan and a copy of the list each, seconds at
 * 8,192 netdevs). */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"
#include "strmap.h"

typedef struct StrSet {
	char **strv; /* NULL-terminated, or NULL while empty */
	size_t n, n_alloc;
	StrMap index;
} StrSet;

/* 1 when s was added, 0 when it was there, -ENOMEM. */
int strset_add(StrSet *set, const char *s);
bool strset_contains(const StrSet *set, const char *s) _pure_;
/* The strings as a strv, in the order added (NULL when none); the set is empty again. */
char **strset_steal(StrSet *set);
void strset_done(StrSet *set);
