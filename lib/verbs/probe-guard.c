/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "probe-guard.h"

bool probe_budget_take(ProbeBudget *b, const ProbePeer *source, uint64_t now_ns) {
	unsigned *used = NULL;

	if (now_ns - b->window_ns >= PROBE_BUDGET_WINDOW_NS) { /* a clock gone back too */
		b->window_ns = now_ns;
		b->used = 0;
		b->n_sources = 0;
		b->others = 0;
	}
	for (unsigned i = 0; i < b->n_sources && !used; i++)
		if (probe_peer_equal(&b->sources[i].peer, source))
			used = &b->sources[i].used;
	if (!used && b->n_sources < PROBE_BUDGET_SOURCES) {
		b->sources[b->n_sources] = (ProbeBudgetSource){ .peer = *source };
		used = &b->sources[b->n_sources++].used;
	}
	if (!used)
		used = &b->others;
	if (b->used >= PROBE_BUDGET_TOTAL || *used >= PROBE_BUDGET_SOURCE) {
		b->refused++;
		return false;
	}
	(*used)++;
	b->used++;
	return true;
}

ProbeReplyVerdict probe_reply_judge(const ProbeMessage *m, uint32_t sender, const ProbePeer *peer,
				    const ProbePeer *from) {
	if (m->kind != PROBE_REPLY || m->sender != sender)
		return PROBE_REPLY_NOT_OURS;
	if (!peer)
		return PROBE_REPLY_UNKNOWN_PATH;
	if (!probe_peer_equal(peer, from))
		return PROBE_REPLY_NOT_THE_PEER;
	return PROBE_REPLY_OK;
}
