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
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <getopt.h>
#include <inttypes.h>
#include <sys/inotify.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "json-util.h"
#include "latency.h"
#include "macro.h"
#include "metrics.h"
#include "probe-links.h"
#include "probe-ud.h"
#include "rdmad-bus.h"
#include "strv.h"

#define MAX_LINKS     64
#define MAX_PEERS     64
#define OUTSTANDING   64 /* probes awaiting an answer, a path */
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

/* A slot of Prober.links: its place never changes, paths point to it; name NULL when free. */
typedef struct Link {
	char *name;
	struct sockaddr_storage addr;
	char *addr_text;
	ProbeSettings settings;
	ProbeLink *endpoint;
	int error;	   /* of making the endpoint */
	uint64_t retry_ns; /* an endpoint not made, or failed, is made again from then on */
	uint64_t answered, refused; /* by the endpoints closed before this one */
	sd_event_source *io;
} Link;

typedef struct Pending {
	uint64_t seq, sent_ns; /* seq 0: a free entry */
} Pending;

typedef struct Path {
	uint32_t id; /* what its probes carry: a path's place in the array changes */
	Link *from;
	Link *to_link; /* the mesh's: the link probed; NULL for a peer */
	char *peer;    /* a link's name (mesh), or an address */
	const char *kind;
	struct sockaddr_storage to;
	ProbePath *p;
	uint64_t retry_ns; /* a failed path is made again from then on */
	uint64_t made_ns;  /* when p was made: its setup has PATH_SETUP_NS */
	uint64_t due_ns;   /* its next probe */
	uint64_t seq;
	Pending pending[OUTSTANDING];
	uint64_t sent, lost;
	unsigned silent;      /* probes lost in a row since the last answer */
	unsigned silent_made; /* ... since p was made: SILENT_MAX of them, and it is made again */
	bool device_clock;    /* its last answer was timed by the device's clock */
	uint64_t errors[_PROBE_STEP_MAX];
	ProbeStep step; /* where it stopped last, or NONE */
	int error;
	ProbeStep said_step; /* what the log said last: a change is said once */
	int said_error;
	double last_success; /* CLOCK_REALTIME, seconds; 0 never */
	LatencyHistogram rtt;
	LatencyWindow window;
} Path;

typedef struct Prober {
	sd_event *event;
	ProbeTransport *transport;
	sd_event_source *cm_io, *tick, *refresh;
	Link links[MAX_LINKS];
	uint64_t window_ns; /* of the figures rdmactl probe shows: a minute */
	const char *metrics_path, *state_path, *links_file, *links_file_name;
	uint64_t written_ns;		/* when the files were last written */
	int metrics_error, state_error; /* of the last write, said when it changes */
	Path *paths;
	size_t n_paths;
	uint32_t next_id;
	sd_bus *bus; /* rdmad's, when the links are its */
} Prober;

