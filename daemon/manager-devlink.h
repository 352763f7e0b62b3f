/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink's config group: a parameter changed by another tool makes the functions dirty
 * (manager-devlink.c). */

#include "manager.h"

/* Not fatal when the kernel has no devlink: 0, and changes are seen on the next reconcile. */
int manager_watch_devlink(Manager *m);
void manager_unwatch_devlink(Manager *m);
