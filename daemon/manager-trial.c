/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A trial's life (issue 45): Try() records and applies a layer, the gates are looked at every
 * second, and it ends confirmed (its files made profiles) or rolled back (the layer dropped and
 * every recorded object written back through a one-reconcile layer of the recorded values, then
 * read back). What a trial can roll back is the table below: a key whose change cannot be
 * undone faithfully is refused before anything is written. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "json-util.h"
#include "log.h"
#include "manager-emit.h"
#include "manager-trial-internal.h"
#include "settings-format.h"
#include "strv.h"
#include "trial-gate.h"

#define MESSAGE_ID_TRIAL_STARTED     "5a7c1e02b94d4f1f8a3e6d0c2b91f4a7"
#define MESSAGE_ID_TRIAL_ROLLED_BACK "d1b0e8c3a6f54b2e9c7d4a1f0e3b6c58"
#define MESSAGE_ID_TRIAL_CONFIRMED   "83e2f4a1c7b94d6e8f0a2c5b7d9e1f30"

/* struct Trial: manager-trial-internal.h */

/* The keys a trial can record and put back, and why the others cannot be. */
static const Key trial_keys[] = { KEY_ROCE_MODE, KEY_ROCE_TOS, KEY_NETDEV_MTU, KEY_NETDEV_UP,
				  KEY_QOS_PFC,   KEY_QOS_DSCP_MAP };

static const char *key_refusal(Key k) {
	switch (k) {
	case KEY_SRIOV_VFS:
	case KEY_SRIOV_VF:
	case KEY_SRIOV_ESWITCH:
		return "VFs destroyed take their settings, netdevs and holders with them";
	case KEY_LINKS:
		return "a Soft-RoCE link made or deleted cannot be put back as it was (its GIDs, "
		       "its users)";
	default:
		return "a trial cannot record and put back this key yet (roce.mode, roce.tos, "
		       "netdev.mtu, netdev.up, qos.pfc and qos.dscp-map only)";
	}
}

static bool key_trial_capable(Key k) {
	for (size_t i = 0; i < ELEMENTSOF(trial_keys); i++)
		if (trial_keys[i] == k)
			return true;
	return false;
}

/* The value before, as a profile writes it, from the plan's "current" column: NULL when it is
 * not known, or not in words a profile has (a DSCP on two priorities). */
static char *key_value_before(const Action *a) {
	char *v = NULL;

	if (setting_current_to_profile(a->key, a->current, &v) < 0)
		return NULL;
	return v;
}

static uint64_t now_usec(void) {
	return now_monotonic_usec();
}

static uint64_t realtime_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static Trial *trial_free(Trial *t) {
	if (!t)
		return NULL;
	trial_record_done(&t->record);
	strv_free(t->links);
	strv_free(t->netdevs);
	free(t->up_before);
	probe_paths_free(t->probe_before, t->n_probe_before);
	sd_event_source_disable_unref(t->timeout_source);
	sd_event_source_disable_unref(t->tick_source);
	free(t->reason);
	free(t->gate);
	free(t->seen);
	for (size_t i = 0; i < t->n_waiters; i++)
		sd_bus_message_unref(t->waiters[i]);
	free(t->waiters);
	free(t);
	return NULL;
}
DEFINE_TRIVIAL_CLEANUP_FUNC(Trial *, trial_free)

void manager_trial_done(Manager *m) {
	m->trial = trial_free(m->trial);
	m->trial_last = mfree(m->trial_last);
	m->probe_state_path = mfree(m->probe_state_path);
}

const char *manager_trial_last(const Manager *m) {
	return m->trial_last ? m->trial_last : "";
}

/* "rxe0/1" -> device, port for the journal's fields */
static LogFields object_fields(const TrialObject *o, char *device, size_t size,
			       const char *message_id) {
	const char *slash = strrchr(o->link, '/');
	size_t n = slash ? (size_t) (slash - o->link) : strlen(o->link);

	snprintf(device, size, "%.*s", (int) n, o->link);
	return (LogFields){ .device = device,
			    .port = slash ? (uint32_t) strtoul(slash + 1, NULL, 10) : 0,
			    .netdev = o->netdev,
			    .message_id = message_id };
}

/* profiles loaded from text, appended to c as the top layer (their names prefixed "trial:" so
 * that a plan tells the layer's actions from those of a file of the same name) */
