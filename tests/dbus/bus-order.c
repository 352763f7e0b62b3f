/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bus-order LINK-PATH: the order in which rdmad answers calls sent together on one connection to
 * the system bus ($DBUS_SYSTEM_BUS_ADDRESS): Plan(), Reconcile(), then Peer.Ping, Get(State) of
 * LINK-PATH, Describe() and a second Reconcile(), all sent before any answer is read. Prints one
 * line per answer as it comes, "NAME ok" or "NAME ERROR-NAME", in order of arrival.
 * never-deaf-test.sh judges the order: a daemon that observes in slices answers the Ping, the
 * Get and the Describe before the Plan() and the first Reconcile() end, and the second
 * Reconcile() after the first (it waits for a full pass that begins after the call). No timing
 * is measured. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

static unsigned n_answers;

static int on_reply(sd_bus_message *m, void *userdata, sd_bus_error *ret_error) {
	const sd_bus_error *e = sd_bus_message_get_error(m);

	printf("%s %s\n", (const char *) userdata, e ? e->name : "ok");
	fflush(stdout);
	n_answers++;
	return 1;
}

static int send_call(sd_bus *bus, const char *name, const char *path, const char *iface,
		     const char *method, const char *link_path) {
	sd_bus_message *m = NULL;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, "org.rdmad1", path, iface, method);
	if (r >= 0 && link_path)
		r = sd_bus_message_append(m, "ss", "org.rdmad1.Link", "State");
	if (r >= 0)
		r = sd_bus_call_async(bus, NULL, m, on_reply, (void *) name, 600 * 1000000ULL);
	sd_bus_message_unref(m);
	if (r < 0)
		fprintf(stderr, "bus-order: %s: %s\n", name, strerror(-r));
	return r;
}

int main(int argc, char **argv) {
	sd_bus *bus = NULL;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: bus-order LINK-PATH\n");
		return 2;
	}
	r = sd_bus_open_system(&bus);
	if (r < 0) {
		fprintf(stderr, "bus-order: cannot connect: %s\n", strerror(-r));
		return 1;
	}
	if (send_call(bus, "Plan", "/org/rdmad1", "org.rdmad1.Manager", "Plan", NULL) < 0 ||
	    send_call(bus, "Reconcile", "/org/rdmad1", "org.rdmad1.Manager", "Reconcile", NULL) <
		    0 ||
	    send_call(bus, "Ping", "/org/rdmad1", "org.freedesktop.DBus.Peer", "Ping", NULL) < 0 ||
	    send_call(bus, "Get", argv[1], "org.freedesktop.DBus.Properties", "Get", argv[1]) < 0 ||
	    send_call(bus, "Describe", "/org/rdmad1", "org.rdmad1.Manager", "Describe", NULL) < 0 ||
	    send_call(bus, "Reconcile2", "/org/rdmad1", "org.rdmad1.Manager", "Reconcile", NULL) <
		    0)
		return 1;
	while (n_answers < 6) {
		r = sd_bus_process(bus, NULL);
		if (r < 0) {
			fprintf(stderr, "bus-order: %s\n", strerror(-r));
			return 1;
		}
		if (r == 0)
			(void) sd_bus_wait(bus, UINT64_MAX);
	}
	sd_bus_flush_close_unref(bus);
	return 0;
}
