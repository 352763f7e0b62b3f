/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* org.rdmad1.Manager on /org/rdmad1: the bus glue and its vtable. What the methods do is in
 * manager.c; this file only translates calls, replies and errors. */
#include <assert.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bus-args.h"
#include "bus-polkit.h"
#include "bus-util.h"
#include "config.h"
#include "gid.h"
#include "json-util.h"
#include "log.h"
#include "link-bus.h"
#include "manager-bus.h"
#include "manager-checks.h"
#include "manager-emit.h"
#include "manager-trial-bus.h"
#include "manager.h"
#include "strv.h"

/* polkit actions (units/org.rdmad1.policy) of the methods that change state */
#define ACTION_RELOAD	 "org.rdmad1.reload"
#define ACTION_RECONCILE "org.rdmad1.reconcile"

static int method_list_links(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	Manager *m = userdata;
	int r;

	r = sd_bus_message_new_method_return(msg, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(sos)");
	for (size_t i = 0; r >= 0 && i < m->n_ports; i++) {
		_cleanup_free_ char *path = NULL;

		path = link_bus_path(m->ports[i].name);
		if (!path)
			return -ENOMEM;
		r = sd_bus_message_append(reply, "(sos)", m->ports[i].name, path,
					  config_state_to_string(m->ports[i].state));
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_send(NULL, reply, NULL);
}

static int method_get_link(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_free_ char *path = NULL;
	Manager *m = userdata;
	PortStatus *s;
	const char *name;
	int r;

	r = sd_bus_message_read(msg, "s", &name);
	if (r < 0)
		return r;
	r = manager_port_find(m, name, &s);
	if (r < 0)
		return bus_link_error(error, name, r);
	path = link_bus_path(s->name);
	if (!path)
		return -ENOMEM;
	return sd_bus_reply_method_return(msg, "o", path);
}

static int method_reload(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	_cleanup_strv_free_ char **errors = NULL;
	_cleanup_free_ char *joined = NULL;
	Manager *m = userdata;
	int r;

	r = bus_verify_polkit_async(&m->polkit, msg, ACTION_RELOAD, error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1; /* polkit is asked; called again with its answer */
	r = manager_reload(m);
	if (r == -EINVAL) {
		r = manager_config_errors(m, &errors);
		if (r >= 0)
			joined = strv_join(errors, "\n");
		if (!joined)
			return -ENOMEM;
		return sd_bus_error_setf(error, ERROR_INVALID_PROFILE,
					 "The profiles are invalid; nothing changed:\n%s", joined);
	}
	if (r < 0)
		return r;
	/* Answer with the profiles in force: when the reconcile the reload asked for ends. */
	r = manager_reconcile_wait(m, msg, false);
	if (r < 0)
		return r;
	return 1;
}

static int method_reconcile(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	Manager *m = userdata;
	int r;

	r = bus_verify_polkit_async(&m->polkit, msg, ACTION_RECONCILE, error);
	if (r < 0)
		return r;
	if (r == 0)
		return 1;
	/* answered when the full pass that begins after this call ends */
	manager_reconcile_all(m);
	r = manager_reconcile_wait(m, msg, true);
	if (r < 0)
		return r;
	return 1;
}

/* Plan() observes the host (sysfs, netlink) in slices on the main loop (manager-plan.c): for
 * root afresh at every call; for everyone else at most once per PLAN_REUSE_USEC, the answer
 * shared meanwhile, so that no local user can keep rdmad reading the kernel. */
static int method_plan(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	Manager *m = userdata;
	bool root = bus_sender_is_root(msg);
	uint64_t now = 0;
	int r;

	(void) sd_event_now(m->event, CLOCK_MONOTONIC, &now);
	if (!root && m->plan_shared && now < m->plan_shared_usec + PLAN_REUSE_USEC)
		return sd_bus_reply_method_return(msg, "s", m->plan_shared);
	r = manager_plan_wait(m, msg, root);
	if (r < 0)
		return sd_bus_error_set_errnof(error, r, "Failed to plan: %s", strerror(-r));
	return 1;
}

/* Answered when the document is written, in slices (manager-describe.c). */
static int method_describe(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	int r;

	r = manager_describe_wait(userdata, msg);
	return r < 0 ? r : 1;
}

static int method_resolve_gid(sd_bus_message *msg, void *userdata, sd_bus_error *error) {
	const char *name, *family_s, *roce;
	GidFamily family;
	GidType type;
	char gid[GID_STRING_MAX], q[ARG_QUOTE_MAX + 4];
	Manager *m = userdata;
	PortStatus *s;
	Gid g;
	int r;

	r = sd_bus_message_read(msg, "sss", &name, &family_s, &roce);
	if (r < 0)
		return r;
	if (bus_arg_gid_family(family_s, &family) < 0)
		return sd_bus_error_setf(
			error, SD_BUS_ERROR_INVALID_ARGS,
			"Unknown GID family '%s' (ipv4, ipv6, link-local, or empty "
			"for IPv4 else IPv6)",
			arg_quote(family_s, q));
	if (bus_arg_roce_version(roce, &type) < 0)
		return sd_bus_error_setf(error, SD_BUS_ERROR_INVALID_ARGS,
					 "Unknown RoCE version '%s' (v1, v2, or empty for v2)",
					 arg_quote(roce, q));
	r = manager_port_find(m, name, &s);
	if (r < 0)
		return bus_link_error(error, name, r);
	/* Root's answer reads the GID table now (and a difference schedules a reconcile);
	 * anyone else's comes from the last reconcile's: it neither reads nor schedules. */
	r = manager_gid_resolve(m, s, type, family, bus_sender_is_root(msg), &g);
	if (r == -ENODEV)
		return sd_bus_error_setf(error, ERROR_NO_SUCH_LINK, "%s went away", s->name);
	if (r < 0) {
		/* asked for nothing in particular: what it publishes (gids.publish) */
		GidChoice c = type < 0 && family < 0
				      ? s->publish
				      : (GidChoice){ .type = type, .family = family };
		char what[GID_CHOICE_STRING_MAX];

		gid_choice_describe(&c, what);
		return sd_bus_error_setf(error, ERROR_NO_GID, "%s has no %s GID%s%s%s", s->name,
					 what, s->netdev ? " (is an address configured on " : "",
					 s->netdev ? s->netdev : "", s->netdev ? "?)" : "");
	}
	gid_format(g.raw, gid);
	return sd_bus_reply_method_return(msg, "us", g.index, gid);
}

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
				const char *property, sd_bus_message *reply, void *userdata,
				sd_bus_error *error) {
	return sd_bus_message_append(reply, "s", PACKAGE_VERSION);
}

static int property_get_state(sd_bus *bus, const char *path, const char *interface,
			      const char *property, sd_bus_message *reply, void *userdata,
			      sd_bus_error *error) {
	return sd_bus_message_append(reply, "s", manager_state(userdata));
}

static int property_get_config_files(sd_bus *bus, const char *path, const char *interface,
				     const char *property, sd_bus_message *reply, void *userdata,
				     sd_bus_error *error) {
	Manager *m = userdata;

	return sd_bus_message_append_strv(reply, m->config ? m->config->files : NULL);
}

static int property_get_config_errors(sd_bus *bus, const char *path, const char *interface,
				      const char *property, sd_bus_message *reply, void *userdata,
				      sd_bus_error *error) {
	_cleanup_strv_free_ char **l = NULL;
	int r;

	r = manager_config_errors(userdata, &l);
	if (r < 0)
		return r;
	return sd_bus_message_append_strv(reply, l);
}

/* Each bucket's upper bound (UINT64_MAX: none) and how many dispatches took at most that long
 * and more than the bound before, since rdmad started. */
static int property_get_loop_dispatches(sd_bus *bus, const char *path, const char *interface,
					const char *property, sd_bus_message *reply, void *userdata,
					sd_bus_error *error) {
	Manager *m = userdata;
	int r;

	r = sd_bus_message_open_container(reply, 'a', "(tt)");
	for (size_t i = 0; r >= 0 && i < LOOP_DISPATCH_BUCKETS; i++)
		r = sd_bus_message_append(reply, "(tt)", loop_dispatch_bounds_usec[i],
					  m->loop_dispatches[i]);
	if (r < 0)
		return r;
	return sd_bus_message_close_container(reply);
}

/* clang-format off */
static const sd_bus_vtable manager_vtable[] = {
	SD_BUS_VTABLE_START(0),
	SD_BUS_PROPERTY("Version", "s", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
	SD_BUS_PROPERTY("State", "s", property_get_state, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ConfigFiles", "as", property_get_config_files, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("ConfigErrors", "as", property_get_config_errors, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("NcclGidIndex", "i", NULL, offsetof(Manager, nccl_gid_index), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("LastReconcileUSec", "t", NULL, offsetof(Manager, last_reconcile_usec), SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_PROPERTY("LoopDispatches", "a(tt)", property_get_loop_dispatches, 0, 0),
	SD_BUS_PROPERTY("Trial", "s", trial_property_get, 0, SD_BUS_VTABLE_PROPERTY_EMITS_INVALIDATION),
	SD_BUS_PROPERTY("LastTrial", "s", trial_property_get_last, 0, SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE),
	SD_BUS_METHOD_WITH_ARGS("ListLinks", SD_BUS_NO_ARGS, SD_BUS_RESULT("a(sos)", links), method_list_links, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("GetLink", SD_BUS_ARGS("s", name), SD_BUS_RESULT("o", path), method_get_link, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reload", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reload, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Reconcile", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, method_reconcile, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Plan", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json), method_plan, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Describe", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json), method_describe, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("ResolveGid", SD_BUS_ARGS("s", link, "s", family, "s", roce_version), SD_BUS_RESULT("u", index, "s", gid), method_resolve_gid, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_ARGS("PublishedGidChanged", SD_BUS_ARGS("s", link, "i", old_index, "i", new_index, "s", old_gid, "s", new_gid, "s", reason), 0),
	SD_BUS_SIGNAL_WITH_ARGS("DevlinkHealthChanged", SD_BUS_ARGS("s", device, "u", port, "s", reporter, "s", state, "t", errors, "t", recoveries), 0),
	SD_BUS_METHOD_WITH_ARGS("Preflight", SD_BUS_NO_ARGS, SD_BUS_RESULT("s", json), method_preflight, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("SelfTest", SD_BUS_ARGS("s", link, "s", peer, "u", size, "u", iterations, "u", timeout_sec), SD_BUS_RESULT("s", json), method_self_test, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Try", SD_BUS_ARGS("a(ss)", files, "t", timeout_usec, "a{sv}", options), SD_BUS_RESULT("s", json), trial_method_try, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Confirm", SD_BUS_ARGS("s", target), SD_BUS_RESULT("s", json), trial_method_confirm, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_METHOD_WITH_ARGS("Rollback", SD_BUS_NO_ARGS, SD_BUS_NO_RESULT, trial_method_rollback, SD_BUS_VTABLE_UNPRIVILEGED),
	SD_BUS_SIGNAL_WITH_ARGS("TrialEnded", SD_BUS_ARGS("s", outcome, "s", gate, "s", seen, "s", json), 0),
	SD_BUS_VTABLE_END,
};
/* clang-format on */

/* The core's emitter (manager-emit.h): what changed, as PropertiesChanged and signals. */
static void emit_manager_changed(Manager *m, char **properties) {
	if (bus_is_ready(m->bus))
		(void) sd_bus_emit_properties_changed_strv(m->bus, MANAGER_PATH, MANAGER_INTERFACE,
							   properties);
}

static void emit_gid_changed(Manager *m, const char *link, int32_t old_index, int32_t new_index,
			     const char *old_gid, const char *new_gid, const char *reason) {
	int r;

	if (!bus_is_ready(m->bus))
		return;
	r = sd_bus_emit_signal(m->bus, MANAGER_PATH, MANAGER_INTERFACE, "PublishedGidChanged",
			       "siisss", link, old_index, new_index, old_gid, new_gid, reason);
	if (r < 0)
		log_warning_errno(r, "Failed to emit PublishedGidChanged for %s", link);
}

static void emit_health_changed(Manager *m, const HealthReporter *r) {
	int e;

	if (!bus_is_ready(m->bus))
		return;
	e = sd_bus_emit_signal(m->bus, MANAGER_PATH, MANAGER_INTERFACE, "DevlinkHealthChanged",
			       "susstt", r->device, r->has_port ? r->port : UINT32_MAX, r->name,
			       health_state_to_string(r->state), r->errors, r->recoveries);
	if (e < 0)
		log_warning_errno(e, "Failed to emit DevlinkHealthChanged for %s %s", r->device,
				  r->name);
}

static void emitter_done(Manager *m) {
	manager_checks_done(m); /* Preflight() and SelfTest() at work */
	link_bus_signals_done(m);
}

static const ManagerEmitter bus_emitter = {
	.manager_changed = emit_manager_changed,
	.ports_changed = link_bus_ports_changed,
	.link_changed = link_bus_link_changed,
	.gid_changed = emit_gid_changed,
	.health_changed = emit_health_changed,
	.trial_ended = manager_trial_bus_emit_ended,
	.done = emitter_done,
};

static int on_name_acquired(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
	const sd_bus_error *e = sd_bus_message_get_error(reply);

	if (e)
		log_error("Failed to own the bus name " BUS_NAME ": %s (is the D-Bus policy "
			  "org.rdmad1.conf installed?)",
			  e->message);
	else
		log_info("Owning the bus name " BUS_NAME ".");
	return 0;
}

static int on_bus_reconnect_timer(sd_event_source *s, uint64_t usec, void *userdata);

static int bus_reconnect(sd_event_source *s, void *userdata) {
	Manager *m = userdata;
	int r;

	m->bus_reconnect = sd_event_source_unref(m->bus_reconnect);
	/* Their callers and polkit's answers were on the old connection. */
	polkit_registry_clear(&m->polkit);
	m->bus = sd_bus_flush_close_unref(m->bus);
	r = manager_connect_bus(m);
	if (r < 0) {
		/* Not even a socket to wait on (watch-bind waits for a missing one): try later. */
		log_warning_errno(r, "Failed to reconnect to the system bus, retrying in 5 s");
		r = sd_event_add_time_relative(m->event, &m->bus_reconnect, CLOCK_MONOTONIC,
					       5000000, 0, on_bus_reconnect_timer, m);
		if (r < 0)
			log_error_errno(r, "Failed to schedule the bus reconnect");
	}
	return 0;
}

static int on_bus_reconnect_timer(sd_event_source *s, uint64_t usec, void *userdata) {
	return bus_reconnect(s, userdata);
}

/* dbus-daemon restarted, or dropped rdmad: the connection is gone, and with it the bus name.
 * Nothing else in rdmad depends on the bus, so the links are left alone; a new connection
 * (out of this callback: sd-bus is dispatching on the old one) asks for the name again. */
static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error) {
	Manager *m = userdata;
	int r;

	log_warning("Lost the connection to the system bus (and " BUS_NAME "), reconnecting.");
	if (m->bus_reconnect)
		return 0;
	r = sd_event_add_defer(m->event, &m->bus_reconnect, bus_reconnect, m);
	if (r < 0)
		log_error_errno(r, "Failed to schedule the bus reconnect");
	return 0;
}

/* The system bus, or DBUS_SYSTEM_BUS_ADDRESS. At boot rdmad may start before dbus.socket:
 * sd-bus then waits for the socket to appear (watch-bind) and the daemon goes on meanwhile. */
int manager_connect_bus(Manager *m) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	const char *address = secure_getenv("DBUS_SYSTEM_BUS_ADDRESS");
	int r;

	assert(!m->bus);
	m->emitter = &bus_emitter;
	r = sd_bus_new(&bus);
	if (r >= 0)
		r = sd_bus_set_address(bus,
				       address ? address : "unix:path=/run/dbus/system_bus_socket");
	if (r >= 0)
		r = sd_bus_set_bus_client(bus, true);
	if (r >= 0)
		r = sd_bus_set_watch_bind(bus, true);
	if (r >= 0)
		r = sd_bus_set_description(bus, "bus-api-rdmad");
	if (r >= 0)
		r = sd_bus_start(bus);
	if (r < 0)
		return r;
	r = sd_bus_match_signal(bus, NULL, "org.freedesktop.DBus.Local",
				"/org/freedesktop/DBus/Local", "org.freedesktop.DBus.Local",
				"Disconnected", on_disconnected, m);
	if (r >= 0)
		r = sd_bus_add_object_vtable(bus, NULL, MANAGER_PATH, MANAGER_INTERFACE,
					     manager_vtable, m);
	if (r >= 0)
		r = sd_bus_add_object_manager(bus, NULL, MANAGER_PATH);
	if (r >= 0)
		r = link_bus_register(m, bus);
	if (r >= 0)
		r = sd_bus_request_name_async(bus, NULL, BUS_NAME, 0, on_name_acquired, m);
	if (r >= 0)
		r = sd_bus_attach_event(bus, m->event, SD_EVENT_PRIORITY_NORMAL);
	if (r < 0)
		return r;
	m->bus = TAKE_PTR(bus);
	return 0;
}
