/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/slice-source.c on a real sd-event loop: a job done a slice at a time finishes while
 * the loop has other work, even when that other work never stops (a client calling without
 * pause), and each slice is handed a deadline in the future. The verdicts are about order and
 * completion, never about how fast the machine runs; the only bound is a minute of the clock
 * before a starved job is declared, so that the test fails rather than hangs. */
#include <stdbool.h>

#include "fileio.h"
#include "slice-source.h"
#include "tests.h"

#define STARVED_USEC (60ULL * 1000 * 1000)

typedef struct Job {
	sd_event *event;
	SliceSource *slices;
	unsigned left;	   /* steps to go */
	unsigned n_slices; /* handler calls */
	unsigned bad_deadline;
	unsigned hog_calls;  /* the other work's dispatches */
	unsigned hog_during; /* ... while the job had steps to go */
	bool done;
	uint64_t give_up_usec;
	bool last_was_slice;   /* the loop's last dispatch */
	unsigned back_to_back; /* slices right after a slice, while the hog was pending */
} Job;

static void on_slice(void *userdata, uint64_t deadline) {
	Job *j = userdata;

	j->n_slices++;
	if (j->last_was_slice)
		j->back_to_back++;
	j->last_was_slice = true;
	if (deadline <= now_monotonic_usec() - 1000000)
		j->bad_deadline++;
	/* one step per slice, whatever the deadline: the job is as long as it can be */
	if (--j->left > 0)
		return;
	j->done = true;
	slice_source_stop(j->slices);
	(void) sd_event_exit(j->event, 0);
}

/* Always pending, above the job's idle slices: the bus when a client never pauses. */
static int on_hog(sd_event_source *s, void *userdata) {
	Job *j = userdata;

	j->hog_calls++;
	j->last_was_slice = false;
	if (!j->done)
		j->hog_during++;
	if (now_monotonic_usec() > j->give_up_usec)
		(void) sd_event_exit(j->event, 1);
	return 0;
}

/* Run before each iteration's choice: time passes there, as when rdmad is preempted between
 * two dispatches on a busy machine. */
static int on_hog_prepare(sd_event_source *s, void *userdata) {
	uint64_t until = now_monotonic_usec() + 2 * SLICE_WAIT_MAX_USEC;

	while (now_monotonic_usec() < until)
		;
	return 0;
}

static int job_run(unsigned steps, bool hog, bool preempted, Job *j) {
	sd_event_source *h = NULL;
	int r;

	*j = (Job){ .left = steps, .give_up_usec = now_monotonic_usec() + STARVED_USEC };
	CHECK(sd_event_new(&j->event) >= 0);
	CHECK(slice_source_new(j->event, "test-job", on_slice, j, &j->slices) >= 0);
	if (hog) {
		CHECK(sd_event_add_defer(j->event, &h, on_hog, j) >= 0);
		CHECK(sd_event_source_set_priority(h, SD_EVENT_PRIORITY_NORMAL) >= 0);
		/* not the oneshot a defer source is made as: pending at every iteration */
		CHECK(sd_event_source_set_enabled(h, SD_EVENT_ON) >= 0);
		if (preempted)
			CHECK(sd_event_source_set_prepare(h, on_hog_prepare) >= 0);
	}
	CHECK(slice_source_start(j->slices) >= 0);
	r = sd_event_loop(j->event);
	sd_event_source_disable_unref(h);
	j->slices = slice_source_free(j->slices);
	j->event = sd_event_unref(j->event);
	return r;
}

TEST(idle_loop) {
	Job j;

	CHECK_INTEQ(job_run(100, false, false, &j), 0);
	CHECK(j.done);
	CHECK_INTEQ(j.n_slices, 100);
	CHECK_INTEQ(j.bad_deadline, 0);
}

TEST(never_starved) {
	Job j;

	/* the job ends although the hog is pending at every iteration, and the hog went on
	 * being served meanwhile */
	CHECK_INTEQ(job_run(20, true, false, &j), 0);
	CHECK(j.done);
	CHECK_INTEQ(j.n_slices, 20);
	CHECK(j.hog_during > 0);
	CHECK_INTEQ(j.bad_deadline, 0);
}

TEST(never_back_to_back) {
	Job j;

	/* Between two iterations more time passes than the guard waits, every time: the guard
	 * is due at each iteration, and still the hog is served between two slices, never two
	 * slices in a row (a Ping sent with a Plan() waited for all of Plan()'s slices so). */
	CHECK_INTEQ(job_run(20, true, true, &j), 0);
	CHECK(j.done);
	CHECK_INTEQ(j.n_slices, 20);
	CHECK_INTEQ(j.back_to_back, 0);
	CHECK(j.hog_during >= 19);
}

TEST(stopped_and_started) {
	Job j = { 0 };

	/* stop, then start again: the slices come back; stop twice is harmless */
	CHECK(sd_event_new(&j.event) >= 0);
	CHECK(slice_source_new(j.event, "test-job", on_slice, &j, &j.slices) >= 0);
	j.left = 3;
	CHECK(slice_source_start(j.slices) >= 0);
	CHECK(slice_source_start(j.slices) >= 0);
	slice_source_stop(j.slices);
	slice_source_stop(j.slices);
	CHECK_INTEQ(sd_event_run(j.event, 0), 0); /* nothing to dispatch */
	CHECK_INTEQ(j.n_slices, 0);
	CHECK(slice_source_start(j.slices) >= 0);
	CHECK_INTEQ(sd_event_loop(j.event), 0);
	CHECK_INTEQ(j.n_slices, 3);
	slice_source_free(j.slices);
	sd_event_unref(j.event);
}

TESTS_MAIN(TEST_ENTRY(idle_loop), TEST_ENTRY(never_starved), TEST_ENTRY(never_back_to_back),
	   TEST_ENTRY(stopped_and_started))
