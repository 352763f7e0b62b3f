/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "json-util.h"
#include "string-table.h"
#include "strv.h"
#include "trial-gate.h"

static const char *const trial_gate_table[_TRIAL_GATE_MAX] = {
	[TRIAL_GATE_LINKS] = "links",
	[TRIAL_GATE_NETDEV] = "netdev",
	[TRIAL_GATE_PROBE] = "probe",
};
DEFINE_STRING_TABLE_LOOKUP(trial_gate, TrialGate)

static int seen_set(char **ret_seen, const char *fmt, ...) _printf_(2, 3);
static int seen_set(char **ret_seen, const char *fmt, ...) {
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vasprintf(ret_seen, fmt, ap);
	va_end(ap);
	return k < 0 ? -ENOMEM : 1;
}

int trial_gate_links(const TrialLinkState *l, size_t n, uint64_t elapsed_usec, char **ret_seen) {
	for (size_t i = 0; i < n; i++) {
		if (streq(l[i].state, "failed"))
			return seen_set(ret_seen, "%s failed: %s", l[i].link,
					l[i].detail ? l[i].detail : "(no reason given)");
		if (streq(l[i].state, "pending") && elapsed_usec >= TRIAL_CONVERGE_USEC)
			return seen_set(ret_seen, "%s still pending after %" PRIu64 " s: %s",
					l[i].link, elapsed_usec / 1000000,
					l[i].detail ? l[i].detail : "(no reason given)");
	}
	return 0;
}

bool operstate_is_up(const char *operstate) {
	return operstate && (streq(operstate, "up") || streq(operstate, "unknown"));
}

int trial_gate_netdevs(const TrialNetdevState *l, size_t n, char **ret_seen) {
	for (size_t i = 0; i < n; i++)
		if (l[i].up_before && !operstate_is_up(l[i].operstate))
			return seen_set(ret_seen, "%s is %s (up before the trial)", l[i].netdev,
					l[i].operstate ? l[i].operstate : "gone");
	return 0;
}

void probe_paths_free(ProbePath *l, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(l[i].link);
		free(l[i].peer);
		free(l[i].state);
		free(l[i].step);
		free(l[i].error);
	}
	free(l);
}

static char *dup_or_null(const char *s) {
	return s ? strdup(s) : NULL;
}

int probe_paths_parse(const char *text, ProbePath **ret, size_t *ret_n) {
	_cleanup_(json_object_putp) json_object *root = NULL;
	json_object *paths;
	ProbePath *l;
	size_t n;

	root = json_tokener_parse(text);
	if (!root || !json_object_is_type(root, json_type_object) ||
	    !json_object_object_get_ex(root, "paths", &paths) ||
	    !json_object_is_type(paths, json_type_array))
		return -EBADMSG;
	n = json_object_array_length(paths);
	l = calloc(n > 0 ? n : 1, sizeof(ProbePath));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_array_get_idx(paths, i), *v;
		const char *link = json_get_string(o, "link"), *peer = json_get_string(o, "peer");

		if (!link || !peer) {
			probe_paths_free(l, n);
			return -EBADMSG;
		}
		l[i].link = strdup(link);
		l[i].peer = strdup(peer);
		l[i].state = strdup(json_get_string(o, "state") ? json_get_string(o, "state")
								: "resolving");
		l[i].step = dup_or_null(json_get_string(o, "step"));
		l[i].error = dup_or_null(json_get_string(o, "error"));
		if (json_object_object_get_ex(o, "errors", &v) &&
		    json_object_is_type(v, json_type_object)) {
			/* the iterator, not json_object_object_foreach: a GNU statement
			 * expression, which clang's -Wpedantic refuses (the fuzz build) */
			struct json_object_iterator it = json_object_iter_begin(v),
						    end = json_object_iter_end(v);

			for (; !json_object_iter_equal(&it, &end) && l[i].n_errors < PROBE_STEPS_MAX;
			     json_object_iter_next(&it)) {
				ProbeStepErrors *e = &l[i].errors[l[i].n_errors];

				snprintf(e->step, sizeof(e->step), "%s", json_object_iter_peek_name(&it));
				e->n = (uint64_t) json_object_get_int64(json_object_iter_peek_value(&it));
				l[i].n_errors++;
			}
		}
		if (json_object_object_get_ex(o, "sent", &v))
			l[i].sent = (uint64_t) json_object_get_int64(v);
		if (json_object_object_get_ex(o, "lost", &v))
			l[i].lost = (uint64_t) json_object_get_int64(v);
		if (!l[i].link || !l[i].peer || !l[i].state) {
			probe_paths_free(l, n);
			return -ENOMEM;
		}
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

static const ProbePath *path_find(const ProbePath *l, size_t n, const char *link,
				  const char *peer) {
	for (size_t i = 0; i < n; i++)
		if (streq(l[i].link, link) && streq(l[i].peer, peer))
			return &l[i];
	return NULL;
}

static uint64_t path_errors(const ProbePath *p, const char *step) {
	for (size_t i = 0; i < p->n_errors; i++)
		if (streq(p->errors[i].step, step))
			return p->errors[i].n;
	return 0;
}

static bool path_failing(const ProbePath *p) {
	return streq(p->state, "unreachable") || p->step;
}

int trial_gate_probe(const ProbePath *before, size_t n_before, const ProbePath *now, size_t n_now,
		     char *const *links, char **ret_seen) {
	for (size_t i = 0; i < n_now; i++) {
		const ProbePath *p = &now[i], *b;

		if (!strv_contains(links, p->link))
			continue;
		b = path_find(before, n_before, p->link, p->peer);
		if (!b)
			continue;
		if (path_failing(p) && !path_failing(b))
			return seen_set(
				ret_seen,
				"path %s -> %s newly fails: %s%s%s%s%s (%s before the trial)",
				p->link, p->peer, p->state, p->step ? ", step " : "",
				p->step ? p->step : "", p->step && p->error ? ": " : "",
				p->step && p->error ? p->error : "", b->state);
		/* a failure counted since (a setup dropped on the new class fails at connect, and
		 * may be tried again before the state says so) */
		for (size_t k = 0; !path_failing(b) && k < p->n_errors; k++)
			if (p->errors[k].n > path_errors(b, p->errors[k].step))
				return seen_set(ret_seen,
						"path %s -> %s: errors{step=\"%s\"} %" PRIu64
						" -> %" PRIu64 " since the trial began",
						p->link, p->peer, p->errors[k].step,
						path_errors(b, p->errors[k].step), p->errors[k].n);
		/* more loss in the last minute than in the minute before, in count and in ratio */
		if (p->lost > b->lost &&
		    p->lost * (b->sent > 0 ? b->sent : 1) > b->lost * (p->sent > 0 ? p->sent : 1))
			return seen_set(ret_seen,
					"path %s -> %s lost %" PRIu64 " of %" PRIu64
					" probes in the last minute (%" PRIu64 " of %" PRIu64
					" before the trial)",
					p->link, p->peer, p->lost, p->sent, b->lost, b->sent);
	}
	return 0;
}
