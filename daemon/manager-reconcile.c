/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reconcile: observe, plan, apply what differs on the ports events touched, observe again,
 * and rebuild the status table. Level-triggered: events only say where to look. */
#include <malloc.h>
#include <stdio.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager-dirty.h"
#include "manager-emit.h"
#include "manager-publish.h"
#include "manager-status.h"
#include "manager-trial.h"
#include "manager-worker.h"
#include "manager.h"
#include "strv.h"

#define RECONCILE_PASSES 4 /* modules -> links appear -> their settings: a few rounds at most */

static LogFields action_fields(const Action *a) {
	return (LogFields){
		.device = a->device,
		.port = a->port,
		.netdev = a->netdev,
		.profile = a->profile,
	};
}

static void log_outcome(const Action *a, const ActionOutcome *o) {
	LogFields f = action_fields(a);

	switch (o->result) {
	case APPLY_CHANGED:
		/* with a message where the backend says more (a reload's time) */
		log_full(LOG_INFO, 0, &f, "%s: %s %s -> %s (%s)%s%s", action_subject(a),
			 action_setting(a), a->current ? a->current : "-", a->desired,
			 a->profile ? a->profile : "no profile declares it", o->message ? ": " : "",
			 strempty(o->message));
		break;
	case APPLY_UNCHANGED:
		/* With a message: nothing to change, and why (a soft device gone already, or
		 * replaced by someone else's: only rdmad's record of it goes). */
		if (o->message)
			log_full(LOG_INFO, 0, &f, "%s: %s %s: %s", action_subject(a),
				 action_setting(a), a->desired, o->message);
		else
			log_full(LOG_DEBUG, 0, &f, "%s: %s already %s", action_subject(a),
				 action_setting(a), a->desired);
		break;
	case APPLY_UNSUPPORTED:
		log_full(LOG_NOTICE, 0, &f, "%s: %s not applied: %s", action_subject(a),
			 action_setting(a), o->message ? o->message : "unsupported");
		break;
	default:
		f.message_id = MESSAGE_ID_ACTION_FAILED;
		log_full(LOG_ERR, o->error, &f, "%s: failed to set %s to %s (%s): %s",
			 action_subject(a), action_setting(a), a->desired,
			 a->profile ? a->profile : "no profile declares it",
			 o->message ? o->message : "unknown error");
	}
}

static uint64_t timespec_usec(const struct timespec *ts) {
	return (uint64_t) ts->tv_sec * 1000000 + (uint64_t) ts->tv_nsec / 1000;
}

static uint64_t now_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return timespec_usec(&ts);
}

/* Not written now: a failed port (or the host) waiting for its next attempt, a setting already
 * tried in this reconcile, or one another agent keeps reverting (contest.h). */
static bool action_held(Manager *m, const Action *a, const Outcomes *outcomes, uint64_t now) {
	PortStatus *s;
	SettingHistory *h;

	if (outcomes_find_action(outcomes, a, APPLY_FAILED) ||
	    outcomes_find_action(outcomes, a, APPLY_CHANGED) ||
	    outcomes_find_action(outcomes, a, APPLY_UNSUPPORTED))
		return true;
	if (!a->device)
		return m->host.state == CONFIG_STATE_FAILED && m->host.retry_usec > now;
	s = manager_port_status(m, a->device, a->port);
	if (!s)
		return false;
	if (port_status_held(s, now))
		return true;
	h = port_status_history(s, a->key, false);
	if (!h)
		return false;
	switch (contest_check(&h->contest, now)) {
	case CONTEST_WRITE:
		return false;
	case CONTEST_HOLD:
		return true;
	case CONTEST_CONTESTED: {
		LogFields f = action_fields(a);
		const char *who = manager_contender(m, a->netdev, a->key, now);

		free(h->contender);
		h->contender = who ? strdup(who) : NULL;
		f.message_id = MESSAGE_ID_SETTING_CONTESTED;
		log_full(LOG_WARNING, 0, &f,
			 "%s: %s reverted %u times within %u s by another agent%s%s%s; holding off "
			 "%u s",
			 a->port_name, action_setting(a), CONTEST_REVERTS,
			 (unsigned) (CONTEST_WINDOW_USEC / 1000000), who ? " (" : "", strempty(who),
			 who ? ")" : "", (unsigned) ((h->contest.hold_until - now) / 1000000));
		return true;
	}
	}
	return false;
}

