/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What manager-trial.c (a trial's life) and manager-trial-gates.c (reading what its gates
 * judge) share. */

#include "manager-trial.h"
#include "trial-gate.h"

struct Trial {
	TrialRecord record;
	char **links;		 /* the links the trial writes, "rxe0/1" */
	char **netdevs;		 /* their netdevs the trial writes ... */
	bool *up_before;	 /* ... and whether each was up when it began */
	ProbePath *probe_before; /* rdmad-probe's state when it began (NULL: none read) */
	size_t n_probe_before;
	bool probe_known;
	uint64_t started_usec;	  /* CLOCK_MONOTONIC */
	uint64_t held_since_usec; /* since when every gate held (0: not yet) */
	sd_event_source *timeout_source, *tick_source;
	/* the rollback */
	bool rolling_back;
	unsigned run_after; /* the reconcile that writes back is the first numbered above */
	char *reason, *gate, *seen;
	uint64_t rollback_usec; /* CLOCK_MONOTONIC when it began */
	sd_bus_message **waiters;
	size_t n_waiters;
};

/* rdmad-probe's state file (Manager.probe_state_path), its paths. */
int probe_state_read(Manager *m, ProbePath **ret, size_t *ret_n);
/* netdev's operstate under the root, NULL when it is gone. */
char *netdev_operstate(Manager *m, const char *netdev);
/* Each gate of t in turn: 0 all held, 1 one failed (*ret_gate, *ret_seen), -errno. */
int trial_gates(Manager *m, Trial *t, const char **ret_gate, char **ret_seen);