static int config_append_text(Config *c, const char *name, const char *text) {
	_cleanup_free_ char *label = NULL;
	Diagnostics diags = { 0 };
	Profile **p = NULL, **all;
	size_t n = 0;
	int r;

	if (asprintf(&label, "trial:%s", name) < 0)
		return -ENOMEM;
	r = profile_load_string(label, text, strlen(text), &diags, &p, &n);
	diagnostics_done(&diags);
	if (r < 0)
		return r;
	all = reallocarray(c->profiles, c->n_profiles + n + 1, sizeof(Profile *));
	if (!all) {
		for (size_t i = 0; i < n; i++)
			profile_free(p[i]);
		free(p);
		return -ENOMEM;
	}
	c->profiles = all;
	memcpy(c->profiles + c->n_profiles, p, n * sizeof(Profile *));
	c->n_profiles += n;
	free(p);
	return strv_extend(&c->files, label);
}

int manager_trial_layer(Manager *m, Config *c) {
	_cleanup_free_ char *rollback = NULL;
	Trial *t = m->trial;
	int r;

	if (!t)
		return 0;
	if (t->rolling_back) {
		r = trial_record_rollback_yaml(&t->record, &rollback);
		if (r < 0)
			return r;
		return config_append_text(c, "rollback.yaml", rollback);
	}
	for (size_t i = 0; i < t->record.n_files; i++) {
		r = config_append_text(c, t->record.files[i].name, t->record.files[i].content);
		if (r < 0)
			return r;
	}
	return 0;
}

static int json_add_objects(json_object *o, const char *key, const TrialRecord *rec,
			    const bool *which, bool want) {
	json_object *a, *e;
	int r;

	r = json_add_array(o, key, &a);
	for (size_t i = 0; r >= 0 && i < rec->n_objects; i++) {
		const TrialObject *x = &rec->objects[i];

		if (which && which[i] != want)
			continue;
		r = json_add_object(a, NULL, &e);
		if (r >= 0)
			r = json_add_string(e, "link", x->link);
		if (r >= 0)
			r = json_add_string(e, "netdev", x->netdev);
		if (r >= 0)
			r = json_add_string(e, "setting", key_to_string(x->key));
		if (r >= 0)
			r = json_add_string(e, "before", x->value);
	}
	return r;
}

static int json_add_files(json_object *o, const TrialRecord *rec) {
	_cleanup_strv_free_ char **names = NULL;

	for (size_t i = 0; i < rec->n_files; i++)
		if (strv_extend(&names, rec->files[i].name) < 0)
			return -ENOMEM;
	return json_add_strv(o, "files", names);
}

int manager_trial_json(Manager *m, char **ret) {
	_cleanup_(json_object_putp) json_object *o = NULL;
	Trial *t = m->trial;
	uint64_t now = now_usec();
	char *s;
	int r;

	if (!t) {
		s = strdup("");
		if (!s)
			return -ENOMEM;
		*ret = s;
		return 0;
	}
	o = json_object_new_object();
	if (!o)
		return -ENOMEM;
	r = json_add_string(o, "state", t->rolling_back ? "rolling-back" : "pending");
	if (r >= 0)
		r = json_add_int(o, "started_usec", (int64_t) t->record.started_usec);
	if (r >= 0)
		r = json_add_int(o, "timeout_usec", (int64_t) t->record.timeout_usec);
	if (r >= 0)
		r = json_add_int(o, "elapsed_usec", (int64_t) (now - t->started_usec));
	/* how long every gate has held: `rdmactl try --wait` waits for a settling window */
	if (r >= 0)
		r = json_add_int(o, "held_usec",
				 t->held_since_usec && !t->rolling_back
					 ? (int64_t) (now - t->held_since_usec)
					 : 0);
	if (r >= 0)
		r = json_add_bool(o, "probe_gate", t->probe_known);
	if (r >= 0)
		r = json_add_files(o, &t->record);
	if (r >= 0)
		r = json_add_objects(o, "objects", &t->record, NULL, false);
	if (r < 0)
		return r;
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

static int on_trial_tick(sd_event_source *s, uint64_t usec, void *userdata) {
	_cleanup_free_ char *seen = NULL;
	Manager *m = userdata;
	Trial *t = m->trial;
	const char *gate = NULL;
	int r;

	if (!t || t->rolling_back)
		return 0;
	r = trial_gates(m, t, &gate, &seen);
	if (r < 0)
		log_warning_errno(r, "Failed to look at the trial's gates, ignoring");
	else if (r > 0) {
		log_full(LOG_WARNING, 0, NULL, "Trial gate %s failed: %s", gate, seen);
		(void) manager_trial_rollback(m, "gate", gate, seen, NULL);
		return 0;
	} else if (t->held_since_usec == 0)
		t->held_since_usec = now_usec();
	(void) sd_event_source_set_time(s, usec + TRIAL_TICK_USEC);
	return 0;
}

static int on_trial_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
	Manager *m = userdata;
	_cleanup_free_ char *seen = NULL;

	if (!m->trial || m->trial->rolling_back)
		return 0;
	if (asprintf(&seen, "not confirmed within %" PRIu64 " s",
		     m->trial->record.timeout_usec / 1000000) < 0)
		seen = NULL;
	log_warning("Trial %s; rolling back.", seen ? seen : "not confirmed in time");
	(void) manager_trial_rollback(m, "timeout", NULL, seen, NULL);
	return 0;
}

