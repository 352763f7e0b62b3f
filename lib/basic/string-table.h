/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <sys/types.h>

#include "macro.h"

/* x_to_string() returns NULL for an out-of-range value; x_from_string() returns -EINVAL. */
#define DECLARE_STRING_TABLE_LOOKUP(name, type)      \
	const char *name##_to_string(type i) _pure_; \
	type name##_from_string(const char *s) _pure_;

#define DEFINE_STRING_TABLE_LOOKUP(name, type)                                 \
	const char *name##_to_string(type i) {                                 \
		if ((ssize_t) i < 0 || (size_t) i >= ELEMENTSOF(name##_table)) \
			return NULL;                                           \
		return name##_table[i];                                        \
	}                                                                      \
	type name##_from_string(const char *s) {                               \
		if (!s)                                                        \
			return (type) -EINVAL;                                 \
		for (size_t i = 0; i < ELEMENTSOF(name##_table); i++)          \
			if (name##_table[i] && streq(name##_table[i], s))      \
				return (type) i;                               \
		return (type) -EINVAL;                                         \
	}
