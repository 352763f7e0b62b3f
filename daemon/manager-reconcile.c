/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The reconcile: observe, plan, apply what differs on the ports events touched, observe again,
 * and rebuild the status table. Level-triggered: events only say where to look. */
#include <malloc.h>
#include <stdio.h>
#include <time.h>

#include <systemd/sd-daemon.h>

#include "log.h"
#include "manager-emit.h"
#include "manager-publish.h"
#include "manager.h"
#include "strv.h"

#define RECONCILE_PASSES 4 /* modules -> links appear -> their settings: a few rounds at most */
#define BACKOFF_MAX_SEC	 60

typedef struct Dirty {
	bool all;
	char **devices;
	char **netdevs;
} Dirty;

/* Is name a soft device (links:), or the netdev of one, that some profile declares? Events
 * about those need host-level planning (create the device again), hence a full pass. */
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
		for (size_t i = 0; i < m->n_ports; i++)
			if (m->ports[i].netdev && streq(m->ports[i].netdev, nd)) {
				known = true;
				if (!strv_contains(devices, m->ports[i].device)) {
					r = strv_extend(&devices, m->ports[i].device);
					if (r < 0)
						return r;
				}
			}
		/* sriov.* and pci.* are planned on full passes. An event on a PF's netdev (a
		 * driver reload re-creating it, a VF changed by hand, which the kernel announces
		 * on the PF) is one; the VFs' own netdevs stay incremental. */
		if (config_declares_any(m->config, KEYS_SRIOV) &&
		    host_netdev_has_vfs(m->root, nd)) {
			d->all = true;
			return 0;
		}
		if (known)
			continue;
		/* a function that appeared (hot-plug, a driver bound) whose ACS or Device
		 * Control a profile may declare */
		if (host_netdev_has_rdma(m->root, nd) ||
		    (config_declares_any(m->config, KEYS_PCI) &&
		     host_netdev_has_device(m->root, nd))) {
			/* A netdev of an RDMA device that no port was known on: renamed, or
			 * new. Which ports it belongs to is not known here: look at everything. */
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
		log_full(LOG_INFO, 0, &f, "%s: %s %s -> %s (%s)", action_subject(a),
			 action_setting(a), a->current ? a->current : "-", a->desired,
			 a->profile ? a->profile : "no profile declares it");
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

static uint64_t now_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
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

static int apply_pass(Manager *m, const Dirty *d, const Plan *p, Outcomes *outcomes,
		      bool *ret_changed) {
	uint64_t now = now_usec();
	bool changed = false;
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		ActionOutcome o = { 0 };

		if (!action_affected(d, a) || a->unsupported || action_held(m, a, outcomes, now))
			continue;
		/* A reconcile blocks the loop (kmod, netlink): keep the watchdog fed meanwhile. */
		(void) sd_notify(false, "WATCHDOG=1");
		r = action_apply(m->applier, a, &o);
		if (r < 0) {
			/* Out of memory building a message, say: a failure of this action, which
			 * stays with its port; the others go on. */
			action_outcome_done(&o);
			o = (ActionOutcome){ .result = APPLY_FAILED, .error = r };
		}
		log_outcome(a, &o);
		if (o.result == APPLY_CHANGED) {
			changed = true;
			m->n_writes++;
		}
		r = o.result == APPLY_UNCHANGED ? 0 : outcomes_add(outcomes, a, &o);
		action_outcome_done(&o);
		if (r < 0)
			return r;
	}
	*ret_changed = changed;
	return 0;
}

/* Failed now: the next attempt waits 1, 2, 4 ... 60 s. */
static uint64_t backoff_next(unsigned *n_failed, unsigned previous, bool was_failed, uint64_t now) {
	unsigned sec;

	*n_failed = was_failed ? previous + 1 : 1;
	sec = *n_failed > 6 ? BACKOFF_MAX_SEC : 1u << (*n_failed - 1);
	if (sec > BACKOFF_MAX_SEC)
		sec = BACKOFF_MAX_SEC;
	return now + (uint64_t) sec * 1000 * 1000;
}

