/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define _cleanup_(f)	     __attribute__((cleanup(f)))
#define _const_		     __attribute__((const))
#define _pure_		     __attribute__((pure))
#define _unused_	     __attribute__((unused))
#define _printf_(a, b)	     __attribute__((format(printf, a, b)))
#define _warn_unused_result_ __attribute__((warn_unused_result))

#define ELEMENTSOF(x) (sizeof(x) / sizeof((x)[0]))

/* Hand over ownership of a pointer: returns it and leaves NULL behind. */
#define TAKE_PTR(p)                         \
	__extension__({                     \
		__typeof__(p) *_pp_ = &(p); \
		__typeof__(p) _p_ = *_pp_;  \
		*_pp_ = NULL;               \
		_p_;                        \
	})

#define TAKE_FD(fd)                 \
	__extension__({             \
		int *_pfd_ = &(fd); \
		int _fd_ = *_pfd_;  \
		*_pfd_ = -EBADF;    \
		_fd_;               \
	})

#define SWAP(a, b)                       \
	do {                             \
		__typeof__(a) _t_ = (a); \
		(a) = (b);               \
		(b) = _t_;               \
	} while (0)

/* free() that returns NULL: p = mfree(p). */
static inline void *mfree(void *p) {
	free(p);
	return NULL;
}

static inline bool streq(const char *a, const char *b) {
	return strcmp(a, b) == 0;
}

static inline bool streq_ptr(const char *a, const char *b) {
	if (!a || !b)
		return a == b;
	return streq(a, b);
}

static inline const char *strna(const char *s) {
	return s ? s : "n/a";
}

static inline const char *strempty(const char *s) {
	return s ? s : "";
}

static inline void freep(void *p) {
	free(*(void **) p);
}
#define _cleanup_free_ _cleanup_(freep)

static inline int safe_close(int fd) {
	if (fd >= 0) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return -EBADF;
}

static inline void closep(int *fd) {
	safe_close(*fd);
}
#define _cleanup_close_ _cleanup_(closep)

/* errno as a negative value, never 0 (a libc call that "failed" without setting errno). */
static inline int negative_errno(void) {
	return errno > 0 ? -errno : -EIO;
}

/* Generates a NULL-safe free function and its cleanup helper for a type. */
#define DEFINE_TRIVIAL_CLEANUP_FUNC(type, func) \
	static inline void func##p(type *p) {   \
		if (*p)                         \
			func(*p);               \
	}

#define GREEDY_REALLOC(array, n_alloc, need) \
	greedy_realloc((void **) &(array), &(n_alloc), (need), sizeof((array)[0]))

/* qsort(), after a look that finds most arrays already in order (added in the order of
 * sorted names): n - 1 comparisons instead of n log n, and no moves, when nothing is out of
 * place. */
static inline void qsort_unless_sorted(void *base, size_t n, size_t size,
				       int (*compare)(const void *, const void *)) {
	for (size_t i = 1; i < n; i++)
		if (compare((const char *) base + (i - 1) * size, (const char *) base + i * size) >
		    0) {
			qsort(base, n, size, compare);
			return;
		}
}

static inline int greedy_realloc(void **p, size_t *n_alloc, size_t need, size_t size) {
	size_t n;
	void *q;

	if (need <= *n_alloc)
		return 0;
	n = need < 8 ? 8 : need * 2;
	if (n > SIZE_MAX / size)
		return -ENOMEM;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*n_alloc = n;
	return 0;
}
