/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A path's life: made from its link's endpoint to a peer, probed when due, its answers timed
 * and its losses counted, stopped and made again when its setup or its peer fails. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "prober.h"

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
void on_reply(void *userdata, uint32_t id, uint64_t seq, uint64_t sent_ns, uint64_t now,
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

/* Probes past their timeout: lost. */
void path_expire(Path *p, uint64_t now, uint64_t timeout) {
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

int path_tos(const Path *p) {
	return p->p ? probe_path_tos(p->p) : p->tos;
}

const char *path_state(const Path *p) {
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

void path_probe(Prober *pr, Path *p, uint64_t now) {
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
		/* made again later; at once when its link's ToS changed since it was made (it
		 * failed with the class before: prober-tos.c) */
		p->retry_ns =
			p->tos != p->from->tos && p->from->tos >= 0 ? now : now + 5 * NSEC_PER_SEC;
	}
	if (!p->p && now >= p->retry_ns) {
		/* the peer link answers on its own port; a remote peer on the port of ours. Its
		 * setup and probes carry its link's ToS. */
		r = probe_path_new(p->from->endpoint, (struct sockaddr *) &p->to,
				   (uint16_t) (p->to_link ? p->to_link : p->from)->settings.port,
				   p->from->tos, p->id, &p->p);
		p->tos = p->from->tos;
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
			path_settings_ask(p, t);
			return;
		}
	p->errors[PROBE_STEP_SEND]++; /* every entry outstanding: the timeout is too long */
}

int path_add(Prober *pr, Link *from, Link *to_link, const char *peer, const char *kind,
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
		     .tos = -1,
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
void path_reset(Path *p) {
	p->p = probe_path_free(p->p);
	memset(p->pending, 0, sizeof(p->pending));
	p->silent_made = 0;
	p->retry_ns = 0;
	p->ask_due_ns = 0; /* the peer asked for its settings again once it is made */
}

void path_remove(Prober *pr, size_t i) {
	Path *p = &pr->paths[i];

	probe_path_free(p->p);
	latency_window_done(&p->window);
	free(p->peer);
	pr->paths[i] = pr->paths[--pr->n_paths];
}