/* What a reconcile observes: everything, but the optional hw counters (RDMA netlink, per port)
 * only while a profile declares counters.optional, rdmad's nftables table on a device-only pass
 * only while one declares security.roce-allow-from (a full pass looks for a table left from an
 * earlier configuration, to remove it), and the functions behind netdevs only while one
 * declares sriov.* or pci.*, and global pause only while one declares netdev.pause. */
HostObserveFlags manager_observe_flags(const Config *c, char *const *only) {
	HostObserveFlags flags = HOST_OBSERVE_ALL;

	if (!config_declares(c, KEY_COUNTERS_OPTIONAL))
		flags &= ~HOST_OBSERVE_COUNTERS;
	if (only && !config_declares(c, KEY_SECURITY_ROCE_ALLOW_FROM))
		flags &= ~HOST_OBSERVE_FIREWALL;
	/* the functions behind netdevs: their VFs (rtnetlink, devlink), config space */
	if (!config_declares_any(c, KEYS_SRIOV))
		flags &= ~HOST_OBSERVE_SRIOV;
	if (!config_declares_any(c, KEYS_PCI))
		flags &= ~HOST_OBSERVE_PCIE;
	if (!config_declares_any(c, KEYS_DEVLINK))
		flags &= ~HOST_OBSERVE_DEVLINK;
	/* an ethtool round trip per netdev: only while a profile declares netdev.pause */
	if (!config_declares_any(c, KEYS_PAUSE))
		flags &= ~HOST_OBSERVE_PAUSE;
	return flags;
}

/* A reconcile runs in steps on the event loop (run_step()), each one object observed, one plan
 * computed, one action applied or the status table rebuilt, and as many steps as fit in a
 * slice (slice-source.h) make one: between slices the loop serves the bus, netlink and udev. A
 * reconcile of thousands of links so never leaves a bus call waiting for more than a slice. */

typedef enum RunStage {
	RUN_OBSERVE, /* one object per step */
	RUN_PLAN,    /* the host-level keys, then one port per step */
	RUN_APPLY,   /* one action per step */
	RUN_STATUS,
	RUN_PUBLISH, /* one link's environment file per step, then one announcement */
	RUN_DONE,
} RunStage;

static const char *run_stage_to_string(RunStage s) {
	static const char *const table[] = {
		[RUN_OBSERVE] = "observe", [RUN_PLAN] = "plan",	      [RUN_APPLY] = "apply",
		[RUN_STATUS] = "status",   [RUN_PUBLISH] = "publish", [RUN_DONE] = "finish",
	};

	return s < ELEMENTSOF(table) ? table[s] : "?";
}

struct ReconcileRun {
	Dirty d;
	char **only; /* NULL: every device (d.all) */
	bool followup;
	Config *config;	      /* what it plans with: m->config when it began */
	Config *config_owned; /* that one, once a reload replaced it meanwhile: */
	bool stale;	      /* then nothing more is applied, and the next run follows at once */
	unsigned n_slices, n_steps;
	uint64_t longest_step_usec; /* and the stage it was in */
	RunStage longest_step_stage;
	uint64_t busy_usec; /* spent in its slices */
	RunStage stage;
	unsigned pass;
	HostObserver *observer;
	HostState *h;
	PlanBuilder *planner;
	Plan *p;
	PublishRun *publish;
	Outcomes outcomes;
	size_t next_action;
	bool changed;
	uint64_t apply_usec;
	StatusBuild status;
	struct timespec start;
	int r;
	bool steps_done;   /* the end (run_end()) comes in a slice of its own */
	bool inline_apply; /* rdmad --once: long kernel operations too, with no loop to serve */
	bool waiting;	   /* for its worker (manager-worker.h): no slices until it ends */
	RunWaiter *waiters;
	size_t n_waiters;
};

