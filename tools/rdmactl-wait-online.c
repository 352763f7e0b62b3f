/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl wait-online: wait until rdmad reports the links converged and publishing a GID, as
 * systemd-networkd-wait-online does for networkd. Driven by rdmad's signals (its coming and
 * going on the bus, PropertiesChanged, InterfacesAdded/Removed, PublishedGidChanged), never
 * by polling: each burst of signals is one more look at Describe(). Never starts rdmad: a
 * waiter started before it (early boot, a restart) waits for it to appear. */
#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-event.h>

#include "bus-client.h"
#include "rdmactl.h"
#include "strv.h"

#define WAIT_ONLINE_TIMEOUT_DEFAULT 120

typedef struct Waiter {
	const Options *o;
	sd_bus *bus;
	sd_event_source *look; /* one look after the signals queued so far */
	char **why;	       /* the last look: why each link is not ready */
	bool ready;
	bool timed_out;
} Waiter;

/* "rdmad is not running", "rxe0/1: pending (roce.tos pending)", ... */
static int why_add(char ***l, const char *format, ...) _printf_(2, 3);
static int why_add(char ***l, const char *format, ...) {
	va_list ap;
	char *s;
	int r;

	va_start(ap, format);
	r = vasprintf(&s, format, ap);
	va_end(ap);
	return strv_consume(l, r < 0 ? NULL : s);
}

/* A Manager method call that does not activate rdmad (org.rdmad1.service would). */
static int call_no_start(sd_bus *bus, const char *method, sd_bus_error *error,
			 sd_bus_message **ret, const char *types, ...) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					   RDMAD_MANAGER_IFACE, method);
	if (r < 0)
		return r;
	r = sd_bus_message_set_auto_start(m, 0);
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r < 0)
		return r;
	return sd_bus_call(bus, m, 0, error, ret);
}

/* The entry of links that name means: DEV/PORT, a one-port DEV, or a netdev with one port. */
static json_object *link_lookup(json_object *links, const char *name) {
	json_object *by_dev = NULL, *by_netdev = NULL;
	unsigned n_dev = 0, n_netdev = 0;

	for (size_t i = 0; i < json_object_array_length(links); i++) {
		json_object *l = json_object_array_get_idx(links, i);

		if (streq_ptr(json_get_string(l, "link"), name))
			return l;
		if (streq_ptr(json_get_string(l, "device"), name) && n_dev++ == 0)
			by_dev = l;
		if (streq_ptr(json_get_string(l, "netdev"), name) && n_netdev++ == 0)
			by_netdev = l;
	}
	return n_dev == 1 ? by_dev : n_netdev == 1 ? by_netdev : NULL;
}

/* NULL when l is ready, else why not (a new string; "" without memory). */
static char *link_judge(Waiter *w, json_object *l) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	const char *name = json_get_string(l, "link"), *state = json_get_string(l, "state");
	const char *netdev = json_get_string(l, "netdev"), *err = json_get_string(l, "last_error");
	json_object *settings, *index;
	char *why = NULL;

	if (!streq_ptr(state, "converged")) {
		_cleanup_free_ char *pending = NULL;
		size_t size = 0, n = 0;
		FILE *f = open_memstream(&pending, &size);

		/* the settings that hold it back, as rdmactl status shows them */
		if (f && json_object_object_get_ex(l, "settings", &settings))
			for (size_t i = 0; i < json_object_array_length(settings); i++) {
				json_object *s = json_object_array_get_idx(settings, i);
				const char *result = json_get_string(s, "result");
				const char *problem = json_get_string(s, "error");

				if (!result || streq(result, "converged"))
					continue;
				fprintf(f, "%s%s %s%s%s", n++ ? "; " : " (",
					json_get_string(s, "setting"), result, problem ? ": " : "",
					strempty(problem));
			}
		if (f && n > 0)
			fputc(')', f);
		if (f)
			fclose(f);
		if (asprintf(&why, "%s: %s%s%s%s", name, strna(state), strempty(pending),
			     err ? ": " : "", strempty(err)) < 0)
			return strdup("");
		return why;
	}
	if (!w->o->family) {
		if (json_object_object_get_ex(l, "preferred_gid_index", &index))
			return NULL;
		if (asprintf(&why,
			     "%s: converged, but has no RoCE v2 GID of an IPv4 or global IPv6 address "
			     "(is an address configured on %s?)",
			     name, netdev ? netdev : "its netdev") < 0)
			return strdup("");
		return why;
	}
	/* rdmad's own choice for the family, as `rdmactl gid --family` asks it */
	if (call_no_start(w->bus, "ResolveGid", &error, NULL, "sss", name, w->o->family, "v2") >= 0)
		return NULL;
	if (asprintf(&why, "%s: %s", name, error.message ? error.message : "no GID") < 0)
		return strdup("");
	return why;
}

