/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers that keep the JSON builders short (rdmactl --json, the daemon's Plan() and
 * Describe()). A NULL string becomes JSON null. All return 0 or -ENOMEM. */

#include <json-c/json.h>

#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(json_object *, json_object_put)

int json_add_string(json_object *o, const char *key, const char *value);
int json_add_int(json_object *o, const char *key, int64_t value);
int json_add_bool(json_object *o, const char *key, bool value);
int json_add_strv(json_object *o, const char *key, char *const *l);
/* Add a new object (or array) under key, or to an array when key is NULL; *ret is borrowed. */
int json_add_object(json_object *parent, const char *key, json_object **ret);
int json_add_array(json_object *parent, const char *key, json_object **ret);

/* The string member key of o, or NULL when absent or not a string. */
const char *json_get_string(json_object *o, const char *key);
