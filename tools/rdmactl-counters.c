/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl counters [LINK] [--json] [--watch [SECS]]: the ports' counters read from sysfs now
 * (counters.h) and their netdevs' per-priority PFC pause frames (ethtool-stats.h; not under
 * --root: a fixture has no live netdev), and with --watch their rates over each interval, with
 * the counters that mean trouble called out in words. Reads only; rdmad need not run. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "ethtool-stats.h"
#include "fileio.h"
#include "output.h"
#include "rdmactl.h"

/* hw_counters/ names across drivers (mlx5, irdma, bnxt_re, rxe) that mean one kind of trouble */
static const struct {
	const char *counter, *trouble;
} trouble_table[] = {
	{ "np_cnp_sent", "congestion" },	   /* mlx5: CNPs this port sent (it saw ECN) */
	{ "rp_cnp_handled", "congestion" },	   /* mlx5: CNPs it received and slowed for */
	{ "np_ecn_marked_roce_packets", "congestion" },
	{ "cnpSent", "congestion" },		   /* irdma */
	{ "cnpHandled", "congestion" },
	{ "out_of_sequence", "loss" },		   /* mlx5 */
	{ "packet_seq_err", "loss" },
	{ "local_ack_timeout_err", "loss" },
	{ "out_of_seq_request", "loss" },	   /* rxe */
	{ "rcvd_seq_err", "loss" },
	{ "retry_exceeded_err", "loss" },
	{ "completer_retry_err", "loss" },
	{ "link_downed", "link down" },
	{ "link_error_recovery", "link down" },
};

/* Pause frames per second on one priority above which --watch says "PFC storm": a priority held
 * in pause for a good part of each second rather than throttled now and then (one frame pauses
 * at most 65535 quanta of 512 bit times, 336 us at 100 Gb/s, and switches refresh a pause
 * before it runs out). */
#define PFC_STORM_RATE 1000.0

typedef struct Sample {
	char link[128];
	const char *netdev;
	PortCounters c;
	bool has_pause; /* the netdev's driver counts pause frames per priority */
	PauseCounters pause;
} Sample;

static void samples_free(Sample *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		port_counters_done(&l[i].c);
	free(l);
}

/* The counters of the ports named (one LINK, or all), now. */
static int samples_read(int rootfd, bool live, const HostState *h, const HostPort *only_port,
			Sample **ret, size_t *ret_n) {
	Sample *l = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < h->n_devices; i++)
		for (size_t k = 0; r >= 0 && k < h->devices[i].n_ports; k++) {
			const HostDevice *d = &h->devices[i];
			const HostPort *p = &d->ports[k];
			Sample *t;

			if (only_port && p != only_port)
				continue;
			t = realloc(l, (n + 1) * sizeof(Sample));
			if (!t) {
				r = -ENOMEM;
				break;
			}
			l = t;
			l[n] = (Sample) { .netdev = p->netdev };
			snprintf(l[n].link, sizeof(l[n].link), "%s/%u", d->name, p->port);
			r = port_counters_read(rootfd, d->name, p->port, &l[n].c);
			if (r == -ENODEV) /* gone meanwhile: left out */
				r = 0;
			else if (r >= 0) {
				/* no statistics, no pause counters, netdev gone: none shown */
				l[n].has_pause = live && p->netdev &&
						 pause_counters_read(p->netdev, &l[n].pause) >= 0;
				n++;
			}
		}
	if (r < 0) {
		samples_free(l, n);
		return r;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

static char *source_path(const Counter *x, char *buf, size_t size) {
	static const char *const dirs[] = { "counters", "counters_ext", "hw_counters" };

	snprintf(buf, size, "%s/%s", dirs[x->source], x->name);
	return buf;
}

/* "pause": {"rx_prio3": 12, ...}: the netdev's pause frames per direction and priority */
static int pause_json(json_object *o, const PauseCounters *p) {
	json_object *q = NULL;
	int r;

	r = json_add_object(o, "pause", &q);
	for (PauseDirection d = 0; r >= 0 && d < _PAUSE_DIRECTION_MAX; d++)
		for (unsigned prio = 0; r >= 0 && prio < PAUSE_PRIORITIES; prio++) {
			char name[32];

			if (!(p->present[d] & (1u << prio)))
				continue;
			snprintf(name, sizeof(name), "%s_prio%u", pause_direction_to_string(d),
				 prio);
			r = json_add_int(q, name, (int64_t) p->frames[d][prio]);
		}
	return r;
}

static int counters_print(const Sample *l, size_t n, bool json) {
	static const char *const headers[] = { "LINK", "NETDEV", "COUNTER", "VALUE" };
	_cleanup_(json_object_putp) json_object *a = json_object_new_array();
	_cleanup_(table_freep) Table *t = table_new(ELEMENTSOF(headers), headers);
	int r = 0;

	if (!a || !t)
		return -ENOMEM;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		json_object *o = NULL, *c = NULL;

		if (json) {
			r = json_add_object(a, NULL, &o);
			if (r >= 0)
				r = json_add_string(o, "link", l[i].link);
			if (r >= 0)
				r = json_add_string(o, "netdev", l[i].netdev);
			if (r >= 0 && l[i].c.rate_bps)
				r = json_add_int(o, "rate_bps", (int64_t) l[i].c.rate_bps);
			if (r >= 0)
				r = json_add_object(o, "counters", &c);
		}
		if (r >= 0 && json && l[i].has_pause)
			r = pause_json(o, &l[i].pause);
		for (size_t k = 0; r >= 0 && k < l[i].c.n; k++) {
			const Counter *x = &l[i].c.items[k];
			char path[96], value[32];

			source_path(x, path, sizeof(path));
			if (json) {
				r = json_add_int(c, path, (int64_t) x->value);
				continue;
			}
			snprintf(value, sizeof(value), "%" PRIu64 "%s", x->value,
				 counter_counts_words(x->source, x->name) ? " B" : "");
			r = table_add_row(t, (const char *const[]) { l[i].link, l[i].netdev, path,
								     value });
		}
		for (PauseDirection d = 0;
		     r >= 0 && !json && l[i].has_pause && d < _PAUSE_DIRECTION_MAX; d++)
			for (unsigned prio = 0; r >= 0 && prio < PAUSE_PRIORITIES; prio++) {
				char name[32], value[32];

				if (!(l[i].pause.present[d] & (1u << prio)))
					continue;
				snprintf(name, sizeof(name), "pause/%s_prio%u",
					 pause_direction_to_string(d), prio);
				snprintf(value, sizeof(value), "%" PRIu64,
					 l[i].pause.frames[d][prio]);
				r = table_add_row(t, (const char *const[]) { l[i].link, l[i].netdev,
									     name, value });
			}
	}
	if (r < 0)
		return r;
	if (json)
		return json_print(a, stdout);
	if (table_rows(t) == 0) {
		printf("No counters.\n");
		return 0;
	}
	return table_print(t, stdout);
}

