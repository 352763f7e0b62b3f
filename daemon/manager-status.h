/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The status table (Manager.ports, port-status.h) and the host's status, rebuilt at the end of
 * a reconcile from its final observation and plan (manager-reconcile.c), and what that table
 * schedules: the next try of a failed port, backing off, the next write of a contested
 * setting, another look at a port waiting for its GIDs. */

#include "manager.h"

/* The status table rebuilt from the final observation, one port per step; the old table stays
 * whole, and is what the bus answers from, until the new one replaces it in the last step.
 * Ports (and the host) this reconcile did not look at keep their status. */
typedef struct StatusBuild {
	PortStatus *l;
	size_t n, total;
	size_t device, port; /* the next one to build */
	uint64_t now;
	bool changed;	    /* a built port is new, or differs from its old status */
	bool reset_retries; /* a reload or Reconcile() came meanwhile (manager_reconcile_all()) */
	char **forget;	    /* devices whose contests were forgotten meanwhile; "" all */
	bool ended;	    /* the new table replaced the old one, */
	PortStatus *old;    /* which is freed a part a step (thousands of GID tables) */
	size_t n_old, next_old;
} StatusBuild;

/* A rebuild in steps: begin; a port each step (0: more, 1: every observed port built, -errno);
 * end (the new table replaces the old one, a change announced, what was asked of the old one
 * meanwhile done); then the old table freed a part each step (0: more, 1: all of it). */
int status_build_begin(Manager *m, const HostState *h, StatusBuild *b);
int status_build_step(Manager *m, const Config *c, const HostState *h, const Plan *p,
		      const Outcomes *outcomes, StatusBuild *b);
int status_build_end(Manager *m, const HostState *h, const Plan *p, const Outcomes *outcomes,
		     char *const *only, StatusBuild *b);
int status_build_release_step(StatusBuild *b);
void status_build_done(StatusBuild *b);

/* What the new table asks for, after a reconcile that did not fail: its devices marked dirty,
 * and a reconcile scheduled when it is due. */
void retries_schedule(Manager *m);
void contests_schedule(Manager *m);
void gids_wait_schedule(Manager *m);

/* The worker (manager-worker.h) began carrying out a (o NULL), or ended with o: the status row
 * of a's setting says so (pending, in progress; then what came of it) until the run's own
 * status replaces the table. For a function no RDMA port carries: the rows the ports on its
 * netdev have for that setting (a Soft-RoCE link on the PF's netdev); the service status says
 * it too (manager_notify_status()). */
void status_note_worker(Manager *m, const Action *a, const ActionOutcome *o);
