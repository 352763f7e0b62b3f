/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* bus-get-latency PATH INTERFACE PROPERTY CALLS [LABEL]: CALLS Properties.Get of PROPERTY on
 * org.rdmad1's PATH, one after the other on one connection to the system bus
 * ($DBUS_SYSTEM_BUS_ADDRESS), each timed from its send to its answer. Prints one line,
 * "LABEL: Get(PROPERTY) p50 X us  p99 Y us  max Z us  (N calls)", and exits 0 when every call
 * was answered without error, 1 at the first that was not (each call waits 120 s at most).
 * A figure, for tests/sriov-write-test.sh and bench/bench-sriov-write.sh: nothing is judged on
 * it. */
#include <errno.h>
#include <stdint.h>
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

int main(int argc, char **argv) {
	sd_bus *bus = NULL;
	uint64_t *ns;
	size_t n;
	int r;

	if (argc < 5 || (n = strtoul(argv[4], NULL, 10)) == 0) {
		fprintf(stderr, "usage: bus-get-latency PATH INTERFACE PROPERTY CALLS [LABEL]\n");
		return 2;
	}
	ns = calloc(n, sizeof(*ns));
	r = ns ? sd_bus_open_system(&bus) : -ENOMEM;
	if (r < 0) {
		fprintf(stderr, "bus-get-latency: connect: %s\n", strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		sd_bus_error e = SD_BUS_ERROR_NULL;
		sd_bus_message *m = NULL, *reply = NULL;
		uint64_t t0 = now_ns();

		r = sd_bus_message_new_method_call(bus, &m, "org.rdmad1", argv[1],
						   "org.freedesktop.DBus.Properties", "Get");
		if (r >= 0)
			r = sd_bus_message_append(m, "ss", argv[2], argv[3]);
		if (r >= 0)
			r = sd_bus_call(bus, m, 120 * 1000000ULL, &e, &reply);
		ns[i] = now_ns() - t0;
		sd_bus_message_unref(m);
		sd_bus_message_unref(reply);
		if (r < 0) {
			fprintf(stderr, "bus-get-latency: Get(%s) #%zu: %s\n", argv[3], i + 1,
				e.message ? e.message : strerror(-r));
			sd_bus_error_free(&e);
			return 1;
		}
	}
	qsort(ns, n, sizeof(*ns), cmp_u64);
	printf("%s: Get(%s) p50 %.1f us  p99 %.1f us  max %.1f us  (%zu calls)\n",
	       argc > 5 ? argv[5] : "bus-get-latency", argv[3], ns[n / 2] / 1e3,
	       ns[(n * 99) / 100] / 1e3, ns[n - 1] / 1e3, n);
	free(ns);
	sd_bus_flush_close_unref(bus);
	return 0;
}
