/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl status [LINK]: the daemon's Describe(), for a person (text) or a program (--json). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bus-client.h"
#include "config.h"
#include "output.h"
#include "rdmactl.h"
#include "terminal.h"

static json_object *jarray(json_object *o, const char *key) {
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static size_t jlen(json_object *a) {
	return a ? json_object_array_length(a) : 0;
}

static bool jint(json_object *o, const char *key, int64_t *ret) {
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
		return false;
	*ret = json_object_get_int64(v);
	return true;
}

static char *strv_json_join(json_object *a) {
	_cleanup_free_ char *s = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);

	if (!f)
		return NULL;
	for (size_t i = 0; i < jlen(a); i++)
		fprintf(f, "%s%s", i > 0 ? " " : "",
			json_object_get_string(json_object_array_get_idx(a, i)));
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(s);
}

static const char *dash(const char *s) {
	return s && *s ? s : "-";
}

static void print_field(const char *name, const char *value) {
	printf("%13s: %s\n", name, value ? value : "-");
}

/* What the observation of the link could not read or parse, one line each. */
static void print_observe_errors(json_object *l, const char *indent) {
	json_object *errors = jarray(l, "observe_errors");

	for (size_t i = 0; i < jlen(errors); i++)
		printf("%scould not use %s\n", indent,
		       json_object_get_string(json_object_array_get_idx(errors, i)));
}

/* Why a link is not converged: its settings that are not, one line each. */
static void print_reasons(json_object *l) {
	json_object *settings = jarray(l, "settings");

	for (size_t i = 0; i < jlen(settings); i++) {
		json_object *s = json_object_array_get_idx(settings, i);
		const char *result = json_get_string(s, "result");

		if (!result || streq(result, "converged"))
			continue;
		printf("    %s: %s -> %s: %s%s%s\n", json_get_string(s, "setting"),
		       dash(json_get_string(s, "current")), dash(json_get_string(s, "desired")),
		       state_color(result), result, color_reset());
		if (json_get_string(s, "error"))
			printf("      %s\n", json_get_string(s, "error"));
	}
	if (json_get_string(l, "last_error") && jlen(settings) == 0)
		printf("    %s\n", json_get_string(l, "last_error"));
	print_observe_errors(l, "    ");
}

/* The switch port at the other end of l (LLDP), one line: who, and each disagreement with the
 * link or that they agree; nothing for a link with no LLDP neighbour. */
static void print_switch(json_object *l, const char *indent, bool name) {
	json_object *w, *a;
	const char *sys;

	if (!json_object_object_get_ex(l, "switch", &w))
		return;
	sys = json_get_string(w, "system_name");
	printf("%s%s%s%sswitch %s%s%s%s port %s: ", indent, name ? json_get_string(l, "link") : "",
	       name ? " " : "", name ? "<-> " : "", dash(json_get_string(w, "chassis")),
	       sys ? " (" : "", sys ? sys : "", sys ? ")" : "", dash(json_get_string(w, "port")));
	a = jarray(w, "mismatches");
	if (!json_get_string(w, "advertises"))
		printf("advertises no DCB configuration (no 802.1Qaz TLV)\n");
	else if (jlen(a) == 0)
		printf("%sagrees%s (%s)\n", state_color("converged"), color_reset(),
		       json_get_string(w, "advertises"));
	else {
		for (size_t i = 0; i < jlen(a); i++) {
			json_object *x = json_object_array_get_idx(a, i);

			printf("%s%s%s%s: host %s, switch %s", i > 0 ? "; " : "",
			       state_color("degraded"), dash(json_get_string(x, "setting")),
			       color_reset(), dash(json_get_string(x, "host")),
			       dash(json_get_string(x, "switch")));
		}
		printf("\n");
	}
}