static double now_realtime(void) {
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* path written whole or not at all (".NAME.tmp" renamed over it): node_exporter and rdmactl
 * never read half a file. */
/* An answer: its round trip from the time this prober recorded, not the echoed one. */
static Path *path_by_id(Prober *pr, uint32_t id) {
	for (size_t i = 0; i < pr->n_paths; i++)
		if (pr->paths[i].id == id)
			return &pr->paths[i];
	return NULL;
}

/* Probes lost in a row after which a path is reported unreachable and resolved again: the
 * peer's address, route or GID may have changed under it (a netdev down and up renumbers the
 * GID table; the address handle would send from a stale GID). */
#define SILENT_MAX 3

/* An answer: its round trip by the device's clock where the device stamped both completions,
 * from its post to its completion by ours otherwise. */
static void on_reply(void *userdata, uint32_t id, uint64_t seq, uint64_t sent_ns, uint64_t now,
		     uint64_t device_ns) {
	Prober *pr = userdata;
	Path *p = path_by_id(pr, id);

	if (!p)
		return; /* a path gone meanwhile */
	for (size_t i = 0; i < OUTSTANDING; i++)
		if (p->pending[i].seq == seq && seq != 0) {
			uint64_t at = p->pending[i].sent_ns,
				 rtt = device_ns > 0 ? device_ns : now - at;

			p->device_clock = device_ns > 0;
			p->pending[i] = (Pending){ 0 };
			if (p->silent >= SILENT_MAX)
				fprintf(stderr, "%s -> %s: answered again\n", p->from->name,
					p->peer);
			p->silent = 0;
			p->silent_made = 0;
			latency_histogram_add(&p->rtt, rtt);
			latency_window_add(&p->window, at, rtt);
			p->last_success = now_realtime();
			return;
		}
	/* not pending: answered after its timeout, counted lost already */
}

static void path_reset(Path *p);

/* Probes past their timeout: lost. */
static void path_expire(Path *p, uint64_t now, uint64_t timeout) {
	for (size_t i = 0; i < OUTSTANDING; i++)
		if (p->pending[i].seq != 0 && now - p->pending[i].sent_ns >= timeout) {
			latency_window_add(&p->window, p->pending[i].sent_ns, LATENCY_LOST);
			p->pending[i] = (Pending){ 0 };
			p->lost++;
			p->silent_made++;
			if (++p->silent == SILENT_MAX)
				fprintf(stderr, "%s -> %s: unreachable: %u probes unanswered\n",
					p->from->name, p->peer, SILENT_MAX);
		}
	/* resolved again, once for every SILENT_MAX probes lost on what it resolved: not at each
	 * tick of a silence, which would never let the path made again send a probe. silent
	 * stays until an answer comes. */
	if (p->silent_made >= SILENT_MAX && p->p)
		path_reset(p);
}

static const char *path_state(const Path *p) {
	if (p->silent >= SILENT_MAX)
		return "unreachable";
	if (p->p && probe_path_ready(p->p))
		return "probing";
	return p->step != PROBE_STEP_NONE ? "unreachable" : "resolving";
}

/* A path's setup (address, route, SIDR) that is not done by then has failed at connect: a SIDR
 * request that nobody answers (the peer's reply routed elsewhere) leaves its rdma_cm id in
 * CONNECT for far longer, and the path would never be made again. */
#define PATH_SETUP_NS (5 * NSEC_PER_SEC)

/* A path stopped at step with error (negative errno), or (NONE) probing again: said to the
 * journal when it changes, not at each try. */
static void path_stopped(Path *p, ProbeStep step, int error) {
	p->step = step;
	p->error = error;
	if (step != PROBE_STEP_NONE)
		p->errors[step]++;
	if (step == p->said_step && error == p->said_error)
		return;
	if (step == PROBE_STEP_NONE)
		fprintf(stderr, "%s -> %s: probing\n", p->from->name, p->peer);
	else
		fprintf(stderr, "%s -> %s: stopped at %s: %s\n", p->from->name, p->peer,
			probe_step_to_string(step), strerror(-error));
	p->said_step = step;
	p->said_error = error;
}

static void path_probe(Prober *pr, Path *p, uint64_t now) {
	ProbeStep step;
	int r, error;

	if (!p->from->endpoint)
		return;
	if (p->p && !probe_path_ready(p->p) && !probe_path_failed(p->p, NULL, NULL) &&
	    now - p->made_ns >= PATH_SETUP_NS) {
		path_stopped(p, PROBE_STEP_CONNECT, -ETIMEDOUT);
		p->p = probe_path_free(p->p);
		p->retry_ns = now; /* at once: the setup took its time already */
	}
	if (p->p && probe_path_failed(p->p, &step, &error)) {
		path_stopped(p, step, error);
		p->p = probe_path_free(p->p);
		p->retry_ns = now + 5 * NSEC_PER_SEC;
	}
	if (!p->p && now >= p->retry_ns) {
		/* the peer link answers on its own port; a remote peer on the port of ours */
		r = probe_path_new(p->from->endpoint, (struct sockaddr *) &p->to,
				   (uint16_t) (p->to_link ? p->to_link : p->from)->settings.port,
				   p->id, &p->p);
		p->made_ns = now;
		if (r < 0) {
			path_stopped(p, PROBE_STEP_ADDRESS, r);
			p->retry_ns = now + 5 * NSEC_PER_SEC;
		}
	}
	if (!p->p || !probe_path_ready(p->p) || now < p->due_ns)
		return;
	p->due_ns = now + p->from->settings.interval_ms * NSEC_PER_MSEC;
	if (p->step != PROBE_STEP_NONE)
		path_stopped(p, PROBE_STEP_NONE, 0);
	for (size_t i = 0; i < OUTSTANDING; i++)
		if (p->pending[i].seq == 0) {
			/* the clock read right before the post, not at the tick's start: the probes
			 * of the paths before this one are not its round trip */
			uint64_t t = now_monotonic_nsec();

			r = probe_path_send(p->p, ++p->seq, t);
			if (r < 0) {
				path_stopped(p, PROBE_STEP_SEND, r);
				return;
			}
			p->pending[i] = (Pending){ .seq = p->seq, .sent_ns = t };
			p->sent++;
			return;
		}
	p->errors[PROBE_STEP_SEND]++; /* every entry outstanding: the timeout is too long */
}

static uint64_t link_answered(const Link *l) {
	return l->answered + (l->endpoint ? probe_link_answered(l->endpoint) : 0);
}

static uint64_t link_refused(const Link *l) {
	return l->refused + (l->endpoint ? probe_link_refused(l->endpoint) : 0);
}

/* What each link's endpoint did for the other probers: requests answered, and datagrams
 * refused (not a probe, or an answer meant for another prober). */
static int metrics_add_links(Prober *pr, Metrics *m) {
	static const MetricFamily answered = {
		"rdmad_probe_answered_total", METRIC_COUNTER,
		"Probes from other probers (and this one's mesh) a link answered."
	};
	static const MetricFamily refused = {
		"rdmad_probe_refused_total", METRIC_COUNTER,
		"Datagrams a link received and refused: not a probe, or another prober's answer."
	};
	int r = 0;

	for (size_t i = 0; r >= 0 && i < MAX_LINKS; i++) {
		Link *l = &pr->links[i];

		if (!l->name)
			continue;
		r = metrics_add_u64(m, &answered, link_answered(l), "link", l->name, NULL);
		if (r >= 0)
			r = metrics_add_u64(m, &refused, link_refused(l), "link", l->name, NULL);
	}
	return r;
}

static int metrics_write(Prober *pr) {
	static const MetricFamily rtt = { "rdmad_probe_rtt_seconds", METRIC_HISTOGRAM,
					  "Round trips of the answered probes of a path." };
	static const MetricFamily sent = { "rdmad_probe_sent_total", METRIC_COUNTER,
					   "Probes sent on a path." };
	static const MetricFamily lost = { "rdmad_probe_lost_total", METRIC_COUNTER,
					   "Probes of a path not answered within the timeout." };
	static const MetricFamily errors = { "rdmad_probe_errors_total", METRIC_COUNTER,
					     "Failures of a path, by the step it stopped at." };
	static const MetricFamily success = {
		"rdmad_probe_last_success_timestamp_seconds", METRIC_GAUGE,
		"When a probe of a path was last answered (0: never)."
	};
	static const MetricFamily written = { "rdmad_probe_last_write_timestamp_seconds",
					      METRIC_GAUGE, "When rdmad-probe wrote this file." };
	double bounds[LATENCY_BUCKETS];
	_cleanup_free_ char *text = NULL;
	Metrics m = { 0 };
	int r = 0;

	if (!pr->metrics_path)
		return 0;
	for (size_t i = 0; i < LATENCY_BUCKETS; i++)
		bounds[i] = (double) latency_bounds_ns[i] / 1e9;
	for (size_t i = 0; r >= 0 && i < pr->n_paths; i++) {
		Path *p = &pr->paths[i];
		const char *link = p->from->name, *peer = p->peer, *kind = p->kind;

		r = metrics_add_histogram(&m, &rtt, bounds, LATENCY_BUCKETS, p->rtt.counts,
					  (double) p->rtt.sum_ns / 1e9, "link", link, "peer", peer,
					  "kind", kind, NULL);
		if (r >= 0)
			r = metrics_add_u64(&m, &sent, p->sent, "link", link, "peer", peer, "kind",
					    kind, NULL);
		if (r >= 0)
			r = metrics_add_u64(&m, &lost, p->lost, "link", link, "peer", peer, "kind",
					    kind, NULL);
		for (ProbeStep s = PROBE_STEP_ADDRESS; r >= 0 && s < _PROBE_STEP_MAX; s++)
			r = metrics_add_u64(&m, &errors, p->errors[s], "link", link, "peer", peer,
					    "kind", kind, "step", probe_step_to_string(s), NULL);
		if (r >= 0)
			r = metrics_add_double(&m, &success, p->last_success, "link", link, "peer",
					       peer, "kind", kind, NULL);
	}
	if (r >= 0)
		r = metrics_add_links(pr, &m);
	if (r >= 0)
		r = metrics_add_double(&m, &written, now_realtime(), NULL);
	if (r >= 0)
		r = metrics_format(&m, &text);
	metrics_done(&m);
	if (r < 0)
		return r;
	return write_file_atomic(pr->metrics_path, text, 0644);
}

/* "links": what each link answered and refused, as in the metrics. */
static int state_add_links(Prober *pr, json_object *root) {
	json_object *links = json_object_new_array();

	if (!links)
		return -ENOMEM;
	json_object_object_add(root, "links", links);
	for (size_t i = 0; i < MAX_LINKS; i++) {
		Link *l = &pr->links[i];
		json_object *o;

		if (!l->name)
			continue;
		o = json_object_new_object();
		if (!o)
			return -ENOMEM;
		json_object_array_add(links, o);
		json_object_object_add(o, "link", json_object_new_string(l->name));
		json_object_object_add(o, "answered", json_object_new_uint64(link_answered(l)));
		json_object_object_add(o, "refused", json_object_new_uint64(link_refused(l)));
	}
	return 0;
}

static int state_write(Prober *pr, uint64_t now) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_object *paths;
	int r;

	if (!pr->state_path)
		return 0;
	root = json_object_new_object();
	paths = json_object_new_array();
	if (!root || !paths) {
		json_object_put(paths);
		return -ENOMEM;
	}
	json_object_object_add(root, "paths", paths);
	r = state_add_links(pr, root);
	if (r < 0)
		return r;
	for (size_t i = 0; i < pr->n_paths; i++) {
		Path *p = &pr->paths[i];
		json_object *o = json_object_new_object();
		LatencySummary s;

		if (!o || latency_window_summary(&p->window, now, &s) < 0)
			return -ENOMEM;
		json_object_array_add(paths, o);
		json_object_object_add(o, "link", json_object_new_string(p->from->name));
		json_object_object_add(o, "peer", json_object_new_string(p->peer));
		json_object_object_add(o, "kind", json_object_new_string(p->kind));
		json_object_object_add(o, "state", json_object_new_string(path_state(p)));
		/* which clock timed its last round trip */
		json_object_object_add(
			o, "clock",
			json_object_new_string(p->device_clock ? "device" : "software"));
		if (p->step != PROBE_STEP_NONE) {
			json_object_object_add(
				o, "step", json_object_new_string(probe_step_to_string(p->step)));
			json_object_object_add(o, "error",
					       json_object_new_string(strerror(-p->error)));
		}
		json_object_object_add(o, "sent", json_object_new_uint64(s.sent));
		json_object_object_add(o, "lost", json_object_new_uint64(s.lost));
		json_object_object_add(o, "p50_usec", json_object_new_double(s.p50_ns / 1e3));
		json_object_object_add(o, "p99_usec", json_object_new_double(s.p99_ns / 1e3));
		json_object_object_add(o, "max_usec", json_object_new_double(s.max_ns / 1e3));
	}
	return write_file_atomic(
		pr->state_path, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), 0644);
}

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