static void waiters_reply(RunWaiter *w, size_t n, int r) {
	for (size_t i = 0; i < n; i++) {
		if (w[i].report_error && r < 0)
			(void) sd_bus_reply_method_errorf(w[i].msg, SD_BUS_ERROR_FAILED,
							  "Reconcile failed: %s", strerror(-r));
		else
			(void) sd_bus_reply_method_return(w[i].msg, NULL);
		sd_bus_message_unref(w[i].msg);
	}
	free(w);
}

static void waiters_drop(RunWaiter *w, size_t n) {
	for (size_t i = 0; i < n; i++)
		sd_bus_message_unref(w[i].msg);
	free(w);
}

ReconcileRun *reconcile_run_free(ReconcileRun *run) {
	if (!run)
		return NULL;
	host_observer_free(run->observer);
	plan_builder_free(run->planner);
	publish_run_free(run->publish);
	host_state_free(run->h);
	plan_free(run->p);
	outcomes_done(&run->outcomes);
	status_build_done(&run->status);
	strset_done(&run->d.devices);
	strset_done(&run->d.netdevs);
	strset_done(&run->d.resolved);
	strv_free(run->only);
	config_free(run->config_owned);
	waiters_drop(run->waiters, run->n_waiters);
	free(run);
	return NULL;
}

void manager_reconcile_note_reset(Manager *m) {
	if (m->run)
		m->run->status.reset_retries = true;
}

void manager_reconcile_note_forget(Manager *m, const char *device) {
	if (m->run)
		(void) strv_extend(&m->run->status.forget, device ? device : "");
}

void manager_config_retire(Manager *m) {
	if (m->run && m->run->config == m->config && !m->run->config_owned) {
		/* Freed when the run ends. The run applies nothing more of it (a setting the
		 * reload removed must not be written after the reload), publishes nothing, and
		 * the next run, with the new profiles, begins when it ends. */
		m->run->config_owned = m->config;
		m->run->stale = true;
		m->run_again = true;
		m->config = NULL;
		return;
	}
	config_free(m->config);
	m->config = NULL;
}

static int observe_begin(Manager *m, ReconcileRun *run) {
	run->observer = host_observer_free(run->observer);
	return host_observer_new(m->root, manager_observe_flags(run->config, run->only), run->only,
				 &run->observer);
}

/* The observation is complete: take it, and begin the plan from it. */
static int observe_end(Manager *m, ReconcileRun *run) {
	int r;

	run->h = host_state_free(run->h);
	run->p = plan_free(run->p);
	r = host_observer_finish(run->observer, &run->h);
	run->observer = host_observer_free(run->observer);
	if (r < 0)
		return r;
	if (!run->only) {
		/* Which soft devices are rdmad's own (full passes plan host-level keys). */
		r = host_records_observe(run->h, m->state_dir);
		if (r < 0)
			return r;
	}
	run->planner = plan_builder_free(run->planner);
	return plan_builder_new(run->config, run->h, &run->planner);
}

static void run_end(Manager *m);

/* What came of an action: logged, and kept for the status the run builds (a run made stale by
 * a reload meanwhile builds none: then for the next run's). */
static int run_outcome(Manager *m, ReconcileRun *run, const Action *a, const ActionOutcome *o) {
	log_outcome(a, o);
	if (o->result == APPLY_CHANGED) {
		run->changed = true;
		m->n_writes++;
	}
	if (o->result == APPLY_UNCHANGED)
		return 0;
	return outcomes_add(run->stale ? &m->carried : &run->outcomes, a, o);
}