static int host_status_update(Manager *m, const Plan *p, const Outcomes *outcomes, uint64_t now) {
	const Outcome *failed = outcomes_find(outcomes, NULL, 0, _KEY_INVALID, APPLY_FAILED);
	bool held = !failed && m->host.state == CONFIG_STATE_FAILED && m->host.retry_usec > now;
	bool pending = false;
	HostStatus n = { 0 };

	for (size_t i = 0; i < p->n_actions; i++)
		if (!p->actions[i].device && !p->actions[i].unsupported)
			pending = true;
	n.state = failed || held ? CONFIG_STATE_FAILED
		  : pending	 ? CONFIG_STATE_PENDING
				 : CONFIG_STATE_CONVERGED;
	if (failed) {
		n.retry_usec = backoff_next(&n.n_failed, m->host.n_failed,
					    m->host.state == CONFIG_STATE_FAILED, now);
		n.last_error = strdup(failed->message ? failed->message : "failed");
		if (!n.last_error)
			return -ENOMEM;
		log_full(LOG_INFO, 0, NULL, "host: failed (attempt %u); next try in %" PRIu64 "s",
			 n.n_failed, (n.retry_usec - now) / 1000000);
	} else if (held) {
		n.n_failed = m->host.n_failed;
		n.retry_usec = m->host.retry_usec;
		n.last_error = TAKE_PTR(m->host.last_error);
	}
	host_status_done(&m->host);
	n.observed = true;
	m->host = n;
	return 0;
}

static void port_transition_log(const PortStatus *s, const PortStatus *old, uint64_t now) {
	LogFields f = { .device = s->device, .port = s->port, .netdev = s->netdev };
	ConfigState before = old ? old->state : CONFIG_STATE_UNMANAGED;

	if (s->state == CONFIG_STATE_FAILED && s->retry_usec > now &&
	    (!old || old->retry_usec != s->retry_usec))
		log_full(LOG_INFO, 0, &f, "%s: failed (attempt %u); next try in %" PRIu64 "s",
			 s->name, s->n_failed, (s->retry_usec - now) / 1000000);
	if (s->state == CONFIG_STATE_CONVERGED && before != CONFIG_STATE_CONVERGED) {
		f.message_id = MESSAGE_ID_LINK_CONVERGED;
		log_full(LOG_INFO, 0, &f, "%s: converged", s->name);
	} else if (s->state != before) {
		_cleanup_free_ char *why = port_status_reasons(s);

		log_full(s->state == CONFIG_STATE_DEGRADED ? LOG_NOTICE : LOG_INFO, 0, &f,
			 "%s: %s%s%s", s->name, config_state_to_string(s->state), why ? ": " : "",
			 strempty(why));
	}
}

/* The status of one observed port, from the final observation and plan. */
static int port_status_update(Manager *m, const HostState *h, const HostDevice *d,
			      const HostPort *port, const Plan *p, const Outcomes *outcomes,
			      uint64_t now, PortStatus *ret) {
	_cleanup_strv_free_ char **profiles = NULL;
	PortSettings ls = { 0 };
	PortStatus *old;
	PortFacts f;
	int matched, r;

	/* What the profiles declare for the port, once for its state and its status rows. */
	host_port_facts(d, port, &f);
	matched = config_settings_for_port(m->config, &f, &ls, &profiles);
	if (matched < 0) {
		port_settings_done(&ls);
		return matched;
	}
	old = manager_port_status(m, d->name, port->port);
	r = port_status_build(ret, h, d, port, host_netdev_find(h, port->netdev),
			      matched > 0 ? &ls : NULL, &profiles, p, outcomes, old, now);
	port_settings_done(&ls);
	if (r < 0) {
		port_status_done(ret);
		return r;
	}
	if (ret->state == CONFIG_STATE_FAILED &&
	    outcomes_find(outcomes, ret->device, ret->port, _KEY_INVALID, APPLY_FAILED))
		ret->retry_usec = backoff_next(&ret->n_failed, old ? old->n_failed : 0,
					       old && old->state == CONFIG_STATE_FAILED, now);
	port_transition_log(ret, old, now);
	return 0;
}

static int port_status_compare(const void *a, const void *b) {
	const PortStatus *x = a, *y = b;
	int c = strcmp(x->device, y->device);

	return c != 0 ? c : (x->port > y->port) - (x->port < y->port);
}

/* Rebuild the status table from the final observation. Ports (and the host) this reconcile did
 * not look at keep their status. */
