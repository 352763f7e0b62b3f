/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reconcile: observe, plan, apply what differs on the links events touched, observe again,
 * and derive each link's state. Level-triggered: events only say where to look. */
#include <malloc.h>
#include <time.h>
#include <stdio.h>

#include <dirent.h>

#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "gid.h"
#include "log.h"
#include "manager.h"
#include "strv.h"

#define RECONCILE_PASSES 4 /* modules -> links appear -> their settings: a few rounds at most */
#define BACKOFF_MAX_SEC	 60

typedef struct Dirty {
	bool all;
	char **devices;
	char **netdevs;
} Dirty;

/* Is name a Soft-RoCE link, or the netdev of one, that some profile declares? Events about
 * those need host-level planning (create the link again), hence a full pass. */
static bool soft_device_declared(const Config *c, const char *name) {
	for (size_t i = 0; c && i < c->n_profiles; i++)
		for (size_t k = 0; k < c->profiles[i]->n_soft_devices; k++)
			if (streq(c->profiles[i]->soft_devices[k].name, name) ||
			    streq(c->profiles[i]->soft_devices[k].netdev, name))
				return true;
	return false;
}

/* Turn what events touched into the devices to observe; NULL with *ret_all for everything. */
static int dirty_resolve(const Manager *m, Dirty *d, char ***ret_devices) {
	_cleanup_strv_free_ char **devices = NULL, **netdevs = NULL;
	int r;

	if (d->all)
		return 0;
	devices = calloc(1, sizeof(char *));
	if (!devices)
		return -ENOMEM;
	STRV_FOREACH (dev, d->devices) {
		if (soft_device_declared(m->config, *dev)) {
			d->all = true;
			return 0;
		}
		r = strv_extend(&devices, *dev);
		if (r < 0)
			return r;
	}
	/* The netdevs events named, then the ones below those no link sits on: an upper netdev
	 * (VLAN, macvlan, bond) puts its GIDs into the port below it, down through stacked ones
	 * (a VLAN on a bond). The list only grows by names not in it yet, so this ends. */
	netdevs = strv_copy(d->netdevs);
	if (d->netdevs && !netdevs)
		return -ENOMEM;
	for (size_t k = 0; netdevs && netdevs[k]; k++) {
		const char *nd = netdevs[k];
		bool known = false;

		if (soft_device_declared(m->config, nd)) {
			d->all = true;
			return 0;
		}
		for (size_t i = 0; i < m->n_links; i++)
			if (m->links[i].netdev && streq(m->links[i].netdev, nd)) {
				known = true;
				if (!strv_contains(devices, m->links[i].device)) {
					r = strv_extend(&devices, m->links[i].device);
					if (r < 0)
						return r;
				}
			}
		if (known)
			continue;
		if (host_netdev_has_rdma(m->root, nd)) {
			/* A netdev of an RDMA device that no link was known on: renamed, or
			 * new. Which links it belongs to is not known here: look at everything. */
			d->all = true;
			return 0;
		}
		r = host_netdev_lowers(m->root, nd, &netdevs);
		if (r < 0)
			return r;
	}
	*ret_devices = TAKE_PTR(devices);
	return 0;
}

static bool action_affected(const Dirty *d, const Action *a) {
	if (d->all || !a->device)
		return true; /* host actions are cheap to check and may be what an event enabled */
	return strv_contains(d->devices, a->device) ||
	       (a->netdev && strv_contains(d->netdevs, a->netdev));
}

static void log_outcome(const Action *a, const ActionOutcome *o) {
	LogFields f = { .device = a->device,
			.port = a->port,
			.netdev = a->netdev,
			.profile = a->profile };

	switch (o->result) {
	case APPLY_CHANGED:
		log_full(LOG_INFO, 0, &f, "%s: %s %s -> %s (%s)", action_subject(a),
			 action_setting(a), a->current ? a->current : "-", a->desired, a->profile);
		break;
	case APPLY_UNCHANGED:
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
			 action_subject(a), action_setting(a), a->desired, a->profile,
			 o->message ? o->message : "unknown error");
	}
}

/* Failures of this reconcile, by link name, with the last error. */
typedef struct Failures {
	char **links;	       /* one entry per failed link */
	char **errors;	       /* its first error */
	char **settings;       /* "link setting" of every failed action */
	char **setting_errors; /* and its error */
	char **held;	       /* failed before, not tried again yet (backoff) */
} Failures;