/* The worker's outcome: the run goes on from there. */
static void on_worker_done(Manager *m, const Action *a, ActionOutcome *o, void *userdata) {
	ReconcileRun *run = userdata;
	int r;

	m->worker = worker_free(m->worker);
	r = run_outcome(m, run, a, o);
	if (a->key == KEY_DEVLINK_RELOAD) {
		/* the reload re-created the device's ports (or, failing, removed them): the rest
		 * of this plan is for netdevs and RDMA devices that are gone. The next pass
		 * observes the new ones and applies what is declared for them again. */
		run->next_action = run->p->n_actions;
		run->changed = true;
	}
	status_note_worker(m, a, o);
	action_outcome_done(o);
	if (r < 0)
		run->r = r;
	run->waiting = false;
	manager_notify_status(m);
	r = slice_source_start(m->run_slices);
	if (r < 0) {
		/* the run cannot go on: it ends (at once, without its slices) and is retried */
		log_error_errno(r, "Failed to resume the reconcile");
		run->r = r;
		run_end(m);
	}
}

/* One action of the plan, the next not held: 1 when one was applied or handed to a worker (then
 * the run waits for it), 0 when none is left. */
static int apply_next(Manager *m, ReconcileRun *run) {
	const Plan *p = run->p;
	int r;

	for (; run->next_action < p->n_actions; run->next_action++) {
		const Action *a = &p->actions[run->next_action];
		ActionOutcome o = { 0 };

		if (!action_affected(&run->d, a) || a->unsupported ||
		    action_held(m, a, &run->outcomes, run->apply_usec))
			continue;
		run->next_action++;
		if (action_blocks(a) && !run->inline_apply) {
			/* seconds in the kernel: off the loop, which goes on serving the bus */
			r = worker_start(m, a, on_worker_done, run, &m->worker);
			if (r >= 0) {
				run->waiting = true;
				status_note_worker(m, a, NULL);
				manager_notify_status(m);
				return 1;
			}
			r = outcome_set(&o, APPLY_FAILED, r, "cannot start a worker process: %s",
					strerror(-r));
		} else
			r = action_apply(m->applier, a, &o);
		if (r < 0) {
			/* Out of memory building a message, say: a failure of this action, which
			 * stays with its port; the others go on. */
			action_outcome_done(&o);
			o = (ActionOutcome){ .result = APPLY_FAILED, .error = r };
		}
		r = run_outcome(m, run, a, &o);
		action_outcome_done(&o);
		return r < 0 ? r : 1;
	}
	return 0;
}

/* One step of the run: 0 while there is more to do, 1 when it is done, -errno. Observe, plan,
 * apply; again while something changed (a module loaded makes a port appear, whose settings
 * come next), RECONCILE_PASSES times at most. The last plan is what is left to do. */
