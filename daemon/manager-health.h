/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <json-c/json.h>

#include "devlink-health.h"
#include "manager.h"

/* devlink's health reporters, watched on devlink's "config" multicast group
 * (manager-health.c): the kernel sends HEALTH_REPORTER_RECOVER with a reporter's whole state on
 * each error and each recovery, so nothing polls. Each change is a journal line and a
 * DevlinkHealthChanged signal (manager-emit.h), and the table Describe() shows. Only on the
 * real root (devlink has none). Failures are logged and ignored: rdmactl preflight and metrics
 * read devlink themselves. */
int manager_watch_health(Manager *m);
HealthWatch *health_watch_free(HealthWatch *w);

/* The reporters as last seen, for Describe(): an array of {device, port, reporter, state,
 * errors, recoveries}; nothing when not watched. -ENOMEM. */
int manager_health_describe(Manager *m, json_object *o);
