/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A D-Bus client of org.rdmad1 that times what job launchers and monitoring do: GetLink and the
 * link's properties, Describe() and its floor (the same document from a peer that does nothing
 * else), and how many calls one client gets answered per second. With --during-reconcile
 * SECONDS, the same Get and Describe while another connection keeps rdmad reconciling the whole
 * host (Reconcile() back to back): how deaf a full pass makes the daemon. The worst Get round
 * trip then bounds rdmad's longest stall from below.
 * Prints figures; asserts nothing. The bus is $DBUS_SYSTEM_BUS_ADDRESS (bench-bus.sh). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>
#include <time.h>

static uint64_t now_ns(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000 + (uint64_t) ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, uint64_t *ns, size_t n) {
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("bench bus: %-48s p50 %7.1f us  p99 %7.1f us  max %7.1f us  (%zu calls)\n", what,
	       ns[n / 2] / 1e3, ns[(n * 99) / 100] / 1e3, ns[n - 1] / 1e3, n);
}

static int die(const char *what, int r, const sd_bus_error *e) {
	fprintf(stderr, "bench-bus: %s: %s\n", what, e && e->message ? e->message : strerror(-r));
	exit(EXIT_FAILURE);
}

static sd_bus_message *call(sd_bus *bus, const char *path, const char *iface, const char *method,
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
		r = sd_bus_call(bus, m, 0, &e, &reply);
	sd_bus_message_unref(m);
	if (r < 0)
		die(method, r, &e);
	return reply;
}

static atomic_bool stop_reconciling;
static atomic_ulong n_reconciles;

static void *reconciler(void *arg) {
	sd_bus *bus;
	uint64_t t0, worst = 0, total = 0;

	if (sd_bus_open_system(&bus) < 0)
		die("connect (reconciler)", -EIO, NULL);
	while (!stop_reconciling) {
		t0 = now_ns();
		sd_bus_message_unref(
			call(bus, "/org/rdmad1", "org.rdmad1.Manager", "Reconcile", NULL));
		t0 = now_ns() - t0;
		total += t0;
		if (t0 > worst)
			worst = t0;
		n_reconciles++;
	}
	printf("bench bus: %-48s mean %7.1f ms  max %7.1f ms  (%lu calls)\n",
	       "Reconcile(), whole host, back to back",
	       total / 1e6 / (n_reconciles ? n_reconciles : 1), worst / 1e6,
	       (unsigned long) n_reconciles);
	sd_bus_flush_close_unref(bus);
	return arg;
}

/* The event loop's worst stall, seen from outside: a Peer.Ping every millisecond on a third
 * connection, each one's round trip; rdmad answers it between two of its own steps. */
static atomic_bool stop_pinging;

static void *pinger(void *arg) {
	size_t n = 0, cap = 1 << 20;
	uint64_t *ns = calloc(cap, sizeof(*ns)), t0;
	const struct timespec ms = { .tv_nsec = 1000000 };
	sd_bus *bus;

	if (!ns || sd_bus_open_system(&bus) < 0)
		die("connect (pinger)", -EIO, NULL);
	while (!stop_pinging && n < cap) {
		t0 = now_ns();
		sd_bus_message_unref(
			call(bus, "/org/rdmad1", "org.freedesktop.DBus.Peer", "Ping", NULL));
		ns[n++] = now_ns() - t0;
		nanosleep(&ms, NULL);
	}
	report("Peer.Ping every 1 ms during reconciles", ns, n);
	printf("bench bus: %-48s %7.2f ms\n", "the loop's worst stall (slowest Ping)",
	       ns[n - 1] / 1e6);
	free(ns);
	sd_bus_flush_close_unref(bus);
	return arg;
}

/* Get, then Describe, timed while the reconciler runs, for about secs seconds in all: Gets
 * alone for the first half, so that there are thousands of them and their p99 is not the one
 * or two slowest of a hundred (a Describe() at 4,096 links takes half a second), and
 * Describe() alone for the second. */
