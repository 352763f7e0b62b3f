/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A D-Bus message's values as JSON: rdmactl's --json output of rdmad's properties and signals. */

#include <json-c/json.h>
#include <systemd/sd-bus.h>

/* The next value of m (basic, array, dict, struct or variant) as JSON; -EOPNOTSUPP for a file
 * descriptor or a dict whose keys are not strings. */
int bus_message_read_json(sd_bus_message *m, json_object **ret);