static void failures_done(Failures *f) {
	strv_free(f->links);
	strv_free(f->errors);
	strv_free(f->settings);
	strv_free(f->setting_errors);
	strv_free(f->held);
}

static int failure_add(Failures *f, const Action *a, const char *error) {
	char *s;
	int r;

	if (asprintf(&s, "%s %s", action_subject(a), action_setting(a)) < 0)
		return -ENOMEM;
	r = strv_consume(&f->settings, s);
	if (r >= 0)
		r = strv_extend(&f->setting_errors, error);
	if (r < 0)
		return r;
	for (size_t i = 0; f->links && f->links[i]; i++)
		if (streq(f->links[i], action_subject(a)))
			return 0;
	r = strv_extend(&f->links, action_subject(a));
	if (r >= 0)
		r = strv_extend(&f->errors, error);
	return r;
}

static bool failure_has_setting(const Failures *f, const Action *a) {
	char s[256];

	snprintf(s, sizeof(s), "%s %s", action_subject(a), action_setting(a));
	return strv_contains(f->settings, s);
}

static const char *failure_find(const Failures *f, const char *link) {
	for (size_t i = 0; f->links && f->links[i]; i++)
		if (streq(f->links[i], link))
			return f->errors[i];
	return NULL;
}

static uint64_t now_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static const LinkStatus *status_find(const Manager *m, const char *name);

/* A link that failed is left alone until its backoff deadline, whatever event comes first. */
static bool link_held(const Manager *m, const char *link, uint64_t now) {
	const LinkStatus *s = status_find(m, link);

	return s && s->state == LINK_STATE_FAILED && s->retry_usec > now;
}

static int apply_pass(Manager *m, const Dirty *d, const Plan *p, Failures *failures,
		      bool *ret_changed) {
	uint64_t now = now_usec();
	bool changed = false;
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		ActionOutcome o = { 0 };

		if (!action_affected(d, a) || a->unsupported)
			continue;
		/* Tried and failed in an earlier pass of this reconcile: the backoff retries it. */
		if (failure_has_setting(failures, a))
			continue;
		if (link_held(m, action_subject(a), now)) {
			if (!strv_contains(failures->held, action_subject(a))) {
				r = strv_extend(&failures->held, action_subject(a));
				if (r < 0)
					return r;
			}
			continue;
		}
		/* A reconcile blocks the loop (kmod, netlink): keep the watchdog fed meanwhile. */
		(void) sd_notify(false, "WATCHDOG=1");
		r = action_apply(m->applier, a, &o);
		if (r < 0)
			return r;
		log_outcome(a, &o);
		if (o.result == APPLY_CHANGED) {
			changed = true;
			m->n_writes++;
		} else if (o.result == APPLY_FAILED) {
			r = failure_add(failures, a, o.message ? o.message : strerror(-o.error));
			if (r < 0) {
				action_outcome_done(&o);
				return r;
			}
		}
		action_outcome_done(&o);
	}
	*ret_changed = changed;
	return 0;
}

/* s: what the profiles declare for the link, NULL when none matches. */
static LinkState link_state_compute(const Plan *p, const HostPort *port, const char *name,
				    const PortSettings *s, const Failures *fail,
				    bool *ret_waiting_gids) {
	bool pending = false, unsupported = false;
	uint32_t unmet;

	if (!s || !(s->set & KEYS_PORT))
		return LINK_STATE_UNMANAGED;
	unmet = gids_unmet(port, s->gids_require);
	if (failure_find(fail, name) || strv_contains(fail->held, name))
		return LINK_STATE_FAILED;
	for (size_t i = 0; i < p->n_actions; i++) {
		if (!streq(action_subject(&p->actions[i]), name))
			continue;
		if (p->actions[i].unsupported)
			unsupported = true;
		else
			pending = true;
	}
	*ret_waiting_gids = !pending && unmet;
	if (pending || unmet)
		return LINK_STATE_PENDING;
	return unsupported ? LINK_STATE_DEGRADED : LINK_STATE_CONVERGED;
}

