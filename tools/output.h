/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>
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

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put)

/* Small helpers that keep the JSON builders short; a NULL string becomes JSON null. */
int json_add_string(json_object *o, const char *key, const char *value);
int json_add_int(json_object *o, const char *key, int64_t value);
int json_print(json_object *o, FILE *f);
