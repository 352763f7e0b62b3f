/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmactl's side of org.rdmad1: connecting, calling, and turning replies into JSON. Errors are
 * printed as "rdmactl VERB: MESSAGE" here, so that the verbs stay short. */

#include <systemd/sd-bus.h>

#include "json-util.h"

#define RDMAD_BUS_NAME	    "org.rdmad1"
#define RDMAD_MANAGER_PATH  "/org/rdmad1"
#define RDMAD_MANAGER_IFACE "org.rdmad1.Manager"
#define RDMAD_LINK_PREFIX   "/org/rdmad1/link"
#define RDMAD_LINK_IFACE    "org.rdmad1.Link"

/* The system bus ($DBUS_SYSTEM_BUS_ADDRESS for tests) in *ret; returns 1 when rdmad is on it, 0
 * when it is not, -errno without a bus. Never starts rdmad. */
int rdmad_bus_open(sd_bus **ret);
/* The same, for commands that need the daemon: prints why not and returns -ESRCH/-errno. */
int rdmad_bus_require(const char *verb, sd_bus **ret);

/* Call a Manager method; a D-Bus error is printed with verb and returned as -errno. */
int rdmad_call(sd_bus *bus, const char *verb, const char *method, sd_bus_message **ret_reply,
	       const char *types, ...);
/* A Manager method that returns one JSON string (Plan, Describe), parsed. */
int rdmad_call_json(sd_bus *bus, const char *verb, const char *method, json_object **ret);

/* The next value of m (basic, array, dict, struct or variant) as JSON. */
int bus_message_read_json(sd_bus_message *m, json_object **ret);