static int status_set(LinkStatus *s, const char *name, const HostDevice *d, const HostPort *p,
		      LinkState state, const char *error) {
	LinkStatus n = {
		.name = strdup(name),
		.device = d ? strdup(d->name) : NULL,
		.port = p ? p->port : 0,
		.netdev = p && p->netdev ? strdup(p->netdev) : NULL,
		.state = state,
		.last_error = error ? strdup(error) : NULL,
	};

	if (!n.name || (d && !n.device) || (p && p->netdev && !n.netdev) ||
	    (error && !n.last_error)) {
		link_status_done(&n);
		return -ENOMEM;
	}
	*s = n;
	return 0;
}

/* Per setting: what failed in this reconcile, or (held back by the backoff) what failed
 * before and is still to do. */
static int status_settings_failed(LinkStatus *s, const LinkStatus *old, const Failures *fail) {
	for (size_t i = 0; i < s->n_settings; i++) {
		LinkSetting *x = &s->settings[i];
		const char *error = NULL;
		char key[256];

		snprintf(key, sizeof(key), "%s %s", s->name, x->setting);
		for (size_t k = 0; fail->settings && fail->settings[k]; k++)
			if (streq(fail->settings[k], key))
				error = fail->setting_errors[k];
		if (!error && old && strv_contains(fail->held, s->name) &&
		    streq(x->result, "pending"))
			for (size_t k = 0; k < old->n_settings; k++)
				if (streq(old->settings[k].setting, x->setting) &&
				    streq_ptr(old->settings[k].result, "failed"))
					error = old->settings[k].error;
		if (!error)
			continue;
		free(x->result);
		free(x->error);
		x->result = strdup("failed");
		x->error = strdup(error);
		if (!x->result || !x->error)
			return -ENOMEM;
	}
	return 0;
}

static const LinkStatus *status_find(const Manager *m, const char *name) {
	for (size_t i = 0; i < m->n_links; i++)
		if (m->links[i].name && streq(m->links[i].name, name))
			return &m->links[i];
	return NULL;
}

/* Rebuild the status table from the final observation; log transitions to converged. */
/* Failed now: the next attempt waits 1, 2, 4 ... 60 s. Held back: keep the deadline. */
static void status_backoff(LinkStatus *s, const LinkStatus *old, const Failures *fail,
			   uint64_t now) {
	unsigned sec;

	if (strv_contains(fail->held, s->name) && old) {
		s->n_failed = old->n_failed;
		s->retry_usec = old->retry_usec;
		return;
	}
	if (!failure_find(fail, s->name))
		return;
	s->n_failed = old && old->state == LINK_STATE_FAILED ? old->n_failed + 1 : 1;
	sec = s->n_failed > 6 ? BACKOFF_MAX_SEC : 1u << (s->n_failed - 1);
	if (sec > BACKOFF_MAX_SEC)
		sec = BACKOFF_MAX_SEC;
	s->retry_usec = now + (uint64_t) sec * 1000 * 1000;
	log_full(LOG_INFO, 0, &(LogFields){ .device = s->device, .port = s->port },
		 "%s: failed (attempt %u); next try in %us", s->name, s->n_failed, sec);
}

