/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The trial's members of org.rdmad1.Manager (manager-trial-bus.c). */

#include <systemd/sd-bus.h>

#include "manager.h"

/* Their entries are in manager-bus.c's vtable: sd-bus emits PropertiesChanged of one vtable at a
 * time, so that a change of ConfigFiles and Trial together must be of one. */
int trial_method_try(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int trial_method_confirm(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int trial_method_rollback(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int trial_property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error);
int trial_property_get_last(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error);
/* The emitter's trial_ended (manager-emit.h): the TrialEnded signal. */
void manager_trial_bus_emit_ended(Manager *m, const char *outcome, const char *gate,
				  const char *seen, const char *json);
