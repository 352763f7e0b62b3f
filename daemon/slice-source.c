/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "fileio.h"
#include "slice-source.h"

struct SliceSource {
	sd_event_source *idle;	/* a slice when the loop has nothing else to do */
	sd_event_source *guard; /* a slice ahead of the rest when none ran for a while */
	slice_handler_t handler;
	void *userdata;
	bool running;
	uint64_t last_end_usec;	 /* when the last slice ended */
	uint64_t last_iteration; /* and in which of the loop's iterations */
};

static void slice_run(SliceSource *s) {
	uint64_t now = now_monotonic_usec(), gap, budget;

	gap = s->last_end_usec > 0 && now > s->last_end_usec ? now - s->last_end_usec : 0;
	budget = gap < SLICE_MIN_USEC	     ? SLICE_MIN_USEC
		 : gap < SLICE_WAIT_MAX_USEC ? gap
					     : SLICE_WAIT_MAX_USEC;
	s->handler(s->userdata, now + budget);
	s->last_end_usec = now_monotonic_usec();
	(void) sd_event_get_iteration(sd_event_source_get_event(s->guard), &s->last_iteration);
	/* the handler may have stopped the source, or stopped and started it again */
	if (s->running)
		(void) sd_event_source_set_time(s->guard, s->last_end_usec + SLICE_WAIT_MAX_USEC);
}

static int on_idle(sd_event_source *es, void *userdata) {
	slice_run(userdata);
	return 0;
}

static int on_guard(sd_event_source *es, uint64_t usec, void *userdata) {
	SliceSource *s = userdata;

	/* a oneshot timer: on again for the next wait */
	if (s->running)
		(void) sd_event_source_set_enabled(s->guard, SD_EVENT_ONESHOT);
	slice_run(s);
	return 0;
}

/* Before each iteration's choice of what to dispatch (one source an iteration). Right after a
 * slice the guard goes below the bus: however long ago that slice ended (rdmad preempted on a
 * busy machine, longer than the guard waits), a bus call pending goes first, or slices would
 * follow each other for as long as the preemptions did. Otherwise it is above the bus. */
static int on_guard_prepare(sd_event_source *es, void *userdata) {
	SliceSource *s = userdata;
	uint64_t iteration = 0;

	(void) sd_event_get_iteration(sd_event_source_get_event(es), &iteration);
	(void) sd_event_source_set_priority(es, iteration == s->last_iteration + 1
							? SD_EVENT_PRIORITY_NORMAL + 1
							: SD_EVENT_PRIORITY_NORMAL - 1);
	return 0;
}

int slice_source_new(sd_event *e, const char *description, slice_handler_t handler, void *userdata,
		     SliceSource **ret) {
	_cleanup_(slice_source_freep) SliceSource *s = NULL;
	int r;

	s = calloc(1, sizeof(SliceSource));
	if (!s)
		return -ENOMEM;
	s->handler = handler;
	s->userdata = userdata;
	r = sd_event_add_defer(e, &s->idle, on_idle, s);
	if (r < 0)
		return r;
	/* below bus calls, events and timers */
	(void) sd_event_source_set_priority(s->idle, SD_EVENT_PRIORITY_IDLE);
	(void) sd_event_source_set_description(s->idle, description);
	(void) sd_event_source_set_enabled(s->idle, SD_EVENT_OFF);
	/* accuracy 1 us: sd-event's default would let it slip by 250 ms */
	r = sd_event_add_time(e, &s->guard, CLOCK_MONOTONIC, UINT64_MAX, 1, on_guard, s);
	if (r < 0)
		return r;
	/* above the bus (SD_EVENT_PRIORITY_NORMAL), which would otherwise always go first, except
	 * right after a slice */
	(void) sd_event_source_set_priority(s->guard, SD_EVENT_PRIORITY_NORMAL - 1);
	r = sd_event_source_set_prepare(s->guard, on_guard_prepare);
	if (r < 0)
		return r;
	(void) sd_event_source_set_description(s->guard, description);
	(void) sd_event_source_set_enabled(s->guard, SD_EVENT_OFF);
	*ret = TAKE_PTR(s);
	return 0;
}

SliceSource *slice_source_free(SliceSource *s) {
	if (!s)
		return NULL;
	sd_event_source_disable_unref(s->idle);
	sd_event_source_disable_unref(s->guard);
	free(s);
	return NULL;
}

int slice_source_start(SliceSource *s) {
	int r;

	if (s->running)
		return 0;
	s->last_end_usec = now_monotonic_usec();
	r = sd_event_source_set_time(s->guard, s->last_end_usec + SLICE_WAIT_MAX_USEC);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->guard, SD_EVENT_ONESHOT);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->idle, SD_EVENT_ON);
	if (r < 0) {
		slice_source_stop(s);
		return r;
	}
	s->running = true;
	return 0;
}

void slice_source_stop(SliceSource *s) {
	if (!s)
		return;
	s->running = false;
	(void) sd_event_source_set_enabled(s->idle, SD_EVENT_OFF);
	(void) sd_event_source_set_enabled(s->guard, SD_EVENT_OFF);
}
