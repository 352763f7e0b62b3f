/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad-probe (work in progress, issue 29): probes the paths between this host's links (mesh)
 * and from each link to declared peers, with one UD datagram a path every interval
 * (lib/verbs/probe-ud.c), and writes each path's round trips and losses as Prometheus text
 * (node_exporter's textfile directory) and as JSON for rdmactl probe.
 *
 * The links are rdmad's, with the address of the GID each publishes (ListLinks;
 * probe-links.c), followed as PublishedGidChanged says they change: a path whose link or peer
 * moved to another address is made again, and keeps its figures. Each link's probe settings
 * are the probe.* rows of its Settings (rdmad.yaml(5)): only the links that declare one are
 * probed, each at its own interval and timeout, answering on its own port. --link NAME=ADDR
 * names the links instead (without rdmad), all with the settings of the command line:
 *
 *   rdmad-probe [--link NAME=ADDR...] [--mesh] [--peer ADDR...] [--port N] [--interval MS]
 *               [--timeout MS] [--window S] [--metrics FILE] [--state FILE] [--links-file FILE]
 *
 * --links-file names rdmad's probe.links (rdmad-probe.path starts the prober when it appears):
 * the prober leaves, with status 0, when rdmad removes it, as no link declares a probe key.
 *
 * This file is its main: options, setup, the tick, teardown. A path's life is prober-path.c,
 * the links and their endpoints prober-link.c, the files it writes prober-report.c.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "prober.h"
#include "strv.h"

#define WRITE_INTERVAL_NS NSEC_PER_SEC

/* The tick: the shortest interval of the links, each path probed when it is due. Probes go out
 * within a tick of their due time; a timeout is judged at a tick too. */
static uint64_t prober_tick_ns(const Prober *pr) {
	uint64_t t = WRITE_INTERVAL_NS;

	for (size_t i = 0; i < MAX_LINKS; i++)
		if (pr->links[i].name && pr->links[i].settings.interval_ms * NSEC_PER_MSEC < t)
			t = pr->links[i].settings.interval_ms * NSEC_PER_MSEC;
	return t;
}

