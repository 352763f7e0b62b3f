/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Preflight() and SelfTest(): rdmactl run as a helper (manager-helper.h says why), its JSON
 * passed through. Preflight() is a read open to every local user, judged for the caller (whose
 * are the device nodes): one run at a time, callers of the same user meanwhile share it and
 * get its answer again for 5 s, so that no one can make rdmad start many. SelfTest() needs root
 * or polkit's org.rdmad1.selftest: it sends traffic and takes the link's time. */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-polkit.h"
#include "log.h"
#include "bus-args.h"
#include "bus-util.h"
#include "manager-checks.h"
#include "manager-helper.h"
#include "strv.h"

#define ERROR_HELPER "org.rdmad1.Error.HelperFailed"
#define ERROR_BUSY   "org.rdmad1.Error.Busy"

#define PREFLIGHT_TIMEOUT_USEC (60 * 1000000ULL)
#define PREFLIGHT_REUSE_USEC   (5 * 1000000ULL)

/* The helper's stdout when it is a JSON document of the given type, else -EBADMSG. */
static int helper_output_check(const char *output, json_type type) {
	json_object *o = json_tokener_parse(output);
	bool ok = o && json_object_is_type(o, type);

	json_object_put(o);
	return ok ? 0 : -EBADMSG;
}

static int helper_reply(sd_bus_message *caller, const char *what, int status, const char *output,
			json_type type) {
	if (status < 0)
		return sd_bus_reply_method_errorf(caller, ERROR_HELPER, "%s could not run: %s",
						  what, strerror(-status));
	/* Exit 1 is an answer (a check failed, the test failed) as long as it says so. */
	if (helper_output_check(output, type) < 0)
		return sd_bus_reply_method_errorf(
			caller, ERROR_HELPER,
			"%s exited with status %d and no result; see the journal", what, status);
	return sd_bus_reply_method_return(caller, "s", output);
}

static void preflight_done(Helper *h, int status, const char *output, void *userdata) {
	Manager *m = userdata;

	if (status < 0 || helper_output_check(output, json_type_array) < 0)
		log_warning("rdmactl preflight for Preflight() failed (status %d)", status);
	else {
		free(m->preflight_last);
		m->preflight_last = strdup(output);
		m->preflight_last_uid = m->preflight_uid;
		if (m->preflight_last)
			(void) sd_event_now(m->event, CLOCK_MONOTONIC, &m->preflight_last_usec);
	}
	for (size_t i = 0; i < m->n_preflight_callers; i++) {
		(void) helper_reply(m->preflight_callers[i], "rdmactl preflight", status, output,
				    json_type_array);
		sd_bus_message_unref(m->preflight_callers[i]);
	}
	free(m->preflight_callers);
	m->preflight_callers = NULL;
	m->n_preflight_callers = 0;
	m->preflight = helper_free(m->preflight);
}

/* rdmactl preflight --json --user UID, for the host rdmad manages (a daemon run under --root,
 * in tests, passes it and its --config-dir on), judged for the caller: whether the device
 * nodes are theirs to open. */
static int preflight_args(Manager *m, uid_t uid, char ***ret) {
	_cleanup_strv_free_ char **args = NULL;
	char user[16];
	int r;

	snprintf(user, sizeof(user), "%u", (unsigned) uid);
	r = strv_extend(&args, "preflight");
	if (r >= 0)
		r = strv_extend(&args, "--json");
	if (r >= 0)
		r = strv_extend(&args, "--user");
	if (r >= 0)
		r = strv_extend(&args, user);
	if (r >= 0 && !streq(m->root, "/")) {
		r = strv_extend(&args, "--root");
		if (r >= 0)
			r = strv_extend(&args, m->root);
	}
	STRV_FOREACH (d, m->config_dirs) {
		if (r >= 0)
			r = strv_extend(&args, "--config-dir");
		if (r >= 0)
			r = strv_extend(&args, *d);
	}
	if (r < 0)
		return r;
	*ret = TAKE_PTR(args);
	return 0;
}

static int sender_uid(sd_bus_message *msg, uid_t *ret) {
	_cleanup_(sd_bus_creds_unrefp) sd_bus_creds *creds = NULL;
	int r;

	r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_EUID | SD_BUS_CREDS_UID, &creds);
	if (r < 0)
		return r;
	r = sd_bus_creds_get_euid(creds, ret);
	if (r < 0)
		r = sd_bus_creds_get_uid(creds, ret);
	return r;
}

