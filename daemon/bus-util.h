/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The names of rdmad's D-Bus API and the replies every handler shares (bus-util.c): object
 * paths, the errors of a bad link name, whether a connection is worth emitting on. No Manager:
 * the core (manager-describe.c) and the bus files (*-bus.c, manager-checks.c) both use it. */

#include <stdbool.h>
#include <systemd/sd-bus.h>

#define BUS_NAME	      "org.rdmad1"
#define MANAGER_PATH	      "/org/rdmad1"
#define MANAGER_INTERFACE     "org.rdmad1.Manager"
#define LINK_PREFIX	      "/org/rdmad1/link"
#define LINK_INTERFACE	      "org.rdmad1.Link"
#define ERROR_NO_SUCH_LINK    "org.rdmad1.Error.NoSuchLink"
#define ERROR_INVALID_PROFILE "org.rdmad1.Error.InvalidProfiles"
#define ERROR_NO_GID	      "org.rdmad1.Error.NoGid"

/* The object path of a link (/org/rdmad1/link/<escaped DEV/PORT>); NULL when out of memory. */
char *link_bus_path(const char *name);
/* The error reply for a link name link_name_resolve() refused with r. */
int bus_link_error(sd_bus_error *error, const char *name, int r);
/* Signals are only worth sending on a connected bus: while sd-bus waits for the socket
 * (watch-bind, at boot), every emitted signal would be queued, unbounded, for nobody. */
bool bus_is_ready(sd_bus *bus);
