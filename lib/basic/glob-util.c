/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fnmatch.h>
#include <stddef.h>

#include "glob-util.h"
#include "strv.h"

int glob_validate(const char *p) {
	if (!*p)
		return -GLOB_ERROR_EMPTY;
	for (; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return -GLOB_ERROR_TRAILING_BACKSLASH;
			p++;
		} else if (*p == '[') {
			const char *q = p + 1;

			if (*q == '!' || *q == '^')
				q++;
			if (*q == ']') /* a leading ']' is literal: "[]a]" */
				q++;
			else if (!*q)
				return -GLOB_ERROR_UNTERMINATED_BRACKET;
			while (*q && *q != ']')
				q++;
			if (!*q)
				return -GLOB_ERROR_UNTERMINATED_BRACKET;
			if (q == p + 1)
				return -GLOB_ERROR_EMPTY_BRACKET;
			p = q;
		}
	}
	return 0;
}

const char *glob_error_to_string(int error) {
	switch (-error) {
	case GLOB_ERROR_EMPTY:
		return "empty pattern";
	case GLOB_ERROR_UNTERMINATED_BRACKET:
		return "'[' without a closing ']'";
	case GLOB_ERROR_TRAILING_BACKSLASH:
		return "trailing backslash";
	case GLOB_ERROR_EMPTY_BRACKET:
		return "empty bracket expression '[]'";
	default:
		return "invalid pattern";
	}
}

bool glob_match(const char *pattern, const char *s) {
	return fnmatch(pattern, s, 0) == 0;
}

bool glob_match_any(char *const *patterns, const char *s) {
	if (!patterns)
		return true;
	if (!s)
		return false;
	STRV_FOREACH (p, patterns)
		if (glob_match(*p, s))
			return true;
	return false;
}