static int status_overview(json_object *d) {
	static const char *const headers[] = { "LINK", "NETDEV",   "DRIVER",
					       "GID",  "PROFILES", "STATE" };
	_cleanup_(table_freep) Table *t = table_new(ELEMENTSOF(headers), headers);
	json_object *links = jarray(d, "links"), *host, *errors = jarray(d, "config_errors");
	_cleanup_free_ char *files = strv_json_join(jarray(d, "config_files"));
	const char *state = json_get_string(d, "state");
	unsigned n_converged = 0, n_other = 0;
	char when[64] = "never";
	int64_t usec;
	int r;

	if (!t || !files)
		return -ENOMEM;
	if (jint(d, "last_reconcile_usec", &usec) && usec > 0) {
		time_t sec = (time_t) (usec / 1000000);
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %Z", localtime_r(&sec, &tm));
	}
	printf("%13s: %s%s%s\n", "State", state_color(state), strna(state), color_reset());
	print_field("Profiles", *files ? files : NULL);
	print_field("Reconciled", when);
	if (json_object_object_get_ex(d, "host", &host) && json_get_string(host, "state")) {
		printf("%13s: %s%s%s%s%s\n", "Host", state_color(json_get_string(host, "state")),
		       json_get_string(host, "state"), color_reset(),
		       json_get_string(host, "last_error") ? ": " : "",
		       json_get_string(host, "last_error") ? json_get_string(host, "last_error")
							   : "");
	}
	if (streq_ptr(json_get_string(d, "nccl"), "agree") && jint(d, "nccl_gid_index", &usec))
		printf("%13s: GID index %" PRIi64 " on every link (" RDMAD_NCCL_CONF ")\n", "NCCL",
		       usec);
	else if (streq_ptr(json_get_string(d, "nccl"), "disagree"))
		printf("%13s: the links publish different GID indexes: no nccl.conf, use each "
		       "link's env file\n",
		       "NCCL");
	if (jlen(errors) > 0) {
		printf("\nThe profiles are invalid; the previous ones stay in force:\n");
		for (size_t i = 0; i < jlen(errors); i++)
			printf("  %s\n",
			       json_object_get_string(json_object_array_get_idx(errors, i)));
	}
	for (size_t i = 0; i < jlen(links); i++) {
		json_object *l = json_object_array_get_idx(links, i);
		_cleanup_free_ char *profiles = strv_json_join(jarray(l, "profiles"));
		_cleanup_free_ char *state_cell = NULL;
		char gid[16] = "-";
		int64_t idx;

		if (!profiles)
			return -ENOMEM;
		if (jint(l, "preferred_gid_index", &idx))
			snprintf(gid, sizeof(gid), "%" PRIi64, idx);
		if (asprintf(&state_cell, "%s%s%s", state_color(json_get_string(l, "state")),
			     strna(json_get_string(l, "state")), color_reset()) < 0)
			return -ENOMEM;
		const char *cells[] = { json_get_string(l, "link"),   json_get_string(l, "netdev"),
					json_get_string(l, "driver"), gid,
					*profiles ? profiles : NULL,  state_cell };
		r = table_add_row(t, cells);
		if (r < 0)
			return r;
		if (streq_ptr(json_get_string(l, "state"), "converged"))
			n_converged++;
		else
			n_other++;
	}
	printf("%13s: %zu (%u converged)\n\n", "Links", jlen(links), n_converged);
	r = table_print(t, stdout);
	if (r < 0)
		return r;
	for (size_t i = 0, n = 0; i < jlen(links); i++) {
		json_object *l = json_object_array_get_idx(links, i), *w;

		if (!json_object_object_get_ex(l, "switch", &w))
			continue;
		if (n++ == 0)
			printf("\nSwitch ports (LLDP):\n");
		print_switch(l, "  ", true);
	}
	for (size_t i = 0; n_other > 0 && i < jlen(links); i++) {
		json_object *l = json_object_array_get_idx(links, i);
		const char *st = json_get_string(l, "state");

		if (!st || streq(st, "converged") || streq(st, "unmanaged"))
			continue;
		printf("\n%s: %s%s%s\n", json_get_string(l, "link"), state_color(st), st,
		       color_reset());
		print_reasons(l);
	}
	return 0;
}

