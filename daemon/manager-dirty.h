/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What events touched, as a reconcile takes it over from the manager (manager-reconcile.c): the
 * devices and netdevs they named, resolved to the devices to observe, and which actions of the
 * plan are theirs to apply. Events only say where to look; the reconcile looks. */

#include "manager.h"
#include "strset.h"

typedef struct Dirty {
	bool all;
	StrSet devices; /* what events named */
	StrSet netdevs;
	StrSet resolved; /* the devices those come to (dirty_resolve()) */
} Dirty;

/* Turn what events touched into the devices to observe (d->resolved); d->all for everything. */
int dirty_resolve(const Manager *m, Dirty *d);
/* Is a (an action of the plan) one of what d touched? Host actions always are. */
bool action_affected(const Dirty *d, const Action *a);