static int trial_timers_start(Manager *m, Trial *t) {
	int r;

	r = sd_event_add_time(m->event, &t->timeout_source, CLOCK_MONOTONIC,
			      t->started_usec + t->record.timeout_usec, 100 * 1000,
			      on_trial_timeout, m);
	if (r < 0)
		return r;
	(void) sd_event_source_set_description(t->timeout_source, "trial-timeout");
	r = sd_event_add_time(m->event, &t->tick_source, CLOCK_MONOTONIC,
			      now_usec() + TRIAL_TICK_USEC, 100 * 1000, on_trial_tick, m);
	if (r < 0)
		return r;
	(void) sd_event_source_set_description(t->tick_source, "trial-gates");
	return sd_event_source_set_enabled(t->tick_source, SD_EVENT_ON);
}

/* A host read now (live: a hand write raises no event) and the plan of m->config on it. */
static int plan_live(Manager *m, Plan **ret) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	int r;

	r = host_observe(m->root, manager_observe_flags(m->config, NULL), &h);
	if (r < 0)
		return r;
	r = host_records_observe(h, m->state_dir);
	if (r < 0)
		return r;
	return plan_compute(m->config, h, ret);
}

/* A device's rdma_cm group in configfs appears only when asked for (mkdir): the values live in
 * the kernel's cma device whether or not it is there, and a host where nobody made it shows
 * none. It is made, as the configfs backend would make it, for the layer's roce.* objects whose
 * value is not shown yet, so that it can be read and recorded. 1 when one was made. */
static int configfs_groups_make(Manager *m, const Plan *p) {
	bool made = false;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		_cleanup_free_ char *rel = NULL, *path = NULL;

		if (!a->profile || strncmp(a->profile, "trial:", 6) != 0 || a->unsupported ||
		    a->current || !a->device || (a->key != KEY_ROCE_MODE && a->key != KEY_ROCE_TOS))
			continue;
		if (asprintf(&rel, "/sys/kernel/config/rdma_cm/%s", a->device) < 0)
			return -ENOMEM;
		path = root_path(m->root, rel);
		if (!path)
			return -ENOMEM;
		if (mkdir(path, 0755) >= 0)
			made = true;
		else if (errno != EEXIST)
			log_debug("mkdir %s: %s; its value before stays unknown", path,
				  strerror(errno));
	}
	return made;
}

