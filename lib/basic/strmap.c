/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* FNV-1a, 64 bit, mixed: cheap; the table grows at 1/2 load, so runs of collisions stay short. */
static uint64_t hash(const void *key, size_t len) {
	const unsigned char *p = key;
	uint64_t h = UINT64_C(14695981039346656037);

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= UINT64_C(1099511628211);
	}
	/* MurmurHash3's finalizer: FNV's low bits, which pick the bucket, are poor for short
	 * keys that differ in their last characters ("m1", "m2", ...). */
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	return h ^ (h >> 33);
}

static StrMapEntry *find(const StrMap *m, const void *key, size_t len) {
	size_t mask, i;

	if (m->n_buckets == 0)
		return NULL;
	mask = m->n_buckets - 1;
	for (i = hash(key, len) & mask;; i = (i + 1) & mask) {
		StrMapEntry *e = &m->buckets[i];

		if (!e->key || (e->len == len && memcmp(e->key, key, len) == 0))
			return e;
	}
}

static int grow(StrMap *m) {
	StrMap bigger = { 0 };

	if (m->n_buckets > 0 && (m->n + 1) * 2 <= m->n_buckets)
		return 0;
	bigger.n_buckets = m->n_buckets ? m->n_buckets * 2 : 16;
	if (bigger.n_buckets > SIZE_MAX / sizeof(StrMapEntry))
		return -ENOMEM;
	bigger.buckets = calloc(bigger.n_buckets, sizeof(StrMapEntry));
	if (!bigger.buckets)
		return -ENOMEM;
	for (size_t i = 0; i < m->n_buckets; i++)
		if (m->buckets[i].key)
			*find(&bigger, m->buckets[i].key, m->buckets[i].len) = m->buckets[i];
	bigger.n = m->n;
	free(m->buckets);
	*m = bigger;
	return 0;
}

static int insert(StrMap *m, const void *key, size_t len, size_t value, bool replace,
		  size_t *ret_existing) {
	StrMapEntry *e;
	char *copy;
	int r;

	e = find(m, key, len);
	if (e && e->key) {
		if (!replace) {
			if (ret_existing)
				*ret_existing = e->value;
			return -EEXIST;
		}
		e->value = value;
		return 0;
	}
	r = grow(m);
	if (r < 0)
		return r;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, key, len);
	copy[len] = 0;
	e = find(m, key, len);
	*e = (StrMapEntry){ .key = copy, .len = len, .value = value };
	m->n++;
	return 0;
}

int strmap_add(StrMap *m, const void *key, size_t len, size_t value, size_t *ret_existing) {
	return insert(m, key, len, value, false, ret_existing);
}

int strmap_put(StrMap *m, const void *key, size_t len, size_t value) {
	return insert(m, key, len, value, true, NULL);
}

bool strmap_get(const StrMap *m, const void *key, size_t len, size_t *ret) {
	StrMapEntry *e = find(m, key, len);

	if (!e || !e->key)
		return false;
	if (ret)
		*ret = e->value;
	return true;
}

void strmap_done(StrMap *m) {
	for (size_t i = 0; i < m->n_buckets; i++)
		free(m->buckets[i].key);
	free(m->buckets);
	*m = (StrMap){ 0 };
}
