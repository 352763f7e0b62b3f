/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Each link's ToS followed (issue 45; probe-tos.h): read before its probes go out, and when it
 * changed, each path from the link retagged (a ready one), set up again (one being set up) or
 * made again at once (a stopped one), so that the next probes carry the new class. A change is
 * not a failure: nothing is counted lost or as an error for it. A class the fabric drops then
 * shows as it would for any traffic: the probes of the link's paths lost, the paths made again
 * after SILENT_MAX of them, and their setup (which carries the class too) failing at connect. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "prober.h"

static PathPhase path_phase(const Path *p) {
	if (!p->p)
		return PATH_PHASE_STOPPED;
	return probe_path_ready(p->p) ? PATH_PHASE_READY : PATH_PHASE_SETUP;
}

void link_tos_update(Prober *pr, Link *l, uint64_t now) {
	unsigned n[_PATH_TOS_ACTION_MAX] = { 0 }, port;
	ProbeTosSource source = PROBE_TOS_NONE;
	const char *device;
	uint8_t v = 0;
	int r = -ENODEV, tos;

	if (!l->endpoint)
		return;
	if (probe_link_port(l->endpoint, &device, &port) >= 0)
		r = probe_tos_read(PROBE_RDMA_CM_CONFIGFS, device, port, &v);
	/* no group made for the device (-ENOENT): nobody set its ToS, not worth a line */
	if (r < 0 && r != l->tos_error && r != -ENODEV && r != -ENOENT)
		fprintf(stderr, "%s: its default_roce_tos (configfs) cannot be read: %s%s\n",
			l->name, strerror(-r),
			l->facts.known & PROBE_KNOWN_TOS ? "; following rdmad's ToS" : "");
	l->tos_error = r;
	tos = probe_tos_choose(r, v, &l->facts, &source);
	if (tos < 0)
		tos = -1; /* not known: each path keeps the class it has */
	if (tos == l->tos && source == l->tos_source)
		return;
	for (size_t i = 0; tos >= 0 && i < pr->n_paths; i++) {
		Path *p = &pr->paths[i];
		PathTosAction a;

		if (p->from != l)
			continue;
		/* a failure not collected yet: path_probe() counts it, and makes the path again at
		 * once as its class is not the link's any more */
		if (p->p && probe_path_failed(p->p, NULL, NULL))
			continue;
		a = path_tos_action(path_phase(p), p->tos, tos);
		if (a == PATH_TOS_RETAG && probe_path_set_tos(p->p, (uint8_t) tos) < 0)
			a = PATH_TOS_REMAKE; /* no address handle for it: made again with it */
		if (a == PATH_TOS_REMAKE)
			path_reset(p);
		else if (a == PATH_TOS_RETRY)
			p->retry_ns = now;
		if (a != PATH_TOS_KEEP)
			p->tos = tos;
		n[a]++;
	}
	if (tos != l->tos && tos >= 0) {
		char was[16] = "not known";

		if (l->tos >= 0)
			snprintf(was, sizeof(was), "%d", l->tos);
		fprintf(stderr,
			"%s: ToS %d (%s), was %s: %u path(s) retagged, %u set up again, %u made "
			"again\n",
			l->name, tos, probe_tos_source_to_string(source), was, n[PATH_TOS_RETAG],
			n[PATH_TOS_REMAKE], n[PATH_TOS_RETRY]);
	} else if (tos != l->tos)
		fprintf(stderr, "%s: its ToS is not known any more: the paths keep ToS %d\n",
			l->name, l->tos);
	l->tos = tos;
	l->tos_source = source;
}
