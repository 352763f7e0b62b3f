/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The links: a slot each, its endpoint (made again when it fails) and its paths, updated from
 * what rdmad publishes: ListLinks read again when its signals say a link changed, and only the
 * links its probe.links names. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "prober.h"
#include "rdmad-bus.h"
#include "strv.h"

uint64_t link_answered(const Link *l) {
	return l->answered + (l->endpoint ? probe_link_answered(l->endpoint) : 0);
}

uint64_t link_refused(const Link *l) {
	return l->refused + (l->endpoint ? probe_link_refused(l->endpoint) : 0);
}

void link_close(Link *l) {
	if (l->endpoint) {
		l->answered += probe_link_answered(l->endpoint);
		l->refused += probe_link_refused(l->endpoint);
	}
	l->endpoint = probe_link_free(l->endpoint);
}

/* An endpoint that could not be made, or whose device went away, is made again this much later
 * (one whose QP failed at once). */
#define ENDPOINT_RETRY_NS (5 * NSEC_PER_SEC)

/* A link no longer probed: its paths both ways removed, its endpoint closed, its slot free. */
static void link_forget(Prober *pr, Link *l) {
	for (size_t k = pr->n_paths; k > 0; k--)
		if (pr->paths[k - 1].from == l || pr->paths[k - 1].to_link == l)
			path_remove(pr, k - 1);
	link_close(l);
	free(l->name);
	free(l->addr_text);
	strv_free(l->settings.peers);
	*l = (Link){ 0 };
}

/* Its endpoint: a failure is the link's (said once, its paths wait, and it is tried again),
 * not the prober's. */
static int link_open(Prober *pr, Link *l) {
	int r;

	r = probe_link_new(pr->transport, (struct sockaddr *) &l->addr, (uint16_t) l->settings.port,
			   &l->endpoint);
	if (r < 0) {
		if (r != l->error)
			fprintf(stderr, "%s: no endpoint on %s port %u: %s\n", l->name,
				l->addr_text, l->settings.port, strerror(-r));
		l->error = r;
		l->retry_ns = now_monotonic_nsec() + ENDPOINT_RETRY_NS;
		return 0;
	}
	l->error = 0;
	link_settings_update(pr, l);
	link_tos_update(pr, l, now_monotonic_nsec());
	fprintf(stderr, "%s: probing from %s port %u; round trips timed by %s, from %s CQ\n",
		l->name, l->addr_text, l->settings.port,
		probe_link_device_timestamps(l->endpoint)
			? "the device's clock (completion timestamps)"
			: "the software clock (the device does not stamp completions)",
		probe_link_cq_extended(l->endpoint) ? "an extended" : "a plain");
	return 0;
}

/* A link's endpoint that stopped is closed, with the paths that send from it: made again at
 * once when its QP failed, ENDPOINT_RETRY_NS later when its device went away (the kernel is
 * removing it; a new one may come). */
static void link_failed(Prober *pr, Link *l, uint64_t now) {
	const char *failure = l->endpoint ? probe_link_failure(l->endpoint) : NULL;
	bool gone;

	if (!failure)
		return;
	gone = probe_link_device_gone(l->endpoint);
	fprintf(stderr, "%s: its endpoint failed (%s): made again%s\n", l->name, failure,
		gone ? " when its device is back" : "");
	for (size_t i = 0; i < pr->n_paths; i++)
		if (pr->paths[i].from == l)
			path_reset(&pr->paths[i]);
	link_close(l);
	l->retry_ns = gone ? now + ENDPOINT_RETRY_NS : now;
}

void links_check_failed(Prober *pr, uint64_t now) {
	for (size_t i = 0; i < MAX_LINKS; i++)
		if (pr->links[i].name && pr->links[i].endpoint)
			link_failed(pr, &pr->links[i], now);
}

/* A link's endpoint that stopped is made again, and so are the paths that send from it; one not
 * made is tried again. */
int link_check(Prober *pr, Link *l, uint64_t now) {
	link_failed(pr, l, now);
	if (!l->endpoint && now >= l->retry_ns)
		return link_open(pr, l);
	return 0;
}