static int statuses_update(Manager *m, const HostState *h, const Plan *p, const Outcomes *outcomes,
			   char *const *only) {
	uint64_t now = now_usec();
	PortStatus *l;
	size_t n = 0, total = 0, carried = 0;
	bool *is_carried;
	int r = 0;

	for (size_t i = 0; i < h->n_devices; i++)
		total += h->devices[i].n_ports;
	if (h->partial)
		total += m->n_ports;
	l = calloc(total + 1, sizeof(PortStatus));
	is_carried = calloc(total + 1, sizeof(bool));
	if (!l || !is_carried) {
		free(l);
		free(is_carried);
		return -ENOMEM;
	}
	if (!h->partial)
		r = host_status_update(m, p, outcomes, now);
	for (size_t i = 0; r >= 0 && i < h->n_devices; i++)
		for (size_t k = 0; r >= 0 && k < h->devices[i].n_ports; k++) {
			r = port_status_update(m, h, &h->devices[i], &h->devices[i].ports[k], p,
					       outcomes, now, &l[n]);
			if (r >= 0)
				n++;
		}
	if (r >= 0 && h->partial)
		for (size_t i = 0; i < m->n_ports; i++)
			if (!host_device_find(h, m->ports[i].device) &&
			    !strv_contains(only, m->ports[i].device)) {
				is_carried[n] = true;
				l[n++] = m->ports[i];
				m->ports[i] = (PortStatus){ 0 };
				carried++;
			}
	if (r < 0) {
		/* On an error the old table stays whole (nothing was carried out of it yet, the
		 * contest histories go back) and the caller looks at everything again: no port is
		 * announced as gone meanwhile. */
		for (size_t i = 0; i < n; i++) {
			PortStatus *old = manager_port_status(m, l[i].device, l[i].port);

			if (old && !old->history) {
				old->history = TAKE_PTR(l[i].history);
				old->n_history = l[i].n_history;
				l[i].n_history = 0;
			}
			port_status_done(&l[i]);
		}
		free(l);
		free(is_carried);
		return r;
	}
	/* Carried entries first, for the bus (they changed nothing), then sorted. */
	for (size_t i = 0, c = 0; i < n; i++)
		if (is_carried[i]) {
			SWAP(l[i], l[c]);
			c++;
		}
	free(is_carried);
	SWAP(m->ports, l);
	SWAP(m->n_ports, n);
	manager_emit_ports_changed(m, l, n, carried);
	if (m->n_ports > 1)
		qsort(m->ports, m->n_ports, sizeof(PortStatus), port_status_compare);
	for (size_t i = 0; i < n; i++)
		port_status_done(&l[i]);
	free(l);
	return 0;
}

/* Wake up for the earliest failed port's next try, with every failed port's device marked. */
static void retries_schedule(Manager *m) {
	uint64_t earliest = UINT64_MAX, now = now_usec();

	if (m->host.state == CONFIG_STATE_FAILED) {
		earliest = m->host.retry_usec;
		m->dirty_all = true;
	}
	for (size_t i = 0; i < m->n_ports; i++) {
		const PortStatus *s = &m->ports[i];

		if (s->state != CONFIG_STATE_FAILED)
			continue;
		if (s->retry_usec < earliest)
			earliest = s->retry_usec;
		if (!strv_contains(m->dirty_devices, s->device))
			(void) strv_extend(&m->dirty_devices, s->device);
		/* sriov.* and pci.* are planned on full passes only */
		for (size_t k = 0; k < s->n_settings; k++)
			if (s->settings[k].result == SETTING_FAILED &&
			    (KEY_BIT(s->settings[k].key) & KEYS_FUNCTION))
				m->dirty_all = true;
	}
	if (earliest != UINT64_MAX)
		manager_schedule_reconcile(m, earliest > now ? earliest - now : 0);
}

/* A contested setting gets its next (probe) write when its hold ends. */
static void contests_schedule(Manager *m) {
	uint64_t earliest = UINT64_MAX, now = now_usec();

	for (size_t i = 0; i < m->n_ports; i++)
		for (size_t k = 0; k < m->ports[i].n_history; k++) {
			const ContestHistory *c = &m->ports[i].history[k].contest;

			if (c->hold_until <= now)
				continue;
			if (c->hold_until < earliest)
				earliest = c->hold_until;
			if (KEY_BIT(m->ports[i].history[k].key) & KEYS_FUNCTION)
				m->dirty_all = true; /* planned on full passes only */
			if (!strv_contains(m->dirty_devices, m->ports[i].device))
				(void) strv_extend(&m->dirty_devices, m->ports[i].device);
		}
	if (earliest != UINT64_MAX)
		manager_schedule_reconcile(m, earliest - now);
}

/* The kernel fills the GID table from a workqueue after the address event that rdmad saw: a
 * port waiting for a GID is looked at again, backing off from 250 ms to 30 s, until it has it
 * (or another event comes). */
