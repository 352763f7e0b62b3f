/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

typedef enum GlobError {
	GLOB_ERROR_EMPTY = 1,
	GLOB_ERROR_UNTERMINATED_BRACKET,
	GLOB_ERROR_TRAILING_BACKSLASH,
	GLOB_ERROR_EMPTY_BRACKET,
} GlobError;

/* fnmatch(3) accepts anything and silently treats a broken pattern as literal text: check first.
 * Returns 0 or -GlobError. */
int glob_validate(const char *pattern);
const char *glob_error_to_string(int error);
bool glob_match(const char *pattern, const char *s);
/* Any of the patterns matches s. NULL patterns: no constraint (true); NULL s: false. */
bool glob_match_any(char *const *patterns, const char *s);
