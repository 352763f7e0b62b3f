/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

/* One problem found in a profile, with the position of the offending YAML node. Lines and
 * columns are 1-based, as editors and compilers count them; line 0 is a problem with the file
 * as a whole ("FILE: error: ..."). */
typedef struct Diagnostic {
	char *file;
	unsigned line;
	unsigned column;
	bool warning;  /* reported, but does not make the configuration invalid */
	size_t n_more; /* > 0: not a problem but "and N more errors" in file (message NULL) */
	char *message;
} Diagnostic;

/* At most DIAGNOSTICS_PER_FILE_MAX problems are kept per file (a generated profile can hold a
 * million errors: printing them all is a denial of service of its own); the rest are counted in
 * one last "and N more errors" entry. Messages are cut at DIAGNOSTIC_MESSAGE_MAX bytes and
 * control characters in them escaped (\xNN): they quote what the file says. */
#define DIAGNOSTICS_PER_FILE_MAX 20
#define DIAGNOSTIC_MESSAGE_MAX	 300

typedef struct Diagnostics {
	Diagnostic *items;
	size_t n;
	size_t n_alloc;
} Diagnostics;

int diagnostics_add(Diagnostics *d, const char *file, unsigned line, unsigned column,
		    const char *format, ...) _printf_(5, 6);
int diagnostics_warn(Diagnostics *d, const char *file, unsigned line, unsigned column,
		     const char *format, ...) _printf_(5, 6);
/* Whether file has its DIAGNOSTICS_PER_FILE_MAX already: a further one is only counted, and
 * the caller may skip the work of saying it well (a suggestion, a formatted message). */
bool diagnostics_full(const Diagnostics *d, const char *file) _pure_;
/* Errors, counting the ones only counted ("and N more"); warnings not included. */
size_t diagnostics_n_errors(const Diagnostics *d) _pure_;
/* The problems from the from-th on in the order of their position (line, then column), as a
 * compiler lists them: a check that compares keys finds its problem after the values were read,
 * and may name an earlier line. Stable; problems with the file as a whole first, "and N more"
 * last. */
void diagnostics_sort(Diagnostics *d, size_t from);
/* "FILE:LINE:COLUMN: error: MESSAGE", "FILE: warning: MESSAGE", "FILE: and N more errors" */
char *diagnostic_format(const Diagnostic *d);
void diagnostics_done(Diagnostics *d);
