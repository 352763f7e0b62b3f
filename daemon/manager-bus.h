/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.rdmad1.Manager on /org/rdmad1 (manager-bus.c): the connection, the name, the vtable. */

#include "bus-args.h"
#include "manager.h"

/* The system bus, or DBUS_SYSTEM_BUS_ADDRESS; reconnects on its own when dbus-daemon goes. */
int manager_connect_bus(Manager *m);
bool manager_bus_ready(Manager *m);
/* PropertiesChanged of the Manager's properties named (NULL-terminated). */
void manager_bus_emit_changed(Manager *m, const char *property, ...);

/* For the method handlers of other files (manager-checks.c). */
int bus_link_error(sd_bus_error *error, const char *name, int r);

/* Preflight() and SelfTest() (manager-checks.c): rdmactl run as a helper. */
int method_preflight(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int method_self_test(sd_bus_message *msg, void *userdata, sd_bus_error *error);