static int statuses_update(Manager *m, const HostState *h, const Plan *p, const Failures *fail,
			   char *const *only) {
	uint64_t now = now_usec();
	LinkStatus *l;
	size_t n = 0, total = 1, carried = 0;
	int r = 0;

	for (size_t i = 0; i < h->n_devices; i++)
		total += h->devices[i].n_ports;
	if (h->partial)
		total += m->n_links;
	l = calloc(total, sizeof(LinkStatus));
	if (!l)
		return -ENOMEM;

	if (h->partial) {
		/* Links (and the host) this reconcile did not look at keep their state. */
		for (size_t i = 0; i < m->n_links; i++)
			if (!m->links[i].device || (!host_device_find(h, m->links[i].device) &&
						    !strv_contains(only, m->links[i].device))) {
				l[n++] = m->links[i];
				m->links[i] = (LinkStatus){ 0 };
			}
		carried = n;
	} else {
		bool host_pending = false;

		for (size_t i = 0; i < p->n_actions; i++)
			if (streq(action_subject(&p->actions[i]), "host") &&
			    !p->actions[i].unsupported)
				host_pending = true;
		bool held = strv_contains(fail->held, "host");
		const LinkStatus *old = status_find(m, "host");

		r = status_set(&l[n], "host", NULL, NULL,
			       failure_find(fail, "host") || held ? LINK_STATE_FAILED
			       : host_pending			  ? LINK_STATE_PENDING
								  : LINK_STATE_CONVERGED,
			       held && old ? old->last_error : failure_find(fail, "host"));
		if (r >= 0)
			status_backoff(&l[n++], old, fail, now);
	}
	for (size_t i = 0; r >= 0 && i < h->n_devices; i++)
		for (size_t k = 0; r >= 0 && k < h->devices[i].n_ports; k++) {
			const HostDevice *d = &h->devices[i];
			const HostPort *port = &d->ports[k];
			_cleanup_strv_free_ char **profiles = NULL;
			PortSettings ls = { 0 };
			const LinkStatus *old;
			char name[128];
			bool waiting = false;
			LinkState st;
			PortFacts f;
			int matched;

			/* What the profiles declare for the link, once for its state and its
			 * status rows. */
			snprintf(name, sizeof(name), "%s/%u", d->name, port->port);
			host_port_facts(d, port, &f);
			matched = config_settings_for_port(m->config, &f, &ls, &profiles);
			if (matched < 0) {
				port_settings_done(&ls);
				r = matched;
				break;
			}
			st = link_state_compute(p, port, name, matched > 0 ? &ls : NULL, fail,
						&waiting);
			old = status_find(m, name);
			r = status_set(&l[n], name, d, port, st,
				       strv_contains(fail->held, name) && old
					       ? old->last_error
					       : failure_find(fail, name));
			if (r >= 0)
				r = link_status_describe(&l[n], d, port, matched > 0 ? &ls : NULL,
							 &profiles, p);
			port_settings_done(&ls);
			if (r >= 0)
				r = status_settings_failed(&l[n], old, fail);
			if (r < 0) {
				link_status_done(&l[n]);
				break;
			}
			status_backoff(&l[n], old, fail, now);
			l[n++].waiting_gids = waiting;
			if (st == LINK_STATE_CONVERGED &&
			    (!old || old->state != LINK_STATE_CONVERGED))
				log_full(LOG_INFO, 0,
					 &(LogFields){ .device = d->name,
						       .port = port->port,
						       .netdev = port->netdev,
						       .message_id = MESSAGE_ID_LINK_CONVERGED },
					 "%s: converged", name);
			else if (st != (old ? old->state : LINK_STATE_UNMANAGED)) {
				_cleanup_free_ char *why = link_status_reasons(&l[n - 1]);

				log_full(st == LINK_STATE_DEGRADED ? LOG_NOTICE : LOG_INFO, 0,
					 &(LogFields){ .device = d->name,
						       .port = port->port,
						       .netdev = port->netdev },
					 "%s: %s%s%s", name, link_state_to_string(st),
					 why ? ": " : "", why ? why : "");
			}
		}
	/* On an error the table holds what was built (each entry whole) and the caller looks at
	 * everything again: links missing from it are not announced as gone meanwhile. */
	SWAP(m->links, l);
	SWAP(m->n_links, n);
	if (r >= 0)
		manager_bus_links_changed(m, l, n, carried);
	for (size_t i = 0; i < n; i++)
		link_status_done(&l[i]);
	free(l);
	return r;
}

/* Wake up for the earliest failed link's next try, with every failed link's device marked. */
static void retries_schedule(Manager *m) {
	uint64_t earliest = UINT64_MAX, now = now_usec();

	for (size_t i = 0; i < m->n_links; i++) {
		const LinkStatus *s = &m->links[i];

		if (s->state != LINK_STATE_FAILED)
			continue;
		if (s->retry_usec < earliest)
			earliest = s->retry_usec;
		if (!s->device)
			m->dirty_all = true;
		else if (!strv_contains(m->dirty_devices, s->device))
			(void) strv_extend(&m->dirty_devices, s->device);
	}
	if (earliest != UINT64_MAX)
		manager_schedule_reconcile(m, earliest > now ? earliest - now : 0);
}

/* The kernel fills the GID table from a workqueue after the address event that rdmad saw: a
 * link waiting for a GID is looked at again, backing off from 250 ms to 30 s, until it has it
 * (or another event comes). */
