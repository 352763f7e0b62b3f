/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl probe [--json] [--watch [SECS]]: what rdmad-probe measures on each path over the
 * last minute, as mtr shows it: sent, lost, p50, p99 and max, and where a path stops. Read from
 * the state file rdmad-probe writes at every interval (whole, renamed into place), so it needs
 * neither the prober's bus nor its privileges. Work in progress (issue 29). */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "output.h"
#include "rdmactl.h"

#define PROBE_STATE_FILE "/run/rdmad-probe/state.json"

static int state_read(const Options *o, json_object **ret) {
	_cleanup_free_ char *path = root_path(o->root, PROBE_STATE_FILE);
	json_object *j;

	if (!path)
		return -ENOMEM;
	j = json_object_from_file(path);
	if (!j) {
		fprintf(stderr, "No probe figures in %s: %s\n", path,
			access(path, F_OK) < 0 ? "rdmad-probe is not running (no profile declares "
						 "probe:, or it stopped)"
					       : json_util_get_last_err());
		return -ENOENT;
	}
	*ret = j;
	return 0;
}

static const char *field(json_object *o, const char *key) {
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

/* The settings a path's link and its peer disagree on ("dscp,mtu"), "none", or "unknown" where
 * the peer's prober told none (a prober of version 1, or no answer yet) or nothing both sides
 * know; "-" from an older prober's state file. */
static void mismatch_format(json_object *p, char *buf, size_t size) {
	const char *known = field(p, "peer_settings");
	json_object *l;
	size_t n = 0;

	if (!known) {
		snprintf(buf, size, "-");
		return;
	}
	if (!streq(known, "known") || !json_object_object_get_ex(p, "mismatches", &l) ||
	    !json_object_is_type(l, json_type_array)) {
		snprintf(buf, size, "unknown");
		return;
	}
	buf[0] = 0;
	for (size_t i = 0; i < json_object_array_length(l); i++) {
		const char *setting = field(json_object_array_get_idx(l, i), "setting");
		int k = snprintf(buf + n, size - n, "%s%s", n ? "," : "", setting ? setting : "?");

		if (k < 0 || (size_t) k >= size - n)
			break;
		n += (size_t) k;
	}
	/* none differs: agreement only where something was compared (a peer that told nothing
	 * this side knows too is no better known than one that told nothing) */
	if (n == 0)
		snprintf(buf, size, "%s",
			 json_object_object_get_ex(p, "compared", &l) &&
					 json_object_is_type(l, json_type_array) &&
					 json_object_array_length(l) > 0
				 ? "none"
				 : "unknown");
}

static int state_print(json_object *root) {
	static const char *const headers[] = { "LINK",	"PEER",	    "KIND",	 "STATE", "SENT",
					       "LOST",	"MIN",	    "P50",	 "P99",	  "MAX",
					       "CLOCK", "MISMATCH", "STOPPED AT" };
	_cleanup_(table_freep) Table *t = table_new(ELEMENTSOF(headers), headers);
	json_object *paths;
	int r;

	if (!t)
		return -ENOMEM;
	if (!json_object_object_get_ex(root, "paths", &paths) ||
	    !json_object_is_type(paths, json_type_array))
		return -EBADMSG;
	for (size_t i = 0; i < json_object_array_length(paths); i++) {
		json_object *p = json_object_array_get_idx(paths, i), *v;
		char min[32] = "-", p50[32] = "-", p99[32] = "-", max[32] = "-", stopped[128] = "",
		     mismatch[128];
		bool answered = json_object_object_get_ex(p, "max_usec", &v) &&
				json_object_get_double(v) > 0;

		if (answered) {
			/* a state file of an older prober has no minimum */
			if (json_object_object_get(p, "min_usec"))
				snprintf(min, sizeof(min), "%.1f us",
					 json_object_get_double(
						 json_object_object_get(p, "min_usec")));
			snprintf(p50, sizeof(p50), "%.1f us",
				 json_object_get_double(json_object_object_get(p, "p50_usec")));
			snprintf(p99, sizeof(p99), "%.1f us",
				 json_object_get_double(json_object_object_get(p, "p99_usec")));
			snprintf(max, sizeof(max), "%.1f us", json_object_get_double(v));
		}
		mismatch_format(p, mismatch, sizeof(mismatch));
		if (field(p, "step"))
			snprintf(stopped, sizeof(stopped), "%s: %s", field(p, "step"),
				 field(p, "error") ? field(p, "error") : "?");
		r = table_add_row(t, (const char *const[]){
					     field(p, "link"), field(p, "peer"), field(p, "kind"),
					     field(p, "state"), field(p, "sent"), field(p, "lost"),
					     min, p50, p99, max, field(p, "clock"), mismatch,
					     stopped[0] ? stopped : NULL });
		if (r < 0)
			return r;
	}
	if (table_rows(t) == 0) {
		printf("No paths: no link to probe from, or no peer and no mesh declared.\n");
		return 0;
	}
	return table_print(t, stdout);
}

int verb_probe(const Options *o, int argc, char **argv) {
	unsigned secs = 1;

	if (argc > 1) {
		char *end;
		unsigned long v = strtoul(argv[1], &end, 10);

		if (!o->watch || *end || v < 1 || v > 3600) {
			fprintf(stderr, "rdmactl probe: unexpected argument %s\n", argv[1]);
			return 1;
		}
		secs = (unsigned) v;
	}
	for (;;) {
		_cleanup_(json_object_putp) json_object *j = NULL;
		int r = state_read(o, &j);

		if (r < 0)
			return 1;
		if (o->watch && !o->json)
			printf("\033[H\033[2J"); /* like watch(1): the table in place */
		r = o->json ? json_print(j, stdout) : state_print(j);
		if (r < 0) {
			fprintf(stderr, "rdmactl probe: %s\n", strerror(-r));
			return 1;
		}
		fflush(stdout);
		if (!o->watch)
			return 0;
		sleep(secs);
	}
}
