/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "json-util.h"
#include <stdio.h>

#include "macro.h"

/* Aligned text columns: rows are kept until table_print() knows every width. */
typedef struct Table Table;

Table *table_new(size_t n_columns, const char *const *headers);
Table *table_free(Table *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(Table *, table_free)
/* n_columns strings; NULL prints as "-". */
int table_add_row(Table *t, const char *const *cells);
size_t table_rows(const Table *t);
int table_print(const Table *t, FILE *f);

/* Pretty on a terminal, one line otherwise. */
int json_print(json_object *o, FILE *f);
