/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Describe(): the daemon's whole status as one JSON document, built from the status table of
 * the last reconcile (no I/O), one link at a time. rdmactl status renders it. */
#include <assert.h>
#include <stdio.h>

#include "config.h"
#include "gid.h"
#include "json-util.h"
#include "bus-util.h"
#include "manager.h"
#include "strv.h"

static int gids_json(json_object *o, const PortStatus *s) {
	json_object *a, *g;
	int r;

	r = json_add_array(o, "gids", &a);
	for (size_t i = 0; r >= 0 && i < s->n_gids; i++) {
		const Gid *x = &s->gids[i];
		char gid[GID_STRING_MAX], ipv4[16];

		gid_format(x->raw, gid);
		r = json_add_object(a, NULL, &g);
		if (r >= 0)
			r = json_add_int(g, "index", x->index);
		if (r >= 0)
			r = json_add_string(g, "gid", gid);
		if (r >= 0)
			r = json_add_string(g, "type", gid_type_to_string(x->type));
		if (r >= 0)
			r = json_add_string(g, "netdev", x->netdev[0] ? x->netdev : NULL);
		if (r >= 0)
			r = json_add_string(g, "ipv4",
					    gid_to_ipv4(x->raw, ipv4, sizeof(ipv4)) ? ipv4 : NULL);
	}
	return r;
}

static int settings_json(json_object *o, const PortStatus *s) {
	json_object *a, *x;
	int r;

	r = json_add_array(o, "settings", &a);
	for (size_t i = 0; r >= 0 && i < s->n_settings; i++) {
		const SettingStatus *t = &s->settings[i];

		r = json_add_object(a, NULL, &x);
		if (r >= 0)
			r = json_add_string(x, "setting", key_to_string(t->key));
		if (r >= 0)
			r = json_add_string(x, "desired", t->desired);
		if (r >= 0)
			r = json_add_string(x, "current", t->current);
		if (r >= 0)
			r = json_add_string(x, "result", setting_result_to_string(t->result));
		if (r >= 0)
			r = json_add_string(x, "error", t->error);
	}
	return r;
}

static int port_json(json_object *o, const PortStatus *s) {
	_cleanup_free_ char *path = link_bus_path(s->name);
	const Gid *g;
	int r;

	if (!path)
		return -ENOMEM;
	r = json_add_string(o, "link", s->name);
	if (r >= 0)
		r = json_add_string(o, "object", path);
	if (r >= 0)
		r = json_add_string(o, "device", s->device);
	if (r >= 0)
		r = json_add_int(o, "port", s->port);
	if (r >= 0)
		r = json_add_string(o, "netdev", s->netdev);
	if (r >= 0)
		r = json_add_string(o, "driver", s->driver);
	if (r >= 0)
		r = json_add_string(o, "state", config_state_to_string(s->state));
	if (r >= 0)
		r = json_add_strv(o, "profiles", s->profiles);
	if (r >= 0)
		r = json_add_string(o, "roce_mode",
				    s->has_roce_mode ? roce_mode_to_string(s->roce_mode) : NULL);
	if (r >= 0 && s->has_roce_tos)
		r = json_add_int(o, "roce_tos", s->roce_tos);
	if (r >= 0 && port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) >= 0)
		r = json_add_int(o, "preferred_gid_index", g->index);
	if (r >= 0)
		r = gids_json(o, s);
	if (r >= 0)
		r = settings_json(o, s);
	if (r >= 0)
		r = json_add_string(o, "last_error", s->last_error);
	if (r >= 0)
		r = json_add_strv(o, "observe_errors", s->observe_errors);
	return r;
}

/* o's text, as the rest of the document has it. */
static const char *json_text(json_object *o) {
	return json_object_to_json_string_ext(o, JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* One link's entry, written out and freed before the next is built: at thousands of links the
 * whole tree of json-c objects (a hash table each) took tens of MB and most of the time. */
static int port_write(FILE *f, const PortStatus *s, bool first) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	int r;

	if (!o)
		return -ENOMEM;
	r = port_json(o, s);
	if (r < 0)
		return r;
	if (!first)
		fputc(',', f);
	fputs(json_text(o), f);
	return 0;
}

int manager_describe(Manager *m, char **ret) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object(), *host = NULL;
	_cleanup_strv_free_ char **errors = NULL;
	_cleanup_free_ char *buf = NULL;
	size_t size = 0, n;
	const char *head;
	FILE *f;
	int r;

	if (!o)
		return -ENOMEM;
	r = manager_config_errors(m, &errors);
	if (r >= 0)
		r = json_add_string(o, "version", PACKAGE_VERSION);
	if (r >= 0)
		r = json_add_string(o, "state", manager_state(m));
	if (r >= 0)
		r = json_add_strv(o, "config_files", m->config ? m->config->files : NULL);
	if (r >= 0)
		r = json_add_strv(o, "config_errors", errors);
	if (r >= 0)
		r = json_add_int(o, "last_reconcile_usec", (int64_t) m->last_reconcile_usec);
	if (r >= 0)
		r = json_add_int(o, "last_reconcile_duration_usec",
				 (int64_t) m->last_reconcile_duration_usec);
	/* what nccl.conf says: the index every published link agrees on, or why there is none */
	if (r >= 0 && m->nccl_verdict)
		r = json_add_string(o, "nccl", m->nccl_verdict);
	if (r >= 0)
		r = json_add_int(o, "nccl_gid_index", m->nccl_gid_index);
	/* Modules, soft devices and the netns mode: the host's own entry, once a full
	 * reconcile looked at them. */
	if (r >= 0 && m->host.observed) {
		host = json_object_new_object();
		r = host ? 0 : -ENOMEM;
		if (r >= 0)
			r = json_add_string(host, "state", config_state_to_string(m->host.state));
		if (r >= 0)
			r = json_add_string(host, "last_error", m->host.last_error);
	}
	if (r < 0)
		return r;

	/* The members above, then "links" and "host" written one link at a time. */
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	head = json_text(o);
	n = strlen(head);
	assert(n >= 2 && head[n - 1] == '}'); /* an object, with "version" at least */
	fwrite(head, 1, n - 1, f);
	fputs(",\"links\":[", f);
	for (size_t i = 0; r >= 0 && i < m->n_ports; i++)
		r = port_write(f, &m->ports[i], i == 0);
	fputc(']', f);
	if (r >= 0 && host) {
		fputs(",\"host\":", f);
		fputs(json_text(host), f);
	}
	fputc('}', f);
	if (fclose(f) != 0 && r >= 0)
		r = -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	return 0;
}
