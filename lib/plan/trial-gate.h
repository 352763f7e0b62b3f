/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The health gates of a pending trial (`rdmactl try`, issue 45), as pure decisions on what the
 * daemon read: each says 0 (held) or 1 (failed, with what it saw in *ret_seen), or -ENOMEM.
 *   links:  every link the trial touches converges (none failed, none pending past a limit);
 *   netdev: its netdevs that were up before the trial stay up (operstate);
 *   probe:  no path of rdmad-probe's state through a touched link newly fails or loses more
 *           than in the minute before the trial. On a dropped DSCP class a path never comes
 *           up: it shows an error step (connect) with sent and lost both 0, so a path that is
 *           unreachable now, or stopped at a step, where it was probing before, fails the gate
 *           whatever its loss. */

#include <stdbool.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>

#include "macro.h"
#include "string-table.h"

typedef enum TrialGate {
	TRIAL_GATE_LINKS,
	TRIAL_GATE_NETDEV,
	TRIAL_GATE_PROBE,
	_TRIAL_GATE_MAX,
	_TRIAL_GATE_INVALID = -EINVAL,
} TrialGate;
DECLARE_STRING_TABLE_LOOKUP(trial_gate, TrialGate)

/* A touched link as the status table says it. */
typedef struct TrialLinkState {
	const char *link;   /* "rxe0/1" */
	const char *state;  /* "converged", "pending", "failed", "unmanaged" */
	const char *detail; /* why it is failed or pending, NULL if not known */
} TrialLinkState;

/* How long a touched link may stay pending before the links gate fails. */
#define TRIAL_CONVERGE_USEC (30ULL * 1000000)

int trial_gate_links(const TrialLinkState *l, size_t n, uint64_t elapsed_usec, char **ret_seen);

typedef struct TrialNetdevState {
	const char *netdev;
	bool up_before;	       /* operstate up (or unknown, as veth and tun say) when it began */
	const char *operstate; /* now; NULL: gone */
} TrialNetdevState;

/* "up" and "unknown" (drivers that do not report it) count as up. */
bool operstate_is_up(const char *operstate) _pure_;
int trial_gate_netdevs(const TrialNetdevState *l, size_t n, char **ret_seen);

/* A path's failures since the prober started, by step (the state file's "errors" object, as
 * errors_total{step=...} in its metrics; absent from a prober before issue 45's). */
#define PROBE_STEPS_MAX 8
typedef struct ProbeStepErrors {
	char step[16];
	uint64_t n;
} ProbeStepErrors;

/* One path of rdmad-probe's state file (/run/rdmad-probe/state.json): its last minute. */
typedef struct ProbePath {
	char *link, *peer;
	char *state; /* "probing", "resolving", "unreachable" */
	char *step;  /* the step it stopped at ("connect"), NULL when none */
	char *error;
	uint64_t sent, lost;
	ProbeStepErrors errors[PROBE_STEPS_MAX];
	size_t n_errors;
} ProbePath;

/* The paths of a state file's text (pure). -EBADMSG if it is no such document. */
int probe_paths_parse(const char *text, ProbePath **ret, size_t *ret_n);
void probe_paths_free(ProbePath *l, size_t n);

/* before: the state when the trial began (the minute before it); now: the latest; links: the
 * touched links (NULL-terminated). A path absent before is not judged (nothing to compare), nor
 * the errors of one already failing before (each try of its setup counts one more). */
int trial_gate_probe(const ProbePath *before, size_t n_before, const ProbePath *now, size_t n_now,
		     char *const *links, char **ret_seen);
