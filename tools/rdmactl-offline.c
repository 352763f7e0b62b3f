/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The offline commands: they read the host and the profiles directly, no daemon needed. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "fileio.h"
#include "gid.h"
#include "host.h"
#include "output.h"
#include "plan.h"
#include "profile.h"
#include "rdmactl.h"
#include "terminal.h"
#include "strv.h"
#include "verbs-gids.h"

static void diagnostics_print(const Diagnostics *d) {
	for (size_t i = 0; i < d->n; i++) {
		_cleanup_free_ char *s = diagnostic_format(&d->items[i]);

		fprintf(stderr, "%s\n", s ? s : d->items[i].message);
	}
}

static int fail(int r, const char *what) {
	fprintf(stderr, "rdmactl: %s: %s\n", what, strerror(-r));
	return EXIT_FAILURE;
}

/* The drop-ins; what is odd about them (a directory that is a file, a *.YAML) or wrong (a
 * directory that cannot be read) is printed. */
int options_profile_files(const Options *o, char ***ret) {
	_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
	int r;

	if (o->config_dirs)
		r = profile_dropins_find("/", (const char *const *) o->config_dirs, &diags, ret);
	else
		r = profile_dropins_find(o->root, NULL, &diags, ret);
	diagnostics_print(&diags);
	return r;
}

/* Profiles as the daemon would see them; prints the problems and returns NULL if any. */
static Config *config_open(const Options *o) {
	_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
	_cleanup_strv_free_ char **files = NULL;
	Config *c = NULL;
	int r;

	r = options_profile_files(o, &files);
	if (r < 0) {
		fail(r, "failed to list profiles");
		return NULL;
	}
	r = config_load_files(files, &diags, &c);
	if (r < 0) {
		diagnostics_print(&diags);
		if (r != -EINVAL)
			fail(r, "failed to load profiles");
		fprintf(stderr, "rdmactl: the profiles are invalid; fix them first "
				"(rdmactl check).\n");
		return NULL;
	}
	return c;
}

/* Each file can be valid and what they make together for a port not (one profile's
 * qos.ets.tsa, another's qos.ets.tc-bw): merge them for every port of this host (--root) as
 * rdmad would, and say where. Returns the number of problems. */
static int check_merged(const Options *o, const Config *c) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	int n = 0, r;

	r = host_observe(o->root, HOST_OBSERVE_DETAILS, &h);
	if (r < 0)
		return 0; /* no RDMA devices to merge for: nothing more to say */
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			_cleanup_free_ char *error = NULL;
			PortSettings s = { 0 };
			PortFacts f;

			host_port_facts(&h->devices[i], &h->devices[i].ports[k], &f);
			r = config_settings_for_port(c, &f, &s, NULL);
			if (r > 0)
				r = port_settings_validate(&s, &error);
			port_settings_done(&s);
			if (r == -ENOMEM)
				return r;
			if (r == -EINVAL) {
				fprintf(stderr,
					"%s/%u: error: the merged settings are invalid: %s\n",
					f.device, f.port, error);
				n++;
			}
		}
	return n;
}

int verb_check(const Options *o, int argc, char **argv) {
	_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
	_cleanup_(config_freep) Config *c = NULL;
	_cleanup_strv_free_ char **files = NULL;
	int r;

	if (argc > 0)
		files = strv_copy(argv);
	else
		r = options_profile_files(o, &files);
	if (argc > 0 ? !files : r < 0)
		return fail(argc > 0 ? -ENOMEM : r, "failed to list profiles");

	r = config_load_files(files, &diags, &c);
	diagnostics_print(&diags);
	if (r < 0) {
		if (r != -EINVAL)
			return fail(r, "failed to load profiles");
		fprintf(stderr, "%zu error%s.\n", diagnostics_n_errors(&diags),
			diagnostics_n_errors(&diags) == 1 ? "" : "s");
		return EXIT_FAILURE;
	}
	r = check_merged(o, c);
	if (r < 0)
		return fail(r, "failed to check the merged settings");
	if (r > 0) {
		fprintf(stderr, "%d error%s.\n", r, r == 1 ? "" : "s");
		return EXIT_FAILURE;
	}
	printf("%zu file%s, %zu profile%s: OK\n", strv_length(c->files),
	       strv_length(c->files) == 1 ? "" : "s", c->n_profiles, c->n_profiles == 1 ? "" : "s");
	return EXIT_SUCCESS;
}