/* "12.5 Gbit/s" */
static void rate_format(double bps, char *buf, size_t size) {
	static const char *const units[] = { "bit/s", "kbit/s", "Mbit/s", "Gbit/s", "Tbit/s" };
	size_t u = 0;

	while (bps >= 1000 && u + 1 < ELEMENTSOF(units)) {
		bps /= 1000;
		u++;
	}
	snprintf(buf, size, "%.3g %s", bps, units[u]);
}

/* The first of names that the port has, as a rate over secs (-1: none of them). */
static double rate_of(const PortCounters *a, const PortCounters *b, double secs,
		      const char *const *names) {
	for (; *names; names++)
		for (CounterSource s = _COUNTER_SOURCE_MAX; s-- > 0;) { /* _64 and hw first */
			const Counter *x = port_counters_find(a, s, *names);
			const Counter *y = port_counters_find(b, s, *names);

			if (x && y)
				return y->value >= x->value ? (double) (y->value - x->value) / secs
							    : 0; /* reset (driver reload) */
		}
	return -1;
}

/* One interval of one link: the rates, and trouble in words. */
static int watch_print(const Sample *a, const Sample *b, double secs, bool json) {
	static const char *const rx_bytes[] = { "port_rcv_data_64", "port_rcv_data", NULL };
	static const char *const tx_bytes[] = { "port_xmit_data_64", "port_xmit_data", NULL };
	static const char *const rx_pkts[] = { "port_rcv_packets_64", "port_rcv_packets",
					       "rcvd_pkts", NULL };
	static const char *const tx_pkts[] = { "port_xmit_packets_64", "port_xmit_packets",
					       "sent_pkts", NULL };
	double rx = rate_of(&a->c, &b->c, secs, rx_bytes), tx = rate_of(&a->c, &b->c, secs, tx_bytes);
	double rxp = rate_of(&a->c, &b->c, secs, rx_pkts), txp = rate_of(&a->c, &b->c, secs, tx_pkts);
	static const char *const storm_hint[_PAUSE_DIRECTION_MAX] = {
		[PAUSE_RX] = " (the peer holds this port back)",
		[PAUSE_TX] = " (this port holds the peer back)",
	};
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *troubles = NULL;
	char r1[32], r2[32];
	int r;

	if (!o)
		return -ENOMEM;
	r = json_add_string(o, "link", a->link);
	if (r >= 0 && rx >= 0)
		r = json_add_int(o, "rx_bps", (int64_t) (rx * 8));
	if (r >= 0 && tx >= 0)
		r = json_add_int(o, "tx_bps", (int64_t) (tx * 8));
	if (r >= 0 && rxp >= 0)
		r = json_add_int(o, "rx_pps", (int64_t) rxp);
	if (r >= 0 && txp >= 0)
		r = json_add_int(o, "tx_pps", (int64_t) txp);
	if (r >= 0)
		r = json_add_array(o, "trouble", &troubles);
	if (r < 0)
		return r;
	if (!json) {
		printf("%s%s%s%s:", a->link, a->netdev ? " (" : "", a->netdev ? a->netdev : "",
		       a->netdev ? ")" : "");
		if (rx >= 0 && tx >= 0) {
			rate_format(rx * 8, r1, sizeof(r1));
			rate_format(tx * 8, r2, sizeof(r2));
			printf(" rx %s, tx %s", r1, r2);
			if (b->c.rate_bps)
				printf(" (%.1f%% / %.1f%% of %g Gbit/s)",
				       100.0 * rx * 8 / (double) b->c.rate_bps,
				       100.0 * tx * 8 / (double) b->c.rate_bps,
				       (double) b->c.rate_bps / 1e9);
			printf(";");
		}
		if (rxp >= 0 && txp >= 0)
			printf(" %.0f pkt/s in, %.0f pkt/s out", rxp, txp);
		if (rx < 0 && rxp < 0)
			printf(" no data or packet counters");
		printf("\n");
	}
	for (size_t i = 0; i < ELEMENTSOF(trouble_table); i++) {
		const char *names[] = { trouble_table[i].counter, NULL };
		double v = rate_of(&a->c, &b->c, secs, names);
		char line[160];

		if (v <= 0)
			continue;
		snprintf(line, sizeof(line), "%s: %s %.3g/s", trouble_table[i].trouble,
			 trouble_table[i].counter, v);
		if (json)
			r = json_object_array_add(troubles, json_object_new_string(line));
		else
			printf("  %s\n", line);
		if (r < 0)
			return -ENOMEM;
	}
	for (PauseDirection d = 0; a->has_pause && b->has_pause && d < _PAUSE_DIRECTION_MAX; d++)
		for (unsigned prio = 0; prio < PAUSE_PRIORITIES; prio++) {
			uint64_t x = a->pause.frames[d][prio], y = b->pause.frames[d][prio];
			double v = y >= x ? (double) (y - x) / secs : 0; /* reset: driver reload */
			char line[160];

			if (!(a->pause.present[d] & b->pause.present[d] & (1u << prio)) || v <= 0)
				continue;
			snprintf(line, sizeof(line), "%s: %s_prio%u %.3g pause frames/s%s",
				 v > PFC_STORM_RATE ? "PFC storm" : "pause",
				 pause_direction_to_string(d), prio, v,
				 v > PFC_STORM_RATE ? storm_hint[d] : "");
			if (json)
				r = json_object_array_add(troubles, json_object_new_string(line));
			else
				printf("  %s\n", line);
			if (r < 0)
				return -ENOMEM;
		}
	if (json) {
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE));
	}
	fflush(stdout);
	return 0;
}