static int on_tick(sd_event_source *s, uint64_t usec, void *userdata) {
	Prober *pr = userdata;
	uint64_t now = now_monotonic_nsec();
	int r;

	for (size_t i = 0; i < pr->n_paths; i++)
		path_expire(&pr->paths[i], now,
			    pr->paths[i].from->settings.timeout_ms * NSEC_PER_MSEC);
	/* The files before the probes, not between a probe and its answer: an answer is timed
	 * when its completion is dispatched, and the loop is busy meanwhile. Once a second at
	 * most, whatever the interval. */
	if (now - pr->written_ns >= WRITE_INTERVAL_NS) {
		pr->written_ns = now;
		r = prober_metrics_write(pr);
		if (r < 0 && r != pr->metrics_error)
			fprintf(stderr, "Failed to write %s: %s\n", pr->metrics_path, strerror(-r));
		pr->metrics_error = r;
		r = prober_state_write(pr, now);
		if (r < 0 && r != pr->state_error)
			fprintf(stderr, "Failed to write %s: %s\n", pr->state_path, strerror(-r));
		pr->state_error = r;
		/* a RoCE MTU that changed with its netdev's, whether rdmad said so yet or not */
		for (size_t i = 0; i < MAX_LINKS; i++)
			if (pr->links[i].name)
				link_settings_update(pr, &pr->links[i]);
	}
	for (size_t i = 0; i < MAX_LINKS; i++)
		if (pr->links[i].name) {
			r = link_check(pr, &pr->links[i], now);
			if (r < 0)
				fprintf(stderr, "%s: %s\n", pr->links[i].name, strerror(-r));
		}
	/* each link's ToS read right before its probes go out: a change by hand to configfs
	 * raises no event, and the next probe carries the new class (prober-tos.c) */
	for (size_t i = 0; i < MAX_LINKS; i++)
		if (pr->links[i].name)
			link_tos_update(pr, &pr->links[i], now);
	for (size_t i = 0; i < pr->n_paths; i++)
		path_probe(pr, &pr->paths[i], now_monotonic_nsec());
	(void) sd_event_source_set_time_relative(s, prober_tick_ns(pr) / 1000);
	(void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

/* The transport's work: rdma_cm events, devices' events, completions (answers timed, requests
 * answered), a bounded share each time. An answer is timed when the poll finds its completion
 * (probe-ud-link.c): the source is IMPORTANT, polled before a tick that is due at the same
 * time. While work is left over (a flood), it is NORMAL: sd-event then takes the pending
 * sources of one priority in turn, and the tick's probes, timeouts and files go on between the
 * shares. */
static int on_transport(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Prober *pr = userdata;
	int r = probe_transport_process(pr->transport);

	if (r < 0)
		fprintf(stderr, "RDMA events: %s\n", strerror(-r));
	(void) sd_event_source_set_priority(s, r > 0 ? SD_EVENT_PRIORITY_NORMAL
						     : SD_EVENT_PRIORITY_IMPORTANT);
	links_check_failed(pr, now_monotonic_nsec());
	return 0;
}

static int prober_setup(Prober *pr, ProbeLinkInfo *given, size_t n_given) {
	int r;

	r = prober_links_file_watch(pr);
	if (r != 0)
		return r < 0 ? r : 0; /* gone before we began */
	r = probe_transport_new((uint32_t) (now_monotonic_nsec() ^ (uint64_t) getpid() << 16),
				on_reply, pr, &pr->transport);
	if (r < 0)
		return r;
	probe_transport_set_settings_handler(pr->transport, on_settings);
	r = sd_event_add_io(pr->event, &pr->transport_io, probe_transport_fd(pr->transport),
			    EPOLLIN, on_transport, pr);
	if (r >= 0)
		r = sd_event_source_set_priority(pr->transport_io, SD_EVENT_PRIORITY_IMPORTANT);
	if (r < 0)
		return r;
	if (n_given > 0)
		r = prober_links_update(pr, given, n_given);
	else
		r = prober_links_follow(pr);
	if (r < 0)
		return r;
	r = sd_event_add_time_relative(pr->event, &pr->tick, CLOCK_MONOTONIC, 0, 1000, on_tick, pr);
	return r < 0 ? r : 0;
}

static void prober_done(Prober *pr) {
	while (pr->n_paths > 0)
		path_remove(pr, pr->n_paths - 1);
	free(pr->paths);
	for (size_t i = 0; i < MAX_LINKS; i++) {
		link_close(&pr->links[i]);
		free(pr->links[i].name);
		free(pr->links[i].addr_text);
		strv_free(pr->links[i].settings.peers);
	}
	sd_bus_flush_close_unref(pr->bus);
	sd_event_source_disable_unref(pr->transport_io);
	sd_event_source_disable_unref(pr->tick);
	sd_event_source_disable_unref(pr->refresh);
	probe_transport_free(pr->transport);
	sd_event_unref(pr->event);
}

/* A whole decimal number from 1 to max: "1s" or "7473x" is refused, not read as 1 or 7473. */
static int number_parse(const char *s, unsigned max, unsigned *ret) {
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -EINVAL;
	*ret = (unsigned) v;
	return 0;
}

static int usage_error(const char *option, const char *value) {
	fprintf(stderr, "rdmad-probe: %s: '%s' is not a number in range\n", option, value);
	return 2;
}

int main(int argc, char **argv) {
	enum {
		ARG_LINK = 0x100,
		ARG_PEER,
		ARG_MESH,
		ARG_PORT,
		ARG_INTERVAL,
		ARG_TIMEOUT,
		ARG_METRICS,
		ARG_STATE,
		ARG_WINDOW,
		ARG_LINKS_FILE
	};
	static const struct option options[] = {
		{ "link", required_argument, NULL, ARG_LINK },
		{ "peer", required_argument, NULL, ARG_PEER },
		{ "mesh", no_argument, NULL, ARG_MESH },
		{ "port", required_argument, NULL, ARG_PORT },
		{ "interval", required_argument, NULL, ARG_INTERVAL },
		{ "timeout", required_argument, NULL, ARG_TIMEOUT },
		{ "metrics", required_argument, NULL, ARG_METRICS },
		{ "state", required_argument, NULL, ARG_STATE },
		{ "window", required_argument, NULL, ARG_WINDOW },
		{ "links-file", required_argument, NULL, ARG_LINKS_FILE },
		{ 0 }
	};
	Prober pr = { .window_ns = 60 * NSEC_PER_SEC };
	/* --link's links: all with these, the keys' defaults unless given */
	ProbeSettings cli = { .interval_ms = PROBE_INTERVAL_MS_DEFAULT,
			      .timeout_ms = PROBE_TIMEOUT_MS_DEFAULT,
			      .port = PROBE_PORT_DEFAULT };
	ProbeLinkInfo given[MAX_LINKS];
	size_t n_given = 0;
	sigset_t mask;
	int c, r;

	while ((c = getopt_long(argc, argv, "", options, NULL)) >= 0)
		switch (c) {
		case ARG_LINK: {
			char *eq = strchr(optarg, '=');
			struct sockaddr_storage ss;

			if (!eq || n_given >= MAX_LINKS || probe_address_parse(eq + 1, &ss) < 0) {
				fprintf(stderr, "--link NAME=ADDR: %s\n", optarg);
				return 2;
			}
			given[n_given] = (ProbeLinkInfo){
				.name = strndup(optarg, (size_t) (eq - optarg)),
				.address = strdup(eq + 1),
			};
			if (!given[n_given].name || !given[n_given].address)
				return 1;
			n_given++;
			break;
		}
		case ARG_PEER: {
			struct sockaddr_storage ss;

			if (strv_length(cli.peers) >= MAX_PEERS ||
			    probe_address_parse(optarg, &ss) < 0 ||
			    strv_extend(&cli.peers, optarg) < 0) {
				fprintf(stderr, "--peer ADDR: %s\n", optarg);
				return 2;
			}
			break;
		}
		case ARG_MESH:
			cli.mesh = true;
			break;
		case ARG_PORT:
			if (number_parse(optarg, 65535, &cli.port) < 0)
				return usage_error("--port", optarg);
			break;
		case ARG_INTERVAL:
			if (number_parse(optarg, 3600000, &cli.interval_ms) < 0)
				return usage_error("--interval MS", optarg);
			break;
		case ARG_TIMEOUT:
			if (number_parse(optarg, 3600000, &cli.timeout_ms) < 0)
				return usage_error("--timeout MS", optarg);
			break;
		case ARG_METRICS:
			pr.metrics_path = optarg;
			break;
		case ARG_STATE:
			pr.state_path = optarg;
			break;
		case ARG_LINKS_FILE:
			pr.links_file = optarg;
			break;
		case ARG_WINDOW: {
			unsigned secs;

			if (number_parse(optarg, 86400, &secs) < 0)
				return usage_error("--window SECONDS", optarg);
			pr.window_ns = secs * NSEC_PER_SEC;
			break;
		}
		default:
			return 2;
		}
	if (cli.interval_ms == 0 || cli.timeout_ms == 0 || pr.window_ns == 0 || cli.port == 0 ||
	    cli.port > 65535) {
		fprintf(stderr,
			"rdmad-probe: interval, timeout and window above 0, a port 1..65535\n");
		return 2;
	}
	for (size_t i = 0; i < n_given; i++)
		given[i].settings = cli; /* prober_links_update() copies the peers */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	r = sd_event_default(&pr.event);
	if (r >= 0)
		r = sd_event_add_signal(pr.event, NULL, SIGTERM, NULL, NULL);
	if (r >= 0)
		r = sd_event_add_signal(pr.event, NULL, SIGINT, NULL, NULL);
	if (r >= 0)
		r = prober_setup(&pr, given, n_given);
	if (r >= 0)
		r = sd_event_loop(pr.event);
	if (r < 0)
		fprintf(stderr, "rdmad-probe: %s\n", strerror(-r));
	else if (pr.metrics_path && unlink(pr.metrics_path) < 0 && errno != ENOENT)
		/* stopped, or nothing left to probe: no figures, rather than stale ones. One killed
		 * leaves them, and their write timestamp ages (RdmaProberDown). */
		fprintf(stderr, "Failed to remove %s: %s\n", pr.metrics_path, strerror(errno));
	prober_done(&pr);
	for (size_t i = 0; i < n_given; i++) {
		free(given[i].name);
		free(given[i].address);
	}
	strv_free(cli.peers);
	return r < 0 ? 1 : 0;
}
