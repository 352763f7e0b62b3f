/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* polkit delegation for the methods that change rdmad's state (bus-polkit.h). A non-root
 * caller's method call is kept in the registry while polkitd's CheckAuthorization is pending;
 * its answer is recorded and the call is queued again (sd_bus_enqueue_for_read), so the
 * method handler runs a second time and finds the verdict. The event loop never waits. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-polkit.h"
#include "log.h"
#include "macro.h"

#define POLKIT_NAME	 "org.freedesktop.PolicyKit1"
#define POLKIT_PATH	 "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
/* CheckAuthorizationFlags: AllowUserInteraction */
#define POLKIT_ALLOW_USER_INTERACTION 1U
/* An interactive check waits for the user to type a password in an agent. */
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (300 * 1000000ULL)

#define ERROR_BUSY "org.rdmad1.Error.Busy"

struct PolkitQuery {
	PolkitQuery *next, *prev;
	PolkitRegistry *registry;
	sd_bus_message *request; /* the caller's method call */
	sd_bus_slot *slot;	 /* CheckAuthorization, while pending */
	char *action;
	uid_t uid;
	int verdict;	  /* 0 pending, 1 authorized, -EACCES refused */
	char *denied_why; /* the AccessDenied message, when refused */
};

/* Root or CAP_NET_ADMIN. sd_bus_query_sender_privilege() uses only credentials the bus vouches
 * for: dbus-daemon gives the caller's UID (from its socket), never capabilities, and what
 * /proc/PID says can change between the call and the check (a caller that execs a setuid or
 * file-capability binary right after sending). So over dbus-daemon this is UID 0; a non-root
 * CAP_NET_ADMIN caller is accepted only where the bus passes capabilities itself. */
bool bus_sender_is_root(sd_bus_message *msg) {
	return sd_bus_query_sender_privilege(msg, CAP_NET_ADMIN) > 0;
}

static PolkitQuery *polkit_query_free(PolkitQuery *q) {
	if (!q)
		return NULL;
	if (q->registry) {
		if (q->prev)
			q->prev->next = q->next;
		else
			q->registry->queries = q->next;
		if (q->next)
			q->next->prev = q->prev;
		q->registry->n_queries--;
	}
	sd_bus_slot_unref(q->slot);
	sd_bus_message_unref(q->request);
	free(q->action);
	free(q->denied_why);
	free(q);
	return NULL;
}

void polkit_registry_clear(PolkitRegistry *reg) {
	while (reg->queries)
		polkit_query_free(reg->queries);
}

static PolkitQuery *polkit_registry_find(PolkitRegistry *reg, sd_bus_message *msg) {
	for (PolkitQuery *q = reg->queries; q; q = q->next)
		if (q->request == msg)
			return q;
	return NULL;
}

