/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "bus-json.h"
#include "json-util.h"
#include "macro.h"

static int read_basic_json(sd_bus_message *m, char type, json_object **ret) {
	union {
		const char *s;
		int b;
		uint8_t y;
		int16_t n;
		uint16_t q;
		int32_t i;
		uint32_t u;
		int64_t x;
		uint64_t t;
		double d;
	} v;
	json_object *j;
	int r;

	r = sd_bus_message_read_basic(m, type, &v);
	if (r < 0)
		return r;
	switch (type) {
	case 's':
	case 'o':
	case 'g':
		j = json_object_new_string(v.s);
		break;
	case 'b':
		j = json_object_new_boolean(v.b);
		break;
	case 'y':
		j = json_object_new_int64(v.y);
		break;
	case 'n':
		j = json_object_new_int64(v.n);
		break;
	case 'q':
		j = json_object_new_int64(v.q);
		break;
	case 'i':
		j = json_object_new_int64(v.i);
		break;
	case 'u':
		j = json_object_new_int64(v.u);
		break;
	case 'x':
		j = json_object_new_int64(v.x);
		break;
	case 't':
		j = json_object_new_uint64(v.t);
		break;
	case 'd':
		j = json_object_new_double(v.d);
		break;
	default:
		return -EOPNOTSUPP; /* h (fds) */
	}
	if (!j)
		return -ENOMEM;
	*ret = j;
	return 0;
}

int bus_message_read_json(sd_bus_message *m, json_object **ret) {
	_cleanup_(json_object_putp) json_object *j = NULL;
	const char *contents;
	bool dict;
	char type;
	int r;

	r = sd_bus_message_peek_type(m, &type, &contents);
	if (r <= 0)
		return r < 0 ? r : -EBADMSG;
	if (!strchr("avr", type))
		return read_basic_json(m, type, ret);
	r = sd_bus_message_enter_container(m, type, contents);
	if (r < 0)
		return r;
	if (type == 'v') {
		r = bus_message_read_json(m, &j);
		goto finish;
	}
	dict = type == 'a' && contents[0] == '{';
	if (dict && !strchr("so", contents[1]))
		return -EOPNOTSUPP; /* JSON keys are strings */
	/* "{sv}" -> "sv": the signature of one dict entry */
	char entry[256];
	if (dict && snprintf(entry, sizeof(entry), "%.*s", (int) strlen(contents) - 2,
			     contents + 1) >= (int) sizeof(entry))
		return -E2BIG;
	j = dict ? json_object_new_object() : json_object_new_array();
	if (!j)
		return -ENOMEM;
	while ((r = sd_bus_message_at_end(m, false)) == 0) {
		json_object *v = NULL;

		if (dict) {
			const char *key;

			r = sd_bus_message_enter_container(m, 'e', entry);
			if (r >= 0)
				r = sd_bus_message_read_basic(m, contents[1], &key);
			if (r >= 0)
				r = bus_message_read_json(m, &v);
			if (r >= 0 && json_object_object_add(j, key, v) < 0) {
				json_object_put(v);
				r = -ENOMEM;
			}
			if (r >= 0)
				r = sd_bus_message_exit_container(m);
		} else {
			r = bus_message_read_json(m, &v);
			if (r >= 0 && json_object_array_add(j, v) < 0) {
				json_object_put(v);
				r = -ENOMEM;
			}
		}
		if (r < 0)
			return r;
	}
finish:
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(m);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(j);
	return 0;
}
