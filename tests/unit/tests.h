/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A minimal harness: each TEST() is a function registered in tests[]; checks print the failing
 * expression with its file and line and mark the test failed; the result is TAP. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct TestCase {
	const char *name;
	void (*fn)(void);
} TestCase;

extern int test_failed;

#define CHECK(expr)                                                                         \
	do {                                                                                \
		if (!(expr)) {                                                              \
			printf("#   %s:%d: check failed: %s\n", __FILE__, __LINE__, #expr); \
			test_failed = 1;                                                    \
		}                                                                           \
	} while (0)

#define CHECK_STREQ(a, b)                                                                       \
	do {                                                                                    \
		const char *_a = (a), *_b = (b);                                                \
		if (!_a || !_b || strcmp(_a, _b) != 0) {                                        \
			printf("#   %s:%d: %s == %s\n#     got:      %s\n#     expected: %s\n", \
			       __FILE__, __LINE__, #a, #b, _a ? _a : "(null)",                  \
			       _b ? _b : "(null)");                                             \
			test_failed = 1;                                                        \
		}                                                                               \
	} while (0)

#define CHECK_INTEQ(a, b)                                                                  \
	do {                                                                               \
		long long _a = (long long) (a), _b = (long long) (b);                      \
		if (_a != _b) {                                                            \
			printf("#   %s:%d: %s == %s: got %lld, expected %lld\n", __FILE__, \
			       __LINE__, #a, #b, _a, _b);                                  \
			test_failed = 1;                                                   \
		}                                                                          \
	} while (0)

#define TEST(name) static void test_##name(void)
#define TEST_ENTRY(name) \
	{ #name, test_##name }

static inline int tests_run(const TestCase *t, size_t n) {
	int failed = 0;

	printf("1..%zu\n", n);
	for (size_t i = 0; i < n; i++) {
		test_failed = 0;
		t[i].fn();
		printf("%s %zu - %s\n", test_failed ? "not ok" : "ok", i + 1, t[i].name);
		failed |= test_failed;
	}
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#define TESTS_MAIN(...)                                           \
	int test_failed;                                          \
	int main(void) {                                          \
		static const TestCase _t[] = { __VA_ARGS__ };     \
		return tests_run(_t, sizeof(_t) / sizeof(_t[0])); \
	}
