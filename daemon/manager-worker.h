/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A kernel operation that can take seconds (action_blocks(): a write to sriov_numvfs, in which
 * the PF's driver probes every new VF; an e-switch mode change, which makes or deletes the
 * representors) carried out off the event loop, by a child process forked for it, one at a
 * time (manager-worker.c). The loop goes on answering the bus and feeding the watchdog; the
 * outcome comes back through a pipe, and the reconcile that started it goes on from there
 * (manager-reconcile.c). Meanwhile the journal says every WORKER_PROGRESS_USEC how long it has
 * been at work, and the link's status row and the service status what it does. */

#include "manager.h"

#define WORKER_PROGRESS_USEC (10 * 1000000ULL)

/* The outcome is known, on the loop: o is the callee's (action_outcome_done()). */
typedef void (*worker_done_t)(Manager *m, const Action *a, ActionOutcome *o, void *userdata);

/* Carry out a in a child. a must stay as it is until done is called or the worker is freed. */
int worker_start(Manager *m, const Action *a, worker_done_t done, void *userdata, Worker **ret);
/* Forget the worker, without calling done. A child still at work goes on: the kernel cannot
 * interrupt what it does. It logs its outcome itself and exits (rdmad stopping meanwhile). */
Worker *worker_free(Worker *w);
DEFINE_TRIVIAL_CLEANUP_FUNC(Worker *, worker_free)

/* What it does, with how long it has been at it: "writing 8 (started 12 s ago)". */
int worker_describe(const Worker *w, char *buf, size_t size);
/* The function it changes ("pci/0000:3b:00.1"), and the setting. */
const char *worker_function(const Worker *w) _pure_;
Key worker_key(const Worker *w) _pure_;
/* It changes setting key of the port s: its action's port, or for a function no RDMA port
 * carries, a port on the function's netdev. */
bool worker_concerns(const Worker *w, const PortStatus *s, Key key) _pure_;

/* The error column of setting x of s as the bus shows it: while w (NULL: none) carries the
 * setting out, what it does ("writing 8 (started 12 s ago)") in buf; else x's own. */
const char *worker_setting_error(const Worker *w, const PortStatus *s, const SettingStatus *x,
				 char *buf, size_t size);
