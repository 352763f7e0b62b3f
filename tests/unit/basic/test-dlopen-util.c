/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* dlopen_many_sym(): a library is loaded once, all its symbols or none; a missing library or
 * symbol is an error with the dynamic loader's words, not a crash. libc stands in for an
 * optional library: every process has it. */
#include <stdio.h>
#include <unistd.h>

#include "dlopen-util.h"
#include "macro.h"
#include "tests.h"

static __typeof__(strlen) *sym_strlen;
static __typeof__(getpid) *sym_getpid;
static __typeof__(strlen) *sym_rdmad_no_such_function;

TEST(loaded_once) {
	static void *dl;
	const DlopenSymbol s[] = { DLOPEN_SYMBOL(strlen), DLOPEN_SYMBOL(getpid) };
	char *error = NULL;

	CHECK_INTEQ(dlopen_many_sym(&dl, "libc.so.6", s, ELEMENTSOF(s), &error), 1);
	CHECK(dl != NULL && error == NULL);
	CHECK(sym_strlen && sym_strlen("rdmad") == 5);
	CHECK(sym_getpid && sym_getpid() == getpid());
	/* again: nothing done */
	CHECK_INTEQ(dlopen_many_sym(&dl, "libc.so.6", s, ELEMENTSOF(s), &error), 0);
	CHECK(error == NULL);
}

TEST(no_library) {
	void *dl = NULL;
	const DlopenSymbol s[] = { DLOPEN_SYMBOL(strlen) };
	char *error = NULL;

	sym_strlen = NULL;
	CHECK_INTEQ(dlopen_many_sym(&dl, "librdmad-no-such-library.so.0", s, ELEMENTSOF(s), &error),
		    -EOPNOTSUPP);
	CHECK(dl == NULL && sym_strlen == NULL);
	/* the loader's words, which name the file */
	CHECK(error && strstr(error, "librdmad-no-such-library.so.0"));
	printf("# %s\n", error ? error : "(null)");
	free(error);
	/* without a place for the words */
	CHECK_INTEQ(dlopen_many_sym(&dl, "librdmad-no-such-library.so.0", s, ELEMENTSOF(s), NULL),
		    -EOPNOTSUPP);
}

TEST(missing_symbol) {
	void *dl = NULL;
	const DlopenSymbol s[] = { DLOPEN_SYMBOL(strlen), DLOPEN_SYMBOL(rdmad_no_such_function) };
	char *error = NULL;

	sym_strlen = NULL;
	CHECK_INTEQ(dlopen_many_sym(&dl, "libc.so.6", s, ELEMENTSOF(s), &error), -ELIBBAD);
	/* all or none: strlen resolved, but is not set */
	CHECK(dl == NULL && sym_strlen == NULL && sym_rdmad_no_such_function == NULL);
	CHECK(error && strstr(error, "rdmad_no_such_function"));
	printf("# %s\n", error ? error : "(null)");
	free(error);
}

TESTS_MAIN(TEST_ENTRY(loaded_once), TEST_ENTRY(no_library), TEST_ENTRY(missing_symbol))
