/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hash table the profile loader finds duplicates and anchors with. */
#include <errno.h>
#include <stdio.h>

#include "strmap.h"
#include "tests.h"

TEST(add_get_put) {
	StrMap m = { 0 };
	size_t v = 0;

	CHECK(!strmap_get(&m, "a", 1, &v));
	CHECK_INTEQ(strmap_add(&m, "a", 1, 7, NULL), 0);
	CHECK_INTEQ(strmap_add(&m, "a", 1, 8, &v), -EEXIST);
	CHECK_INTEQ(v, 7);
	CHECK(strmap_get(&m, "a", 1, &v) && v == 7);
	CHECK_INTEQ(strmap_put(&m, "a", 1, 9), 0);
	CHECK(strmap_get(&m, "a", 1, &v) && v == 9);
	CHECK_INTEQ(m.n, 1);
	/* keys are bytes with a length: a NUL inside is part of the key, a prefix is another */
	CHECK_INTEQ(strmap_add(&m, "a\0b", 3, 1, NULL), 0);
	CHECK_INTEQ(strmap_add(&m, "", 0, 2, NULL), 0);
	CHECK(strmap_get(&m, "a\0b", 3, &v) && v == 1);
	CHECK(strmap_get(&m, "", 0, &v) && v == 2);
	CHECK(!strmap_get(&m, "a\0c", 3, NULL));
	CHECK_INTEQ(m.n, 3);
	strmap_done(&m);
	CHECK(m.n == 0 && m.buckets == NULL);
	strmap_done(&m); /* twice: harmless */
}

/* 200,000 keys like a generated profile's ("m0", "m1", ...): all there, each once. */
TEST(many) {
	StrMap m = { 0 };
	char key[32];
	size_t v, bad = 0;

	for (size_t i = 0; i < 200000; i++) {
		int n = snprintf(key, sizeof(key), "m%zu", i);

		if (strmap_add(&m, key, (size_t) n, i, NULL) != 0)
			bad++;
	}
	CHECK_INTEQ(bad, 0);
	CHECK_INTEQ(m.n, 200000);
	CHECK(m.n_buckets >= 2 * m.n);
	for (size_t i = 0; i < 200000; i++) {
		int n = snprintf(key, sizeof(key), "m%zu", i);

		if (!strmap_get(&m, key, (size_t) n, &v) || v != i ||
		    strmap_add(&m, key, (size_t) n, 0, NULL) != -EEXIST)
			bad++;
	}
	CHECK_INTEQ(bad, 0);
	CHECK(!strmap_get(&m, "m200000", 7, NULL));
	strmap_done(&m);
}

TESTS_MAIN(TEST_ENTRY(add_get_put), TEST_ENTRY(many))