static int run_step(Manager *m, ReconcileRun *run) {
	int r;

	if (run->stale) {
		/* planned with profiles a reload replaced: given up (manager_config_retire()) */
		run->stage = RUN_DONE;
		return 1;
	}
	switch (run->stage) {
	case RUN_OBSERVE:
		if (!run->observer) {
			r = observe_begin(m, run);
			if (r < 0)
				return r;
		}
		r = host_observer_step(run->observer);
		if (r <= 0)
			return r;
		r = observe_end(m, run);
		if (r < 0)
			return r;
		run->stage = RUN_PLAN;
		return 0;
	case RUN_PLAN:
		/* thousands of links: planned over several slices, not in one step */
		r = plan_builder_step(run->planner);
		if (r <= 0)
			return r;
		r = plan_builder_finish(run->planner, &run->p);
		run->planner = plan_builder_free(run->planner);
		if (r < 0)
			return r;
		if (run->pass == RECONCILE_PASSES)
			run->stage = RUN_STATUS;
		else {
			run->stage = RUN_APPLY;
			run->next_action = 0;
			run->changed = false;
			run->apply_usec = now_usec();
		}
		return 0;
	case RUN_APPLY:
		r = apply_next(m, run);
		if (r != 0)
			return r < 0 ? r : 0;
		if (run->changed) {
			run->pass++;
			run->stage = RUN_OBSERVE;
		} else
			run->stage = RUN_STATUS;
		return 0;
	case RUN_STATUS:
		if (!run->status.ended) {
			if (!run->status.l) {
				r = status_build_begin(m, run->h, &run->status);
				if (r < 0)
					return r;
			}
			r = status_build_step(m, run->config, run->h, run->p, &run->outcomes,
					      &run->status);
			if (r <= 0)
				return r;
			r = status_build_end(m, run->h, run->p, &run->outcomes, run->only,
					     &run->status);
			return r < 0 ? r : 0;
		}
		if (status_build_release_step(&run->status) == 0)
			return 0;
		r = publish_begin(m, &run->publish);
		if (r < 0)
			return r;
		run->stage = r > 0 ? RUN_PUBLISH : RUN_DONE;
		return r > 0 ? 0 : 1;
	case RUN_PUBLISH:
		r = publish_step(m, run->publish);
		if (r < 0) {
			/* nothing announced on a partial list; the reconcile stands */
			log_error_errno(r, "Failed to publish the environment files");
			run->publish = publish_run_free(run->publish);
			run->stage = RUN_DONE;
			return 1;
		}
		if (r == 0)
			return 0;
		publish_end(m, run->publish);
		run->publish = publish_run_free(run->publish);
		run->stage = RUN_DONE;
		return 1;
	case RUN_DONE:
		return 1;
	}
	return 1;
}

static int run_new(Manager *m, ReconcileRun **ret) {
	_cleanup_(reconcile_run_freep) ReconcileRun *run = NULL;
	int r;

	run = calloc(1, sizeof(ReconcileRun));
	if (!run)
		return -ENOMEM;
	clock_gettime(CLOCK_MONOTONIC, &run->start);
	run->d = (Dirty){
		.all = m->dirty_all,
		.devices = m->dirty_devices,
		.netdevs = m->dirty_netdevs,
	};
	m->dirty_devices = m->dirty_netdevs = (StrSet){ 0 }; /* moved */
	run->followup = m->followup_scheduled;
	run->config = m->config;
	/* a worker's outcome its stale run could not report */
	run->outcomes = m->carried;
	m->carried = (Outcomes){ 0 };
	/* the callers waiting for a reconcile that begins after their call: this one */
	run->waiters = TAKE_PTR(m->run_waiters);
	run->n_waiters = m->n_run_waiters;
	m->n_run_waiters = 0;
	m->dirty_all = false;
	m->followup_scheduled = false;
	m->n_reconciles++;
	run->stage = RUN_OBSERVE;
	if (!m->config)
		run->stage = RUN_DONE;
	else {
		r = dirty_resolve(m, &run->d);
		if (r < 0)
			run->r = r;
		else if (!run->d.all) {
			/* the observer's list (which it sorts) */
			run->only = run->d.resolved.strv ? strv_copy(run->d.resolved.strv)
							 : calloc(1, sizeof(char *));
			if (!run->only)
				run->r = r = -ENOMEM;
		}
		if (r < 0 || (!run->d.all && strv_length(run->only) == 0))
			run->stage = RUN_DONE; /* events about netdevs no port uses */
		if (run->d.all)
			run->only = strv_free(run->only);
	}
	*ret = TAKE_PTR(run);
	return 0;
}

/* The run is over: what it observed is published, and what comes next scheduled. Returns the
 * number of managed ports not converged (pending or failed), or -errno. */