static void link_close(Link *l);
static int link_open(Prober *pr, Link *l);

/* A link's endpoint whose QP failed is made again, and so are the paths that send from it; one
 * not made is tried again. */
static int link_check(Prober *pr, Link *l, uint64_t now) {
	const char *failure = l->endpoint ? probe_link_failure(l->endpoint) : NULL;

	if (failure) {
		fprintf(stderr, "%s: its QP failed (%s): made again\n", l->name, failure);
		for (size_t i = 0; i < pr->n_paths; i++)
			if (pr->paths[i].from == l)
				path_reset(&pr->paths[i]);
		link_close(l);
		return link_open(pr, l);
	}
	if (!l->endpoint && now >= l->retry_ns)
		return link_open(pr, l);
	return 0;
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
		r = metrics_write(pr);
		if (r < 0 && r != pr->metrics_error)
			fprintf(stderr, "Failed to write %s: %s\n", pr->metrics_path, strerror(-r));
		pr->metrics_error = r;
		r = state_write(pr, now);
		if (r < 0 && r != pr->state_error)
			fprintf(stderr, "Failed to write %s: %s\n", pr->state_path, strerror(-r));
		pr->state_error = r;
	}
	for (size_t i = 0; i < MAX_LINKS; i++)
		if (pr->links[i].name) {
			r = link_check(pr, &pr->links[i], now);
			if (r < 0)
				fprintf(stderr, "%s: %s\n", pr->links[i].name, strerror(-r));
		}
	for (size_t i = 0; i < pr->n_paths; i++)
		path_probe(pr, &pr->paths[i], now_monotonic_nsec());
	(void) sd_event_source_set_time_relative(s, prober_tick_ns(pr) / 1000);
	(void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

static int on_cm(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Prober *pr = userdata;
	int r = probe_transport_process(pr->transport);

	if (r < 0)
		fprintf(stderr, "rdma_cm events: %s\n", strerror(-r));
	return 0;
}

static int on_completions(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Link *l = userdata;
	int r = probe_link_process(l->endpoint, now_monotonic_nsec());

	if (r < 0)
		fprintf(stderr, "%s: completions: %s\n", l->name, strerror(-r));
	return 0;
}

static int path_add(Prober *pr, Link *from, Link *to_link, const char *peer, const char *kind,
		    const struct sockaddr_storage *to) {
	Path *l = reallocarray(pr->paths, pr->n_paths + 1, sizeof(Path)), *p;

	if (!l)
		return -ENOMEM;
	pr->paths = l;
	p = &pr->paths[pr->n_paths];
	*p = (Path){ .id = ++pr->next_id,
		     .from = from,
		     .to_link = to_link,
		     .kind = kind,
		     .to = *to,
		     .peer = strdup(peer) };
	if (!p->peer ||
	    latency_window_init(&p->window, pr->window_ns,
				pr->window_ns / (from->settings.interval_ms * NSEC_PER_MSEC) + 16) <
		    0) {
		free(p->peer);
		return -ENOMEM;
	}
	pr->n_paths++;
	return 0;
}

/* Made again at the next tick: its link's endpoint or its peer's address changed. Its figures
 * stay; probes in flight are forgotten (not counted lost). */
static void path_reset(Path *p) {
	p->p = probe_path_free(p->p);
	memset(p->pending, 0, sizeof(p->pending));
	p->silent_made = 0;
	p->retry_ns = 0;
}

static void path_remove(Prober *pr, size_t i) {
	Path *p = &pr->paths[i];

	probe_path_free(p->p);
	latency_window_done(&p->window);
	free(p->peer);
	pr->paths[i] = pr->paths[--pr->n_paths];
}

static void link_close(Link *l) {
	if (l->endpoint) {
		l->answered += probe_link_answered(l->endpoint);
		l->refused += probe_link_refused(l->endpoint);
	}
	l->io = sd_event_source_disable_unref(l->io);
	l->endpoint = probe_link_free(l->endpoint);
}

/* An endpoint that could not be made, or whose QP failed, is made again this much later. */
#define ENDPOINT_RETRY_NS (5 * NSEC_PER_SEC)

/* A link no longer probed: its paths both ways removed, its endpoint closed, its slot free. */
static void link_forget(Prober *pr, Link *l) {
	for (size_t k = pr->n_paths; k > 0; k--)
		if (pr->paths[k - 1].from == l || pr->paths[k - 1].to_link == l)
			path_remove(pr, k - 1);
	link_close(l);
	free(l->name);
	free(l->addr_text);
	strv_free(l->settings.peers);
	*l = (Link){ 0 };
}

/* Its endpoint: a failure is the link's (said once, its paths wait, and it is tried again),
 * not the prober's. */
static int link_open(Prober *pr, Link *l) {
	int r;

	r = probe_link_new(pr->transport, (struct sockaddr *) &l->addr, (uint16_t) l->settings.port,
			   &l->endpoint);
	if (r < 0) {
		if (r != l->error)
			fprintf(stderr, "%s: no endpoint on %s port %u: %s\n", l->name,
				l->addr_text, l->settings.port, strerror(-r));
		l->error = r;
		l->retry_ns = now_monotonic_nsec() + ENDPOINT_RETRY_NS;
		return 0;
	}
	l->error = 0;
	fprintf(stderr, "%s: probing from %s port %u; round trips timed by %s, from %s CQ\n",
		l->name, l->addr_text, l->settings.port,
		probe_link_device_timestamps(l->endpoint)
			? "the device's clock (completion timestamps)"
			: "the software clock (the device does not stamp completions)",
		probe_link_cq_extended(l->endpoint) ? "an extended" : "a plain");
	r = sd_event_add_io(pr->event, &l->io, probe_link_fd(l->endpoint), EPOLLIN, on_completions,
			    l);
	if (r < 0)
		return r;
	/* an answer is timed when it is dispatched: before a tick that is due at the same time */
	return sd_event_source_set_priority(l->io, SD_EVENT_PRIORITY_IMPORTANT);
}

/* The paths of a new link: to and from each other link (mesh), and to each peer. */
static int link_paths_add(Prober *pr, Link *l) {
	int r;

	/* Hostmesh: a link with mesh local probes every other link here, whatever the other's */
	for (size_t k = 0; k < MAX_LINKS; k++) {
		Link *o = &pr->links[k];

		if (!o->name || o == l)
			continue;
		r = l->settings.mesh ? path_add(pr, l, o, o->name, "local", &o->addr) : 0;
		if (r >= 0 && o->settings.mesh)
			r = path_add(pr, o, l, l->name, "local", &l->addr);
		if (r < 0)
			return r;
	}
	STRV_FOREACH (peer, l->settings.peers) {
		struct sockaddr_storage to;

		if (probe_address_parse(*peer, &to) < 0)
			return -EINVAL;
		r = path_add(pr, l, NULL, *peer, "remote", &to);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The links now: those gone closed with their paths, those moved to another address opened
 * again (their paths, both ways, made again and keeping their figures), new ones added. */
static int prober_links_update(Prober *pr, const ProbeLinkInfo *infos, size_t n) {
	int r;

	for (size_t i = 0; i < MAX_LINKS; i++) {
		Link *l = &pr->links[i];
		const ProbeLinkInfo *x = NULL;

		if (!l->name)
			continue;
		for (size_t k = 0; k < n && !x; k++)
			if (streq(infos[k].name, l->name))
				x = &infos[k];
		bool moved; /* its address only: its paths are kept, and their figures */

		if (x && streq(x->address, l->addr_text) &&
		    probe_settings_equal(&x->settings, &l->settings))
			continue;
		moved = x && probe_settings_equal(&x->settings, &l->settings);
		for (size_t k = pr->n_paths; k > 0; k--) {
			Path *p = &pr->paths[k - 1];

			if (p->from != l && p->to_link != l)
				continue;
			if (!moved)
				path_remove(pr, k - 1);
			else {
				if (p->to_link == l)
					(void) probe_address_parse(x->address, &p->to);
				path_reset(p);
			}
		}
		if (!moved) {
			/* gone, or its settings changed: made again below, with new paths */
			fprintf(stderr, "%s: %s\n", l->name,
				x ? "probe settings changed" : "no longer published, not probed");
			link_forget(pr, l);
			continue;
		}
		link_close(l);
		fprintf(stderr, "%s: now at %s (was %s)\n", l->name, x->address, l->addr_text);
		free(l->addr_text);
		l->addr_text = strdup(x->address);
		r = l->addr_text ? probe_address_parse(x->address, &l->addr) : -ENOMEM;
		if (r >= 0)
			r = link_open(pr, l);
		if (r < 0) {
			link_forget(pr, l); /* a new link at the next refresh */
			return r;
		}
	}
	for (size_t k = 0; k < n; k++) {
		Link *l = NULL;
		bool known = false;

		for (size_t i = 0; i < MAX_LINKS; i++)
			if (pr->links[i].name && streq(pr->links[i].name, infos[k].name))
				known = true;
			else if (!pr->links[i].name && !l)
				l = &pr->links[i];
		if (known)
			continue;
		if (!l)
			return -E2BIG;
		*l = (Link){ .name = strdup(infos[k].name),
			     .addr_text = strdup(infos[k].address),
			     .settings = infos[k].settings };
		l->settings.peers = strv_copy(infos[k].settings.peers);
		r = !l->name || !l->addr_text || (infos[k].settings.peers && !l->settings.peers)
			    ? -ENOMEM
			    : probe_address_parse(infos[k].address, &l->addr);
		if (r >= 0)
			r = link_open(pr, l);
		if (r >= 0)
			r = link_paths_add(pr, l);
		if (r < 0) {
			/* not half made: the slot is free again, and the next refresh adds it */
			link_forget(pr, l);
			return r;
		}
	}
	return 0;
}

/* rdmad's probe.links: the names of the links that declare a probe key, a line each. NULL in
 * *ret without the file (then every managed link is asked). */
static int links_file_read(const char *path, char ***ret) {
	_cleanup_free_ char *line = NULL;
	char **names = NULL;
	size_t size = 0;
	ssize_t n;
	FILE *f;
	int r = 0;

	*ret = NULL;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && (n = getline(&line, &size, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (*line)
			r = strv_extend(&names, line);
	}
	fclose(f);
	if (r < 0) {
		strv_free(names);
		return r;
	}
	*ret = names;
	return 0;
}

static int links_refresh(Prober *pr) {
	ProbeLinkInfo *infos = NULL;
	char **names = NULL;
	size_t n = 0;
	int r;

	/* only the links rdmad lists there are asked for their properties: at thousands of
	 * managed links, asking each at every refresh would hold the loop */
	r = links_file_read(pr->links_file, &names);
	if (r >= 0)
		r = probe_links_from_rdmad(pr->bus, names, &infos, &n);
	strv_free(names);
	if (r < 0)
		return r;
	r = prober_links_update(pr, infos, n);
	probe_link_infos_free(infos, n);
	return r;
}

/* A published GID moved, a link's properties (its Settings among them) changed, a link came or
 * went: the links read again, once for a burst of signals (a reload changes every link's). */
#define REFRESH_DELAY_USEC (100 * 1000ULL)

static int on_refresh(sd_event_source *s, uint64_t usec, void *userdata);

static void refresh_schedule(Prober *pr) {
	int r;

	if (pr->refresh)
		r = sd_event_source_set_enabled(pr->refresh, SD_EVENT_ONESHOT);
	else
		r = sd_event_add_time_relative(pr->event, &pr->refresh, CLOCK_MONOTONIC,
					       REFRESH_DELAY_USEC, 10 * 1000, on_refresh, pr);
	if (r >= 0 && pr->refresh)
		r = sd_event_source_set_time_relative(pr->refresh, REFRESH_DELAY_USEC);
	if (r < 0)
		fprintf(stderr, "Failed to follow rdmad's links: %s\n", strerror(-r));
}

static int on_refresh(sd_event_source *s, uint64_t usec, void *userdata) {
	Prober *pr = userdata;
	int r = links_refresh(pr);

	if (r < 0)
		fprintf(stderr, "Failed to follow rdmad's links: %s\n", strerror(-r));
	return 0;
}

static int on_rdmad_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	refresh_schedule(userdata);
	return 0;
}

/* rdmad removed probe.links: no link declares a probe key any more */
/* rdmad rewrote probe.links (the links to ask changed: read again), or removed it (no link
 * declares a probe key any more: leave). Other files of the directory are not looked at. */
static int on_links_file(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
	Prober *pr = userdata;

	if (ev->len == 0 || !streq(ev->name, pr->links_file_name))
		return 0;
	if (access(pr->links_file, F_OK) < 0 && errno == ENOENT) {
		fprintf(stderr, "%s removed: no link to probe\n", pr->links_file);
		return sd_event_exit(pr->event, 0);
	}
	refresh_schedule(pr);
	return 0;
}

static int prober_setup(Prober *pr, ProbeLinkInfo *given, size_t n_given) {
	int r;

	if (pr->links_file) {
		_cleanup_free_ char *d = strdup(pr->links_file);

		if (!d)
			return -ENOMEM;
		pr->links_file_name = strrchr(pr->links_file, '/')
					      ? strrchr(pr->links_file, '/') + 1
					      : pr->links_file;
		/* the directory's: rdmad replaces the file by a rename, which a watch on the file
		 * itself would take for its removal */
		r = sd_event_add_inotify(pr->event, NULL, dirname(d),
					 IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE,
					 on_links_file, pr);
		if (r < 0)
			return r;
		if (access(pr->links_file, F_OK) < 0)
			return sd_event_exit(pr->event, 0); /* gone before we began */
	}
	r = probe_transport_new((uint32_t) (now_monotonic_nsec() ^ (uint64_t) getpid() << 16),
				on_reply, pr, &pr->transport);
	if (r < 0)
		return r;
	r = sd_event_add_io(pr->event, &pr->cm_io, probe_transport_fd(pr->transport), EPOLLIN,
			    on_cm, pr);
	if (r < 0)
		return r;
	if (n_given > 0)
		r = prober_links_update(pr, given, n_given);
	else {
		r = rdmad_bus_open(&pr->bus);
		if (r == 0)
			r = -ESRCH; /* rdmad is not on the bus */
		if (r >= 0)
			r = sd_bus_attach_event(pr->bus, pr->event, SD_EVENT_PRIORITY_NORMAL);
		if (r >= 0)
			r = sd_bus_match_signal(pr->bus, NULL, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
						RDMAD_MANAGER_IFACE, "PublishedGidChanged",
						on_rdmad_changed, pr);
		if (r >= 0)
			r = sd_bus_add_match(pr->bus, NULL,
					     "type='signal',sender='" RDMAD_BUS_NAME "',"
					     "interface='org.freedesktop.DBus.Properties',"
					     "member='PropertiesChanged',arg0='" RDMAD_LINK_IFACE
					     "'",
					     on_rdmad_changed, pr);
		if (r >= 0)
			r = sd_bus_add_match(pr->bus, NULL,
					     "type='signal',sender='" RDMAD_BUS_NAME "',"
					     "interface='org.freedesktop.DBus.ObjectManager'",
					     on_rdmad_changed, pr);
		if (r >= 0)
			r = links_refresh(pr);
	}
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
	sd_event_source_disable_unref(pr->cm_io);
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
