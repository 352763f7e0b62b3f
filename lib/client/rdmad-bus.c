/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <unistd.h>

#include "macro.h"
#include "rdmad-bus.h"

int rdmad_bus_open(sd_bus **ret) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r, has_owner;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		return r;
	/* On a terminal, polkit may ask the user to authenticate (reload, reconcile, selftest
	 * by a non-root user: the actions say auth_admin_keep), through their polkit agent. */
	r = sd_bus_set_allow_interactive_authorization(bus, isatty(STDIN_FILENO));
	if (r < 0)
		return r;
	r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
			       "org.freedesktop.DBus", "NameHasOwner", &error, &reply, "s",
			       RDMAD_BUS_NAME);
	if (r < 0)
		return r;
	r = sd_bus_message_read(reply, "b", &has_owner);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(bus);
	return has_owner ? 1 : 0;
}