/* Look at rdmad once: set w->ready, or w->why. */
static int waiter_look(Waiter *w) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(json_object_putp) json_object *d = NULL;
	_cleanup_strv_free_ char **why = NULL;
	json_object *links;
	unsigned n_ready = 0, n_judged = 0;
	const char *s;
	int r;

	r = call_no_start(w->bus, "Describe", &error, &reply, NULL);
	if (r < 0) {
		w->why = strv_free(w->why);
		return why_add(&w->why, "rdmad is not running (%s)",
			       error.message ? error.message : strerror(-r));
	}
	r = sd_bus_message_read(reply, "s", &s);
	if (r < 0)
		return r;
	d = json_tokener_parse(s);
	if (!d)
		return -EBADMSG;
	if (!json_object_object_get_ex(d, "links", &links) ||
	    !json_object_is_type(links, json_type_array))
		return -EBADMSG;
	if (streq_ptr(json_get_string(d, "state"), "starting"))
		r = strv_extend(&why, "rdmad has not finished its first reconcile");
	else if (w->o->links)
		STRV_FOREACH(name, w->o->links) {
			json_object *l = link_lookup(links, *name);
			char *no;

			if (!l) {
				r = why_add(&why, "%s: no such RDMA link (yet)", *name);
				if (r < 0)
					return r;
				continue;
			}
			n_judged++;
			no = link_judge(w, l);
			if (!no)
				n_ready++;
			else if ((r = strv_consume(&why, no)) < 0)
				return r;
		}
	else {
		for (size_t i = 0; i < json_object_array_length(links); i++) {
			json_object *l = json_object_array_get_idx(links, i);
			char *no;

			if (streq_ptr(json_get_string(l, "state"), "unmanaged"))
				continue;
			n_judged++;
			no = link_judge(w, l);
			if (!no)
				n_ready++;
			else if ((r = strv_consume(&why, no)) < 0)
				return r;
		}
		if (n_judged == 0)
			r = strv_extend(&why, "no link is managed by a profile (yet)");
	}
	if (r < 0)
		return r;
	w->ready = n_judged > 0 && (w->o->any ? n_ready > 0 : n_ready == n_judged);
	strv_free(w->why);
	w->why = TAKE_PTR(why);
	return 0;
}

static int on_look(sd_event_source *s, void *userdata) {
	Waiter *w = userdata;
	int r;

	r = waiter_look(w);
	if (r < 0) {
		fprintf(stderr, "rdmactl wait-online: cannot read rdmad's state: %s\n", strerror(-r));
		return sd_event_exit(sd_event_source_get_event(s), EXIT_FAILURE);
	}
	if (w->ready)
		return sd_event_exit(sd_event_source_get_event(s), EXIT_SUCCESS);
	return 0;
}

/* Any signal of rdmad's, or about its name: look again once the queue is drained. */
static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	Waiter *w = userdata;

	return sd_event_source_set_enabled(w->look, SD_EVENT_ONESHOT);
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
	Waiter *w = userdata;

	w->timed_out = true;
	return sd_event_exit(sd_event_source_get_event(s), EXIT_FAILURE);
}

static int on_interrupt(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
	fprintf(stderr, "rdmactl wait-online: interrupted\n");
	return sd_event_exit(sd_event_source_get_event(s), EXIT_FAILURE);
}

int verb_wait_online(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_event_source_unrefp) sd_event_source *look = NULL;
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	unsigned long timeout = o->timeout_given ? o->timeout : WAIT_ONLINE_TIMEOUT_DEFAULT;
	static const char *const matches[] = {
		"type='signal',sender='" RDMAD_BUS_NAME "',interface='org.freedesktop.DBus."
		"Properties',member='PropertiesChanged',path_namespace='" RDMAD_MANAGER_PATH "'",
		"type='signal',sender='" RDMAD_BUS_NAME "',path='" RDMAD_MANAGER_PATH "',"
		"interface='org.freedesktop.DBus.ObjectManager'",
		"type='signal',sender='" RDMAD_BUS_NAME "',path='" RDMAD_MANAGER_PATH "',"
		"interface='" RDMAD_MANAGER_IFACE "',member='PublishedGidChanged'",
		"type='signal',sender='org.freedesktop.DBus',member='NameOwnerChanged',"
		"arg0='" RDMAD_BUS_NAME "'",
	};
	Waiter w = { .o = o };
	sigset_t mask;
	int r;

	if (o->family && !streq(o->family, "ipv4") && !streq(o->family, "ipv6")) {
		fprintf(stderr, "rdmactl wait-online: --gid wants ipv4 or ipv6, got '%s'\n",
			o->family);
		return EXIT_FAILURE;
	}
	r = rdmad_bus_open(&bus);
	if (r < 0) {
		fprintf(stderr, "rdmactl wait-online: cannot reach the system bus: %s\n",
			strerror(-r));
		return EXIT_FAILURE;
	}
	w.bus = bus;
	r = sd_event_default(&event);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(matches); i++)
		r = sd_bus_add_match(bus, NULL, matches[i], on_signal, &w); /* synchronous */
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
	/* after the bus's own dispatch: a burst of signals is one look */
	if (r >= 0)
		r = sd_event_add_defer(event, &look, on_look, &w);
	if (r >= 0)
		r = sd_event_source_set_priority(look, SD_EVENT_PRIORITY_IDLE);
	if (r >= 0)
		r = sd_event_add_time_relative(event, NULL, CLOCK_MONOTONIC,
					       (uint64_t) timeout * 1000000, 0, on_timeout, &w);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (r >= 0)
		r = sd_event_add_signal(event, NULL, SIGINT, on_interrupt, NULL);
	if (r >= 0)
		r = sd_event_add_signal(event, NULL, SIGTERM, on_interrupt, NULL);
	if (r < 0) {
		fprintf(stderr, "rdmactl wait-online: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	w.look = look;
	/* the matches are in place: a first look now, then one after each burst of signals */
	r = sd_event_loop(event);
	if (w.timed_out) {
		fprintf(stderr, "rdmactl wait-online: not online after %lu s:\n", timeout);
		STRV_FOREACH(s, w.why)
			fprintf(stderr, "  %s\n", *s);
	}
	strv_free(w.why);
	return r == EXIT_SUCCESS && w.ready ? EXIT_SUCCESS : EXIT_FAILURE;
}
