/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Running rdmactl for the D-Bus calls whose work the daemon must not do itself: Preflight()
 * looks at the host as jobs see it (device nodes, libibverbs, memlock), which rdmad's sandbox
 * hides (PrivateDevices=, RestrictAddressFamilies=), and SelfTest() needs libibverbs and
 * librdmacm, which rdmad does not link. Under systemd the helper runs as a transient service
 * (systemd-run --wait --pipe), so it gets no part of the daemon's sandbox; elsewhere (tests, a
 * daemon started by hand) it is a plain child. Asynchronous: the main loop keeps serving. */

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>

#include "macro.h"

typedef struct Helper Helper;

/* Called once: status is the exit status (0..255), or -errno when the helper could not be run
 * or was killed on timeout; output is what it printed on stdout (NUL-terminated, may be
 * empty), borrowed until the callback returns. */
typedef void (*helper_done_t)(Helper *h, int status, const char *output, void *userdata);

/* Run rdmactl with args (NULL-terminated, without argv[0]); name ("preflight") names the
 * transient service (rdmad-NAME-PID-N.service). $RDMAD_RDMACTL names another rdmactl (the
 * build tree's, in tests). Output beyond 4 MiB and runs longer than timeout_usec fail with
 * -EFBIG and -ETIME, and stop the run: the child, and the service through bus (systemd's
 * StopUnit), which may be NULL. So does helper_free() of a run not finished. */
int helper_run_rdmactl(sd_event *e, sd_bus *bus, char *const *args, uint64_t timeout_usec,
		       const char *name, helper_done_t done, void *userdata, Helper **ret);
Helper *helper_free(Helper *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(Helper *, helper_free)
