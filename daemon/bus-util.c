/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "bus-args.h"
#include "bus-util.h"

char *link_bus_path(const char *name) {
	char *path = NULL;

	if (sd_bus_path_encode(LINK_PREFIX, name, &path) < 0)
		return NULL;
	return path;
}

int bus_link_error(sd_bus_error *error, const char *name, int r) {
	char q[ARG_QUOTE_MAX + 4];

	switch (r) {
	case -EADDRNOTAVAIL:
		return sd_bus_error_setf(error, ERROR_NO_SUCH_LINK,
					 "'%s' names several ports: give DEV/PORT",
					 arg_quote(name, q));
	case -ENODEV:
		return sd_bus_error_setf(error, ERROR_NO_SUCH_LINK, "No RDMA link '%s'",
					 arg_quote(name, q));
	default:
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "'%s' is not DEV/PORT, DEV or a netdev name",
					 arg_quote(name, q));
	}
}

bool bus_is_ready(sd_bus *bus) {
	return bus && sd_bus_is_ready(bus) > 0;
}
