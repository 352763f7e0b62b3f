/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* lldpd's neighbour notifications, each marking its netdev dirty (manager-lldp.c); only on the
 * real root. Failures are logged and ignored: the next reconcile reads lldpd all the same. */
int manager_watch_lldp(Manager *m);
LldpWatch *lldp_watch_free(LldpWatch *w);