/* Problems the host model met (a truncated GID, a garbage state), per link, on stderr. */
static void host_errors_print(const HostState *h) {
	for (size_t i = 0; i < h->n_devices; i++) {
		const HostDevice *d = &h->devices[i];

		STRV_FOREACH (e, d->errors)
			fprintf(stderr, "rdmactl: warning: %s: %s\n", d->name, *e);
		for (size_t k = 0; k < d->n_ports; k++)
			STRV_FOREACH (e, d->ports[k].errors)
				fprintf(stderr, "rdmactl: warning: %s/%u: %s\n", d->name,
					d->ports[k].port, *e);
	}
	for (size_t i = 0; i < h->n_netdevs; i++)
		STRV_FOREACH (e, h->netdevs[i].errors)
			fprintf(stderr, "rdmactl: warning: %s: %s\n", h->netdevs[i].name, *e);
}

static int records_observe(const Options *o, HostState *h) {
	_cleanup_free_ char *dir = NULL;
	int r;

	dir = streq(o->root, "/") ? strdup(RDMAD_STATE_DIR) : root_path(o->root, RDMAD_STATE_DIR);
	if (!dir)
		return -ENOMEM;
	r = host_records_observe(h, dir);
	return r == -EACCES ? 0 : r; /* an unprivileged user may not read it: none known */
}

int offline_plan(const Options *o) {
	_cleanup_(json_object_putp) json_object *j = NULL;
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(config_freep) Config *c = NULL;
	_cleanup_(plan_freep) Plan *p = NULL;
	int r;

	c = config_open(o);
	if (!c)
		return EXIT_FAILURE;
	r = host_observe(o->root, HOST_OBSERVE_ALL & ~HOST_OBSERVE_GIDS, &h);
	if (r < 0)
		return fail(r, "failed to read the host");
	host_errors_print(h);
	/* Which soft devices are rdmad's: its record, under the root as the daemon keeps it. */
	r = records_observe(o, h);
	if (r < 0)
		return fail(r, "failed to read rdmad's state directory");
	r = plan_compute(c, h, &p);
	if (r < 0)
		return fail(r, "failed to compute the plan");
	r = plan_to_json(p, &j);
	if (r < 0)
		return fail(r, "failed to compute the plan");
	pager_open(o->no_pager || o->json);
	r = plan_print(j, o);
	pager_close();
	return r;
}

static int link_json(const HostDevice *d, const HostPort *p, char *const *profiles,
		     json_object *array) {
	json_object *o = json_object_new_object();
	char name[128];
	int r;

	if (!o || json_object_array_add(array, o) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "%s/%u", d->name, p->port);
	r = json_add_string(o, "link", name);
	if (r >= 0)
		r = json_add_string(o, "device", d->name);
	if (r >= 0)
		r = json_add_int(o, "port", p->port);
	if (r >= 0)
		r = json_add_string(o, "netdev", p->netdev);
	if (r >= 0)
		r = json_add_string(o, "driver", d->driver);
	if (r >= 0)
		r = json_add_string(o, "pci", d->pci);
	if (r >= 0)
		r = json_add_string(o, "state", port_state_to_string(p->state));
	if (r >= 0)
		r = json_add_string(o, "physical_state", port_phys_state_to_string(p->phys_state));
	if (r >= 0)
		r = json_add_string(o, "link_layer", link_layer_to_string(p->link_layer));
	if (r >= 0)
		r = json_add_strv(o, "profiles", profiles);
	if (r >= 0)
		r = json_add_strv(o, "errors", p->errors);
	return r;
}

int verb_links(const Options *o, int argc, char **argv) {
	static const char *const headers[] = { "LINK",	   "NETDEV", "STATE",
					       "PHYSICAL", "DRIVER", "PROFILES" };
	_cleanup_(json_object_putp) json_object *array = NULL;
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(config_freep) Config *c = NULL;
	_cleanup_(table_freep) Table *t = NULL;
	int r;

	c = config_open(o);
	if (!c)
		return EXIT_FAILURE;
	r = host_observe(o->root, HOST_OBSERVE_DETAILS, &h);
	if (r < 0)
		return fail(r, "failed to read the host");
	if (!o->json)
		host_errors_print(h);
	array = json_object_new_array();
	t = table_new(ELEMENTSOF(headers), headers);
	if (!array || !t)
		return fail(-ENOMEM, "links");

	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++) {
			const HostDevice *d = &h->devices[i];
			const HostPort *p = &d->ports[k];
			_cleanup_strv_free_ char **profiles = NULL;
			_cleanup_free_ char *joined = NULL;
			PortSettings s;
			PortFacts f;
			char name[128];

			host_port_facts(d, p, &f);
			r = config_settings_for_port(c, &f, &s, &profiles);
			if (r < 0)
				return fail(r, "links");
			port_settings_done(&s);
			if (o->json) {
				r = link_json(d, p, profiles, array);
				if (r < 0)
					return fail(r, "links");
				continue;
			}
			joined = strv_join(profiles, ",");
			snprintf(name, sizeof(name), "%s/%u", d->name, p->port);
			r = table_add_row(t,
					  (const char *const[]){
						  name, p->netdev, port_state_to_string(p->state),
						  port_phys_state_to_string(p->phys_state),
						  d->driver, joined && *joined ? joined : NULL });
			if (r < 0)
				return fail(r, "links");
		}
	r = o->json ? json_print(array, stdout) : table_print(t, stdout);
	if (r < 0)
		return fail(r, "links");
	return EXIT_SUCCESS;
}

