/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The ordered string set the daemon notes dirty devices and netdevs in. */
#include <errno.h>
#include <stdio.h>

#include "strset.h"
#include "strv.h"
#include "tests.h"

TEST(add_contains_order) {
	_cleanup_strv_free_ char **l = NULL;
	StrSet s = { 0 };

	CHECK(!strset_contains(&s, "eth0"));
	CHECK_INTEQ(strset_add(&s, "eth1"), 1);
	CHECK_INTEQ(strset_add(&s, "eth0"), 1);
	CHECK_INTEQ(strset_add(&s, "eth1"), 0); /* once */
	CHECK_INTEQ(strset_add(&s, ""), 1);
	CHECK(strset_contains(&s, "eth0") && strset_contains(&s, "eth1") &&
	      strset_contains(&s, ""));
	CHECK(!strset_contains(&s, "eth"));
	CHECK_INTEQ(s.n, 3);
	l = strset_steal(&s);
	CHECK_INTEQ(strv_length(l), 3);
	CHECK_STREQ(l[0], "eth1"); /* the order added */
	CHECK_STREQ(l[1], "eth0");
	CHECK_STREQ(l[2], "");
	/* empty again, and usable */
	CHECK(s.strv == NULL && s.n == 0 && !strset_contains(&s, "eth0"));
	CHECK_INTEQ(strset_add(&s, "eth0"), 1);
	strset_done(&s);
	CHECK(s.strv == NULL && s.n == 0);
	strset_done(&s); /* twice: harmless */
}

TEST(empty_steal_is_null) {
	StrSet s = { 0 };

	CHECK(strset_steal(&s) == NULL);
}

TEST(many) {
	StrSet s = { 0 };
	char name[16];

	for (unsigned i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "veth%u", i);
		CHECK_INTEQ(strset_add(&s, name), 1);
	}
	for (unsigned i = 0; i < 10000; i += 7) {
		snprintf(name, sizeof(name), "veth%u", i);
		CHECK_INTEQ(strset_add(&s, name), 0);
		CHECK_STREQ(s.strv[i], name);
	}
	CHECK_INTEQ(s.n, 10000);
	CHECK(s.strv[10000] == NULL);
	strset_done(&s);
}

TESTS_MAIN(TEST_ENTRY(add_contains_order), TEST_ENTRY(empty_steal_is_null), TEST_ENTRY(many))
