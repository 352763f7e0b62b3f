/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>

#include "fabric-host.h"
#include "gid.h"
#include "port-status.h"
#include "strv.h"

static const char *const config_state_table[_CONFIG_STATE_MAX] = {
	[CONFIG_STATE_UNMANAGED] = "unmanaged", [CONFIG_STATE_PENDING] = "pending",
	[CONFIG_STATE_CONVERGED] = "converged", [CONFIG_STATE_DEGRADED] = "degraded",
	[CONFIG_STATE_FAILED] = "failed",
};
DEFINE_STRING_TABLE_LOOKUP(config_state, ConfigState)

static const char *const setting_result_table[_SETTING_RESULT_MAX] = {
	[SETTING_CONVERGED] = "converged",     [SETTING_PENDING] = "pending",
	[SETTING_UNSUPPORTED] = "unsupported", [SETTING_FAILED] = "failed",
	[SETTING_CONTESTED] = "contested",
};
DEFINE_STRING_TABLE_LOOKUP(setting_result, SettingResult)

/* ---- outcomes of one reconcile ------------------------------------------------------------ */

void outcomes_done(Outcomes *o) {
	for (size_t i = 0; i < o->n; i++) {
		free(o->items[i].device);
		free(o->items[i].function);
		free(o->items[i].desired);
		free(o->items[i].message);
	}
	free(o->items);
	*o = (Outcomes){ 0 };
}

int outcomes_add(Outcomes *o, const Action *a, const ActionOutcome *r) {
	Outcome x = {
		.device = a->device ? strdup(a->device) : NULL,
		.function = a->function ? strdup(a->function) : NULL,
		.port = a->port,
		.key = a->key,
		.desired = a->desired ? strdup(a->desired) : NULL,
		.result = r->result,
		.error = r->error,
		.message = r->message ? strdup(r->message)
			   : r->error ? strdup(strerror(-r->error))
				      : NULL,
	};
	int e;

	e = GREEDY_REALLOC(o->items, o->n_alloc, o->n + 1);
	if (e < 0 || (a->device && !x.device) || (a->function && !x.function) ||
	    (a->desired && !x.desired) || ((r->message || r->error) && !x.message)) {
		free(x.device);
		free(x.function);
		free(x.desired);
		free(x.message);
		return -ENOMEM;
	}
	o->items[o->n++] = x;
	return 0;
}

const Outcome *outcomes_find(const Outcomes *o, const char *device, uint32_t port, Key key,
			     ApplyResult result) {
	for (size_t i = 0; i < o->n; i++) {
		const Outcome *x = &o->items[i];

		if (x->result == result && streq_ptr(x->device, device) &&
		    (!device || x->port == port) && (key == _KEY_INVALID || x->key == key))
			return x;
	}
	return NULL;
}

const Outcome *outcomes_find_action(const Outcomes *o, const Action *a, ApplyResult result) {
	for (size_t i = 0; i < o->n; i++) {
		const Outcome *x = &o->items[i];

		/* function actions with no RDMA port have no device: their function tells
		 * two PFs with the same desired value apart */
		if (x->result == result && x->key == a->key && x->port == a->port &&
		    streq_ptr(x->device, a->device) && streq_ptr(x->function, a->function) &&
		    streq_ptr(x->desired, a->desired))
			return x;
	}
	return NULL;
}

/* ---- the status of a port ----------------------------------------------------------------- */

static void setting_status_done(SettingStatus *s) {
	free(s->desired);
	free(s->current);
	free(s->error);
}

static void switch_status_free(SwitchStatus *w);

void port_status_done(PortStatus *s) {
	free(s->name); /* and device, netdev, driver */
	free(s->last_error);
	strv_free(s->profiles);
	gid_table_done(&s->gids);
	for (size_t i = 0; i < s->n_settings; i++)
		setting_status_done(&s->settings[i]);
	free(s->settings);
	for (size_t i = 0; i < s->n_history; i++)
		free(s->history[i].contender);
	free(s->history);
	strv_free(s->observe_errors);
	switch_status_free(s->sw);
	*s = (PortStatus){ 0 };
}

void host_status_done(HostStatus *s) {
	free(s->last_error);
	*s = (HostStatus){ 0 };
}

