/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The trial's part of org.rdmad1.Manager (issue 45): Try(), Confirm(), Rollback() behind
 * polkit's org.rdmad1.trial, the Trial and LastTrial properties, the TrialEnded signal. What
 * they do is in manager-trial.c; this file only translates calls, replies and errors. */
#include <stdlib.h>

#include "bus-polkit.h"
#include "bus-util.h"
#include "log.h"
#include "manager-trial-bus.h"
#include "manager-trial.h"

#define ACTION_TRIAL	    "org.rdmad1.trial"
#define ERROR_TRIAL_BUSY    "org.rdmad1.Error.TrialPending"
#define ERROR_NO_TRIAL	    "org.rdmad1.Error.NoTrial"
#define ERROR_TRIAL_REFUSED "org.rdmad1.Error.TrialRefused"

/* at most this many files, of at most this many bytes together: a trial is a few profiles */
#define TRIAL_FILES_MAX 64
#define TRIAL_BYTES_MAX (1024 * 1024)

static int read_files(sd_bus_message *msg, TrialRecord *rec, sd_bus_error *error) {
	const char *name, *content;
	size_t total = 0;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "(ss)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(msg, "(ss)", &name, &content)) > 0) {
		total += strlen(content);
		if (rec->n_files >= TRIAL_FILES_MAX || total > TRIAL_BYTES_MAX)
			return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
						 "A trial takes at most %d files of %d bytes "
						 "together.",
						 TRIAL_FILES_MAX, TRIAL_BYTES_MAX);
		r = trial_record_add_file(rec, name, content);
		if (r < 0)
			return r;
	}
	if (r < 0)
		return r;
	r = sd_bus_message_exit_container(msg);
	if (r < 0)
		return r;
	if (rec->n_files == 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "A trial needs at least one file.");
	return 0;
}

/* No option is known yet: one given is refused, not ignored (a newer rdmactl's). */
static int read_options(sd_bus_message *msg, sd_bus_error *error) {
	const char *key;
	int r;

	r = sd_bus_message_enter_container(msg, 'a', "{sv}");
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(msg, 'e', "sv");
	if (r < 0)
		return r;
	if (r > 0) {
		r = sd_bus_message_read(msg, "s", &key);
		if (r < 0)
			return r;
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Unknown trial option '%s'.", key);
	}
	return sd_bus_message_exit_container(msg);
}

int trial_method_try(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_(trial_record_done) TrialRecord rec = { 0 };
	_cleanup_free_ char *why = NULL, *json = NULL;
	Manager *m = userdata;
	uint64_t timeout;
	int r;

	r = bus_verify_polkit_async(&m->polkit, msg, ACTION_TRIAL, error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1; /* polkit is asked; called again with its answer */
	r = read_files(msg, &rec, error);
	if (r < 0 || sd_bus_error_is_set(error))
		return r;
	r = sd_bus_message_read(msg, "t", &timeout);
	if (r < 0)
		return r;
	r = read_options(msg, error);
	if (r < 0 || sd_bus_error_is_set(error))
		return r;
	if (timeout > TRIAL_TIMEOUT_MAX_USEC)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "A trial's timeout is at most 24 h.");
	rec.timeout_usec = timeout;
	r = manager_trial_try(m, &rec, &why);
	if (r == -EBUSY)
		return sd_bus_error_setf(error, ERROR_TRIAL_BUSY,
					 "A trial is pending; confirm or roll it back first.");
	if (r == -EINVAL)
		return sd_bus_error_setf(error, ERROR_INVALID_PROFILE,
					 "The trial's files are invalid; nothing changed:\n%s",
					 why ? why : "");
	if (r == -EOPNOTSUPP || r == -ENOMSG)
		return sd_bus_error_setf(error, ERROR_TRIAL_REFUSED, "%s; nothing changed.",
					 why ? why : "Refused");
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to begin the trial: %s",
					       strerror(-r));
	r = manager_trial_json(m, &json);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(msg, "s", json);
}

int trial_method_confirm(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_free_ char *why = NULL;
	Manager *m = userdata;
	const char *target;
	int r;

	r = bus_verify_polkit_async(&m->polkit, msg, ACTION_TRIAL, error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1;
	r = sd_bus_message_read(msg, "s", &target);
	if (r < 0)
		return r;
	r = manager_trial_confirm(m, target, &why);
	if (r == -ENOENT)
		return sd_bus_error_setf(error, ERROR_NO_TRIAL, "No trial is pending.");
	if (r == -EBUSY)
		return sd_bus_error_setf(error, ERROR_NO_TRIAL,
					 "The trial is being rolled back; nothing to confirm.");
	if (r == -EPERM)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS, "%s", why ? why : "");
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "%s", why ? why : strerror(-r));
	return sd_bus_reply_method_return(msg, "s", manager_trial_last(m));
}

int trial_method_rollback(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	Manager *m = userdata;
	int r;

	r = bus_verify_polkit_async(&m->polkit, msg, ACTION_TRIAL, error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1;
	/* answered when it ended (manager_trial_run_ended()) */
	r = manager_trial_rollback(m, "requested", NULL, NULL, msg);
	if (r == -ENOENT)
		return sd_bus_error_setf(error, ERROR_NO_TRIAL, "No trial is pending.");
	if (r < 0)
		return r;
	return 1;
}

int trial_property_get(sd_bus *bus, const char *path, const char *interface, const char *property,
		       sd_bus_message *reply, void *userdata, sd_bus_error *error) {
	_cleanup_free_ char *json = NULL;
	int r;

	r = manager_trial_json(userdata, &json);
	if (r < 0)
		return r;
	return sd_bus_message_append(reply, "s", json);
}

int trial_property_get_last(sd_bus *bus, const char *path, const char *interface,
			    const char *property, sd_bus_message *reply, void *userdata,
			    sd_bus_error *error) {
	return sd_bus_message_append(reply, "s", manager_trial_last(userdata));
}

void manager_trial_bus_emit_ended(Manager *m, const char *outcome, const char *gate,
				  const char *seen, const char *json) {
	int r;

	if (!bus_is_ready(m->bus))
		return;
	r = sd_bus_emit_signal(m->bus, MANAGER_PATH, MANAGER_INTERFACE, "TrialEnded", "ssss",
			       outcome, gate, seen, json);
	if (r < 0)
		log_warning_errno(r, "Failed to emit TrialEnded");
}
