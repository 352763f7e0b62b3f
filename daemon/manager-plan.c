/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Plan(): what a reconcile would change now, observed afresh, in slices on the event loop as a
 * reconcile is (manager-reconcile.c): at 4,096 links the observation takes about a second, in
 * which the loop must go on serving the bus. One observation at a time. Callers that come while
 * one is at work wait for it, but root, whose Plan() is observed afresh at every call: root waits
 * for one that begins after the call. */
#include "fileio.h"
#include "json-util.h"
#include "log.h"
#include "manager-worker.h"
#include "manager.h"

struct PlanJob {
	HostObserver *observer;
	sd_bus_message **callers;
	size_t n_callers;
};

static void callers_drop(sd_bus_message **callers, size_t n) {
	for (size_t i = 0; i < n; i++)
		sd_bus_message_unref(callers[i]);
	free(callers);
}

PlanJob *plan_job_free(PlanJob *j) {
	if (!j)
		return NULL;
	host_observer_free(j->observer);
	callers_drop(j->callers, j->n_callers);
	free(j);
	return NULL;
}

/* The observation is complete: the plan, as JSON, kept for unprivileged callers. */
static int plan_job_finish(Manager *m, PlanJob *j, char **ret) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(plan_freep) Plan *p = NULL;
	_cleanup_(json_object_putp) json_object *o = NULL;
	static const Config empty = { 0 };
	char *s;
	int r;

	r = host_observer_finish(j->observer, &h);
	if (r < 0)
		return r;
	r = host_records_observe(h, m->state_dir);
	if (r < 0)
		return r;
	r = plan_compute(m->config ? m->config : &empty, h, &p);
	if (r < 0)
		return r;
	r = plan_to_json(p, &o);
	if (r < 0)
		return r;
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE));
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int plan_job_start(Manager *m);

static void on_plan_slice(void *userdata, uint64_t deadline) {
	Manager *m = userdata;
	PlanJob *j = m->plan_job;
	char *answer = NULL;
	int r;

	/* a function a worker writes meanwhile is observed without what would block until the
	 * kernel is done (sriov_numvfs): the plan says it is in progress */
	if (m->worker) {
		char what[256];

		(void) worker_describe(m->worker, what, sizeof(what));
		r = host_observer_set_writing(j->observer, worker_function(m->worker), what);
	} else
		r = host_observer_set_writing(j->observer, NULL, NULL);
	while (r == 0) {
		r = host_observer_step(j->observer);
		if (r != 0 || now_monotonic_usec() >= deadline)
			break;
	}
	if (r == 0)
		return;
	if (r > 0)
		r = plan_job_finish(m, j, &answer);
	for (size_t i = 0; i < j->n_callers; i++)
		if (r < 0)
			(void) sd_bus_reply_method_errorf(j->callers[i], SD_BUS_ERROR_FAILED,
							  "Failed to plan: %s", strerror(-r));
		else
			(void) sd_bus_reply_method_return(j->callers[i], "s", answer);
	if (answer) {
		free(m->plan_shared);
		m->plan_shared = answer;
		(void) sd_event_now(m->event, CLOCK_MONOTONIC, &m->plan_shared_usec);
	}
	m->plan_job = plan_job_free(m->plan_job);
	slice_source_stop(m->plan_slices);
	if (m->n_plan_next > 0) {
		r = plan_job_start(m);
		if (r < 0) {
			log_error_errno(r, "Failed to begin a plan");
			for (size_t i = 0; i < m->n_plan_next; i++)
				(void) sd_bus_reply_method_errorf(
					m->plan_next[i], SD_BUS_ERROR_FAILED, "Failed to plan: %s",
					strerror(-r));
			callers_drop(TAKE_PTR(m->plan_next), m->n_plan_next);
			m->n_plan_next = 0;
		}
	}
}

/* A job for the callers waiting for the next one. */
static int plan_job_start(Manager *m) {
	_cleanup_(plan_job_freep) PlanJob *j = NULL;
	int r;

	if (!m->plan_slices) {
		/* as a reconcile's slices */
		r = slice_source_new(m->event, "plan-slice", on_plan_slice, m, &m->plan_slices);
		if (r < 0)
			return r;
	}
	j = calloc(1, sizeof(PlanJob));
	if (!j)
		return -ENOMEM;
	/* no GID tables: plans do not need them */
	r = host_observer_new(m->root, HOST_OBSERVE_ALL & ~HOST_OBSERVE_GIDS, NULL, &j->observer);
	if (r < 0)
		return r;
	r = slice_source_start(m->plan_slices);
	if (r < 0)
		return r;
	j->callers = TAKE_PTR(m->plan_next);
	j->n_callers = m->n_plan_next;
	m->n_plan_next = 0;
	m->plan_job = TAKE_PTR(j);
	return 0;
}

int manager_plan_wait(Manager *m, sd_bus_message *msg, bool fresh) {
	sd_bus_message ***callers;
	size_t *n;
	sd_bus_message **l;
	int r;

	if (m->plan_job && !fresh) {
		callers = &m->plan_job->callers;
		n = &m->plan_job->n_callers;
	} else {
		callers = &m->plan_next;
		n = &m->n_plan_next;
	}
	l = reallocarray(*callers, *n + 1, sizeof(sd_bus_message *));
	if (!l)
		return -ENOMEM;
	*callers = l;
	l[(*n)++] = sd_bus_message_ref(msg);
	if (m->plan_job)
		return 0; /* the next one begins when it ends */
	r = plan_job_start(m);
	if (r < 0) {
		/* the caller answers with the error; nobody else waited */
		callers_drop(TAKE_PTR(m->plan_next), m->n_plan_next);
		m->n_plan_next = 0;
	}
	return r;
}

void manager_plan_done(Manager *m) {
	m->plan_job = plan_job_free(m->plan_job);
	m->plan_slices = slice_source_free(m->plan_slices);
	callers_drop(m->plan_next, m->n_plan_next);
	m->plan_next = NULL;
	m->n_plan_next = 0;
}