SettingStatus *port_status_setting(PortStatus *s, Key key) {
	for (size_t i = 0; i < s->n_settings; i++)
		if (s->settings[i].key == key)
			return &s->settings[i];
	return NULL;
}

SettingHistory *port_status_history(PortStatus *s, Key key, bool create) {
	SettingHistory *h;

	for (size_t i = 0; i < s->n_history; i++)
		if (s->history[i].key == key)
			return &s->history[i];
	if (!create)
		return NULL;
	h = realloc(s->history, sizeof(SettingHistory) * (s->n_history + 1));
	if (!h)
		return NULL;
	s->history = h;
	h = &s->history[s->n_history++];
	*h = (SettingHistory){ .key = key };
	return h;
}

bool port_status_held(const PortStatus *s, uint64_t now) {
	return s && s->state == CONFIG_STATE_FAILED && s->retry_usec > now;
}

static int strdup_to(char **dst, const char *s) {
	free(*dst);
	*dst = NULL;
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* Status rows: the port keys, but qos.owner, which is a policy, not a setting. */
#define KEYS_SHOWN (KEYS_PORT & ~KEY_BIT(KEY_QOS_OWNER) & ~KEY_BIT(KEY_NETDEV_EXPECT_SPEED))

/* One row per declared key from the plan's actions for that key on this port: pending, not
 * applicable here, or (no action) converged, with the current value. Several actions for one
 * key (addresses) fold into one row: any pending one makes it pending. */
static int setting_from_plan(SettingStatus *row, const PortSettings *ls, Key key, const char *name,
			     const Plan *p) {
	const Action *pending = NULL, *unsupported = NULL;
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];

		if (a->key != key || !streq_ptr(a->port_name, name))
			continue;
		if (a->unsupported) {
			if (!unsupported)
				unsupported = a;
		} else if (!pending)
			pending = a;
	}
	row->key = key;
	r = port_setting_format(ls, key, &row->desired);
	if (r < 0)
		return r;
	if (pending) {
		row->result = SETTING_PENDING;
		return strdup_to(&row->current, pending->current);
	}
	if (unsupported) {
		row->result = SETTING_UNSUPPORTED;
		return strdup_to(&row->error, unsupported->unsupported);
	}
	row->result = SETTING_CONVERGED;
	return strdup_to(&row->current, row->desired);
}

/* gids.require is not written: it is met or waited for. */
static int setting_gids(SettingStatus *row, uint32_t unmet) {
	_cleanup_free_ char *missing = NULL;
	size_t size = 0;
	FILE *f;

	if (!row || !unmet)
		return 0;
	f = open_memstream(&missing, &size);
	if (!f)
		return -ENOMEM;
	fputs("waiting for a GID:", f);
	for (GidRequirement g = 0; g < _GID_REQUIREMENT_MAX; g++)
		if (unmet & (1u << g))
			fprintf(f, " %s", gid_requirement_to_string(g));
	if (fclose(f) != 0)
		return -ENOMEM;
	row->result = SETTING_PENDING;
	free(row->current);
	row->current = NULL;
	free(row->error);
	row->error = TAKE_PTR(missing);
	return 0;
}

/* gids.publish: the GID it names, or pending until the kernel's table has one (an address not
 * yet there, or the GID table behind the address). */
