/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* reload, reconcile, and plan/gid from the running daemon. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "bus-client.h"
#include "gid.h"
#include "output.h"
#include "rdmactl.h"
#include "terminal.h"

/* plan and gid read the host themselves when told which host (--root, --config-dir) or when
 * rdmad does not run; otherwise the daemon answers, with the profiles it has in force. */
static bool want_offline(const Options *o) {
	return !streq(o->root, "/") || o->config_dirs;
}

/* rdmad is not on the bus (early boot: it starts before dbus.socket, or no dbus at all) but
 * the unit knows its PID: validate the same drop-ins here, and signal it only when they are
 * valid. The daemon checks again and keeps its last good configuration either way. */
static int reload_by_signal(const Options *o) {
	int r;

	r = verb_check(o, 0, NULL);
	if (r != EXIT_SUCCESS)
		return r;
	if (kill(o->pid, SIGHUP) < 0) {
		fprintf(stderr, "rdmactl reload: cannot signal rdmad (PID %d): %s\n", (int) o->pid,
			strerror(errno));
		return EXIT_FAILURE;
	}
	fprintf(stderr, "rdmactl reload: rdmad is not on the bus; profiles checked, SIGHUP sent\n");
	return EXIT_SUCCESS;
}

int verb_reload(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

	if (o->pid > 0 && rdmad_bus_open(&bus) <= 0)
		return reload_by_signal(o);
	if (!bus && rdmad_bus_require("reload", &bus) < 0)
		return EXIT_FAILURE;
	/* The daemon reconciles before it answers: allow for a big host. */
	(void) sd_bus_set_method_call_timeout(bus, 120 * 1000 * 1000);
	return rdmad_call(bus, "reload", "Reload", NULL, NULL) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int verb_reconcile(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;

	if (rdmad_bus_require("reconcile", &bus) < 0)
		return EXIT_FAILURE;
	(void) sd_bus_set_method_call_timeout(bus, 120 * 1000 * 1000);
	return rdmad_call(bus, "reconcile", "Reconcile", NULL, NULL) < 0 ? EXIT_FAILURE
									 : EXIT_SUCCESS;
}

int verb_plan(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *plan = NULL;

	if (want_offline(o) || rdmad_bus_open(&bus) <= 0)
		return offline_plan(o);
	int r;

	if (rdmad_call_json(bus, "plan", "Plan", &plan) < 0)
		return EXIT_FAILURE;
	pager_open(o->no_pager || o->json);
	r = plan_print(plan, o);
	pager_close();
	return r;
}

/* The link's entry in Describe()'s GID list, in the shape of the offline `gid --json`. */
static int gid_print_json(sd_bus *bus, const char *link, uint32_t index) {
	_cleanup_(json_object_putp) json_object *d = NULL;
	json_object *links, *l, *gids, *v;

	if (rdmad_call_json(bus, "gid", "Describe", &d) < 0)
		return EXIT_FAILURE;
	if (!json_object_object_get_ex(d, "links", &links))
		return EXIT_FAILURE;
	for (size_t i = 0; i < json_object_array_length(links); i++) {
		l = json_object_array_get_idx(links, i);
		if (!json_object_object_get_ex(l, "link", &v) ||
		    !streq(json_object_get_string(v), link) ||
		    !json_object_object_get_ex(l, "gids", &gids))
			continue;
		for (size_t k = 0; k < json_object_array_length(gids); k++) {
			_cleanup_(json_object_putp) json_object *out = json_object_new_object();
			json_object *g = json_object_array_get_idx(gids, k), *x;

			if (!json_object_object_get_ex(g, "index", &x) ||
			    json_object_get_int64(x) != index)
				continue;
			if (!out ||
			    json_add_string(out, "device",
					    json_object_get_string(
						    json_object_object_get(l, "device"))) < 0 ||
			    json_add_int(out, "port",
					 json_object_get_int64(json_object_object_get(l, "port"))) <
				    0)
				return EXIT_FAILURE;
			struct json_object_iter it;

			json_object_object_foreachC(g, it) {
				if (json_object_object_add(out, it.key, json_object_get(it.val)) <
				    0)
					return EXIT_FAILURE;
			}
			return json_print(out, stdout) < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
		}
	}
	fprintf(stderr, "rdmactl gid: GID %u of %s changed meanwhile; try again\n", index, link);
	return EXIT_FAILURE;
}

int link_gid_index(const Options *o, const HostState *h, const char *link, const char *family,
		   uint32_t *ret_index, char **ret_why) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	GidFamily f = _GID_FAMILY_INVALID;
	const HostDevice *d;
	const HostPort *p;
	const Gid *g;
	int r;

	if (!want_offline(o) && rdmad_bus_open(&bus) > 0) {
		_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
		_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
		const char *gid;
		uint32_t index;

		r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
				       "ResolveGid", &error, &reply, "sss", link, strempty(family),
				       "");
		if (r >= 0)
			r = sd_bus_message_read(reply, "us", &index, &gid);
		if (r < 0) {
			*ret_why = strdup(error.message ? error.message : strerror(-r));
			return *ret_why ? r : -ENOMEM;
		}
		*ret_index = index;
		return 0;
	}
	if (family) {
		f = gid_family_from_string(family);
		if (f < 0)
			return -EINVAL;
	}
	r = link_find(h, link, &d, &p);
	if (r < 0) {
		*ret_why = strdup("no such link");
		return *ret_why ? r : -ENOMEM;
	}
	r = offline_gid_find(o, d, p, _GID_TYPE_INVALID, f, &g, ret_why);
	if (r < 0)
		return r;
	*ret_index = g->index;
	return 0;
}

int verb_gid(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *link = NULL;
	const char *gid, *path;
	_cleanup_free_ char *name = NULL;
	uint32_t index;

	if (argc != 1) {
		fprintf(stderr, "rdmactl gid: which link? (DEV/PORT or netdev)\n");
		return EXIT_FAILURE;
	}
	if (want_offline(o) || rdmad_bus_open(&bus) <= 0)
		return offline_gid(o, argc, argv);
	if (rdmad_call(bus, "gid", "ResolveGid", &reply, "sss", argv[0], o->family ? o->family : "",
		       o->roce ? o->roce : "") < 0 ||
	    sd_bus_message_read(reply, "us", &index, &gid) < 0)
		return EXIT_FAILURE;
	if (!o->json) {
		printf("%u\n", index);
		return EXIT_SUCCESS;
	}
	if (rdmad_call(bus, "gid", "GetLink", &link, "s", argv[0]) < 0 ||
	    sd_bus_message_read(link, "o", &path) < 0 ||
	    sd_bus_path_decode(path, RDMAD_LINK_PREFIX, &name) <= 0)
		return EXIT_FAILURE;
	return gid_print_json(bus, name, index);
}
