/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A hash table from byte strings (any bytes, with their length) to a size_t: what makes the
 * profile loader's "is this key/module/address listed twice" and anchor lookups O(1) instead of a
 * scan of everything seen so far. Keys are copied. */

#include <stdbool.h>
#include <stddef.h>

typedef struct StrMapEntry {
	char *key; /* NULL: an empty bucket */
	size_t len;
	size_t value;
} StrMapEntry;

typedef struct StrMap {
	StrMapEntry *buckets;
	size_t n_buckets; /* a power of two, or 0 */
	size_t n;
} StrMap;

/* Adds key -> value unless key is there: then returns -EEXIST and sets *ret_existing (if not
 * NULL) to the value it has. */
int strmap_add(StrMap *m, const void *key, size_t len, size_t value, size_t *ret_existing);
/* Adds or replaces key -> value. */
int strmap_put(StrMap *m, const void *key, size_t len, size_t value);
bool strmap_get(const StrMap *m, const void *key, size_t len, size_t *ret);
void strmap_done(StrMap *m);
