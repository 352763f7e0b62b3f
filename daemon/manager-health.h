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
/* The table of health reporters, read once; called by manager_watch_devlink() once it joined
 * devlink's config group, whose messages it then hands to manager_health_message(), and its
 * losses (ENOBUFS) to manager_health_lost(). */
int manager_health_start(Manager *m, uint16_t family);
void manager_health_message(Manager *m, const struct nlmsghdr *nlh);
void manager_health_lost(Manager *m);
HealthWatch *health_watch_free(HealthWatch *w);

/* The reporters as last seen, for Describe(): an array of {device, port, reporter, state,
 * errors, recoveries}; nothing when not watched. -ENOMEM. */
int manager_health_describe(Manager *m, json_object *o);
