/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host against host (issue 44): each link tells its RoCE settings to the peers that ask (rdmad's
 * RoceFacts and the active RoCE MTU of its endpoint), each path asks its peer for the peer's, and
 * the two are compared (fabric-agree.h). Each answer replaces the path's mismatches, so a
 * setting fixed on either side clears without a restart. A peer whose prober never answers
 * (version 1) is not known, which is not agreeing. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "prober.h"

/* A path asks its peer every SETTINGS_EVERY intervals (at least SETTINGS_MIN_NS apart): the
 * peer's settings may change without this side hearing of it otherwise. */
#define SETTINGS_EVERY	5
#define SETTINGS_MIN_NS NSEC_PER_SEC
/* Asks in a row without an answer (while probes may be answered) after which the peer's
 * settings are forgotten: its prober no longer tells them. */
#define SETTINGS_SILENT_MAX 3

static bool settings_equal(const ProbeLinkSettings *a, const ProbeLinkSettings *b) {
	return a->known == b->known && a->netdev_mtu == b->netdev_mtu &&
	       a->roce_mtu == b->roce_mtu && a->roce_mode == b->roce_mode && a->tos == b->tos &&
	       a->trust == b->trust && a->priority == b->priority && a->pfc == b->pfc &&
	       a->ecn == b->ecn && a->cnp_dscp == b->cnp_dscp && a->cnp_priority == b->cnp_priority;
}

static bool mismatches_equal(const FabricMismatch *a, size_t n, const FabricMismatch *b, size_t k) {
	if (n != k)
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i].setting, b[i].setting) != 0 ||
		    strcmp(a[i].local, b[i].local) != 0 || strcmp(a[i].other, b[i].other) != 0)
			return false;
	return true;
}

/* The path's comparison again, from its link's settings and its peer's last answer; said to the
 * journal when its mismatches change. */
static void path_compare(Path *p) {
	FabricMismatch m[FABRIC_MISMATCHES_MAX];
	size_t n = 0;

	if (p->peer_known) {
		p->n_compared =
			fabric_peer_compared(&p->from->told, &p->peer_settings, p->compared);
		n = fabric_compare_peer(&p->from->told, &p->peer_settings, m);
	} else
		p->n_compared = 0;
	if (mismatches_equal(m, n, p->mismatches, p->n_mismatches) &&
	    p->said_known == p->peer_known)
		return;
	p->said_known = p->peer_known;
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s -> %s: %s differs: %s here, %s there\n", p->from->name, p->peer,
			m[i].setting, m[i].local, m[i].other);
	if (n == 0)
		fprintf(stderr, "%s -> %s: %s\n", p->from->name, p->peer,
			!p->peer_known	    ? "the peer's RoCE settings not known"
			: p->n_compared > 0 ? "RoCE settings agree"
					    : "the peer told no RoCE setting this link knows too");
	memcpy(p->mismatches, m, n * sizeof(FabricMismatch));
	p->n_mismatches = n;
}

static void path_settings_told(Path *p, const ProbeLinkSettings *s) {
	p->peer_settings = *s;
	p->peer_known = true;
	p->asked_unanswered = false;
	p->asks_unanswered = 0;
	path_compare(p);
}

/* Whether the path's peer is at the GID a datagram came from: an IPv4 address's mapped GID, or
 * the IPv6 address itself. */
static bool path_peer_at(const Path *p, const ProbePeer *from) {
	uint8_t gid[16] = { 0 };

	if (p->to.ss_family == AF_INET) {
		gid[10] = gid[11] = 0xff;
		memcpy(gid + 12, &((const struct sockaddr_in *) &p->to)->sin_addr, 4);
	} else if (p->to.ss_family == AF_INET6)
		memcpy(gid, &((const struct sockaddr_in6 *) &p->to)->sin6_addr, 16);
	else
		return false;
	return memcmp(gid, from->gid, 16) == 0;
}

void on_settings(void *userdata, ProbeLink *l, uint32_t id, const ProbePeer *from,
		 const ProbeLinkSettings *settings) {
	Prober *pr = userdata;

	for (size_t i = 0; i < pr->n_paths; i++) {
		Path *p = &pr->paths[i];

		if (p->from->endpoint != l)
			continue;
		/* an answer to this path's asking; or a peer asking, which tells its settings
		 * too: taken for the paths of this link to it, as fresh as an answer */
		if (id == UINT32_MAX ? path_peer_at(p, from) : p->id == id)
			path_settings_told(p, settings);
	}
}

void path_settings_ask(Path *p, uint64_t now) {
	uint64_t every = SETTINGS_EVERY * p->from->settings.interval_ms * NSEC_PER_MSEC;
	int r;

	if (now < p->ask_due_ns || !p->from->endpoint)
		return;
	if (p->asked_unanswered && ++p->asks_unanswered >= SETTINGS_SILENT_MAX && p->peer_known) {
		fprintf(stderr, "%s -> %s: the peer's prober no longer tells its settings\n",
			p->from->name, p->peer);
		p->peer_known = false;
		path_compare(p);
	}
	r = probe_path_ask_settings(p->p, ++p->ask_seq);
	if (r == -EAGAIN)
		return; /* resolving: asked when it is ready */
	p->asked_unanswered = true;
	p->ask_due_ns = now + (every > SETTINGS_MIN_NS ? every : SETTINGS_MIN_NS);
}

void link_settings_update(Prober *pr, Link *l) {
	ProbeLinkSettings s = l->facts;
	unsigned mtu;
	int r;

	if (!l->endpoint)
		return;
	s.known &= (uint16_t) ~PROBE_KNOWN_ROCE_MTU;
	s.roce_mtu = 0;
	if (probe_link_active_mtu(l->endpoint, &mtu) >= 0) {
		s.known |= PROBE_KNOWN_ROCE_MTU;
		s.roce_mtu = (uint16_t) mtu;
	}
	r = probe_link_set_settings(l->endpoint, &s);
	if (r < 0) {
		/* not what the wire carries (rdmad's facts are checked as they are read) */
		fprintf(stderr, "%s: its RoCE settings cannot be told: %s\n", l->name,
			strerror(-r));
		return;
	}
	if (settings_equal(&s, &l->told))
		return;
	l->told = s;
	for (size_t i = 0; i < pr->n_paths; i++)
		if (pr->paths[i].from == l) {
			path_compare(&pr->paths[i]);
			pr->paths[i].ask_due_ns = 0; /* the peer told again, and asked again */
		}
}

void link_facts_set(Prober *pr, Link *l, const ProbeLinkSettings *facts) {
	if (settings_equal(&l->facts, facts))
		return;
	l->facts = *facts;
	link_settings_update(pr, l);
	/* rdmad observed a change (its ToS, or another setting): the link's ToS read at once,
	 * not at the next tick */
	link_tos_update(pr, l, now_monotonic_nsec());
}