static void gids_wait_schedule(Manager *m) {
	uint64_t usec;
	bool any = false;

	for (size_t i = 0; i < m->n_links; i++)
		if (m->links[i].waiting_gids && m->links[i].device) {
			any = true;
			if (!strv_contains(m->dirty_devices, m->links[i].device))
				(void) strv_extend(&m->dirty_devices, m->links[i].device);
		}
	if (!any) {
		m->gid_wait_exp = 0;
		return;
	}
	usec = (uint64_t) 250 * 1000 << (m->gid_wait_exp < 7 ? m->gid_wait_exp : 7);
	if (usec > 30 * 1000 * 1000)
		usec = 30 * 1000 * 1000;
	m->gid_wait_exp++;
	manager_schedule_reconcile(m, usec);
}

static int observe_and_plan(Manager *m, char *const *only, HostState **h, Plan **p) {
	*h = host_state_free(*h);
	*p = plan_free(*p);
	int r;

	r = host_observe_devices_only(m->root, HOST_OBSERVE_ALL, only, h);
	if (r < 0)
		return r;
	if (!only) {
		r = host_records_observe(*h, m->state_dir);
		if (r < 0)
			return r;
	}
	return plan_compute(m->config, *h, p);
}

int manager_reconcile(Manager *m) {
	_cleanup_(plan_freep) Plan *p = NULL;
	_cleanup_(host_state_freep) HostState *h = NULL;
	Failures failures = { 0 };
	Dirty d = {
		.all = m->dirty_all,
		.devices = TAKE_PTR(m->dirty_devices),
		.netdevs = TAKE_PTR(m->dirty_netdevs),
	};
	_cleanup_strv_free_ char **only = NULL;
	bool followup = m->followup_scheduled;
	int r = 0, not_converged = 0;

	m->dirty_all = false;
	m->followup_scheduled = false;
	m->n_reconciles++;
	if (!m->config)
		goto finish;

	r = dirty_resolve(m, &d, &only);
	if (r < 0)
		goto finish;
	if (!d.all && strv_length(only) == 0)
		goto finish; /* events about netdevs no link uses */

	/* Observe, plan, apply; again while something changed (a module loaded makes a link
	 * appear, whose settings come next). The last plan is what is left to do. */
	for (unsigned pass = 0; r >= 0 && pass <= RECONCILE_PASSES; pass++) {
		bool changed = false;

		r = observe_and_plan(m, d.all ? NULL : only, &h, &p);
		if (r < 0 || pass == RECONCILE_PASSES)
			break;
		r = apply_pass(m, &d, p, &failures, &changed);
		if (!changed)
			break;
	}
	if (r >= 0)
		r = statuses_update(m, h, p, &failures, d.all ? NULL : only);
	for (size_t i = 0; r >= 0 && i < m->n_links; i++)
		if (m->links[i].state == LINK_STATE_PENDING ||
		    m->links[i].state == LINK_STATE_FAILED)
			not_converged++;

finish:
	if (h) {
		/* LastReconcileUSec: the last reconcile that observed something */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		m->last_reconcile_usec =
			(uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
		manager_bus_emit_changed(m, "LastReconcileUSec", NULL);
	}
	manager_state_update(m);
	if (r >= 0)
		m->backoff_exp = 0;
	if (r >= 0)
		retries_schedule(m);
	if (r < 0) {
		/* What this reconcile was to look at is lost with it (out of memory included):
		 * look at everything again, backing off. */
		m->dirty_all = true;
		manager_schedule_reconcile(
			m, (uint64_t) 1000 * 1000 << (m->backoff_exp < 6 ? m->backoff_exp++ : 6));
	}
	if (r >= 0)
		gids_wait_schedule(m);
	if (r >= 0 && !followup && d.netdevs && (d.all || strv_length(only) > 0)) {
		/* An address event comes before the kernel's GID table follows it (a workqueue):
		 * look at the same netdevs once more, shortly after. */
		STRV_FOREACH (nd, d.netdevs)
			if (!strv_contains(m->dirty_netdevs, *nd))
				(void) strv_extend(&m->dirty_netdevs, *nd);
		m->followup_scheduled = true;
		manager_schedule_reconcile(m, 300 * 1000);
	}
	failures_done(&failures);
	strv_free(d.devices);
	strv_free(d.netdevs);
	/* A full pass over a big host allocates a whole snapshot and frees it again: hand the
	 * pages back instead of keeping the peak resident while idle. */
	(void) malloc_trim(0);
	manager_notify_status(m);
	return r < 0 ? r : not_converged;
}
