/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe transport (lib/verbs/probe-ud.c) on its own, in the VM: one link's endpoint at
 * ADDR:PORT that answers probes, and with PEER, a path to PEER:PORT that sends COUNT probes 100
 * ms apart and prints each answer's round trip, then a summary line:
 *
 *   probe-echo ADDR PORT [PEER COUNT]
 *
 * Exit 0 when every probe was answered (or, without PEER, on SIGTERM), 1 when some were not,
 * 2 when the path failed to resolve (its step and error printed). Bounded: 10 s to resolve,
 * 2 s after the last probe for its answer. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "probe-ud.h"

#define NSEC_PER_MSEC 1000000ULL

static volatile sig_atomic_t stop;
static uint64_t answered, sent_seq;
static uint64_t rtts_ns[100000];

static void on_term(int sig) {
	stop = 1;
}

static void on_reply(void *userdata, uint32_t path, uint64_t seq, uint64_t sent_ns, uint64_t now,
		     uint64_t device_ns) {
	printf("reply path %" PRIu32 " seq %" PRIu64 " rtt_us %.1f\n", path, seq,
	       (now - sent_ns) / 1e3);
	if (answered < sizeof(rtts_ns) / sizeof(rtts_ns[0]))
		rtts_ns[answered] = now - sent_ns;
	answered++;
}

/* Waits up to ms for either fd, then processes both. */
static int turn(ProbeTransport *t, ProbeLink *l, int ms) {
	struct pollfd fds[2] = { { .fd = probe_transport_fd(t), .events = POLLIN },
				 { .fd = probe_link_fd(l), .events = POLLIN } };
	int r;

	if (poll(fds, 2, ms) < 0 && errno != EINTR)
		return -errno;
	r = probe_transport_process(t);
	if (r >= 0)
		r = probe_link_process(l, now_monotonic_nsec());
	return r;
}

static int u64_compare(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv) {
	ProbeTransport *t = NULL;
	ProbeLink *l = NULL;
	ProbePath *p = NULL;
	struct sockaddr_storage addr, peer;
	unsigned long count = 0;
	uint16_t port;
	uint64_t deadline, next;
	ProbeStep step;
	int r, error;

	if (argc != 3 && argc != 5) {
		fprintf(stderr, "usage: %s ADDR PORT [PEER COUNT]\n", argv[0]);
		return 2;
	}
	if (probe_address_parse(argv[1], &addr) < 0 ||
	    (argc == 5 && probe_address_parse(argv[3], &peer) < 0)) {
		fprintf(stderr, "not an address\n");
		return 2;
	}
	port = (uint16_t) strtoul(argv[2], NULL, 10);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	setvbuf(stdout, NULL, _IOLBF, 0);
	r = probe_transport_new(0x5eed0000U ^ (uint32_t) getpid(), on_reply, NULL, &t);
	if (r >= 0)
		r = probe_link_new(t, (struct sockaddr *) &addr, port, &l);
	if (r < 0) {
		fprintf(stderr, "endpoint on %s:%u: %s\n", argv[1], port, strerror(-r));
		return 2;
	}
	printf("listening on %s port %u\n", argv[1], port);
	if (argc == 3) {
		while (!stop && turn(t, l, 1000) >= 0)
			;
		printf("answered %" PRIu64 " refused %" PRIu64 "\n", probe_link_answered(l),
		       probe_link_refused(l));
		probe_link_free(l);
		probe_transport_free(t);
		return 0;
	}
	count = strtoul(argv[4], NULL, 10);
	r = probe_path_new(l, (struct sockaddr *) &peer, port, 7, &p);
	if (r < 0) {
		fprintf(stderr, "path: %s\n", strerror(-r));
		return 2;
	}
	deadline = now_monotonic_nsec() + 10000 * NSEC_PER_MSEC;
	while (!probe_path_ready(p) && !probe_path_failed(p, NULL, NULL) &&
	       now_monotonic_nsec() < deadline)
		if (turn(t, l, 100) < 0)
			break;
	if (probe_path_failed(p, &step, &error) || !probe_path_ready(p)) {
		if (!probe_path_failed(p, &step, &error))
			step = PROBE_STEP_CONNECT, error = -ETIMEDOUT;
		printf("path failed at %s: %s\n", probe_step_to_string(step), strerror(-error));
		return 2;
	}
	printf("path ready\n");
	next = now_monotonic_nsec();
	deadline = UINT64_MAX;
	while (!stop) {
		uint64_t now = now_monotonic_nsec();

		if (sent_seq < count && now >= next) {
			r = probe_path_send(p, ++sent_seq, now);
			if (r < 0)
				printf("send %" PRIu64 ": %s\n", sent_seq, strerror(-r));
			next = now + 100 * NSEC_PER_MSEC;
			if (sent_seq == count)
				deadline = now + 2000 * NSEC_PER_MSEC;
		}
		if (answered >= count || now >= deadline)
			break;
		if (turn(t, l, 10) < 0)
			break;
	}
	if (answered > 0) {
		size_t n = answered < ELEMENTSOF(rtts_ns) ? answered : ELEMENTSOF(rtts_ns);

		qsort(rtts_ns, n, sizeof(uint64_t), u64_compare);
		printf("sent %" PRIu64 " answered %" PRIu64 " min_us %.1f p50_us %.1f max_us %.1f\n",
		       sent_seq, answered, rtts_ns[0] / 1e3, rtts_ns[(n - 1) / 2] / 1e3,
		       rtts_ns[n - 1] / 1e3);
	} else
		printf("sent %" PRIu64 " answered 0\n", sent_seq);
	probe_path_free(p);
	probe_link_free(l);
	probe_transport_free(t);
	return answered == count ? 0 : 1;
}