/* The paths of a new link: to and from each other link (mesh), and to each peer. */
static int link_paths_add(Prober *pr, Link *l) {
	int r;

	/* Hostmesh: a link with mesh local probes every other link here, whatever the other's */
	for (size_t k = 0; k < MAX_LINKS; k++) {
		Link *o = &pr->links[k];

		if (!o->name || o == l)
			continue;
		r = l->settings.mesh ? path_add(pr, l, o, o->name, "local", &o->addr) : 0;
		if (r >= 0 && o->settings.mesh)
			r = path_add(pr, o, l, l->name, "local", &l->addr);
		if (r < 0)
			return r;
	}
	STRV_FOREACH (peer, l->settings.peers) {
		struct sockaddr_storage to;

		if (probe_address_parse(*peer, &to) < 0)
			return -EINVAL;
		r = path_add(pr, l, NULL, *peer, "remote", &to);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The links now: those gone closed with their paths, those moved to another address opened
 * again (their paths, both ways, made again and keeping their figures), new ones added. */
int prober_links_update(Prober *pr, const ProbeLinkInfo *infos, size_t n) {
	int r;

	for (size_t i = 0; i < MAX_LINKS; i++) {
		Link *l = &pr->links[i];
		const ProbeLinkInfo *x = NULL;

		if (!l->name)
			continue;
		for (size_t k = 0; k < n && !x; k++)
			if (streq(infos[k].name, l->name))
				x = &infos[k];
		bool moved; /* its address only: its paths are kept, and their figures */

		if (x)
			link_facts_set(pr, l, &x->facts);

		if (x && streq(x->address, l->addr_text) &&
		    probe_settings_equal(&x->settings, &l->settings))
			continue;
		moved = x && probe_settings_equal(&x->settings, &l->settings);
		for (size_t k = pr->n_paths; k > 0; k--) {
			Path *p = &pr->paths[k - 1];

			if (p->from != l && p->to_link != l)
				continue;
			if (!moved)
				path_remove(pr, k - 1);
			else {
				if (p->to_link == l)
					(void) probe_address_parse(x->address, &p->to);
				path_reset(p);
			}
		}
		if (!moved) {
			/* gone, or its settings changed: made again below, with new paths */
			fprintf(stderr, "%s: %s\n", l->name,
				x ? "probe settings changed" : "no longer published, not probed");
			link_forget(pr, l);
			continue;
		}
		link_close(l);
		fprintf(stderr, "%s: now at %s (was %s)\n", l->name, x->address, l->addr_text);
		free(l->addr_text);
		l->addr_text = strdup(x->address);
		r = l->addr_text ? probe_address_parse(x->address, &l->addr) : -ENOMEM;
		if (r >= 0)
			r = link_open(pr, l);
		if (r < 0) {
			link_forget(pr, l); /* a new link at the next refresh */
			return r;
		}
	}
	for (size_t k = 0; k < n; k++) {
		Link *l = NULL;
		bool known = false;

		for (size_t i = 0; i < MAX_LINKS; i++)
			if (pr->links[i].name && streq(pr->links[i].name, infos[k].name))
				known = true;
			else if (!pr->links[i].name && !l)
				l = &pr->links[i];
		if (known)
			continue;
		if (!l)
			return -E2BIG;
		*l = (Link){ .name = strdup(infos[k].name),
			     .addr_text = strdup(infos[k].address),
			     .settings = infos[k].settings,
			     .facts = infos[k].facts,
			     .tos = -1,
			     .tos_error = 1 /* none said yet */ };
		l->settings.peers = strv_copy(infos[k].settings.peers);
		r = !l->name || !l->addr_text || (infos[k].settings.peers && !l->settings.peers)
			    ? -ENOMEM
			    : probe_address_parse(infos[k].address, &l->addr);
		if (r >= 0)
			r = link_open(pr, l);
		if (r >= 0)
			r = link_paths_add(pr, l);
		if (r < 0) {
			/* not half made: the slot is free again, and the next refresh adds it */
			link_forget(pr, l);
			return r;
		}
	}
	return 0;
}

/* rdmad's probe.links: the names of the links that declare a probe key, a line each. NULL in
 * *ret without the file (then every managed link is asked). */
static int links_file_read(const char *path, char ***ret) {
	_cleanup_free_ char *line = NULL;
	char **names = NULL;
	size_t size = 0;
	ssize_t n;
	FILE *f;
	int r = 0;

	*ret = NULL;
	if (!path)
		return 0;
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (r >= 0 && (n = getline(&line, &size, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		if (*line)
			r = strv_extend(&names, line);
	}
	fclose(f);
	if (r < 0) {
		strv_free(names);
		return r;
	}
	*ret = names;
	return 0;
}

static int links_refresh(Prober *pr) {
	ProbeLinkInfo *infos = NULL;
	char **names = NULL;
	size_t n = 0;
	int r;

	/* only the links rdmad lists there are asked for their properties: at thousands of
	 * managed links, asking each at every refresh would hold the loop */
	r = links_file_read(pr->links_file, &names);
	if (r >= 0)
		r = probe_links_from_rdmad(pr->bus, names, &infos, &n);
	strv_free(names);
	if (r < 0)
		return r;
	r = prober_links_update(pr, infos, n);
	probe_link_infos_free(infos, n);
	return r;
}

/* A published GID moved, a link's properties (its Settings among them) changed, a link came or
 * went: the links read again, once for a burst of signals (a reload changes every link's). */
#define REFRESH_DELAY_USEC (100 * 1000ULL)

static int on_refresh(sd_event_source *s, uint64_t usec, void *userdata);

static void refresh_schedule(Prober *pr) {
	int r;

	if (pr->refresh)
		r = sd_event_source_set_enabled(pr->refresh, SD_EVENT_ONESHOT);
	else
		r = sd_event_add_time_relative(pr->event, &pr->refresh, CLOCK_MONOTONIC,
					       REFRESH_DELAY_USEC, 10 * 1000, on_refresh, pr);
	if (r >= 0 && pr->refresh)
		r = sd_event_source_set_time_relative(pr->refresh, REFRESH_DELAY_USEC);
	if (r < 0)
		fprintf(stderr, "Failed to follow rdmad's links: %s\n", strerror(-r));
}

static int on_refresh(sd_event_source *s, uint64_t usec, void *userdata) {
	Prober *pr = userdata;
	int r = links_refresh(pr);

	if (r < 0)
		fprintf(stderr, "Failed to follow rdmad's links: %s\n", strerror(-r));
	return 0;
}

static int on_rdmad_changed(sd_bus_message *m, void *userdata, sd_bus_error *error) {
	refresh_schedule(userdata);
	return 0;
}

/* rdmad rewrote probe.links (the links to ask changed: read again), or removed it (no link
 * declares a probe key any more: leave). Other files of the directory are not looked at. */
static int on_links_file(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
	Prober *pr = userdata;

	if (ev->len == 0 || !streq(ev->name, pr->links_file_name))
		return 0;
	if (access(pr->links_file, F_OK) < 0 && errno == ENOENT) {
		fprintf(stderr, "%s removed: no link to probe\n", pr->links_file);
		return sd_event_exit(pr->event, 0);
	}
	refresh_schedule(pr);
	return 0;
}

int prober_links_file_watch(Prober *pr) {
	_cleanup_free_ char *d = NULL;
	int r;

	if (!pr->links_file)
		return 0;
	d = strdup(pr->links_file);
	if (!d)
		return -ENOMEM;
	pr->links_file_name =
		strrchr(pr->links_file, '/') ? strrchr(pr->links_file, '/') + 1 : pr->links_file;
	/* the directory's: rdmad replaces the file by a rename, which a watch on the file itself
	 * would take for its removal */
	r = sd_event_add_inotify(pr->event, NULL, dirname(d),
				 IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE,
				 on_links_file, pr);
	if (r < 0)
		return r;
	if (access(pr->links_file, F_OK) < 0) {
		r = sd_event_exit(pr->event, 0); /* gone before we began */
		return r < 0 ? r : 1;
	}
	return 0;
}

int prober_links_follow(Prober *pr) {
	int r;

	r = rdmad_bus_open(&pr->bus);
	if (r == 0)
		r = -ESRCH; /* rdmad is not on the bus */
	if (r >= 0)
		r = sd_bus_attach_event(pr->bus, pr->event, SD_EVENT_PRIORITY_NORMAL);
	if (r >= 0)
		r = sd_bus_match_signal(pr->bus, NULL, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					RDMAD_MANAGER_IFACE, "PublishedGidChanged",
					on_rdmad_changed, pr);
	if (r >= 0)
		r = sd_bus_add_match(pr->bus, NULL,
				     "type='signal',sender='" RDMAD_BUS_NAME "',"
				     "interface='org.freedesktop.DBus.Properties',"
				     "member='PropertiesChanged',arg0='" RDMAD_LINK_IFACE "'",
				     on_rdmad_changed, pr);
	if (r >= 0)
		r = sd_bus_add_match(pr->bus, NULL,
				     "type='signal',sender='" RDMAD_BUS_NAME "',"
				     "interface='org.freedesktop.DBus.ObjectManager'",
				     on_rdmad_changed, pr);
	if (r >= 0)
		r = links_refresh(pr);
	return r;
}
