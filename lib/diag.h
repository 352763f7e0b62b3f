/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stddef.h>

#include "macro.h"

/* One problem found in a profile, with the position of the offending YAML node. Lines and
 * columns are 1-based, as editors and compilers count them. */
typedef struct Diagnostic {
	char *file;
	unsigned line;
	unsigned column;
	char *message;
} Diagnostic;

typedef struct Diagnostics {
	Diagnostic *items;
	size_t n;
	size_t n_alloc;
} Diagnostics;

int diagnostics_add(Diagnostics *d, const char *file, unsigned line, unsigned column,
		    const char *format, ...) _printf_(5, 6);
/* "FILE:LINE:COLUMN: error: MESSAGE" */
char *diagnostic_format(const Diagnostic *d);
void diagnostics_done(Diagnostics *d);