int verb_counters(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	const HostDevice *d = NULL;
	const HostPort *p = NULL;
	unsigned long interval = 1;
	const char *link = NULL;
	bool live = streq(o->root, "/"); /* a fixture has no live netdev: no pause counters */
	Sample *a = NULL;
	size_t n_a = 0;
	int r;

	/* --watch [SECS]: a number after it is the interval, not a link */
	for (int i = 0; i < argc; i++) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(argv[i], &end, 10);
		if (o->watch && !errno && *argv[i] && !*end && v >= 1 && v <= 3600)
			interval = v;
		else if (!link)
			link = argv[i];
		else {
			fprintf(stderr, "rdmactl counters: too many arguments\n");
			return EXIT_FAILURE;
		}
	}
	rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		fprintf(stderr, "rdmactl counters: %s: %s\n", o->root, strerror(errno));
		return EXIT_FAILURE;
	}
	r = host_observe(o->root, HOST_OBSERVE_DETAILS, &h);
	if (r < 0) {
		fprintf(stderr, "rdmactl counters: failed to read the host: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (link && link_find(h, link, &d, &p) < 0) {
		fprintf(stderr, "rdmactl counters: %s: no such link\n", link);
		return EXIT_FAILURE;
	}
	r = samples_read(rootfd, live, h, p, &a, &n_a);
	if (r < 0) {
		fprintf(stderr, "rdmactl counters: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (!o->watch) {
		r = counters_print(a, n_a, o->json);
		samples_free(a, n_a);
		return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	for (;;) { /* until ^C */
		struct timespec t0, t1;
		Sample *b = NULL;
		size_t n_b = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		sleep((unsigned) interval);
		r = samples_read(rootfd, live, h, p, &b, &n_b);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		for (size_t i = 0; r >= 0 && i < n_b; i++)
			for (size_t k = 0; k < n_a; k++)
				if (streq(a[k].link, b[i].link))
					r = watch_print(&a[k], &b[i],
							(double) (t1.tv_sec - t0.tv_sec) +
								(double) (t1.tv_nsec - t0.tv_nsec) / 1e9,
							o->json);
		samples_free(a, n_a);
		a = b;
		n_a = n_b;
		if (r < 0) {
			samples_free(a, n_a);
			fprintf(stderr, "rdmactl counters: %s\n", strerror(-r));
			return EXIT_FAILURE;
		}
	}
	samples_free(a, n_a);
	return EXIT_SUCCESS;
}
