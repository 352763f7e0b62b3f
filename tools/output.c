/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "output.h"

struct Table {
	size_t n_columns;
	char **cells; /* row-major, headers first */
	size_t n_cells, n_alloc;
};

Table *table_free(Table *t) {
	if (!t)
		return NULL;
	for (size_t i = 0; i < t->n_cells; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
	return NULL;
}

int table_add_row(Table *t, const char *const *cells) {
	int r;

	r = GREEDY_REALLOC(t->cells, t->n_alloc, t->n_cells + t->n_columns);
	if (r < 0)
		return r;
	for (size_t i = 0; i < t->n_columns; i++) {
		char *s = strdup(cells[i] ? cells[i] : "-");

		if (!s)
			return -ENOMEM;
		t->cells[t->n_cells++] = s;
	}
	return 0;
}

Table *table_new(size_t n_columns, const char *const *headers) {
	_cleanup_(table_freep) Table *t = NULL;

	t = calloc(1, sizeof(Table));
	if (!t)
		return NULL;
	t->n_columns = n_columns;
	if (table_add_row(t, headers) < 0)
		return NULL;
	return TAKE_PTR(t);
}

size_t table_rows(const Table *t) {
	return t->n_cells / t->n_columns - 1;
}

int table_print(const Table *t, FILE *f) {
	_cleanup_free_ size_t *width = NULL;

	width = calloc(t->n_columns, sizeof(size_t));
	if (!width)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t n = strlen(t->cells[i]);

		if (n > width[i % t->n_columns])
			width[i % t->n_columns] = n;
	}
	for (size_t i = 0; i < t->n_cells; i++) {
		size_t c = i % t->n_columns;

		if (c == t->n_columns - 1)
			fprintf(f, "%s\n", t->cells[i]);
		else
			fprintf(f, "%-*s  ", (int) width[c], t->cells[i]);
	}
	return fflush(f) == 0 ? 0 : -EIO;
}

int json_print(json_object *o, FILE *f) {
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	flags |= isatty(fileno(f)) ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;
	fputs(json_object_to_json_string_ext(o, flags), f);
	fputc('\n', f);
	return fflush(f) == 0 ? 0 : -EIO;
}
