/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* At most burst events per interval (systemd's RateLimit, CLOCK_MONOTONIC microseconds): what
 * an unprivileged caller may make rdmad read from the kernel. */

#include <stdbool.h>
#include <stdint.h>

typedef struct RateLimit {
	uint64_t interval_usec;
	unsigned burst;
	uint64_t begin_usec;
	unsigned n;
} RateLimit;

/* Counts one event at now; false when it is over the limit (and not counted). */
static inline bool ratelimit_below(RateLimit *rl, uint64_t now) {
	if (rl->begin_usec == 0 || now >= rl->begin_usec + rl->interval_usec) {
		rl->begin_usec = now ? now : 1;
		rl->n = 0;
	}
	if (rl->n >= rl->burst)
		return false;
	rl->n++;
	return true;
}
