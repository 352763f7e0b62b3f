/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A long job on the event loop done a slice at a time (a reconcile, a Plan(), the links'
 * signals): bus calls, netlink and udev events go first, yet a client calling without pause
 * cannot starve the job.
 *
 * sd-event dispatches one source per iteration, the most important pending one first. The job's
 * slices come from a defer source below everything else, so they run when the loop has nothing
 * else to do. A client whose next call is always waiting (one CPU, the client and dbus-daemon
 * woken before rdmad runs again) would keep that from ever happening: so a timer, above the bus,
 * runs a slice itself when none ran for SLICE_WAIT_MAX_USEC. A slice lasts as long as the loop
 * spent on other work since the last one, from SLICE_MIN_USEC to SLICE_WAIT_MAX_USEC: the job
 * keeps at least half of a busy loop, and no event waits longer than that maximum. */
#include <stdint.h>
#include <systemd/sd-event.h>

#include "macro.h"

#define SLICE_MIN_USEC	    (250ULL)
#define SLICE_WAIT_MAX_USEC (500ULL)

typedef struct SliceSource SliceSource;

/* One slice of the job: work until deadline_usec (CLOCK_MONOTONIC), at least one step. The
 * handler stops the source when the job is done (it may start it again for the next job). */
typedef void (*slice_handler_t)(void *userdata, uint64_t deadline_usec);

int slice_source_new(sd_event *e, const char *description, slice_handler_t handler,
		     void *userdata, SliceSource **ret);
SliceSource *slice_source_free(SliceSource *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(SliceSource *, slice_source_free)

/* Slices from now on, until slice_source_stop(). */
int slice_source_start(SliceSource *s);
void slice_source_stop(SliceSource *s);