static void during_reconcile(sd_bus *bus, unsigned secs) {
	size_t n_get = 0, n_describe = 0, cap = 1 << 20;
	uint64_t *get = calloc(cap, sizeof(*get)), *describe = calloc(cap, sizeof(*describe));
	uint64_t t0, half, end;
	pthread_t t, p;

	if (!get || !describe || pthread_create(&t, NULL, reconciler, NULL) != 0)
		die("during-reconcile", -ENOMEM, NULL);
	while (n_reconciles == 0) /* the first Reconcile() is under way, or done */
		sd_bus_message_unref(
			call(bus, "/org/rdmad1", "org.freedesktop.DBus.Peer", "Ping", NULL));
	if (pthread_create(&p, NULL, pinger, NULL) != 0)
		die("during-reconcile", -ENOMEM, NULL);
	half = now_ns() + (uint64_t) secs * 500000000;
	end = half + (uint64_t) secs * 500000000;
	while (now_ns() < half && n_get < cap) {
		t0 = now_ns();
		sd_bus_message_unref(call(bus, "/org/rdmad1/link/rxe0_2f1",
					  "org.freedesktop.DBus.Properties", "Get", "ss",
					  "org.rdmad1.Link", "PreferredGidIndex"));
		get[n_get++] = now_ns() - t0;
	}
	while (now_ns() < end && n_describe < cap) {
		t0 = now_ns();
		sd_bus_message_unref(
			call(bus, "/org/rdmad1", "org.rdmad1.Manager", "Describe", NULL));
		describe[n_describe++] = now_ns() - t0;
	}
	stop_reconciling = true;
	pthread_join(t, NULL);
	stop_pinging = true;
	pthread_join(p, NULL);
	if (n_get > 0)
		report("Get(PreferredGidIndex) during reconciles", get, n_get);
	if (n_describe > 0)
		report("Describe() during reconciles", describe, n_describe);
	free(get);
	free(describe);
}

/* The floor under Describe(): the same document, sent back by a peer that does nothing else.
 * The peer is a second connection in a thread of this process; method calls to it are denied on
 * a system bus (only org.rdmad1's are allowed), so the request and the answer are unicast
 * signals, which dbus-daemon relays, checks and validates as it does a call and its reply. */
static const char *floor_text;
static atomic_bool floor_ready, stop_floor;
static const char *floor_peer;

static int on_floor_ask(sd_bus_message *m, void *userdata, sd_bus_error *e) {
	sd_bus_message *answer = NULL;
	sd_bus *bus = sd_bus_message_get_bus(m);
	int r;

	(void) userdata, (void) e;
	if (!sd_bus_message_is_signal(m, "org.rdmad1.Bench", "Ask"))
		return 0;
	r = sd_bus_message_new_signal(bus, &answer, "/org/rdmad1/bench", "org.rdmad1.Bench",
				      "Answer");
	if (r >= 0)
		r = sd_bus_message_set_destination(answer, sd_bus_message_get_sender(m));
	if (r >= 0)
		r = sd_bus_message_append(answer, "s", floor_text);
	if (r >= 0)
		r = sd_bus_send(bus, answer, NULL);
	sd_bus_message_unref(answer);
	if (r < 0)
		die("floor answer", r, NULL);
	return 1;
}

static void *floor_peer_run(void *arg) {
	sd_bus *bus;

	if (sd_bus_open_system(&bus) < 0 || sd_bus_add_filter(bus, NULL, on_floor_ask, NULL) < 0 ||
	    sd_bus_get_unique_name(bus, &floor_peer) < 0)
		die("connect (floor peer)", -EIO, NULL);
	floor_ready = true;
	while (!stop_floor) {
		if (sd_bus_process(bus, NULL) > 0)
			continue;
		(void) sd_bus_wait(bus, 100000);
	}
	sd_bus_flush_close_unref(bus);
	return arg;
}

static int on_floor_answer(sd_bus_message *m, void *userdata, sd_bus_error *e) {
	(void) e;
	if (!sd_bus_message_is_signal(m, "org.rdmad1.Bench", "Answer"))
		return 0;
	*(bool *) userdata = true;
	return 1;
}

static void floor_describe(const char *text, uint64_t *ns, size_t n) {
	sd_bus *bus;
	pthread_t t;
	bool answered;

	floor_text = text;
	if (pthread_create(&t, NULL, floor_peer_run, NULL) != 0)
		die("floor", -ENOMEM, NULL);
	if (sd_bus_open_system(&bus) < 0 ||
	    sd_bus_add_filter(bus, NULL, on_floor_answer, &answered) < 0)
		die("connect (floor)", -EIO, NULL);
	while (!floor_ready)
		sched_yield();
	for (size_t i = 0; i < n; i++) {
		sd_bus_message *ask = NULL;
		uint64_t t0 = now_ns();
		int r;

		answered = false;
		r = sd_bus_message_new_signal(bus, &ask, "/org/rdmad1/bench", "org.rdmad1.Bench",
					      "Ask");
		if (r >= 0)
			r = sd_bus_message_set_destination(ask, floor_peer);
		if (r >= 0)
			r = sd_bus_send(bus, ask, NULL);
		sd_bus_message_unref(ask);
		while (r >= 0 && !answered)
			if ((r = sd_bus_process(bus, NULL)) == 0)
				r = sd_bus_wait(bus, UINT64_MAX);
		if (r < 0)
			die("floor ask", r, NULL);
		ns[i] = now_ns() - t0;
	}
	stop_floor = true;
	pthread_join(t, NULL);
	sd_bus_flush_close_unref(bus);
}