static size_t polkit_registry_count_uid(PolkitRegistry *reg, uid_t uid) {
	size_t n = 0;

	for (PolkitQuery *q = reg->queries; q; q = q->next)
		n += q->uid == uid;
	return n;
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

static void polkit_query_deny(PolkitQuery *q, const char *why_detail) {
	char *why = NULL;

	q->verdict = -EACCES;
	if (asprintf(&why, "Not authorized for %s: %s", q->action, why_detail) < 0)
		why = NULL;
	free(q->denied_why);
	q->denied_why = why;
}

static int on_check_authorization(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
	PolkitQuery *q = userdata;
	const sd_bus_error *e;
	int authorized, challenge, r;

	q->slot = sd_bus_slot_unref(q->slot);
	e = sd_bus_message_get_error(reply);
	if (e) {
		/* No polkitd (not installed, not running and not activatable), or it failed:
		 * nobody may change rdmad's state but root. */
		log_warning("polkit could not check %s for UID %u: %s: %s", q->action,
			    (unsigned) q->uid, e->name, strna(e->message));
		polkit_query_deny(q, "needs root, and polkit could not be asked");
	} else {
		r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
		if (r >= 0)
			r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
		if (r < 0) {
			log_warning_errno(r, "polkit's answer for %s is malformed", q->action);
			polkit_query_deny(q, "needs root, and polkit's answer is malformed");
		} else if (authorized)
			q->verdict = 1;
		else if (challenge)
			polkit_query_deny(q, "needs root or polkit's authorization, which needs "
					     "authentication (allow interactive authorization, "
					     "in a session with a polkit agent)");
		else
			polkit_query_deny(q, "needs root or polkit's authorization");
	}
	log_debug("polkit: %s for UID %u: %s", q->action, (unsigned) q->uid,
		  q->verdict > 0 ? "authorized" : "denied");

	/* The method handler runs again and finds the verdict. */
	r = sd_bus_enqueue_for_read(sd_bus_message_get_bus(q->request), q->request);
	if (r < 0) {
		log_warning_errno(r, "Failed to dispatch the %s call again after polkit's answer",
				  q->action);
		(void) sd_bus_reply_method_errorf(q->request, SD_BUS_ERROR_ACCESS_DENIED,
						  "Not authorized for %s: %s", q->action,
						  strerror(-r));
		polkit_query_free(q);
	}
	return 0;
}

int bus_verify_polkit_async(PolkitRegistry *reg, sd_bus_message *msg, const char *action,
			    sd_bus_error *error) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
	PolkitQuery *q;
	const char *sender;
	uint32_t flags = 0;
	uid_t uid;
	int r;

	if (bus_sender_is_root(msg))
		return 1;

	q = polkit_registry_find(reg, msg);
	if (q) {
		if (q->verdict == 0)
			return 0; /* still asking */
		if (q->verdict > 0) {
			polkit_query_free(q);
			return 1;
		}
		r = sd_bus_error_set(error, SD_BUS_ERROR_ACCESS_DENIED,
				     q->denied_why ? q->denied_why : "Not authorized");
		polkit_query_free(q);
		return r;
	}

	sender = sd_bus_message_get_sender(msg);
	if (!sender || sender_uid(msg, &uid) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Not authorized for %s: the bus names no sender or UID",
					 action);
	if (reg->n_queries >= POLKIT_QUERIES_MAX ||
	    polkit_registry_count_uid(reg, uid) >= POLKIT_QUERIES_PER_UID_MAX)
		return sd_bus_error_setf(error, ERROR_BUSY,
					 "Too many authorization checks are pending; try %s later",
					 action);

	if (sd_bus_message_get_allow_interactive_authorization(msg) > 0)
		flags |= POLKIT_ALLOW_USER_INTERACTION;
	r = sd_bus_message_new_method_call(sd_bus_message_get_bus(msg), &call, POLKIT_NAME,
					   POLKIT_PATH, POLKIT_INTERFACE, "CheckAuthorization");
	if (r >= 0)
		/* subject (system-bus-name, {name: sender}), action, no details, flags, no
		 * cancellation id */
		r = sd_bus_message_append(call, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name",
					  "s", sender, action, 0, flags, "");
	if (r < 0)
		return r;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	q->action = strdup(action);
	if (!q->action) {
		free(q);
		return -ENOMEM;
	}
	q->uid = uid;
	r = sd_bus_call_async(sd_bus_message_get_bus(msg), &q->slot, call, on_check_authorization,
			      q, flags ? POLKIT_INTERACTIVE_TIMEOUT_USEC : 0);
	if (r < 0) {
		polkit_query_free(q);
		return sd_bus_error_setf(error, SD_BUS_ERROR_ACCESS_DENIED,
					 "Not authorized for %s: polkit could not be asked (%s)",
					 action, strerror(-r));
	}
	q->request = sd_bus_message_ref(msg);
	q->registry = reg;
	q->next = reg->queries;
	if (q->next)
		q->next->prev = q;
	reg->queries = q;
	reg->n_queries++;
	return 0;
}
