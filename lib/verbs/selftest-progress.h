/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The two bounds of a selftest, and how far it got. --timeout bounds each wait for progress
 * (a step of the connection reached, a completion: a round trip answered, an RDMA WRITE of the
 * burst done): nothing for that long is a stall. --deadline, when given, bounds the whole
 * test, progressing or not. A slow link is not a stalled one: Soft-RoCE in a VM moves the
 * default burst (1000 RDMA WRITEs of 64 KiB) in 12 s, a completion every few ms.
 *
 * Pure: the caller reads the clock (CLOCK_MONOTONIC, ns) and says what it counted. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "selftest.h"

#define NSEC_PER_SEC  (1000 * 1000 * 1000ULL)
#define NSEC_INFINITY UINT64_MAX

/* What the test is at, for "how far it got". */
typedef enum SelftestStage {
	SELFTEST_STAGE_SETUP,	    /* address, route, connection: the failed step says which */
	SELFTEST_STAGE_ROUND_TRIPS, /* done of total round trips answered */
	SELFTEST_STAGE_BURST,	    /* done of total RDMA WRITEs of the burst completed, then the
				     * ping that checks their bytes */
	SELFTEST_STAGE_SERVE,	    /* --listen: done of total pings of a client answered */
} SelftestStage;

typedef enum SelftestExpiry {
	SELFTEST_EXPIRY_NONE,
	SELFTEST_EXPIRY_STALLED,  /* nothing for timeout_sec */
	SELFTEST_EXPIRY_DEADLINE, /* deadline_sec ran out, while it progressed */
} SelftestExpiry;

typedef struct SelftestProgress {
	uint32_t timeout_sec;  /* the longest wait for progress */
	uint32_t deadline_sec; /* the whole test; 0: none */
	uint64_t start_nsec;
	uint64_t last_nsec; /* the last progress, or the start */
	uint64_t count;	    /* what the caller had counted at last_nsec */
	SelftestStage stage;
	uint32_t done, total; /* of the stage */
} SelftestProgress;

void selftest_progress_init(SelftestProgress *p, uint64_t start_nsec, uint32_t timeout_sec,
			    uint32_t deadline_sec);
/* count: the caller's running count of what happened (steps reached, completions). When it
 * moved since the last call, that was progress, at now_nsec: returns true. */
bool selftest_progress_update(SelftestProgress *p, uint64_t count, uint64_t now_nsec);
/* When the current wait must end: the last progress + timeout_sec, or the deadline when that
 * comes first. */
uint64_t selftest_progress_wake(const SelftestProgress *p);
/* Which bound had run out at now_nsec; when both had, the one that ran out first. */
SelftestExpiry selftest_progress_expired(const SelftestProgress *p, uint64_t now_nsec);
/* How far it got, past the setup: "the bandwidth burst: 312 of 1000 RDMA WRITEs completed";
 * "" during the setup. */
const char *selftest_progress_format(const SelftestProgress *p, char *buf, size_t size);
/* A wait that ran out (e, not NONE): a failure at step "timeout" that says where (what: the
 * setup step awaited, used during the setup), how far the test got, and which option to pass.
 * Returns as selftest_fail(). */
int selftest_progress_fail(const SelftestProgress *p, SelftestExpiry e, const char *what,
			   SelftestResult *r);
/* Another failure past the setup: its message gets how far the test got ("; so far: ...").
 * Nothing to do for a passed test, a failure during the setup or one of
 * selftest_progress_fail(). 0, or -ENOMEM. */
int selftest_progress_note(const SelftestProgress *p, SelftestResult *r);
