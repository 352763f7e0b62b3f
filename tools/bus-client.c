/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bus-client.h"

int rdmad_bus_require(const char *verb, sd_bus **ret) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = rdmad_bus_open(&bus);
	if (r < 0) {
		fprintf(stderr, "rdmactl %s: cannot reach the system bus: %s\n", verb,
			strerror(-r));
		return r;
	}
	if (r == 0) {
		fprintf(stderr,
			"rdmactl %s: rdmad is not running (nothing owns %s; "
			"systemctl start rdmad)\n",
			verb, RDMAD_BUS_NAME);
		return -ESRCH;
	}
	*ret = TAKE_PTR(bus);
	return 0;
}

int rdmad_call(sd_bus *bus, const char *verb, const char *method, sd_bus_message **ret_reply,
	       const char *types, ...) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	va_list ap;
	int r;

	va_start(ap, types);
	r = sd_bus_call_methodv(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
				method, &error, ret_reply, types, ap);
	va_end(ap);
	if (r < 0)
		fprintf(stderr, "rdmactl %s: %s\n", verb,
			error.message ? error.message : strerror(-r));
	return r;
}

int rdmad_call_json(sd_bus *bus, const char *verb, const char *method, json_object **ret) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	const char *s;
	json_object *j;
	int r;

	r = rdmad_call(bus, verb, method, &reply, NULL);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "s", &s);
	if (r < 0)
		return r;
	j = json_tokener_parse(s);
	if (!j) {
		fprintf(stderr, "rdmactl %s: rdmad's %s() reply is not JSON\n", verb, method);
		return -EBADMSG;
	}
	*ret = j;
	return 0;
}