typedef struct GidFilter {
	char device[128];
	uint32_t port; /* 0: any */
} GidFilter;

static int gid_filter_parse(const char *s, GidFilter *ret) {
	return port_name_parse(s, ret->device, sizeof(ret->device), &ret->port);
}

static int gid_json(const HostDevice *d, const HostPort *p, const Gid *g, json_object *array) {
	json_object *o = json_object_new_object();
	char gid[GID_STRING_MAX], ipv4[INET_ADDRSTRLEN];
	int r;

	if (!o || json_object_array_add(array, o) < 0) {
		json_object_put(o);
		return -ENOMEM;
	}
	gid_format(g->raw, gid);
	r = json_add_string(o, "device", d->name);
	if (r >= 0)
		r = json_add_int(o, "port", p->port);
	if (r >= 0)
		r = json_add_int(o, "index", g->index);
	if (r >= 0)
		r = json_add_string(o, "gid", gid);
	if (r >= 0)
		r = json_add_string(o, "ipv4",
				    gid_to_ipv4(g->raw, ipv4, sizeof(ipv4)) ? ipv4 : NULL);
	if (r >= 0)
		r = json_add_string(o, "type", gid_type_to_string(g->type));
	if (r >= 0)
		r = json_add_string(o, "netdev", g->netdev[0] ? g->netdev : NULL);
	return r;
}

int verb_gids(const Options *o, int argc, char **argv) {
	_cleanup_(json_object_putp) json_object *array = NULL;
	_cleanup_(host_state_freep) HostState *h = NULL;
	GidFilter filter = { 0 };
	bool found = false, verbs = !o->sysfs && streq(o->root, "/");
	int r;

	if (argc > 0 && gid_filter_parse(argv[0], &filter) < 0) {
		fprintf(stderr, "rdmactl gids: '%s' is not DEV or DEV/PORT.\n", argv[0]);
		return EXIT_FAILURE;
	}
	/* On this host, each device's whole table in one verbs query (a device it cannot answer
	 * for is read from sysfs); a --root tree, or --sysfs, three sysfs files per slot. */
	r = host_observe(o->root, verbs ? 0 : HOST_OBSERVE_GIDS, &h);
	if (r >= 0 && verbs)
		r = verbs_gids_observe(h);
	if (r < 0)
		return fail(r, "failed to read the host");
	host_errors_print(h);
	if (o->json) {
		array = json_object_new_array();
		if (!array)
			return fail(-ENOMEM, "gids");
	} else
		printf("%-12s %4s %5s  %-39s  %-15s  %-7s  %s\n", "DEV", "PORT", "INDEX", "GID",
		       "IPV4", "TYPE", "NETDEV");

	for (size_t i = 0; i < h->n_devices; i++) {
		const HostDevice *d = &h->devices[i];

		if (argc > 0 && !streq(d->name, filter.device))
			continue;
		for (size_t k = 0; k < d->n_ports; k++) {
			const HostPort *p = &d->ports[k];

			if (filter.port != 0 && p->port != filter.port)
				continue;
			found = true;
			for (size_t j = 0; j < p->n_gids; j++) {
				const Gid *g = &p->gids[j];
				char gid[GID_STRING_MAX], ipv4[INET_ADDRSTRLEN];

				if (o->json) {
					r = gid_json(d, p, g, array);
					if (r < 0)
						return fail(r, "gids");
					continue;
				}
				gid_format(g->raw, gid);
				printf("%-12s %4u %5u  %-39s  %-15s  %-7s  %s\n", d->name, p->port,
				       g->index, gid,
				       gid_to_ipv4(g->raw, ipv4, sizeof(ipv4)) ? ipv4 : "-",
				       gid_type_to_string(g->type), g->netdev[0] ? g->netdev : "-");
			}
		}
	}
	if (argc > 0 && !found) {
		fprintf(stderr, "rdmactl gids: no such link: %s\n", argv[0]);
		return EXIT_FAILURE;
	}
	if (o->json && json_print(array, stdout) < 0)
		return fail(-EIO, "gids");
	return EXIT_SUCCESS;
}

