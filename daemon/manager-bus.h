/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.rdmad1.Manager on /org/rdmad1 (manager-bus.c): the connection, the name, the vtable, and
 * the core's emitter (manager-emit.h) on that connection. */

#include "manager.h"

/* The system bus, or DBUS_SYSTEM_BUS_ADDRESS; reconnects on its own when dbus-daemon goes.
 * From then on the core's changes are emitted on it. */
int manager_connect_bus(Manager *m);
