/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bushammer - a D-Bus reader of org.rdmad1 that never pauses: Manager.Describe() and the
 * State property of each link object given, round after round, on one connection (no process
 * per call, so the guest's one CPU goes to the calls, not to fork and exec). Until SIGTERM,
 * then prints "bushammer: N rounds, E errors" and exits 0 (1 when a call ever failed; a call
 * cut short by the SIGTERM itself is not counted).
 * The bus is $DBUS_SYSTEM_BUS_ADDRESS. soak.sh runs it beside the storm.
 *
 * Usage: bushammer LINK-PATH...
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <systemd/sd-bus.h>

static volatile sig_atomic_t stop;

static void on_term(int sig) {
	(void) sig;
	stop = 1;
}

static int one(sd_bus *bus, const char *path, const char *iface, const char *method,
	       const char *types, ...) {
	sd_bus_error e = SD_BUS_ERROR_NULL;
	sd_bus_message *m = NULL, *reply = NULL;
	va_list ap;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, "org.rdmad1", path, iface, method);
	if (r >= 0 && types) {
		va_start(ap, types);
		r = sd_bus_message_appendv(m, types, ap);
		va_end(ap);
	}
	if (r >= 0)
		r = sd_bus_call(bus, m, 30 * 1000000ULL, &e, &reply);
	if (r < 0 && !stop)
		fprintf(stderr, "bushammer: %s %s: %s\n", path, method,
			e.message ? e.message : strerror(-r));
	sd_bus_error_free(&e);
	sd_bus_message_unref(reply);
	sd_bus_message_unref(m);
	return r;
}

int main(int argc, char **argv) {
	struct sigaction sa = { .sa_handler = on_term };
	unsigned long rounds = 0, errors = 0;
	sd_bus *bus = NULL;
	int r;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "bushammer: no system bus: %s\n", strerror(-r));
		return 1;
	}
	while (!stop) {
		if (one(bus, "/org/rdmad1", "org.rdmad1.Manager", "Describe", NULL) < 0 && !stop)
			errors++;
		for (int i = 1; i < argc && !stop; i++)
			if (one(bus, argv[i], "org.freedesktop.DBus.Properties", "Get", "ss",
				"org.rdmad1.Link", "State") < 0 && !stop)
				errors++;
		rounds++;
	}
	printf("bushammer: %lu rounds, %lu errors\n", rounds, errors);
	sd_bus_flush_close_unref(bus);
	return errors > 0;
}