int link_find(const HostState *h, const char *name, const HostDevice **ret_dev,
	      const HostPort **ret_port) {
	GidFilter f;

	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports; k++)
			if (streq_ptr(h->devices[i].ports[k].netdev, name)) {
				*ret_dev = &h->devices[i];
				*ret_port = &h->devices[i].ports[k];
				return 0;
			}
	if (gid_filter_parse(name, &f) < 0)
		return -EINVAL;
	for (size_t i = 0; i < h->n_devices; i++) {
		const HostDevice *d = &h->devices[i];

		if (!streq(d->name, f.device))
			continue;
		if (f.port == 0 && d->n_ports != 1)
			return -EADDRNOTAVAIL; /* which port? */
		for (size_t k = 0; k < d->n_ports; k++)
			if (f.port == 0 || d->ports[k].port == f.port) {
				*ret_dev = d;
				*ret_port = &d->ports[k];
				return 0;
			}
	}
	return -ENODEV;
}

GidChoice offline_gid_choice(const Options *o, const HostDevice *d, const HostPort *p) {
	_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
	_cleanup_(config_freep) Config *c = NULL;
	_cleanup_strv_free_ char **files = NULL;
	GidChoice choice = GID_CHOICE_DEFAULT;
	PortSettings s = { 0 };
	PortFacts f;

	/* profiles that do not load declare nothing here: rdmactl check says why */
	if (options_profile_files(o, &files) < 0 || config_load_files(files, &diags, &c) < 0)
		return choice;
	host_port_facts(d, p, &f);
	if (config_settings_for_port(c, &f, &s, NULL) > 0 &&
	    (s.set & KEY_BIT(KEY_GIDS_PUBLISH)))
		choice = s.gids_publish;
	port_settings_done(&s);
	return choice;
}

int offline_gid_find(const Options *o, const HostDevice *d, const HostPort *p, GidType type,
		     GidFamily family, const Gid **ret, char **ret_why) {
	GidChoice c = { .type = type, .family = family };
	char what[GID_CHOICE_STRING_MAX];
	int r;

	/* nothing asked for in particular: what the profiles publish, as rdmad does */
	if (type < 0 && family < 0)
		c = offline_gid_choice(o, d, p);
	r = gid_chosen(p, &c, ret);
	if (r >= 0)
		return 0;
	gid_choice_describe(&c, what);
	if (asprintf(ret_why, "%s/%u has no %s GID%s%s%s", d->name, p->port, what,
		     p->netdev ? " (is an address configured on " : "", p->netdev ? p->netdev : "",
		     p->netdev ? "?)" : "") < 0)
		return -ENOMEM;
	return r;
}

int offline_gid(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_free_ char *why = NULL;
	GidFamily family = _GID_FAMILY_INVALID;
	GidType type = _GID_TYPE_INVALID;
	const HostDevice *d = NULL;
	const HostPort *p = NULL;
	const Gid *g = NULL;
	int r;

	if (argc != 1) {
		fprintf(stderr, "rdmactl gid: which link? (DEV/PORT or netdev)\n");
		return EXIT_FAILURE;
	}
	if (o->family) {
		family = gid_family_from_string(o->family);
		if (family < 0) {
			fprintf(stderr,
				"rdmactl gid: unknown --family '%s' (ipv4, ipv6, "
				"link-local)\n",
				o->family);
			return EXIT_FAILURE;
		}
	}
	if (o->roce) {
		type = streq(o->roce, "v1")   ? GID_TYPE_ROCE_V1
		       : streq(o->roce, "v2") ? GID_TYPE_ROCE_V2
					      : _GID_TYPE_INVALID;
		if (type < 0) {
			fprintf(stderr, "rdmactl gid: unknown --roce '%s' (v1, v2)\n", o->roce);
			return EXIT_FAILURE;
		}
	}
	r = host_observe(o->root, HOST_OBSERVE_GIDS | HOST_OBSERVE_DETAILS, &h);
	if (r < 0)
		return fail(r, "failed to read the host");
	r = link_find(h, argv[0], &d, &p);
	if (r < 0) {
		fprintf(stderr, "rdmactl gid: %s: %s\n", argv[0],
			r == -EADDRNOTAVAIL ? "the device has several ports, say DEV/PORT"
			: r == -EINVAL	    ? "not DEV/PORT nor a netdev name"
					    : "no such link");
		return EXIT_FAILURE;
	}
	r = offline_gid_find(o, d, p, type, family, &g, &why);
	if (r == -ENOMEM)
		return fail(r, "gid");
	if (r < 0) {
		fprintf(stderr, "rdmactl gid: %s\n", why);
		return EXIT_FAILURE;
	}
	if (!o->json) {
		printf("%u\n", g->index);
		return EXIT_SUCCESS;
	}
	{
		_cleanup_(json_object_putp) json_object *a = json_object_new_array();

		if (!a || gid_json(d, p, g, a) < 0)
			return fail(-ENOMEM, "gid");
		return json_print(json_object_array_get_idx(a, 0), stdout) < 0 ? EXIT_FAILURE
									       : EXIT_SUCCESS;
	}
}