static int run_finish(Manager *m, ReconcileRun *run) {
	int r = run->r, not_converged = 0;

	for (size_t i = 0; r >= 0 && run->h && i < m->n_ports; i++)
		if (m->ports[i].state == CONFIG_STATE_PENDING ||
		    m->ports[i].state == CONFIG_STATE_FAILED)
			not_converged++;
	if (r >= 0 && run->h &&
	    (m->host.state == CONFIG_STATE_PENDING || m->host.state == CONFIG_STATE_FAILED))
		not_converged++;
	if (run->h) {
		/* LastReconcileUSec: the last reconcile that observed something */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		m->last_reconcile_usec =
			(uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
		/* and how long it took, observe to publish (Describe, metrics) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		m->last_reconcile_duration_usec =
			(uint64_t) (ts.tv_sec - run->start.tv_sec) * 1000000 +
			(uint64_t) (ts.tv_nsec / 1000) - (uint64_t) (run->start.tv_nsec / 1000);
		manager_emit_changed(m, "LastReconcileUSec", NULL);
		/* the Plan() unprivileged callers share is out of date now */
		free(m->plan_shared);
		m->plan_shared = NULL;
	}
	manager_state_update(m);
	if (r >= 0) {
		m->backoff_exp = 0;
		retries_schedule(m);
		contests_schedule(m);
		gids_wait_schedule(m);
	} else {
		/* What this reconcile was to look at is lost with it (out of memory included):
		 * look at everything again, backing off. */
		m->dirty_all = true;
		manager_schedule_reconcile(
			m, (uint64_t) 1000 * 1000 << (m->backoff_exp < 6 ? m->backoff_exp++ : 6));
	}
	if (r >= 0 && !run->followup && run->d.netdevs.n > 0 &&
	    (run->d.all || strv_length(run->only) > 0)) {
		/* An address event comes before the kernel's GID table follows it (a workqueue):
		 * look at the same netdevs once more, shortly after. */
		STRV_FOREACH (nd, run->d.netdevs.strv)
			(void) strset_add(&m->dirty_netdevs, *nd);
		m->followup_scheduled = true;
		manager_schedule_reconcile(m, 300 * 1000);
	}
	if (run->stale && run->n_waiters > 0) {
		/* what they wait for is the next run's, with the profiles in force */
		RunWaiter *w = reallocarray(m->run_waiters, m->n_run_waiters + run->n_waiters,
					    sizeof(RunWaiter));

		if (w) {
			memcpy(w + m->n_run_waiters, run->waiters,
			       run->n_waiters * sizeof(RunWaiter));
			m->run_waiters = w;
			m->n_run_waiters += run->n_waiters;
			run->waiters = mfree(run->waiters);
			run->n_waiters = 0;
		}
	}
	waiters_reply(TAKE_PTR(run->waiters), run->n_waiters, r);
	run->n_waiters = 0;
	return r < 0 ? r : not_converged;
}

/* The run at work is over: free it, and begin the next one at once when something asked for
 * it meanwhile (a timer that fired, a Reconcile() call). */
static void run_end(Manager *m) {
	uint64_t t = now_usec();
	int r;

	/* the end of the run is a step too */
	r = run_finish(m, m->run);
	t = now_usec() - t;
	if (t > m->run->longest_step_usec) {
		m->run->longest_step_usec = t;
		m->run->longest_step_stage = RUN_DONE;
	}
	log_debug("reconcile: %u passes, %u steps in %u slices, %" PRIu64 " ms busy in %" PRIu64
		  " ms, the longest step %" PRIu64 ".%03" PRIu64 " ms (%s)%s%s",
		  m->run->pass + 1, m->run->n_steps, m->run->n_slices, m->run->busy_usec / 1000,
		  (now_usec() - timespec_usec(&m->run->start)) / 1000,
		  m->run->longest_step_usec / 1000, m->run->longest_step_usec % 1000,
		  run_stage_to_string(m->run->longest_step_stage),
		  m->run->d.all ? "" : " (some devices)",
		  m->run->stale ? " (stale: profiles reloaded)" : "");
	m->run = reconcile_run_free(m->run);
	slice_source_stop(m->run_slices);
	/* A full pass over a big host allocates a whole snapshot and frees it again: hand the
	 * pages back instead of keeping the peak resident while idle. */
	manager_trim_later(m);
	manager_notify_status(m);
	if (r < 0)
		log_warning_errno(r, "Reconcile failed, will retry");
	if (!m->started) {
		/* The first reconcile, then READY=1: a unit ordered after rdmad sees converged
		 * links. */
		m->started = true;
		manager_state_update(m);
		(void) sd_notify(false, "READY=1");
		manager_notify_status(m);
	}
	/* a trial's rollback reads back once its reconcile ended */
	manager_trial_run_ended(m);
	if (m->run_again || m->n_run_waiters > 0) {
		m->run_again = false;
		(void) manager_reconcile_start(m);
	}
}

static void on_run_slice(void *userdata, uint64_t deadline) {
	Manager *m = userdata;
	uint64_t now = now_usec(), t = now, step;
	int r;

	if (m->run->steps_done) {
		/* publishing the outcome and freeing a whole snapshot of the host: 5-8 ms at
		 * 4,096 links, more than a slice may add to the steps before it */
		run_end(m);
		return;
	}
	do {
		RunStage stage = m->run->stage;

		r = run_step(m, m->run);
		m->run->n_steps++;
		step = now_usec() - t;
		t += step;
		if (step > m->run->longest_step_usec) {
			m->run->longest_step_usec = step;
			m->run->longest_step_stage = stage;
		}
	} while (r == 0 && t < deadline && !m->run->waiting);
	m->run->n_slices++;
	m->run->busy_usec += t - now;
	if (r < 0)
		m->run->r = r;
	if (r != 0)
		m->run->steps_done = true;
	else if (m->run->waiting)
		/* until the worker ends (on_worker_done()): events meanwhile mark what they touch
		 * dirty, for the next run */
		slice_source_stop(m->run_slices);
}

int manager_reconcile_start(Manager *m) {
	int r;

	if (m->run) {
		m->run_again = true; /* what asked may have come after the run observed it */
		return 0;
	}
	if (!m->run_slices) {
		r = slice_source_new(m->event, "reconcile-slice", on_run_slice, m, &m->run_slices);
		if (r < 0)
			return r;
	}
	r = run_new(m, &m->run);
	if (r < 0)
		return r;
	return slice_source_start(m->run_slices);
}

int manager_reconcile_wait(Manager *m, sd_bus_message *msg, bool report_error) {
	RunWaiter *w;

	w = reallocarray(m->run_waiters, m->n_run_waiters + 1, sizeof(RunWaiter));
	if (!w)
		return -ENOMEM;
	m->run_waiters = w;
	m->run_waiters[m->n_run_waiters++] = (RunWaiter){
		.msg = sd_bus_message_ref(msg),
		.report_error = report_error,
	};
	return manager_reconcile_start(m);
}

void manager_reconcile_done(Manager *m) {
	m->run = reconcile_run_free(m->run);
	m->run_slices = slice_source_free(m->run_slices);
	waiters_drop(m->run_waiters, m->n_run_waiters);
	m->run_waiters = NULL;
	m->n_run_waiters = 0;
}

int manager_reconcile(Manager *m) {
	_cleanup_(reconcile_run_freep) ReconcileRun *run = NULL;
	int r;

	/* Whole, at once, with no loop around it: rdmad --once. */
	if (m->run)
		return -EBUSY;
	r = run_new(m, &run);
	if (r < 0)
		return r;
	run->inline_apply = true;
	do
		r = run_step(m, run);
	while (r == 0);
	if (r < 0)
		run->r = r;
	r = run_finish(m, run);
	run = reconcile_run_free(run);
	manager_trial_run_ended(m);
	(void) malloc_trim(0);
	manager_notify_status(m);
	return r;
}
