/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl monitor: follow rdmad's PropertiesChanged, InterfacesAdded/Removed, its
 * DevlinkHealthChanged and its coming and going on the bus, one line per change, until ^C. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "bus-client.h"
#include "bus-json.h"
#include "output.h"
#include "rdmactl.h"
#include "terminal.h"

static bool arg_json;

static char *object_name(const char *path) {
	char *name = NULL;

	if (sd_bus_path_decode(path, RDMAD_LINK_PREFIX, &name) > 0)
		return name;
	return strdup(streq(path, RDMAD_MANAGER_PATH) ? "rdmad" : path);
}

/* One event: JSON on one line, or "TIME OBJECT what". */
static void emit(const char *object, const char *event, json_object *data) {
	char when[16];
	time_t now = time(NULL);
	struct tm tm;

	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	if (arg_json) {
		_cleanup_(json_object_putp) json_object *o = json_object_new_object();

		if (!o || json_add_int(o, "time", (int64_t) now) < 0 ||
		    json_add_string(o, "object", object) < 0 ||
		    json_add_string(o, "event", event) < 0 ||
		    (data && json_object_object_add(o, "changed", json_object_get(data)) < 0))
			return;
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	} else if (!data)
		printf("%s %s %s\n", when, object, event);
	else {
		struct json_object_iter it;

		/* the C form: the plain macro is a GNU statement expression (clang -Wpedantic) */
		json_object_object_foreachC(data, it) {
			const char *key = it.key;
			json_object *v = it.val;

			printf("%s %s %s: ", when, object, key);
			if (json_object_is_type(v, json_type_array))
				printf("%zu entr%s\n", json_object_array_length(v),
				       json_object_array_length(v) == 1 ? "y" : "ies");
			else if (streq(key, "State"))
				printf("%s%s%s\n", state_color(json_object_get_string(v)),
				       json_object_get_string(v), color_reset());
			else
				printf("%s\n", json_object_get_string(v));
		}
	}
	fflush(stdout);
}

static int on_properties_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	_cleanup_(json_object_putp) json_object *changed = NULL;
	_cleanup_free_ char *object = object_name(sd_bus_message_get_path(m));
	const char *interface;
	int r;

	r = sd_bus_message_read(m, "s", &interface);
	if (r >= 0)
		r = bus_message_read_json(m, &changed);
	if (r < 0 || !object) {
		fprintf(stderr, "rdmactl monitor: cannot read a PropertiesChanged signal: %s\n",
			strerror(r < 0 ? -r : ENOMEM));
		return 0;
	}
	emit(object, "changed", changed);
	return 0;
}

static int on_interfaces(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	_cleanup_free_ char *object = NULL;
	const char *path;

	if (sd_bus_message_read(m, "o", &path) < 0)
		return 0;
	object = object_name(path);
	if (object)
		emit(object, userdata, NULL);
	return 0;
}

/* "12:00:01 pci/0000:08:00.0 health fw_fatal: error, 3 errors, 2 recoveries" */
static int on_health_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	_cleanup_(json_object_putp) json_object *data = NULL;
	const char *device, *reporter, *state;
	uint64_t errors, recoveries;
	uint32_t port;
	char when[16];
	time_t now = time(NULL);
	struct tm tm;

	if (sd_bus_message_read(m, "susstt", &device, &port, &reporter, &state, &errors,
				&recoveries) < 0)
		return 0;
	if (arg_json) {
		data = json_object_new_object();
		if (!data || json_add_string(data, "reporter", reporter) < 0 ||
		    (port != UINT32_MAX && json_add_int(data, "port", port) < 0) ||
		    json_add_string(data, "state", state) < 0 ||
		    json_add_int(data, "errors", (int64_t) errors) < 0 ||
		    json_add_int(data, "recoveries", (int64_t) recoveries) < 0)
			return 0;
		emit(device, "devlink-health", data);
		return 0;
	}
	strftime(when, sizeof(when), "%H:%M:%S", localtime_r(&now, &tm));
	printf("%s %s health %s: %s%s%s, %" PRIu64 " errors, %" PRIu64 " recoveries\n", when,
	       device, reporter, state_color(streq(state, "error") ? "failed" : "converged"), state,
	       color_reset(), errors, recoveries);
	fflush(stdout);
	return 0;
}

static int on_owner_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	const char *name, *old, *new;

	if (sd_bus_message_read(m, "sss", &name, &old, &new) < 0)
		return 0;
	emit("rdmad", *new ? "started" : "stopped", NULL);
	return 0;
}

int verb_monitor(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_event_unrefp) sd_event *event = NULL;
	sigset_t mask;
	int r;

	arg_json = o->json;
	r = rdmad_bus_open(&bus);
	if (r < 0) {
		fprintf(stderr, "rdmactl monitor: cannot reach the system bus: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (r == 0)
		emit("rdmad", "not running", NULL);
	r = sd_bus_add_match(bus, NULL,
			     "type='signal',sender='" RDMAD_BUS_NAME "',"
			     "interface='org.freedesktop.DBus.Properties',"
			     "member='PropertiesChanged',path_namespace='" RDMAD_MANAGER_PATH "'",
			     on_properties_changed, NULL);
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesAdded",
					on_interfaces, (void *) "appeared");
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					"org.freedesktop.DBus.ObjectManager", "InterfacesRemoved",
					on_interfaces, (void *) "disappeared");
	if (r >= 0)
		r = sd_bus_match_signal(bus, NULL, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					RDMAD_MANAGER_IFACE, "DevlinkHealthChanged",
					on_health_changed, NULL);
	if (r >= 0)
		r = sd_bus_add_match(bus, NULL,
				     "type='signal',sender='org.freedesktop.DBus',"
				     "member='NameOwnerChanged',arg0='" RDMAD_BUS_NAME "'",
				     on_owner_changed, NULL);
	if (r >= 0)
		r = sd_event_default(&event);
	if (r >= 0)
		r = sd_bus_attach_event(bus, event, 0);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	if (r >= 0)
		r = sd_event_add_signal(event, NULL, SIGINT, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(event, NULL, SIGTERM, NULL, NULL);
	if (r < 0) {
		fprintf(stderr, "rdmactl monitor: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	/* The matches are in place once this returns: what changes from now on is printed. Said
	 * on stderr with --json too: a script reading the objects on stdout knows from it when a
	 * change it makes will be seen (tests/bus-test.sh waits for it). */
	(void) sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
				  "org.freedesktop.DBus.Peer", "Ping", NULL, NULL, NULL);
	fprintf(stderr, "Following rdmad; press ^C to stop.\n");
	r = sd_event_loop(event);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
