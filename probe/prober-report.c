/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What the prober writes, once a second at most: each path's round trips, losses and errors,
 * the RoCE settings it and its peer disagree on, and what each link answered for other probers, as
 * Prometheus text (node_exporter's textfile directory) and as JSON for rdmactl probe. */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>

#include "fileio.h"
#include "json-util.h"
#include "macro.h"
#include "metrics.h"
#include "prober.h"

/* What each link's endpoint did for the other probers: requests answered, and datagrams
 * refused (not a probe, an answer meant for another prober or not from the path's peer, a request
 * over its source's budget). */
static int metrics_add_links(Prober *pr, Metrics *m) {
	static const MetricFamily answered = {
		"rdmad_probe_answered_total", METRIC_COUNTER,
		"Probes from other probers (and this one's mesh) a link answered."
	};
	static const MetricFamily refused = {
		"rdmad_probe_refused_total", METRIC_COUNTER,
		"Datagrams a link received and refused: not a probe, an answer meant for another "
		"prober or not from the path's peer, a request over its source's budget."
	};
	static const MetricFamily tos = { "rdmad_probe_tos", METRIC_GAUGE,
					  "The ToS byte a link's probes carry (its rdma_cm "
					  "default_roce_tos, or rdmad's ToS), "
					  "and where it was read." };
	int r = 0;

	for (size_t i = 0; r >= 0 && i < MAX_LINKS; i++) {
		Link *l = &pr->links[i];

		if (!l->name)
			continue;
		r = metrics_add_u64(m, &answered, link_answered(l), "link", l->name, NULL);
		if (r >= 0)
			r = metrics_add_u64(m, &refused, link_refused(l), "link", l->name, NULL);
		if (r >= 0 && l->tos >= 0)
			r = metrics_add_u64(m, &tos, (uint64_t) l->tos, "link", l->name, "source",
					    probe_tos_source_to_string(l->tos_source), NULL);
	}
	return r;
}

static bool path_mismatch(const Path *p, const char *setting) {
	for (size_t i = 0; i < p->n_mismatches; i++)
		if (streq(p->mismatches[i].setting, setting))
			return true;
	return false;
}

/* Each setting both ends of a path can tell: 1 where they differ, 0 where they agree. None for a
 * path whose peer did not tell its settings (not known, which is not agreeing). */
static int metrics_add_mismatches(const Path *p, Metrics *m) {
	static const MetricFamily mismatch = {
		"rdmad_probe_peer_mismatch", METRIC_GAUGE,
		"Whether a RoCE setting of a link differs from its peer's, as the peer's prober "
		"tells it (1) or agrees (0): dscp, priority, pfc, ecn, mtu, roce-mode."
	};
	int r = 0;

	for (size_t i = 0; r >= 0 && i < p->n_compared; i++)
		r = metrics_add_u64(m, &mismatch, path_mismatch(p, p->compared[i]) ? 1 : 0, "link",
				    p->from->name, "peer", p->peer, "setting", p->compared[i],
				    NULL);
	return r;
}

int prober_metrics_write(Prober *pr) {
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
	for (size_t i = 0; r >= 0 && i < pr->n_paths; i++)
		r = metrics_add_mismatches(&pr->paths[i], &m);
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
		/* the ToS its probes carry, and where it was read (none: not known) */
		if (l->tos >= 0)
			json_object_object_add(o, "tos", json_object_new_int(l->tos));
		json_object_object_add(
			o, "tos_source",
			json_object_new_string(probe_tos_source_to_string(l->tos_source)));
	}
	return 0;
}

/* "peer_settings": "unknown" (its prober told none), or "known" with "compared" (the settings
 * both ends tell) and "mismatches" (each with the setting, this link's value and the peer's). */
static int state_add_mismatches(const Path *p, json_object *o) {
	json_object *compared, *mismatches;

	json_object_object_add(o, "peer_settings",
			       json_object_new_string(p->peer_known ? "known" : "unknown"));
	if (!p->peer_known)
		return 0;
	compared = json_object_new_array();
	mismatches = json_object_new_array();
	if (!compared || !mismatches) {
		json_object_put(compared);
		json_object_put(mismatches);
		return -ENOMEM;
	}
	json_object_object_add(o, "compared", compared);
	json_object_object_add(o, "mismatches", mismatches);
	for (size_t i = 0; i < p->n_compared; i++)
		json_object_array_add(compared, json_object_new_string(p->compared[i]));
	for (size_t i = 0; i < p->n_mismatches; i++) {
		json_object *m = json_object_new_object();

		if (!m)
			return -ENOMEM;
		json_object_array_add(mismatches, m);
		json_object_object_add(m, "setting",
				       json_object_new_string(p->mismatches[i].setting));
		json_object_object_add(m, "local", json_object_new_string(p->mismatches[i].local));
		json_object_object_add(m, "peer", json_object_new_string(p->mismatches[i].other));
	}
	return 0;
}

int prober_state_write(Prober *pr, uint64_t now) {
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
		json_object *o = json_object_new_object(), *errors;
		LatencySummary s;

		if (!o || latency_window_summary(&p->window, now, &s) < 0)
			return -ENOMEM;
		json_object_array_add(paths, o);
		json_object_object_add(o, "link", json_object_new_string(p->from->name));
		json_object_object_add(o, "peer", json_object_new_string(p->peer));
		json_object_object_add(o, "kind", json_object_new_string(p->kind));
		json_object_object_add(o, "state", json_object_new_string(path_state(p)));
		/* the class its probes carry (and its setup); absent: rdma_cm's default */
		if (path_tos(p) >= 0)
			json_object_object_add(o, "tos", json_object_new_int(path_tos(p)));
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
		/* its failures since the prober started, by step, as in the metrics: a path that
		 * never comes up (its setup dropped) has errors and neither sent nor lost */
		errors = json_object_new_object();
		if (!errors)
			return -ENOMEM;
		json_object_object_add(o, "errors", errors);
		for (ProbeStep st = PROBE_STEP_ADDRESS; st < _PROBE_STEP_MAX; st++)
			json_object_object_add(errors, probe_step_to_string(st),
					       json_object_new_uint64(p->errors[st]));
		json_object_object_add(o, "sent", json_object_new_uint64(s.sent));
		json_object_object_add(o, "lost", json_object_new_uint64(s.lost));
		json_object_object_add(o, "min_usec", json_object_new_double(s.min_ns / 1e3));
		json_object_object_add(o, "p50_usec", json_object_new_double(s.p50_ns / 1e3));
		json_object_object_add(o, "p99_usec", json_object_new_double(s.p99_ns / 1e3));
		json_object_object_add(o, "max_usec", json_object_new_double(s.max_ns / 1e3));
		r = state_add_mismatches(p, o);
		if (r < 0)
			return r;
	}
	return write_file_atomic(
		pr->state_path, json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN), 0644);
}
