/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a prober's endpoint lets in (lib/verbs/probe-ud.c), pure: no verbs, no clock of its own.
 *
 * An answer counts only if it is this prober's (its sender), on a path it knows, and from that
 * path's peer: the GID and QP number the path's SIDR exchange gave, not merely a datagram with
 * the right path and sequence number. Another peer of the same prober sees the sender and
 * sequence numbers in its own requests, and path numbers are small: it could otherwise answer
 * for a path whose peer is silent, and make it look alive.
 *
 * The endpoint answers every prober that asks, but not without bound: each source (GID and QP
 * number) may have PROBE_BUDGET_SOURCE answers a window of PROBE_BUDGET_WINDOW_NS, and all of
 * them together PROBE_BUDGET_TOTAL; the rest are refused. The first PROBE_BUDGET_SOURCES
 * sources of a window are counted each on its own; the sources beyond them share one budget,
 * so that a flood from many (forged) sources is bounded too. A flood from one source then
 * costs the link at most that source's budget of sends, and its completions (bounded a
 * dispatch by the transport) cannot hold the prober's own probes back. */

#include <stdbool.h>
#include <stdint.h>

#include "probe-wire.h"

#define PROBE_BUDGET_WINDOW_NS (100 * 1000 * 1000ULL)
/* a peer probing every 10 ms from one QP has 10 a window */
#define PROBE_BUDGET_SOURCE  16
#define PROBE_BUDGET_SOURCES 64
/* 2560 answers a second: a thousand peers probing this link every 400 ms */
#define PROBE_BUDGET_TOTAL 256

typedef struct ProbeBudgetSource {
	ProbePeer peer;
	unsigned used;
} ProbeBudgetSource;

typedef struct ProbeBudget {
	uint64_t window_ns; /* when the current window began */
	unsigned used;	    /* answers in it, all sources */
	unsigned n_sources;
	ProbeBudgetSource sources[PROBE_BUDGET_SOURCES];
	unsigned others;  /* answers in it to the sources beyond the table */
	uint64_t refused; /* requests over a budget, since the start */
} ProbeBudget;

/* Whether one more answer to source fits its budget and the link's at now_ns (CLOCK_MONOTONIC):
 * counted if it does. A new window begins PROBE_BUDGET_WINDOW_NS after the last one began. */
bool probe_budget_take(ProbeBudget *b, const ProbePeer *source, uint64_t now_ns);

/* Why an answer is not counted; PROBE_REPLY_OK when it is. */
typedef enum ProbeReplyVerdict {
	PROBE_REPLY_OK,
	PROBE_REPLY_NOT_OURS,	  /* another prober's, or this one's before a restart */
	PROBE_REPLY_UNKNOWN_PATH, /* no such path on the link it came to, or not resolved yet */
	PROBE_REPLY_NOT_THE_PEER, /* from another GID or QP than the path's peer */
} ProbeReplyVerdict;

/* An answer m that came from `from`, to the prober whose instance is sender: peer is the peer of
 * the path m names (NULL when the link has no such path, or it has no peer yet). */
ProbeReplyVerdict probe_reply_judge(const ProbeMessage *m, uint32_t sender, const ProbePeer *peer,
				    const ProbePeer *from);
