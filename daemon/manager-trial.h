/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A trial (`rdmactl try`, issue 45; manager-trial.c): profiles applied as a layer above all
 * others, the value before of every object the layer writes recorded first (trial-record.h),
 * the health gates (trial-gate.h) watched while it is pending, and a rollback on a failed gate,
 * a timeout, Rollback(), or at start when a record is found. Its bus face is
 * manager-trial-bus.c. */

#include "manager.h"
#include "trial-record.h"

/* Without a timeout given, as netplan try. */
#define TRIAL_TIMEOUT_DEFAULT_USEC (120ULL * 1000000)
#define TRIAL_TIMEOUT_MAX_USEC	   (24ULL * 3600 * 1000000)
/* How often the gates are looked at while a trial is pending. */
#define TRIAL_TICK_USEC (1000000ULL)

/* At start, before the first load: a record found means a trial was pending when rdmad
 * stopped (crash, SIGKILL, a restart): it is rolled back by the first reconcile. A torn record
 * is set aside and said. */
int manager_trial_resume(Manager *m);
/* The layer of the trial (its files) or of its rollback (the recorded values) appended to c,
 * which manager_load_config() just loaded. */
int manager_trial_layer(Manager *m, Config *c);

/* Begin a trial of rec's files (rec->timeout_usec 0: the default): validated as a reload
 * validates, planned on a host read now, every object it writes recorded, then applied. rec's
 * files are taken. -EBUSY (a trial pending), -EINVAL (invalid files: *ret_error holds the
 * FILE:LINE:COLUMN lines), -EOPNOTSUPP (a key that cannot be rolled back: *ret_error says
 * which and why), -errno. */
int manager_trial_try(Manager *m, TrialRecord *rec, char **ret_error);
/* The trial's files made ordinary profiles in target (NULL: the first profile dir). -ENOENT
 * none pending, -EBUSY rolling back, -EPERM a target that is not a profile dir rdmad writes. */
int manager_trial_confirm(Manager *m, const char *target, char **ret_error);
/* Roll the pending trial back: reason "requested", "timeout", "gate", "restart"; gate and seen
 * for a failed gate. msg (may be NULL) answered when the rollback ended. -ENOENT none. */
int manager_trial_rollback(Manager *m, const char *reason, const char *gate, const char *seen,
			   sd_bus_message *msg);
/* A reconcile ended (manager-reconcile.c): the rollback at work reads back and ends. */
void manager_trial_run_ended(Manager *m);
/* The pending trial as JSON ("" when none), and the last one that ended. */
int manager_trial_json(Manager *m, char **ret);
const char *manager_trial_last(const Manager *m);
void manager_trial_done(Manager *m);
