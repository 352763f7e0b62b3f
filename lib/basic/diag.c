/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

/* A copy of m fit to print: at most DIAGNOSTIC_MESSAGE_MAX bytes (cut on a UTF-8 character
 * boundary, "..." added), control characters as \xNN. */
static char *message_sanitize(const char *m) {
	size_t n = strlen(m), k = 0;
	bool cut = n > DIAGNOSTIC_MESSAGE_MAX;
	char *s;

	if (cut) {
		n = DIAGNOSTIC_MESSAGE_MAX;
		while (n > 0 && ((unsigned char) m[n] & 0xc0) == 0x80)
			n--;
	}
	s = malloc(n * 4 + 4);
	if (!s)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char) m[i];

		if (c < 0x20 || c == 0x7f)
			k += sprintf(s + k, "\\x%02x", c);
		else
			s[k++] = (char) c;
	}
	if (cut) {
		memcpy(s + k, "...", 3);
		k += 3;
	}
	s[k] = 0;
	return s;
}

_printf_(6, 0) static int diagnostics_addv(Diagnostics *d, bool warning, const char *file,
					   unsigned line, unsigned column, const char *format,
					   va_list ap) {
	_cleanup_free_ char *f = NULL, *m = NULL, *clean = NULL;
	size_t same = 0;
	int r;

	/* Diagnostics of one file come together (files are loaded one after the other): the
	 * trailing ones tell how many this file has. */
	if (diagnostics_full(d, file)) {
		d->items[d->n - 1].n_more++;
		return 0;
	}
	for (size_t i = d->n; i > 0 && same < DIAGNOSTICS_PER_FILE_MAX; i--, same++)
		if (!streq(d->items[i - 1].file, file))
			break;

	f = strdup(file);
	if (!f)
		return -ENOMEM;
	if (same < DIAGNOSTICS_PER_FILE_MAX) {
		r = vasprintf(&m, format, ap);
		if (r < 0)
			return -ENOMEM;
		clean = message_sanitize(m);
		if (!clean)
			return -ENOMEM;
	}
	r = GREEDY_REALLOC(d->items, d->n_alloc, d->n + 1);
	if (r < 0)
		return r;
	d->items[d->n++] = (Diagnostic){
		.file = TAKE_PTR(f),
		.line = clean ? line : 0,
		.column = clean ? column : 0,
		.warning = clean ? warning : false,
		.n_more = clean ? 0 : 1,
		.message = TAKE_PTR(clean),
	};
	return 0;
}

int diagnostics_add(Diagnostics *d, const char *file, unsigned line, unsigned column,
		    const char *format, ...) {
	va_list ap;
	int r;

	va_start(ap, format);
	r = diagnostics_addv(d, false, file, line, column, format, ap);
	va_end(ap);
	return r;
}

int diagnostics_warn(Diagnostics *d, const char *file, unsigned line, unsigned column,
		     const char *format, ...) {
	va_list ap;
	int r;

	va_start(ap, format);
	r = diagnostics_addv(d, true, file, line, column, format, ap);
	va_end(ap);
	return r;
}

bool diagnostics_full(const Diagnostics *d, const char *file) {
	return d->n > 0 && d->items[d->n - 1].n_more > 0 && streq(d->items[d->n - 1].file, file);
}

size_t diagnostics_n_errors(const Diagnostics *d) {
	size_t n = 0;

	for (size_t i = 0; i < d->n; i++)
		n += d->items[i].n_more > 0 ? d->items[i].n_more : !d->items[i].warning;
	return n;
}

static bool diagnostic_before(const Diagnostic *a, const Diagnostic *b) {
	if ((a->n_more > 0) != (b->n_more > 0))
		return b->n_more > 0;
	return a->line < b->line || (a->line == b->line && a->column < b->column);
}

void diagnostics_sort(Diagnostics *d, size_t from) {
	/* insertion sort: stable, and a file has DIAGNOSTICS_PER_FILE_MAX + 1 at most */
	for (size_t i = from + 1; i < d->n; i++) {
		Diagnostic x = d->items[i];
		size_t k = i;

		for (; k > from && diagnostic_before(&x, &d->items[k - 1]); k--)
			d->items[k] = d->items[k - 1];
		d->items[k] = x;
	}
}

char *diagnostic_format(const Diagnostic *d) {
	const char *level = d->warning ? "warning" : "error";
	char *s;

	if (d->n_more > 0) {
		if (asprintf(&s, "%s: and %zu more error%s", d->file, d->n_more,
			     d->n_more == 1 ? "" : "s") < 0)
			return NULL;
	} else if (d->line == 0) {
		if (asprintf(&s, "%s: %s: %s", d->file, level, d->message) < 0)
			return NULL;
	} else if (asprintf(&s, "%s:%u:%u: %s: %s", d->file, d->line, d->column, level,
			    d->message) < 0)
		return NULL;
	return s;
}

void diagnostics_done(Diagnostics *d) {
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].message);
	}
	free(d->items);
	*d = (Diagnostics){ 0 };
}