int method_preflight(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	Manager *m = userdata;
	sd_bus_message **callers;
	uint64_t now;
	uid_t uid;
	int r;

	r = sender_uid(msg, &uid);
	if (r < 0)
		return sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
					"Preflight() needs the caller's UID, which the bus does "
					"not give");
	/* A fresh answer for this user is given again rather than running rdmactl once more: a
	 * caller in a loop costs rdmad one run per PREFLIGHT_REUSE_USEC at most. */
	if (m->preflight_last && m->preflight_last_uid == uid &&
	    sd_event_now(m->event, CLOCK_MONOTONIC, &now) >= 0 &&
	    now < m->preflight_last_usec + PREFLIGHT_REUSE_USEC)
		return sd_bus_reply_method_return(msg, "s", m->preflight_last);
	/* One run at a time: callers of the same user share it, others come back. */
	if (m->preflight && m->preflight_uid != uid)
		return sd_bus_error_set(error, ERROR_BUSY,
					"A Preflight() for another user is running; try again in "
					"a few seconds");

	callers = reallocarray(m->preflight_callers, m->n_preflight_callers + 1, sizeof(*callers));
	if (!callers)
		return -ENOMEM;
	m->preflight_callers = callers;
	if (!m->preflight) {
		_cleanup_strv_free_ char **args = NULL;

		r = preflight_args(m, uid, &args);
		if (r < 0)
			return r;
		log_info("Preflight(): running rdmactl preflight for UID %u", (unsigned) uid);
		r = helper_run_rdmactl(m->event, m->bus, args, PREFLIGHT_TIMEOUT_USEC, "preflight",
				       preflight_done, m, &m->preflight);
		if (r < 0)
			return sd_bus_error_setf(error, ERROR_HELPER,
						 "rdmactl preflight could not be started: %s",
						 strerror(-r));
		m->preflight_uid = uid;
	}
	m->preflight_callers[m->n_preflight_callers++] = sd_bus_message_ref(msg);
	return 1;
}

static void self_test_done(Helper *h, int status, const char *output, void *userdata) {
	Manager *m = userdata;

	(void) helper_reply(m->self_test_caller, "rdmactl selftest", status, output,
			    json_type_object);
	m->self_test_caller = sd_bus_message_unref(m->self_test_caller);
	m->self_test = helper_free(m->self_test);
}

int method_self_test(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	char size_s[16], iters_s[16], timeout_s[16], deadline_s[16], q[ARG_QUOTE_MAX + 4];
	const char *link, *peer;
	uint32_t size, iters, timeout;
	Manager *m = userdata;
	PortStatus *s;
	int r;

	/* Root, or whom polkit authorizes for org.rdmad1.selftest: it sends RDMA traffic on the
	 * link and takes its time. */
	r = bus_verify_polkit_async(&m->polkit, msg, "org.rdmad1.selftest", error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1; /* polkit is asked; called again with its answer */
	r = sd_bus_message_read(msg, "ssuuu", &link, &peer, &size, &iters, &timeout);
	if (r < 0)
		return r;
	r = manager_port_find(m, link, &s);
	if (r < 0)
		return bus_link_error(error, link, r);
	if (!bus_arg_self_test_peer_valid(peer))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Peer '%s' is not a link or HOST[:PORT]",
					 arg_quote(peer, q));
	if (!bus_arg_self_test_limits_valid(size, iters, timeout))
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "At most %u bytes, %u iterations, %u seconds (0: the "
					 "default)",
					 SELF_TEST_SIZE_MAX, SELF_TEST_ITERS_MAX,
					 SELF_TEST_TIMEOUT_MAX);
	if (m->self_test)
		return sd_bus_error_set(error, ERROR_BUSY, "A self-test is running; try later");

	snprintf(size_s, sizeof(size_s), "%" PRIu32, size ? size : 65536);
	snprintf(iters_s, sizeof(iters_s), "%" PRIu32, iters ? iters : 1000);
	snprintf(timeout_s, sizeof(timeout_s), "%" PRIu32, timeout ? timeout : 10);
	snprintf(deadline_s, sizeof(deadline_s), "%u", SELF_TEST_DEADLINE);
	char *const args[] = { "selftest",
			       "--json",
			       "--size",
			       size_s,
			       "--iters",
			       iters_s,
			       "--timeout",
			       timeout_s,
			       "--deadline",
			       deadline_s,
			       "--",
			       s->name,
			       peer[0] ? (char *) peer : NULL,
			       NULL };

	log_info("SelfTest() of %s%s%s", s->name, peer[0] ? " with " : "", peer);
	/* rdmactl returns within its --deadline + 2 s whatever the kernel does. */
	r = helper_run_rdmactl(m->event, m->bus, args,
			       (uint64_t) SELF_TEST_DEADLINE * 1000000 + 30 * 1000000ULL,
			       "selftest", self_test_done, m, &m->self_test);
	if (r < 0)
		return sd_bus_error_setf(error, ERROR_HELPER,
					 "rdmactl selftest could not be started: %s", strerror(-r));
	m->self_test_caller = sd_bus_message_ref(msg);
	return 1;
}

void manager_checks_done(Manager *m) {
	for (size_t i = 0; i < m->n_preflight_callers; i++) {
		(void) sd_bus_reply_method_errorf(m->preflight_callers[i], ERROR_HELPER,
						  "rdmad is stopping");
		sd_bus_message_unref(m->preflight_callers[i]);
	}
	free(m->preflight_callers);
	m->preflight_callers = NULL;
	m->n_preflight_callers = 0;
	m->preflight = helper_free(m->preflight);
	free(m->preflight_last);
	m->preflight_last = NULL;
	if (m->self_test_caller)
		(void) sd_bus_reply_method_errorf(m->self_test_caller, ERROR_HELPER,
						  "rdmad is stopping");
	m->self_test_caller = sd_bus_message_unref(m->self_test_caller);
	m->self_test = helper_free(m->self_test);
}
