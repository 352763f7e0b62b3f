/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The status table rebuilt after a reconcile, a port a step, from its final observation, plan
 * and outcomes: each port's state and rows (port-status.c), its transitions logged, a failed
 * one's next try backed off; the host's status; and the reconciles that table schedules. */
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "manager-emit.h"
#include "manager-status.h"
#include "strv.h"

#define BACKOFF_MAX_SEC 60

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

/* The switch port's disagreements with the link, when they change: each one, or that it agrees
 * now (issue 44). */
static void switch_transition_log(const PortStatus *s, const PortStatus *old) {
	LogFields f = { .device = s->device, .port = s->port, .netdev = s->netdev };
	const SwitchStatus *w = s->sw;
	size_t before = old && old->sw ? old->sw->n_mismatches : 0;

	if (old && port_status_switch_equal(old, s))
		return;
	if (w)
		for (size_t i = 0; i < w->n_mismatches; i++)
			log_full(LOG_WARNING, 0, &f,
				 "%s: switch %s port %s disagrees on %s: %s has %s, the switch %s",
				 s->name, strna(w->chassis), strna(w->port_id),
				 w->mismatches[i].setting, strna(s->netdev), w->mismatches[i].local,
				 w->mismatches[i].other);
	if (before > 0 && (!w || w->n_mismatches == 0))
		log_full(LOG_NOTICE, 0, &f, "%s: %s", s->name,
			 w ? "the switch port agrees with the link now"
			   : "no LLDP neighbour any more: the switch port is not compared");
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
static int port_status_update(Manager *m, const Config *c, const HostState *h, const HostDevice *d,
			      const HostPort *port, const Plan *p, const Outcomes *outcomes,
			      uint64_t now, PortStatus *ret, bool *changed) {
	_cleanup_strv_free_ char **profiles = NULL;
	PortSettings ls = { 0 };
	PortStatus *old;
	PortFacts f;
	int matched, r;

	/* What the profiles declare for the port, once for its state and its status rows. */
	host_port_facts(d, port, &f);
	matched = config_settings_for_port(c, &f, &ls, &profiles);
	if (matched < 0) {
		port_settings_done(&ls);
		return matched;
	}
	old = manager_port_status(m, d->name, port->port);
	r = port_status_build(ret, h, d, port, host_netdev_find(h, port->netdev),
			      matched > 0 ? &ls : NULL, &profiles, p, outcomes, old, now);
	port_settings_done(&ls);
	if (r >= 0)
		r = manager_port_nearest_gpus(m, d, port, old, &ret->nearest_gpus);
	if (r < 0) {
		port_status_done(ret);
		return r;
	}
	if (ret->state == CONFIG_STATE_FAILED &&
	    outcomes_find(outcomes, ret->device, ret->port, _KEY_INVALID, APPLY_FAILED))
		ret->retry_usec = backoff_next(&ret->n_failed, old ? old->n_failed : 0,
					       old && old->state == CONFIG_STATE_FAILED, now);
	port_transition_log(ret, old, now);
	switch_transition_log(ret, old);
	if (!old || port_status_changes(old, ret) != 0 || old->nearest_gpus != ret->nearest_gpus ||
	    !port_status_switch_equal(old, ret))
		*changed = true;
	return 0;
}

static int port_status_compare(const void *a, const void *b) {
	const PortStatus *x = a, *y = b;
	int c = strcmp(x->device, y->device);

	return c != 0 ? c : (x->port > y->port) - (x->port < y->port);
}

void status_build_done(StatusBuild *b) {
	for (size_t i = 0; i < b->n; i++)
		port_status_done(&b->l[i]);
	free(b->l);
	for (size_t i = b->next_old; i < b->n_old; i++)
		port_status_done(&b->old[i]);
	free(b->old);
	strv_free(b->forget);
	*b = (StatusBuild){ 0 };
}

int status_build_begin(Manager *m, const HostState *h, StatusBuild *b) {
	size_t total = 0;

	for (size_t i = 0; i < h->n_devices; i++)
		total += h->devices[i].n_ports;
	if (h->partial)
		total += m->n_ports;
	b->l = calloc(total + 1, sizeof(PortStatus));
	if (!b->l)
		return -ENOMEM;
	b->total = total;
	b->now = now_monotonic_usec();
	return 0;
}

/* One port: 0, or 1 when every observed port is built. */
int status_build_step(Manager *m, const Config *c, const HostState *h, const Plan *p,
		      const Outcomes *outcomes, StatusBuild *b) {
	int r;

	while (b->device < h->n_devices && b->port >= h->devices[b->device].n_ports) {
		b->device++;
		b->port = 0;
	}
	if (b->device >= h->n_devices)
		return 1;
	r = port_status_update(m, c, h, &h->devices[b->device],
			       &h->devices[b->device].ports[b->port], p, outcomes, b->now,
			       &b->l[b->n], &b->changed);
	if (r < 0)
		return r;
	b->n++;
	b->port++;
	return 0;
}

/* The new table replaces the old one, which status_build_release_step() frees. */
int status_build_end(Manager *m, const HostState *h, const Plan *p, const Outcomes *outcomes,
		     char *const *only, StatusBuild *b) {
	_cleanup_strv_free_ char **forget = NULL;
	PortStatus *l = b->l;
	size_t n = b->n, carried = 0;
	int r;

	if (!h->partial) {
		r = host_status_update(m, p, outcomes, b->now);
		if (r < 0)
			return r;
	}
	/* Carried entries first, for the bus (they changed nothing), then sorted. */
	if (h->partial) {
		size_t built = n;

		for (size_t i = 0; i < m->n_ports; i++)
			if (!host_device_find(h, m->ports[i].device) &&
			    !strv_contains(only, m->ports[i].device)) {
				l[n++] = m->ports[i];
				m->ports[i] = (PortStatus){ 0 };
				carried++;
			}
		for (size_t i = 0; i < carried; i++)
			SWAP(l[i], l[built + i]);
	}
	b->l = NULL;
	b->n = 0;
	SWAP(m->ports, l);
	SWAP(m->n_ports, n);
	/* Unless a port built is new or differs from its old status, or one went, a reader walking
	 * the table by position (Describe()) finds the same links in the same order, saying the
	 * same, and there is no change to announce: the comparison of the two tables (2-6 ms at
	 * 4,096 links) is left out. */
	if (b->changed || m->n_ports != n) {
		m->ports_generation++;
		manager_emit_ports_changed(m, l, n, carried);
	}
	/* built in the order of the devices' sorted names, as a rule */
	qsort_unless_sorted(m->ports, m->n_ports, sizeof(PortStatus), port_status_compare);
	b->old = l;
	b->n_old = n;
	b->ended = true;
	/* what was asked of the old table while this one was built */
	if (b->reset_retries) {
		for (size_t i = 0; i < m->n_ports; i++)
			m->ports[i].retry_usec = 0;
		m->host.retry_usec = 0;
	}
	forget = TAKE_PTR(b->forget); /* forgetting notes it again */
	STRV_FOREACH (d, forget)
		manager_forget_contests(m, (*d)[0] ? *d : NULL);
	return 0;
}

/* Some of the old table freed: 1 when all of it is. */
int status_build_release_step(StatusBuild *b) {
	for (unsigned k = 0; k < 256 && b->next_old < b->n_old; k++)
		port_status_done(&b->old[b->next_old++]);
	if (b->next_old < b->n_old)
		return 0;
	b->old = mfree(b->old);
	b->n_old = b->next_old = 0;
	return 1;
}

/* Wake up for the earliest failed port's next try, with every failed port's device marked. */
void retries_schedule(Manager *m) {
	uint64_t earliest = UINT64_MAX, now = now_monotonic_usec();

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
		(void) strset_add(&m->dirty_devices, s->device);
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
void contests_schedule(Manager *m) {
	uint64_t earliest = UINT64_MAX, now = now_monotonic_usec();

	for (size_t i = 0; i < m->n_ports; i++)
		for (size_t k = 0; k < m->ports[i].n_history; k++) {
			const ContestHistory *c = &m->ports[i].history[k].contest;

			if (c->hold_until <= now)
				continue;
			if (c->hold_until < earliest)
				earliest = c->hold_until;
			if (KEY_BIT(m->ports[i].history[k].key) & KEYS_FUNCTION)
				m->dirty_all = true; /* planned on full passes only */
			(void) strset_add(&m->dirty_devices, m->ports[i].device);
		}
	if (earliest != UINT64_MAX)
		manager_schedule_reconcile(m, earliest - now);
}

/* The kernel fills the GID table from a workqueue after the address event that rdmad saw: a
 * port waiting for a GID is looked at again, backing off from 250 ms to 30 s, until it has it
 * (or another event comes). */
void gids_wait_schedule(Manager *m) {
	uint64_t usec;
	bool any = false;

	for (size_t i = 0; i < m->n_ports; i++)
		if (m->ports[i].waiting_gids) {
			any = true;
			(void) strset_add(&m->dirty_devices, m->ports[i].device);
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

/* The row of a's setting in s (inserted when declared since the table was built and insert),
 * noted as the worker's. */
static void note_port(Manager *m, PortStatus *s, const Action *a, const ActionOutcome *o,
		      bool insert) {
	unsigned changes = 1u << PORT_PROPERTY_SETTINGS;
	SettingStatus *x;
	SettingResult result = SETTING_PENDING;
	char *error = NULL;

	x = port_status_setting(s, a->key);
	if (!x && !insert)
		return;
	if (!x) {
		/* declared since the table was built (a reload): its row, in Key order */
		SettingStatus *l = reallocarray(s->settings, s->n_settings + 1, sizeof(*l));
		size_t i = 0;

		if (!l)
			return;
		s->settings = l;
		while (i < s->n_settings && l[i].key < a->key)
			i++;
		memmove(l + i + 1, l + i, (s->n_settings - i) * sizeof(*l));
		l[i] = (SettingStatus){ .key = a->key };
		s->n_settings++;
		x = &l[i];
	}
	if (!o) {
		/* what is written now, from what (a step through 0 says so) */
		char *desired = strdup(strempty(a->desired));
		char *current = a->current ? strdup(a->current) : NULL;

		if (!desired || (a->current && !current)) {
			free(desired);
			free(current);
			return;
		}
		free(x->desired);
		free(x->current);
		x->desired = desired;
		x->current = current;
		error = strdup("in progress"); /* the bus shows what, and since when */
	} else if (o->result == APPLY_FAILED || o->result == APPLY_UNSUPPORTED) {
		result = o->result == APPLY_FAILED ? SETTING_FAILED : SETTING_UNSUPPORTED;
		error = strdup(o->message ? o->message : strerror(-o->error));
	}
	/* written: pending until the run has looked again */
	free(x->error);
	x->error = error;
	x->result = result;
	if (!o && (s->state == CONFIG_STATE_CONVERGED || s->state == CONFIG_STATE_UNMANAGED)) {
		s->state = CONFIG_STATE_PENDING;
		changes |= 1u << PORT_PROPERTY_STATE;
	}
	manager_emit_link_changed(m, s, changes);
}

void status_note_worker(Manager *m, const Action *a, const ActionOutcome *o) {
	PortStatus *s;

	if (a->device) {
		s = manager_port_status(m, a->device, a->port);
		if (s)
			note_port(m, s, a, o, true);
		return;
	}
	/* A function no RDMA port carries (a soft one on its netdev is not its device): the rows
	 * the ports on its netdev have for the setting */
	for (size_t i = 0; a->netdev && i < m->n_ports; i++)
		if (streq_ptr(m->ports[i].netdev, a->netdev))
			note_port(m, &m->ports[i], a, o, false);
}
