/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The selftest's two bounds (a stall: nothing for --timeout; the whole test: --deadline) and
 * how far a test got, for its failure. Pure. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest-progress.h"

void selftest_progress_init(SelftestProgress *p, uint64_t start_nsec, uint32_t timeout_sec,
			    uint32_t deadline_sec) {
	*p = (SelftestProgress){
		.timeout_sec = timeout_sec,
		.deadline_sec = deadline_sec,
		.start_nsec = start_nsec,
		.last_nsec = start_nsec,
	};
}

bool selftest_progress_update(SelftestProgress *p, uint64_t count, uint64_t now_nsec) {
	if (count == p->count)
		return false;
	p->count = count;
	if (now_nsec > p->last_nsec)
		p->last_nsec = now_nsec;
	return true;
}

static uint64_t stall_at(const SelftestProgress *p) {
	return p->last_nsec + (uint64_t) p->timeout_sec * NSEC_PER_SEC;
}

static uint64_t deadline_at(const SelftestProgress *p) {
	return p->deadline_sec > 0 ? p->start_nsec + (uint64_t) p->deadline_sec * NSEC_PER_SEC
				   : NSEC_INFINITY;
}

uint64_t selftest_progress_wake(const SelftestProgress *p) {
	uint64_t stall = stall_at(p), end = deadline_at(p);

	return stall < end ? stall : end;
}

SelftestExpiry selftest_progress_expired(const SelftestProgress *p, uint64_t now_nsec) {
	uint64_t stall = stall_at(p), end = deadline_at(p);

	if (now_nsec >= stall && stall <= end)
		return SELFTEST_EXPIRY_STALLED;
	if (now_nsec >= end)
		return SELFTEST_EXPIRY_DEADLINE;
	return SELFTEST_EXPIRY_NONE;
}

const char *selftest_progress_format(const SelftestProgress *p, char *buf, size_t size) {
	switch (p->stage) {
	case SELFTEST_STAGE_ROUND_TRIPS:
		snprintf(buf, size, "the round trips: %" PRIu32 " of %" PRIu32 " answered", p->done,
			 p->total);
		break;
	case SELFTEST_STAGE_BURST:
		snprintf(buf, size,
			 "the bandwidth burst: %" PRIu32 " of %" PRIu32 " RDMA WRITEs completed",
			 p->done, p->total);
		break;
	case SELFTEST_STAGE_SERVE:
		snprintf(buf, size, "the client's pings: %" PRIu32 " of %" PRIu32 " answered",
			 p->done, p->total);
		break;
	default:
		snprintf(buf, size, "%s", "");
		break;
	}
	return buf;
}

int selftest_progress_fail(const SelftestProgress *p, SelftestExpiry e, const char *what,
			   SelftestResult *r) {
	char where[128];
	bool setup = p->stage == SELFTEST_STAGE_SETUP;
	const char *hint;

	selftest_progress_format(p, where, sizeof(where));
	if (e == SELFTEST_EXPIRY_DEADLINE) {
		hint = "The test was still progressing: raise --deadline or leave it out "
		       "(--timeout alone bounds a stall), or lower --iters or --size";
		if (setup)
			return selftest_fail(r, SELFTEST_STEP_TIMEOUT, -ETIME, hint,
					     "%s: the %" PRIu32 " s of --deadline ran out", what,
					     p->deadline_sec);
		return selftest_fail(r, SELFTEST_STEP_TIMEOUT, -ETIME, hint,
				     "%s when the %" PRIu32 " s of --deadline ran out", where,
				     p->deadline_sec);
	}
	if (setup)
		return selftest_fail(
			r, SELFTEST_STEP_TIMEOUT, -ETIME,
			"Raise --timeout, or see why the peer does not answer (rdmactl "
			"counters on both links, dmesg)",
			"%s: nothing within the %" PRIu32 " s of --timeout", what, p->timeout_sec);
	if (p->stage == SELFTEST_STAGE_SERVE)
		hint = "The client stopped: see what it printed";
	else
		hint = "Nothing completed for --timeout: is the peer still up (its netdev, its "
		       "rdmactl)? See both links' counters (rdmactl counters) and dmesg. If one "
		       "RDMA WRITE of --size bytes takes longer than that on this link, raise "
		       "--timeout or lower --size";
	return selftest_fail(r, SELFTEST_STEP_TIMEOUT, -ETIME, hint,
			     "%s, then nothing for the %" PRIu32 " s of --timeout", where,
			     p->timeout_sec);
}

int selftest_progress_note(const SelftestProgress *p, SelftestResult *r) {
	char where[128];
	char *m;

	if (!selftest_failed(r) || r->step == SELFTEST_STEP_TIMEOUT ||
	    p->stage == SELFTEST_STAGE_SETUP)
		return 0;
	if (asprintf(&m, "%s; so far, %s", r->message,
		     selftest_progress_format(p, where, sizeof(where))) < 0)
		return -ENOMEM;
	free(r->message);
	r->message = m;
	return 0;
}