int main(int argc, char **argv) {
	size_t iterations = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000, n_links = 0;
	char **links = NULL;
	sd_bus_message *reply;
	const char *name, *path, *state;
	char *describe = NULL, what[64];
	uint64_t *ns, t0, end, calls = 0;
	sd_bus *bus;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		die("connect", r, NULL);
	if (argc > 2 && strcmp(argv[1], "--during-reconcile") == 0) {
		during_reconcile(bus, (unsigned) strtoul(argv[2], NULL, 10));
		sd_bus_flush_close_unref(bus);
		return 0;
	}
	reply = call(bus, "/org/rdmad1", "org.rdmad1.Manager", "ListLinks", NULL);
	r = sd_bus_message_enter_container(reply, 'a', "(sos)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(sos)", &name, &path, &state)) > 0) {
		links = realloc(links, (n_links + 1) * sizeof(char *));
		links[n_links++] = strdup(name);
	}
	if (r < 0 || n_links == 0)
		die("ListLinks", r < 0 ? r : -ENODEV, NULL);
	sd_bus_message_unref(reply);
	printf("bench bus: org.rdmad1 with %zu links, one client, synchronous calls\n", n_links);

	ns = calloc(iterations > 50 ? iterations : 50, sizeof(*ns)); /* Describe(): 50 calls */
	srand(1);
	for (size_t i = 0; i < iterations + 100; i++) {
		const char *l = links[(size_t) rand() % n_links];

		t0 = now_ns();
		reply = call(bus, "/org/rdmad1", "org.rdmad1.Manager", "GetLink", "s", l);
		if (sd_bus_message_read(reply, "o", &path) < 0)
			die("GetLink reply", -EBADMSG, NULL);
		sd_bus_message_unref(call(bus, path, "org.freedesktop.DBus.Properties", "GetAll",
					  "s", "org.rdmad1.Link"));
		sd_bus_message_unref(reply);
		if (i >= 100) /* after a warm-up */
			ns[i - 100] = now_ns() - t0;
	}
	report("GetLink + GetAll(org.rdmad1.Link), random link", ns, iterations);

	for (size_t i = 0; i < iterations; i++) {
		t0 = now_ns();
		sd_bus_message_unref(call(bus, "/org/rdmad1/link/rxe0_2f1",
					  "org.freedesktop.DBus.Properties", "Get", "ss",
					  "org.rdmad1.Link", "PreferredGidIndex"));
		ns[i] = now_ns() - t0;
	}
	report("Get(PreferredGidIndex) of one link", ns, iterations);

	for (size_t i = 0; i < 50; i++) {
		t0 = now_ns();
		reply = call(bus, "/org/rdmad1", "org.rdmad1.Manager", "Describe", NULL);
		ns[i] = now_ns() - t0;
		if (i == 49 &&
		    (sd_bus_message_read(reply, "s", &state) < 0 || !(describe = strdup(state))))
			die("Describe reply", -EBADMSG, NULL);
		sd_bus_message_unref(reply);
	}
	report("Describe(), the whole host", ns, 50);
	floor_describe(describe, ns, 50);
	snprintf(what, sizeof(what), "floor: the same %zu kB, peer to peer",
		 strlen(describe) / 1024);
	report(what, ns, 50);
	free(describe);

	end = now_ns() + 5ull * 1000000000;
	for (t0 = now_ns(); now_ns() < end; calls++)
		sd_bus_message_unref(call(bus, "/org/rdmad1/link/rxe0_2f1",
					  "org.freedesktop.DBus.Properties", "Get", "ss",
					  "org.rdmad1.Link", "State"));
	printf("bench bus: %-48s %7.0f calls/s\n", "sustained Get(State), one client, 5 s",
	       calls / ((now_ns() - t0) / 1e9));

	for (size_t i = 0; i < n_links; i++)
		free(links[i]);
	free(links);
	free(ns);
	sd_bus_flush_close_unref(bus);
	return 0;
}