/* The files checked as a reload checks them: FILE:LINE:COLUMN lines in *ret_error. */
static int files_validate(const TrialRecord *rec, char **ret_error) {
	_cleanup_strv_free_ char **lines = NULL;
	Diagnostics diags = { 0 };
	int r = 0;

	for (size_t i = 0; i < rec->n_files; i++) {
		Profile **p = NULL;
		size_t n = 0;

		if (!trial_file_name_valid(rec->files[i].name)) {
			(void) diagnostics_add(&diags, rec->files[i].name, 0, 0,
					       "not a profile file name (NAME.yaml or NAME.yml, "
					       "no '/')");
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (streq(rec->files[j].name, rec->files[i].name))
				(void) diagnostics_add(&diags, rec->files[i].name, 0, 0,
						       "given twice");
		if (profile_load_string(rec->files[i].name, rec->files[i].content,
					strlen(rec->files[i].content), &diags, &p, &n) == -ENOMEM)
			r = -ENOMEM;
		for (size_t k = 0; k < n; k++)
			profile_free(p[k]);
		free(p);
	}
	if (r < 0 || diagnostics_n_errors(&diags) == 0) {
		diagnostics_done(&diags);
		return r;
	}
	for (size_t i = 0; i < diags.n; i++)
		if (strv_consume(&lines, diagnostic_format(&diags.items[i])) < 0)
			r = -ENOMEM;
	diagnostics_done(&diags);
	if (r < 0)
		return r;
	*ret_error = strv_join(lines, "\n");
	return *ret_error ? -EINVAL : -ENOMEM;
}

/* The layer's actions recorded into t: -EOPNOTSUPP with the reason for one it cannot put back. */
static int trial_record_plan(Manager *m, Trial *t, const Plan *p, char **ret_error) {
	int r;

	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		_cleanup_free_ char *before = NULL;

		if (!a->profile || strncmp(a->profile, "trial:", 6) != 0 || a->unsupported)
			continue;
		if (!key_trial_capable(a->key) || !a->port_name) {
			if (asprintf(ret_error, "%s: %s on %s cannot be rolled back: %s",
				     a->profile + 6, key_to_string(a->key), action_subject(a),
				     key_refusal(a->key)) < 0)
				return -ENOMEM;
			return -EOPNOTSUPP;
		}
		before = key_value_before(a);
		if (!before) {
			if (asprintf(ret_error,
				     "%s: %s on %s cannot be rolled back: its value before is not "
				     "known, or not one a profile can declare (%s)",
				     a->profile + 6, key_to_string(a->key), a->port_name,
				     strna(a->current)) < 0)
				return -ENOMEM;
			return -EOPNOTSUPP;
		}
		r = trial_record_add_object(&t->record, a->port_name, a->netdev, a->key, before);
		if (r < 0)
			return r;
		if (!strv_contains(t->links, a->port_name) &&
		    strv_extend(&t->links, a->port_name) < 0)
			return -ENOMEM;
		if (a->netdev && !strv_contains(t->netdevs, a->netdev)) {
			_cleanup_free_ char *state = netdev_operstate(m, a->netdev);
			bool *up = reallocarray(t->up_before, strv_length(t->netdevs) + 1,
						sizeof(bool));

			if (!up)
				return -ENOMEM;
			t->up_before = up;
			up[strv_length(t->netdevs)] = operstate_is_up(state);
			if (strv_extend(&t->netdevs, a->netdev) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

/* The layer goes (or changes): profiles loaded again, everything looked at. */
static int config_relayer(Manager *m) {
	int r;

	r = manager_load_config(m);
	/* as a reload: what rdmad writes now is its own new mind, no contest with the trial's or
	 * the rollback's writes before it */
	manager_forget_contests(m, NULL);
	manager_reconcile_all(m);
	manager_mark_dirty_all(m);
	manager_emit_changed(m, "ConfigFiles", "Trial", NULL);
	manager_state_update(m);
	return r;
}

int manager_trial_try(Manager *m, TrialRecord *rec, char **ret_error) {
	_cleanup_(trial_freep) Trial *t = NULL;
	_cleanup_(plan_freep) Plan *p = NULL;
	int r;

	if (m->trial)
		return -EBUSY;
	r = files_validate(rec, ret_error);
	if (r < 0)
		return r;
	if (rec->timeout_usec == 0)
		rec->timeout_usec = TRIAL_TIMEOUT_DEFAULT_USEC;
	t = calloc(1, sizeof(Trial));
	if (!t)
		return -ENOMEM;
	t->record = *rec;
	*rec = (TrialRecord){ 0 };
	t->record.started_usec = realtime_usec();

	/* the profiles with the layer, planned on the host as it is now */
	m->trial = t;
	r = manager_load_config(m);
	if (r >= 0)
		r = plan_live(m, &p);
	if (r >= 0)
		r = configfs_groups_make(m, p);
	if (r > 0) {
		p = plan_free(p);
		r = plan_live(m, &p);
	}
	if (r >= 0)
		r = trial_record_plan(m, t, p, ret_error);
	if (r >= 0 && t->record.n_objects == 0) {
		r = -ENOMSG;
		*ret_error = strdup("The trial changes nothing on this host; nothing to try.");
	}
	/* the minute before, from rdmad-probe */
	if (r >= 0)
		t->probe_known = probe_state_read(m, &t->probe_before, &t->n_probe_before) >= 0;
	/* recorded before anything is written */
	if (r >= 0) {
		r = trial_record_write(m->state_dir, &t->record);
		if (r < 0)
			log_error_errno(r, "Failed to write the trial's record in %s/trial",
					m->state_dir);
	}
	if (r >= 0) {
		t->started_usec = now_usec();
		r = trial_timers_start(m, t);
		if (r < 0)
			(void) trial_record_remove(m->state_dir);
	}
	if (r < 0) {
		/* nothing was written: the previous profiles again */
		m->trial = NULL;
		(void) manager_load_config(m);
		return r;
	}
	for (size_t i = 0; i < t->record.n_objects; i++) {
		char device[64];
		LogFields f = object_fields(&t->record.objects[i], device, sizeof(device),
					    MESSAGE_ID_TRIAL_STARTED);

		log_full(LOG_NOTICE, 0, &f, "Trial: %s %s was %s before the trial; recorded.",
			 t->record.objects[i].link, key_to_string(t->record.objects[i].key),
			 t->record.objects[i].value);
	}
	log_notice("Trial of %zu file(s) begun: %zu object(s) recorded, rolled back in %" PRIu64
		   " s unless confirmed; probe gate %s.",
		   t->record.n_files, t->record.n_objects, t->record.timeout_usec / 1000000,
		   t->probe_known ? "on" : "off (no rdmad-probe state)");
	TAKE_PTR(t);
	(void) config_relayer(m);
	return 0;
}

/* LastTrial kept in the state dir, for a status after a restart. */
static void last_set(Manager *m, char *json) {
	int r;

	free(m->trial_last);
	m->trial_last = json;
	if (!json)
		return;
	r = trial_last_write(m->state_dir, json);
	if (r < 0)
		log_warning_errno(r, "Failed to keep the trial's outcome in %s/trial, ignoring",
				  m->state_dir);
}

int manager_trial_resume(Manager *m) {
	_cleanup_(trial_freep) Trial *t = NULL;
	int r;

	/* the last outcome, as it was said before rdmad stopped */
	(void) trial_last_read(m->state_dir, &m->trial_last);

	t = calloc(1, sizeof(Trial));
	if (!t)
		return -ENOMEM;
	r = trial_record_read(m->state_dir, &t->record);
	if (r == -ENOENT)
		return 0;
	if (r == -EBADMSG) {
		log_error("The trial record in %s/trial is torn; it cannot be rolled back. Set "
			  "aside as record.torn: check the links by hand.",
			  m->state_dir);
		(void) trial_record_set_aside(m->state_dir);
		return 0;
	}
	if (r < 0)
		return log_error_errno(r, "Failed to read the trial record in %s/trial",
				       m->state_dir);
	for (size_t i = 0; i < t->record.n_objects; i++)
		if (!strv_contains(t->links, t->record.objects[i].link) &&
		    strv_extend(&t->links, t->record.objects[i].link) < 0)
			return -ENOMEM;
	t->rolling_back = true;
	t->run_after = m->n_reconciles;
	t->started_usec = t->rollback_usec = now_usec();
	t->reason = strdup("restart");
	t->seen = strdup("a trial was pending when rdmad stopped");
	if (!t->reason || !t->seen)
		return -ENOMEM;
	log_warning("A trial of %zu file(s) was pending when rdmad stopped; rolling back %zu "
		    "object(s).",
		    t->record.n_files, t->record.n_objects);
	m->trial = TAKE_PTR(t);
	return 0;
}

int manager_trial_rollback(Manager *m, const char *reason, const char *gate, const char *seen,
			   sd_bus_message *msg) {
	Trial *t = m->trial;
	int r;

	if (!t)
		return -ENOENT;
	if (msg) {
		sd_bus_message **w = reallocarray(t->waiters, t->n_waiters + 1, sizeof(*w));

		if (!w)
			return -ENOMEM;
		t->waiters = w;
		t->waiters[t->n_waiters++] = sd_bus_message_ref(msg);
	}
	if (t->rolling_back)
		return 0; /* answered with the one at work */
	t->rolling_back = true;
	t->rollback_usec = now_usec();
	t->timeout_source = sd_event_source_disable_unref(t->timeout_source);
	t->tick_source = sd_event_source_disable_unref(t->tick_source);
	t->reason = strdup(reason);
	t->gate = gate ? strdup(gate) : NULL;
	t->seen = seen ? strdup(seen) : NULL;
	if (!t->reason || (gate && !t->gate) || (seen && !t->seen))
		return -ENOMEM;
	/* the reconcile that writes back is the next to begin */
	t->run_after = m->n_reconciles;
	log_full(LOG_WARNING, 0, NULL, "Rolling the trial back (%s%s)%s%s: %zu object(s).",
		 gate ? "gate " : "", gate ? gate : reason, seen ? ": " : "", seen ? seen : "",
		 t->record.n_objects);
	r = config_relayer(m);
	if (r < 0)
		log_error_errno(r, "Failed to load the rollback's profiles");
	return 0;
}

static void waiters_reply(Trial *t, const char *error) {
	for (size_t i = 0; i < t->n_waiters; i++) {
		if (error)
			(void) sd_bus_reply_method_errorf(t->waiters[i], SD_BUS_ERROR_FAILED, "%s",
							  error);
		else
			(void) sd_bus_reply_method_return(t->waiters[i], NULL);
	}
}

/* The rollback's reconcile ended: each object read back, said, and the trial ends. */
void manager_trial_run_ended(Manager *m) {
	_cleanup_(json_object_putp) json_object *o = NULL;
	_cleanup_(trial_freep) Trial *t = NULL;
	_cleanup_(plan_freep) Plan *p = NULL;
	_cleanup_free_ bool *restored = NULL;
	_cleanup_free_ char *json = NULL;
	size_t n_restored = 0;
	uint64_t took;
	int r;

	if (!m->trial || !m->trial->rolling_back || m->n_reconciles <= m->trial->run_after ||
	    m->run)
		return;
	t = m->trial;
	restored = calloc(t->record.n_objects + 1, sizeof(bool));
	if (!restored) {
		t = NULL;
		return;
	}
	/* read back, live: what the rollback layer still plans is not restored */
	r = plan_live(m, &p);
	if (r < 0)
		log_error_errno(r, "Failed to read the rolled back objects back");
	for (size_t i = 0; i < t->record.n_objects; i++) {
		const TrialObject *x = &t->record.objects[i];
		const Action *left = NULL;
		char device[64];
		LogFields f =
			object_fields(x, device, sizeof(device), MESSAGE_ID_TRIAL_ROLLED_BACK);

		for (size_t j = 0; p && j < p->n_actions; j++)
			if (p->actions[j].key == x->key &&
			    streq_ptr(p->actions[j].port_name, x->link))
				left = &p->actions[j];
		restored[i] = p && !left;
		n_restored += restored[i];
		if (restored[i])
			log_full(LOG_NOTICE, 0, &f,
				 "Trial rollback: %s %s put back to %s, read back.", x->link,
				 key_to_string(x->key), x->value);
		else
			log_full(LOG_ERR, 0, &f,
				 "Trial rollback: %s %s not put back to %s: reads %s%s%s.", x->link,
				 key_to_string(x->key), x->value,
				 left && left->current ? left->current : "(not read)",
				 left && left->unsupported ? ", " : "",
				 left && left->unsupported ? left->unsupported : "");
	}
	took = now_usec() - t->rollback_usec;
	o = json_object_new_object();
	if (!o ||
	    json_add_string(o, "outcome",
			    n_restored == t->record.n_objects ? "rolled-back"
							      : "rollback-incomplete") < 0 ||
	    json_add_string(o, "reason", t->reason) < 0 ||
	    json_add_string(o, "gate", t->gate) < 0 || json_add_string(o, "seen", t->seen) < 0 ||
	    json_add_int(o, "started_usec", (int64_t) t->record.started_usec) < 0 ||
	    json_add_int(o, "ended_usec", (int64_t) realtime_usec()) < 0 ||
	    json_add_int(o, "rollback_usec", (int64_t) took) < 0 ||
	    json_add_files(o, &t->record) < 0 ||
	    json_add_objects(o, "restored", &t->record, restored, true) < 0 ||
	    json_add_objects(o, "not_restored", &t->record, restored, false) < 0)
		log_error("Out of memory: the trial's outcome is not kept for status.");
	else
		json = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	if (n_restored == t->record.n_objects) {
		r = trial_record_remove(m->state_dir);
		if (r < 0)
			log_error_errno(r, "Failed to remove the trial record in %s/trial",
					m->state_dir);
	} else
		/* kept: the next start tries again, and says it again */
		log_error("Trial rollback incomplete: %zu of %zu object(s) put back; the record in "
			  "%s/trial is kept.",
			  n_restored, t->record.n_objects, m->state_dir);
	log_full(LOG_WARNING, 0, &(LogFields){ .message_id = MESSAGE_ID_TRIAL_ROLLED_BACK },
		 "Trial rolled back (%s%s)%s%s: %zu of %zu object(s) put back and read back in "
		 "%" PRIu64 " ms.",
		 t->gate ? "gate " : "", t->gate ? t->gate : t->reason, t->seen ? ": " : "",
		 t->seen ? t->seen : "", n_restored, t->record.n_objects, took / 1000);
	waiters_reply(t, n_restored == t->record.n_objects ? NULL : "The rollback is incomplete");
	m->trial = NULL;
	last_set(m, TAKE_PTR(json));
	(void) config_relayer(m);
	manager_emit_trial_ended(
		m, n_restored == t->record.n_objects ? "rolled-back" : "rollback-incomplete",
		t->gate ? t->gate : "", t->seen ? t->seen : t->reason, manager_trial_last(m));
	manager_emit_changed(m, "LastTrial", NULL);
}

static bool target_allowed(Manager *m, const char *target, char **ret_dir) {
	const char *const *dirs =
		m->config_dirs ? (const char *const *) m->config_dirs : profile_dirs_default;
	/* rdmad.service may write /etc/rdmad (ReadWritePaths=) and /run/rdmad (its own) */
	size_t n = m->config_dirs ? strv_length(m->config_dirs) : 2;

	for (size_t i = 0; i < n && dirs[i]; i++) {
		_cleanup_free_ char *full =
			m->config_dirs ? strdup(dirs[i]) : root_path(m->root, dirs[i]);

		if (!full)
			return false;
		if (!target || streq(target, dirs[i]) || streq(target, full)) {
			*ret_dir = TAKE_PTR(full);
			return true;
		}
	}
	return false;
}

int manager_trial_confirm(Manager *m, const char *target, char **ret_error) {
	_cleanup_(json_object_putp) json_object *o = NULL;
	_cleanup_(trial_freep) Trial *t = NULL;
	_cleanup_free_ char *dir = NULL;
	int r;

	if (!m->trial)
		return -ENOENT;
	if (m->trial->rolling_back)
		return -EBUSY;
	if (!target_allowed(m, target && *target ? target : NULL, &dir)) {
		if (asprintf(ret_error,
			     "%s is not a profile directory rdmad writes (/etc/rdmad or "
			     "/run/rdmad)",
			     target) < 0)
			return -ENOMEM;
		return -EPERM;
	}
	(void) mkdir(dir, 0755);
	for (size_t i = 0; i < m->trial->record.n_files; i++) {
		const TrialFile *f = &m->trial->record.files[i];

		r = trial_file_install(dir, f->name, f->content);
		if (r < 0) {
			if (asprintf(ret_error,
				     "Failed to write %s/%s: %s; the trial is still "
				     "pending",
				     dir, f->name, strerror(-r)) < 0)
				return -ENOMEM;
			return r;
		}
		log_full(LOG_NOTICE, 0,
			 &(LogFields){ .profile = f->name,
				       .message_id = MESSAGE_ID_TRIAL_CONFIRMED },
			 "Trial confirmed: %s written to %s.", f->name, dir);
	}
	t = TAKE_PTR(m->trial);
	r = trial_record_remove(m->state_dir);
	if (r < 0)
		log_error_errno(r, "Failed to remove the trial record in %s/trial", m->state_dir);
	o = json_object_new_object();
	if (o && json_add_string(o, "outcome", "confirmed") >= 0 &&
	    json_add_string(o, "target", dir) >= 0 &&
	    json_add_int(o, "started_usec", (int64_t) t->record.started_usec) >= 0 &&
	    json_add_int(o, "ended_usec", (int64_t) realtime_usec()) >= 0 &&
	    json_add_files(o, &t->record) >= 0)
		last_set(m, strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)));
	/* the files are ordinary profiles now, in their place among the others by name */
	(void) config_relayer(m);
	manager_emit_trial_ended(m, "confirmed", "", dir, manager_trial_last(m));
	manager_emit_changed(m, "LastTrial", NULL);
	return 0;
}
