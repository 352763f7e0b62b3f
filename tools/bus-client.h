/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmactl's side of org.rdmad1: connecting, calling, and turning replies into JSON. Errors are
 * printed as "rdmactl VERB: MESSAGE" here, so that the verbs stay short. Where rdmad is on the
 * bus, and a connection that prints nothing, are lib/client's (rdmad-bus.h). */

#include <systemd/sd-bus.h>

#include "json-util.h"
#include "rdmad-bus.h"

/* rdmad_bus_open(), for commands that need the daemon: prints why not and returns
 * -ESRCH/-errno. */
int rdmad_bus_require(const char *verb, sd_bus **ret);

/* Call a Manager method; a D-Bus error is printed with verb and returned as -errno. */
int rdmad_call(sd_bus *bus, const char *verb, const char *method, sd_bus_message **ret_reply,
	       const char *types, ...);
/* A Manager method that returns one JSON string (Plan, Describe), parsed. */
int rdmad_call_json(sd_bus *bus, const char *verb, const char *method, json_object **ret);
