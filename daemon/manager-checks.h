/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Stops a Preflight() or SelfTest() at work and fails its callers (at exit). */
void manager_checks_done(Manager *m);

/* Preflight() and SelfTest() of the Manager's vtable: rdmactl run as a helper. */
int method_preflight(sd_bus_message *msg, void *userdata, sd_bus_error *error);
int method_self_test(sd_bus_message *msg, void *userdata, sd_bus_error *error);