static int status_link(json_object *l) {
	static const char *const sh[] = { "SETTING", "DESIRED", "CURRENT", "RESULT", "ERROR" };
	static const char *const gh[] = { "INDEX", "GID", "TYPE", "NETDEV", "IPV4" };
	_cleanup_(table_freep) Table *s = table_new(ELEMENTSOF(sh), sh);
	_cleanup_(table_freep) Table *g = table_new(ELEMENTSOF(gh), gh);
	_cleanup_free_ char *profiles = strv_json_join(jarray(l, "profiles"));
	json_object *settings = jarray(l, "settings"), *gids = jarray(l, "gids"), *sw;
	char port[16], tos[16] = "-", gid[160] = "-";
	int64_t v;
	int r = 0;

	if (!s || !g || !profiles)
		return -ENOMEM;
	if (jint(l, "port", &v))
		snprintf(port, sizeof(port), "%" PRIi64, v);
	if (jint(l, "roce_tos", &v))
		snprintf(tos, sizeof(tos), "%" PRIi64, v);
	printf("%s%s%s%s\n", json_get_string(l, "link"), json_get_string(l, "netdev") ? " (" : "",
	       json_get_string(l, "netdev") ? json_get_string(l, "netdev") : "",
	       json_get_string(l, "netdev") ? ")" : "");
	printf("%13s: %s%s%s\n", "State", state_color(json_get_string(l, "state")),
	       strna(json_get_string(l, "state")), color_reset());
	print_field("Device", json_get_string(l, "device"));
	print_field("Port", port);
	print_field("Driver", json_get_string(l, "driver"));
	print_field("Profiles", *profiles ? profiles : NULL);
	print_field("RoCE mode", json_get_string(l, "roce_mode"));
	print_field("RoCE ToS", tos);
	for (size_t i = 0; jint(l, "preferred_gid_index", &v) && i < jlen(gids); i++) {
		json_object *x = json_object_array_get_idx(gids, i);
		int64_t idx;

		if (jint(x, "index", &idx) && idx == v)
			snprintf(gid, sizeof(gid), "%" PRIi64 " (%s, %s%s%s)", v,
				 json_get_string(x, "gid"), json_get_string(x, "type"),
				 json_get_string(x, "ipv4") ? ", " : "",
				 json_get_string(x, "ipv4") ? json_get_string(x, "ipv4") : "");
	}
	print_field("GID index", gid);
	if (json_object_object_get_ex(l, "switch", &sw)) {
		printf("%13s: ", "Switch");
		print_switch(l, "", false);
	}
	print_field("Last error", json_get_string(l, "last_error"));
	print_observe_errors(l, "  ");
	for (size_t i = 0; i < jlen(settings); i++) {
		json_object *x = json_object_array_get_idx(settings, i);
		const char *cells[] = { json_get_string(x, "setting"),
					json_get_string(x, "desired"),
					json_get_string(x, "current"), json_get_string(x, "result"),
					json_get_string(x, "error") };

		r = table_add_row(s, cells);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < jlen(gids); i++) {
		json_object *x = json_object_array_get_idx(gids, i);
		char idx[16] = "";

		if (jint(x, "index", &v))
			snprintf(idx, sizeof(idx), "%" PRIi64, v);
		const char *cells[] = { idx, json_get_string(x, "gid"), json_get_string(x, "type"),
					json_get_string(x, "netdev"), json_get_string(x, "ipv4") };
		r = table_add_row(g, cells);
		if (r < 0)
			return r;
	}
	if (table_rows(s) > 0) {
		printf("\n");
		r = table_print(s, stdout);
		if (r < 0)
			return r;
	}
	if (table_rows(g) > 0) {
		printf("\n");
		r = table_print(g, stdout);
	}
	return r < 0 ? r : 0;
}

int verb_status(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *d = NULL;
	json_object *link = NULL, *links;
	const char *path;
	int r;

	if (rdmad_bus_require("status", &bus) < 0)
		return EXIT_FAILURE;
	/* Resolve the name first: the daemon's error says what is wrong with it. */
	if (argc == 1 && (rdmad_call(bus, "status", "GetLink", &reply, "s", argv[0]) < 0 ||
			  sd_bus_message_read(reply, "o", &path) < 0))
		return EXIT_FAILURE;
	if (rdmad_call_json(bus, "status", "Describe", &d) < 0)
		return EXIT_FAILURE;
	links = jarray(d, "links");
	for (size_t i = 0; argc == 1 && i < jlen(links); i++)
		if (streq_ptr(json_get_string(json_object_array_get_idx(links, i), "object"), path))
			link = json_object_array_get_idx(links, i);
	if (argc == 1 && !link) {
		fprintf(stderr, "rdmactl status: %s went away meanwhile\n", argv[0]);
		return EXIT_FAILURE;
	}
	if (o->json)
		return json_print(link ? link : d, stdout) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	pager_open(o->no_pager);
	r = link ? status_link(link) : status_overview(d);
	if (r >= 0 && !link)
		(void) trial_status_print(bus, stdout);
	pager_close();
	if (r < 0) {
		fprintf(stderr, "rdmactl status: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
