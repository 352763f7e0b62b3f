/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.rdmad1.Manager on /org/rdmad1 (manager-bus.c): the connection, the name, the vtable. */

#include "manager.h"

/* The system bus, or DBUS_SYSTEM_BUS_ADDRESS; reconnects on its own when dbus-daemon goes. */
int manager_connect_bus(Manager *m);
bool manager_bus_ready(Manager *m);
/* PropertiesChanged of the Manager's properties named (NULL-terminated). */
void manager_bus_emit_changed(Manager *m, const char *property, ...);