static void gids_wait_schedule(Manager *m) {
	uint64_t usec;
	bool any = false;

	for (size_t i = 0; i < m->n_ports; i++)
		if (m->ports[i].waiting_gids) {
			any = true;
			if (!strv_contains(m->dirty_devices, m->ports[i].device))
				(void) strv_extend(&m->dirty_devices, m->ports[i].device);
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

/* What a reconcile observes: everything, but the optional hw counters (RDMA netlink, per port)
 * only while a profile declares counters.optional, rdmad's nftables table on a device-only pass
 * only while one declares security.roce-allow-from (a full pass looks for a table left from an
 * earlier configuration, to remove it), and the functions behind netdevs only while one
 * declares sriov.* or pci.*. */
static HostObserveFlags observe_flags(const Manager *m, char *const *only) {
	HostObserveFlags flags = HOST_OBSERVE_ALL;

	if (!config_declares(m->config, KEY_COUNTERS_OPTIONAL))
		flags &= ~HOST_OBSERVE_COUNTERS;
	if (only && !config_declares(m->config, KEY_SECURITY_ROCE_ALLOW_FROM))
		flags &= ~HOST_OBSERVE_FIREWALL;
	/* the functions behind netdevs: their VFs (rtnetlink, devlink), config space */
	if (!config_declares_any(m->config, KEYS_SRIOV))
		flags &= ~HOST_OBSERVE_SRIOV;
	if (!config_declares_any(m->config, KEYS_PCI))
		flags &= ~HOST_OBSERVE_PCIE;
	return flags;
}

static int observe_and_plan(Manager *m, char *const *only, HostState **h, Plan **p) {
	*h = host_state_free(*h);
	*p = plan_free(*p);
	int r;

	r = host_observe_devices_only(m->root, observe_flags(m, only), only, h);
	if (r < 0)
		return r;
	if (!only) {
		/* Which soft devices are rdmad's own (full passes plan host-level keys). */
		r = host_records_observe(*h, m->state_dir);
		if (r < 0)
			return r;
	}
	return plan_compute(m->config, *h, p);
}

int manager_reconcile(Manager *m) {
	_cleanup_(plan_freep) Plan *p = NULL;
	_cleanup_(host_state_freep) HostState *h = NULL;
	Outcomes outcomes = { 0 };
	Dirty d = {
		.all = m->dirty_all,
		.devices = TAKE_PTR(m->dirty_devices),
		.netdevs = TAKE_PTR(m->dirty_netdevs),
	};
	_cleanup_strv_free_ char **only = NULL;
	bool followup = m->followup_scheduled;
	int r = 0, not_converged = 0;
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	m->dirty_all = false;
	m->followup_scheduled = false;
	m->n_reconciles++;
	if (!m->config)
		goto finish;

	r = dirty_resolve(m, &d, &only);
	if (r < 0)
		goto finish;
	if (!d.all && strv_length(only) == 0)
		goto finish; /* events about netdevs no port uses */

	/* Observe, plan, apply; again while something changed (a module loaded makes a port
	 * appear, whose settings come next). The last plan is what is left to do. */
	for (unsigned pass = 0; r >= 0 && pass <= RECONCILE_PASSES; pass++) {
		bool changed = false;

		r = observe_and_plan(m, d.all ? NULL : only, &h, &p);
		if (r < 0 || pass == RECONCILE_PASSES)
			break;
		r = apply_pass(m, &d, p, &outcomes, &changed);
		if (!changed)
			break;
	}
	if (r >= 0)
		r = statuses_update(m, h, p, &outcomes, d.all ? NULL : only);
	for (size_t i = 0; r >= 0 && i < m->n_ports; i++)
		if (m->ports[i].state == CONFIG_STATE_PENDING ||
		    m->ports[i].state == CONFIG_STATE_FAILED)
			not_converged++;
	if (r >= 0 &&
	    (m->host.state == CONFIG_STATE_PENDING || m->host.state == CONFIG_STATE_FAILED))
		not_converged++;

finish:
	if (h) {
		/* LastReconcileUSec: the last reconcile that observed something */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		m->last_reconcile_usec =
			(uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
		/* and how long it took, observe to publish (Describe, metrics) */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		m->last_reconcile_duration_usec = (uint64_t) (ts.tv_sec - start.tv_sec) * 1000000 +
						  (uint64_t) (ts.tv_nsec / 1000) -
						  (uint64_t) (start.tv_nsec / 1000);
		manager_emit_changed(m, "LastReconcileUSec", NULL);
		/* the Plan() unprivileged callers share is out of date now */
		free(m->plan_shared);
		m->plan_shared = NULL;
	}
	manager_state_update(m);
	if (r >= 0 && h)
		manager_publish(m);
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
	if (r >= 0 && !followup && d.netdevs && (d.all || strv_length(only) > 0)) {
		/* An address event comes before the kernel's GID table follows it (a workqueue):
		 * look at the same netdevs once more, shortly after. */
		STRV_FOREACH (nd, d.netdevs)
			if (!strv_contains(m->dirty_netdevs, *nd))
				(void) strv_extend(&m->dirty_netdevs, *nd);
		m->followup_scheduled = true;
		manager_schedule_reconcile(m, 300 * 1000);
	}
	outcomes_done(&outcomes);
	strv_free(d.devices);
	strv_free(d.netdevs);
	/* A full pass over a big host allocates a whole snapshot and frees it again: hand the
	 * pages back instead of keeping the peak resident while idle. */
	(void) malloc_trim(0);
	manager_notify_status(m);
	return r < 0 ? r : not_converged;
}
