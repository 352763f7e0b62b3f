/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>

#include "diag.h"

int diagnostics_add(Diagnostics *d, const char *file, unsigned line, unsigned column,
		    const char *format, ...) {
	_cleanup_free_ char *f = NULL, *m = NULL;
	va_list ap;
	int r;

	f = strdup(file);
	if (!f)
		return -ENOMEM;
	va_start(ap, format);
	r = vasprintf(&m, format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	r = GREEDY_REALLOC(d->items, d->n_alloc, d->n + 1);
	if (r < 0)
		return r;
	d->items[d->n++] = (Diagnostic){
		.file = TAKE_PTR(f),
		.line = line,
		.column = column,
		.message = TAKE_PTR(m),
	};
	return 0;
}

char *diagnostic_format(const Diagnostic *d) {
	char *s;

	if (d->line == 0) {
		if (asprintf(&s, "%s: error: %s", d->file, d->message) < 0)
			return NULL;
	} else if (asprintf(&s, "%s:%u:%u: error: %s", d->file, d->line, d->column, d->message) < 0)
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