static int setting_publish(SettingStatus *row, const PortStatus *s, bool *ret_unmet) {
	char gid[GID_STRING_MAX];
	Gid g;

	*ret_unmet = false;
	if (!row)
		return 0;
	free(row->current);
	row->current = NULL;
	if (port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0) {
		*ret_unmet = true;
		row->result = SETTING_PENDING;
		return strdup_to(&row->error, "waiting for a GID of that kind");
	}
	gid_format(g.raw, gid);
	row->result = SETTING_CONVERGED;
	if (asprintf(&row->current, "index %u (%s)", g.index, gid) < 0) {
		row->current = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int contested_text(const SettingHistory *h, char **ret) {
	uint64_t hold = contest_hold_usec(h->contest.level);

	if (asprintf(ret,
		     "reverted %u times within %u s by another agent%s%s%s; rdmad holds off %u s "
		     "before it writes again (doubling while it goes on)",
		     CONTEST_REVERTS, (unsigned) (CONTEST_WINDOW_USEC / 1000000),
		     h->contender ? " (" : "", h->contender ? h->contender : "",
		     h->contender ? ")" : "", (unsigned) (hold / 1000000)) < 0)
		return -ENOMEM;
	return 0;
}

/* rdma-ndd (rdma-core) sets node_desc too, from its own format (RDMA_NDD_ND_FORMAT, "%h %d"), on
 * every host name change and device add: with rdma.node-description declared, two agents own
 * one setting, and whichever writes last wins. rdmad still writes its value; the row says who
 * else does and how to stop it. */
static int setting_rdma_ndd(SettingStatus *row) {
	if (row->result == SETTING_FAILED || row->result == SETTING_UNSUPPORTED)
		return 0;
	row->result = SETTING_CONTESTED;
	free(row->error);
	row->error = strdup("rdma-ndd.service writes node_desc too, on every host name change "
			    "and device add: systemctl disable --now rdma-ndd.service (and mask "
			    "it: udev starts it when an RDMA device appears)");
	return row->error ? 0 : -ENOMEM;
}

/* What this reconcile's outcomes, the backoff and the contest history say of one row. */
static int setting_copy(SettingStatus *dst, const SettingStatus *src) {
	*dst = (SettingStatus){ .key = src->key, .result = src->result };
	if ((src->desired && !(dst->desired = strdup(src->desired))) ||
	    (src->current && !(dst->current = strdup(src->current))) ||
	    (src->error && !(dst->error = strdup(src->error))))
		return -ENOMEM;
	return 0;
}

static int setting_overlay(SettingStatus *row, const PortStatus *s, const Outcomes *outcomes,
			   const PortStatus *old, bool held, uint64_t now) {
	const Outcome *o;
	SettingHistory *h;

	o = outcomes_find(outcomes, s->device, s->port, row->key, APPLY_FAILED);
	if (o) {
		row->result = SETTING_FAILED;
		return strdup_to(&row->error, o->message);
	}
	if (row->result == SETTING_PENDING && held && old) {
		/* Not tried again yet (backoff): what failed before still stands. */
		for (size_t i = 0; i < old->n_settings; i++)
			if (old->settings[i].key == row->key &&
			    old->settings[i].result == SETTING_FAILED) {
				row->result = SETTING_FAILED;
				return strdup_to(&row->error, old->settings[i].error);
			}
	}
	h = port_status_history((PortStatus *) s, row->key, false);
	if (h && row->result == SETTING_CONVERGED)
		(void) contest_settled(&h->contest, now);
	else if (h && h->contest.level > 0 && row->result == SETTING_PENDING) {
		row->result = SETTING_CONTESTED;
		free(row->error);
		return contested_text(h, &row->error);
	}
	o = outcomes_find(outcomes, s->device, s->port, row->key, APPLY_UNSUPPORTED);
	if (o && row->result == SETTING_PENDING) {
		/* The backend found it cannot be done here (the planner could not know). */
		row->result = SETTING_UNSUPPORTED;
		return strdup_to(&row->error, o->message);
	}
	return 0;
}

/* The writes of this reconcile, into the history the contest is judged on: one per setting,
 * however many actions it took (three declared addresses are one write of netdev.addresses). */
static int history_record(PortStatus *s, const Outcomes *outcomes, uint64_t now) {
	KeySet recorded = 0;

	for (size_t i = 0; i < outcomes->n; i++) {
		const Outcome *o = &outcomes->items[i];
		SettingHistory *h;

		if (o->result != APPLY_CHANGED || !streq_ptr(o->device, s->device) ||
		    o->port != s->port || (recorded & KEY_BIT(o->key)))
			continue;
		recorded |= KEY_BIT(o->key);
		h = port_status_history(s, o->key, true);
		if (!h)
			return -ENOMEM;
		contest_written(&h->contest, now);
	}
	return 0;
}

static bool plan_port_pending(const Plan *p, const char *name) {
	for (size_t i = 0; i < p->n_actions; i++)
		if (!p->actions[i].unsupported && streq_ptr(p->actions[i].port_name, name))
			return true;
	return false;
}

static ConfigState state_compute(const PortStatus *s, bool failed, bool unmet,
				 bool *ret_waiting_gids) {
	/* a value that could not be read or parsed: the link cannot be known to be converged */
	bool pending = false, degraded = strv_length(s->observe_errors) > 0;

	for (size_t i = 0; i < s->n_settings; i++) {
		const SettingStatus *x = &s->settings[i];

		if (x->result == SETTING_PENDING && x->key != KEY_GIDS_REQUIRE &&
		    x->key != KEY_GIDS_PUBLISH)
			pending = true;
		else if (x->result == SETTING_UNSUPPORTED || x->result == SETTING_CONTESTED)
			degraded = true;
	}
	*ret_waiting_gids = !pending && unmet;
	if (failed)
		return CONFIG_STATE_FAILED;
	if (pending || unmet)
		return CONFIG_STATE_PENDING;
	return degraded ? CONFIG_STATE_DEGRADED : CONFIG_STATE_CONVERGED;
}

static int errors_copy(char ***dst, char *const *src) {
	STRV_FOREACH (e, src) {
		int r = strv_extend(dst, *e);

		if (r < 0)
			return r;
	}
	return 0;
}

static void switch_status_free(SwitchStatus *w) {
	if (!w)
		return;
	free(w->chassis);
	free(w->port_id);
	free(w->system_name);
	free(w->advertises);
	free(w);
}

static int strdup_or_null(const char *s, char **ret) {
	*ret = s ? strdup(s) : NULL;
	return !s || *ret ? 0 : -ENOMEM;
}

/* The link's switch port and what it disagrees on, when lldpd heard a neighbour. */
static int switch_status_build(PortStatus *s, const HostPort *p, const HostNetdev *nd) {
	const LldpNeighbor *nb = fabric_switch_neighbor(nd);
	SwitchStatus *w;
	FabricHost host;
	int r;

	if (!nb)
		return 0;
	w = s->sw = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	r = strdup_or_null(nb->chassis_id, &w->chassis);
	if (r >= 0)
		r = strdup_or_null(nb->port_id, &w->port_id);
	if (r >= 0)
		r = strdup_or_null(nb->system_name, &w->system_name);
	if (r < 0 || !fabric_switch_has_dcb(nb))
		return r;
	fabric_host_observed(p, nd, &host);
	r = fabric_switch_describe(nb, &host, &w->advertises);
	if (r < 0)
		return r;
	w->n_mismatches = fabric_compare_switch(&host, &nb->dcb, w->mismatches);
	return 0;
}

static int facts_copy(PortStatus *s, const HostDevice *d, const HostPort *p, const HostNetdev *nd) {
	size_t n_device = strlen(d->name) + 1, n_netdev = p->netdev ? strlen(p->netdev) + 1 : 0,
	       n_driver = d->driver ? strlen(d->driver) + 1 : 0;
	int n, r;

	/* "mlx5_0/1\0mlx5_0\0eth0\0mlx5_core\0" */
	n = snprintf(NULL, 0, "%s/%u", d->name, p->port) + 1;
	s->name = malloc(n + n_device + n_netdev + n_driver);
	if (!s->name)
		return -ENOMEM;
	(void) snprintf(s->name, n, "%s/%u", d->name, p->port);
	s->device = memcpy(s->name + n, d->name, n_device);
	if (p->netdev)
		s->netdev = memcpy(s->device + n_device, p->netdev, n_netdev);
	if (d->driver)
		s->driver = memcpy(s->device + n_device + n_netdev, d->driver, n_driver);
	s->port = p->port;
	s->link_layer = p->link_layer;
	s->has_roce_mode = p->has_roce_mode;
	s->roce_mode = p->roce_mode;
	s->has_roce_tos = p->has_roce_tos;
	s->roce_tos = p->roce_tos;
	roce_facts_from_host(p, nd, &s->facts);
	r = errors_copy(&s->observe_errors, d->errors);
	if (r >= 0)
		r = errors_copy(&s->observe_errors, p->errors);
	if (r >= 0 && nd)
		r = errors_copy(&s->observe_errors, nd->errors);
	if (r < 0)
		return r;
	r = switch_status_build(s, p, nd);
	if (r < 0)
		return r;
	r = gid_table_copy(&s->gids, p->gids, p->n_gids, p->netdev);
	if (r == -ERANGE)
		/* no driver has such a table: said, and the link is degraded, not the daemon */
		return strv_extend(&s->observe_errors,
				   "gids: an index above 65535 or more than 254 netdevs, not kept");
	return r;
}

int port_status_build(PortStatus *s, const HostState *h, const HostDevice *d, const HostPort *p,
		      const HostNetdev *nd, const PortSettings *ls, char ***profiles,
		      const Plan *plan, const Outcomes *outcomes, PortStatus *old, uint64_t now) {
	const Outcome *failed;
	bool held, waiting = false, publish_unmet;
	uint32_t unmet;
	size_t n = 0;
	int r;

	*s = (PortStatus){ 0 };
	r = facts_copy(s, d, p, nd);
	if (r < 0)
		return r;
	if (old && old->n_history > 0) {
		/* copied, not taken: the old table stays whole until the new one replaces it */
		s->history = calloc(old->n_history, sizeof(SettingHistory));
		if (!s->history)
			return -ENOMEM;
		for (size_t i = 0; i < old->n_history; i++) {
			s->history[i] = old->history[i];
			s->history[i].contender = NULL;
			s->n_history++;
			if (strdup_to(&s->history[i].contender, old->history[i].contender) < 0)
				return -ENOMEM;
		}
	}
	s->publish =
		ls && (ls->set & KEY_BIT(KEY_GIDS_PUBLISH)) ? ls->gids_publish : GID_CHOICE_DEFAULT;
	if (ls)
		s->profiles = TAKE_PTR(*profiles);
	if (!ls || !(ls->set & KEYS_PORT)) {
		s->state = CONFIG_STATE_UNMANAGED;
		return 0;
	}

	r = history_record(s, outcomes, now);
	if (r < 0)
		return r;
	failed = outcomes_find(outcomes, s->device, s->port, _KEY_INVALID, APPLY_FAILED);
	/* Waiting for its next attempt, with something still to do: what failed stands. Fixed
	 * meanwhile (by hand), it is not failed any more. */
	held = !failed && port_status_held(old, now) && plan_port_pending(plan, s->name);
	for (Key k = 0; k < _KEY_MAX; k++)
		if (KEYS_SHOWN & ls->set & KEY_BIT(k))
			n++;
	s->settings = n > 0 ? calloc(n, sizeof(SettingStatus)) : NULL;
	if (n > 0 && !s->settings)
		return -ENOMEM;
	for (Key k = 0; k < _KEY_MAX; k++) {
		SettingStatus *row;

		if (!(KEYS_SHOWN & ls->set & KEY_BIT(k)))
			continue;
		row = &s->settings[s->n_settings++];
		/* sriov.* and pci.* are planned on full passes only: a pass that looked at some
		 * devices says nothing about them, and their last row stands */
		if ((KEY_BIT(k) & KEYS_FUNCTION) && h->partial && old &&
		    port_status_setting(old, k)) {
			r = setting_copy(row, port_status_setting(old, k));
			if (r < 0)
				return r;
			continue;
		}
		r = setting_from_plan(row, ls, k, s->name, plan);
		if (r >= 0)
			r = setting_overlay(row, s, outcomes, old, held, now);
		if (r >= 0 && k == KEY_RDMA_NODE_DESCRIPTION && h->rdma_ndd_running)
			r = setting_rdma_ndd(row);
		if (r < 0)
			return r;
	}
	r = setting_publish(port_status_setting(s, KEY_GIDS_PUBLISH), s, &publish_unmet);
	if (r < 0)
		return r;
	/* an unmet gids.publish waits for the GID table as gids.require does */
	unmet = gids_unmet(p, ls->gids_require);
	if (ls->set & KEY_BIT(KEY_GIDS_REQUIRE)) {
		r = setting_gids(port_status_setting(s, KEY_GIDS_REQUIRE), unmet);
		if (r < 0)
			return r;
	}
	s->state = state_compute(s, failed || held, unmet || publish_unmet, &waiting);
	s->waiting_gids = waiting;
	if (failed)
		return strdup_to(&s->last_error, failed->message);
	if (held) {
		s->n_failed = old->n_failed;
		s->retry_usec = old->retry_usec;
		return strdup_to(&s->last_error, old->last_error);
	}
	return 0;
}

int port_status_gid_preferred(const PortStatus *s, GidType type, GidFamily family, Gid *ret) {
	_cleanup_free_ Gid *gids = NULL;
	HostPort port = { .link_layer = s->link_layer };
	const Gid *g;
	int r;

	r = gid_table_expand(&s->gids, s->netdev, &gids, &port.n_gids);
	if (r < 0)
		return r;
	port.gids = gids;
	/* asked for nothing in particular: what the link publishes */
	if (type < 0 && family < 0)
		r = gid_chosen(&port, &s->publish, &g);
	else
		r = gid_preferred(&port, type, family, &g);
	if (r < 0)
		return r;
	*ret = *g;
	return 0;
}

static bool settings_equal(const PortStatus *a, const PortStatus *b) {
	if (a->n_settings != b->n_settings)
		return false;
	for (size_t i = 0; i < a->n_settings; i++) {
		const SettingStatus *x = &a->settings[i], *y = &b->settings[i];

		if (x->key != y->key || x->result != y->result ||
		    !streq_ptr(x->desired, y->desired) || !streq_ptr(x->current, y->current) ||
		    !streq_ptr(x->error, y->error))
			return false;
	}
	return true;
}

static int preferred_index(const PortStatus *s) {
	Gid g;

	if (port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0)
		return -1;
	return (int) g.index;
}

unsigned port_status_changes(const PortStatus *a, const PortStatus *b) {
	unsigned m = 0;

	if (!streq_ptr(a->netdev, b->netdev))
		m |= 1u << PORT_PROPERTY_NETDEV;
	if (!streq_ptr(a->driver, b->driver))
		m |= 1u << PORT_PROPERTY_DRIVER;
	if (a->state != b->state)
		m |= 1u << PORT_PROPERTY_STATE;
	if (!strv_equal(a->profiles, b->profiles))
		m |= 1u << PORT_PROPERTY_PROFILES;
	if (a->has_roce_mode != b->has_roce_mode || a->roce_mode != b->roce_mode)
		m |= 1u << PORT_PROPERTY_ROCE_MODE;
	if (a->has_roce_tos != b->has_roce_tos || a->roce_tos != b->roce_tos)
		m |= 1u << PORT_PROPERTY_ROCE_TOS;
	/* a GID on the port's own netdev is named by the port's netdev */
	if (!gid_table_equal(&a->gids, &b->gids) ||
	    (a->gids.n > 0 && !streq_ptr(a->netdev, b->netdev)))
		m |= 1u << PORT_PROPERTY_GIDS;
	if (preferred_index(a) != preferred_index(b))
		m |= 1u << PORT_PROPERTY_PREFERRED_GID_INDEX;
	if (!settings_equal(a, b))
		m |= 1u << PORT_PROPERTY_SETTINGS;
	if (!streq_ptr(a->last_error, b->last_error))
		m |= 1u << PORT_PROPERTY_LAST_ERROR;
	if (!strv_equal(a->observe_errors, b->observe_errors))
		m |= 1u << PORT_PROPERTY_OBSERVE_ERRORS;
	if (!roce_facts_equal(&a->facts, &b->facts))
		m |= 1u << PORT_PROPERTY_ROCE_FACTS;
	return m;
}

bool port_status_switch_equal(const PortStatus *a, const PortStatus *b) {
	const SwitchStatus *x = a->sw, *y = b->sw;

	if (!x || !y)
		return x == y;
	if (!streq_ptr(x->chassis, y->chassis) || !streq_ptr(x->port_id, y->port_id) ||
	    !streq_ptr(x->system_name, y->system_name) ||
	    !streq_ptr(x->advertises, y->advertises) || x->n_mismatches != y->n_mismatches)
		return false;
	for (size_t i = 0; i < x->n_mismatches; i++)
		if (!streq(x->mismatches[i].setting, y->mismatches[i].setting) ||
		    !streq(x->mismatches[i].local, y->mismatches[i].local) ||
		    !streq(x->mismatches[i].other, y->mismatches[i].other))
			return false;
	return true;
}

char *port_status_reasons(const PortStatus *s) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, n = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (size_t i = 0; i < s->n_settings; i++) {
		const SettingStatus *x = &s->settings[i];

		if (!x->error || x->result == SETTING_CONVERGED)
			continue;
		fprintf(f, "%s%s %s (%s)", n++ > 0 ? "; " : "", key_to_string(x->key),
			setting_result_to_string(x->result), x->error);
	}
	STRV_FOREACH (e, s->observe_errors)
		fprintf(f, "%scould not use %s", n++ > 0 ? "; " : "", *e);
	if (fclose(f) != 0 || n == 0)
		return NULL;
	return TAKE_PTR(buf);
}
