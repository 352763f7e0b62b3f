/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "json-util.h"

static int json_add(json_object *o, const char *key, json_object *v) {
	int r;

	if (key)
		r = json_object_object_add(o, key, v);
	else
		r = json_object_array_add(o, v);
	if (r < 0) {
		json_object_put(v);
		return -ENOMEM;
	}
	return 0;
}

int json_add_string(json_object *o, const char *key, const char *value) {
	json_object *v = NULL;

	if (value) {
		v = json_object_new_string(value);
		if (!v)
			return -ENOMEM;
	}
	return json_add(o, key, v);
}

int json_add_int(json_object *o, const char *key, int64_t value) {
	json_object *v = json_object_new_int64(value);

	if (!v)
		return -ENOMEM;
	return json_add(o, key, v);
}

int json_add_bool(json_object *o, const char *key, bool value) {
	json_object *v = json_object_new_boolean(value);

	if (!v)
		return -ENOMEM;
	return json_add(o, key, v);
}

int json_add_strv(json_object *o, const char *key, char *const *l) {
	json_object *a;
	int r;

	r = json_add_array(o, key, &a);
	for (; r >= 0 && l && *l; l++)
		r = json_add_string(a, NULL, *l);
	return r;
}

/* Attach a new container, then hand out a borrowed pointer to it. */
static int json_add_container(json_object *parent, const char *key, json_object *v,
			      json_object **ret) {
	int r;

	if (!v)
		return -ENOMEM;
	r = json_add(parent, key, v);
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

int json_add_object(json_object *parent, const char *key, json_object **ret) {
	return json_add_container(parent, key, json_object_new_object(), ret);
}

int json_add_array(json_object *parent, const char *key, json_object **ret) {
	return json_add_container(parent, key, json_object_new_array(), ret);
}

const char *json_get_string(json_object *o, const char *key) {
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}
