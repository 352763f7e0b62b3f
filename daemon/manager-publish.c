/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rdmad publishes for the jobs that run on RDMA, after each reconcile: a per-link
 * environment file (env-file.h) for every managed link that has a GID to use, rewritten only
 * when its content changes, removed when the link goes away or stops being managed; a
 * host-wide nccl.conf when every such link agrees on one index; and, when a link's published
 * index changes, the PublishedGidChanged signal and a journal entry with its MESSAGE_ID, so
 * that schedulers can drain or restart the jobs that pinned the old one. */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env-file.h"
#include "gid.h"
#include "log.h"
#include "manager-emit.h"
#include "manager-publish.h"
#include "strv.h"

/* dir and what is missing above it (<rundir>/rdmad is the unit's RuntimeDirectory=; a daemon
 * run by hand makes it), each 0755 whatever the umask (the unit's is 0077): every job reads
 * env/. */
static int env_dir_make(const char *dir) {
	_cleanup_free_ char *p = strdup(dir);

	if (!p)
		return -ENOMEM;
	for (char *slash = strchr(p + 1, '/');; slash = strchr(slash + 1, '/')) {
		if (slash)
			*slash = 0;
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			return -errno;
		if (!slash)
			break;
		*slash = '/';
	}
	if (chmod(dir, 0755) < 0)
		return -errno;
	return 0;
}

void published_free(Published *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		free(l[i].link);
	free(l);
}

static int published_compare(const void *a, const void *b) {
	const Published *x = *(const Published *const *) a, *y = *(const Published *const *) b;

	return strcmp(x->link, y->link);
}

/* l's entries sorted by link name, for lookups in a loop over thousands of links; l keeps its
 * order (the ports', which nccl.conf lists). */
static const Published **published_index(const Published *l, size_t n) {
	const Published **idx = calloc(n + 1, sizeof(*idx));

	if (!idx)
		return NULL;
	for (size_t i = 0; i < n; i++)
		idx[i] = &l[i];
	if (n > 1)
		qsort(idx, n, sizeof(*idx), published_compare);
	return idx;
}

static const Published *published_find(const Published **idx, size_t n, const char *link) {
	Published key = { .link = (char *) link };
	const Published *k = &key, **found;

	if (n == 0)
		return NULL;
	found = bsearch(&k, idx, n, sizeof(*idx), published_compare);
	return found ? *found : NULL;
}

/* The env file of one port; *ret_published is set when the port publishes a GID. */
static int port_publish(Manager *m, const PortStatus *s, char **names, size_t *n_names,
			Published *ret) {
	_cleanup_free_ char *name = NULL, *text = NULL;
	LogFields f = { .device = s->device, .port = s->port, .netdev = s->netdev };
	Gid g;
	EnvLink l;
	int r;

	if (s->state == CONFIG_STATE_UNMANAGED ||
	    port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0)
		return 0;
	l = (EnvLink){ .device = s->device,
		       .port = s->port,
		       .netdev = s->netdev,
		       .gid_index = g.index,
		       .nearest_gpus = manager_nearest_gpus(m, s) };
	memcpy(l.gid, g.raw, sizeof(l.gid));
	*ret = (Published){ .link = strdup(s->name), .index = g.index };
	memcpy(ret->gid, g.raw, sizeof(ret->gid));
	r = env_file_name(&l, &name);
	if (r >= 0)
		r = env_file_format(&l, &text);
	if (r < 0 || !ret->link)
		return -ENOMEM;
	names[(*n_names)++] = strdup(name);
	if (!names[*n_names - 1])
		return -ENOMEM;
	r = env_file_write(m->env_dir, name, text);
	if (r < 0)
		log_full_errno(LOG_WARNING, r, &f, "Failed to write %s/%s", m->env_dir, name);
	else if (r > 0)
		log_full(LOG_INFO, 0, &f, "%s: published GID index %u in %s/%s", s->name, g.index,
			 m->env_dir, name);
	return 1;
}

/* Why a link's published GID changed, in words. */
static void change_reason(Manager *m, const char *link, const Published *old, const Published *now,
			  char *buf, size_t size) {
	char a[GID_STRING_MAX], b[GID_STRING_MAX];
	PortStatus *s;

	if (old)
		gid_format(old->gid, a);
	if (now)
		gid_format(now->gid, b);
	if (!old)
		snprintf(buf, size, "published: GID index %u (%s)", now->index, b);
	else if (!now && manager_port_find(m, link, &s) < 0)
		snprintf(buf, size, "withdrawn: the link went away");
	else if (!now && s->state == CONFIG_STATE_UNMANAGED)
		snprintf(buf, size, "withdrawn: no profile manages the link any more");
	else if (!now)
		snprintf(buf, size,
			 "withdrawn: %s is gone, and no RoCE v2 GID of an IPv4 or global IPv6 "
			 "address is left",
			 a);
	else if (memcmp(old->gid, now->gid, sizeof(old->gid)) == 0)
		snprintf(buf, size, "%s moved from index %u to %u", a, old->index, now->index);
	else
		snprintf(buf, size, "%s at index %u replaced by %s at index %u (addresses changed)",
			 a, old->index, b, now->index);
}

static void change_announce(Manager *m, const char *link, const Published *old,
			    const Published *now) {
	char reason[256], a[GID_STRING_MAX] = "", b[GID_STRING_MAX] = "";
	LogFields f = { .message_id = MESSAGE_ID_PUBLISHED_GID_CHANGED };
	_cleanup_free_ char *device = strdup(link);
	char *slash;

	if (device && (slash = strchr(device, '/'))) {
		*slash = 0;
		f.device = device;
		f.port = (uint32_t) strtoul(slash + 1, NULL, 10);
	}
	change_reason(m, link, old, now, reason, sizeof(reason));
	if (old)
		gid_format(old->gid, a);
	if (now)
		gid_format(now->gid, b);
	log_full(old ? LOG_NOTICE : LOG_INFO, 0, &f, "%s: published GID index %d -> %d: %s", link,
		 old ? (int) old->index : -1, now ? (int) now->index : -1, reason);
	manager_emit_gid_changed(m, link, old ? (int32_t) old->index : -1,
				 now ? (int32_t) now->index : -1, a, b, reason);
}

static void nccl_verdict_set(Manager *m, const char *verdict, int32_t index) {
	bool changed = m->nccl_gid_index != index;
	char *v = strdup(verdict);

	if (v) {
		free(m->nccl_verdict);
		m->nccl_verdict = v;
	}
	m->nccl_gid_index = index;
	if (changed)
		manager_emit_changed(m, "NcclGidIndex", NULL);
}

/* <rundir>/rdmad/nccl.conf: NCCL's own file format (NAME=value), for NCCL_CONF_FILE= or a
 * symlink from /etc/nccl.conf (rdmad never writes /etc). Only while every published link
 * agrees on one index: NCCL takes one NCCL_IB_GID_INDEX for all its HCAs, and a wrong global
 * value is worse than none. */
static void nccl_conf_publish(Manager *m, const Published *l, size_t n) {
	_cleanup_free_ char *dir = strdup(m->env_dir), *text = NULL, *path = NULL;
	const char *verdict;
	char *slash;
	size_t size = 0;
	FILE *f;
	bool agree = n > 0;
	int r;

	if (!dir || !(slash = strrchr(dir, '/')))
		return;
	*slash = 0;
	for (size_t i = 1; i < n; i++)
		if (l[i].index != l[0].index)
			agree = false;
	if (asprintf(&path, "%s/nccl.conf", dir) < 0)
		return;
	if (!agree) {
		verdict = n == 0 ? "none" : "disagree";
		if (unlink(path) < 0 && errno != ENOENT)
			log_warning_errno(-errno, "Failed to remove %s", path);
		if (n > 0 && !streq_ptr(m->nccl_verdict, verdict)) {
			_cleanup_free_ char *list = NULL;
			size_t lsize = 0;
			FILE *g = open_memstream(&list, &lsize);

			for (size_t i = 0; g && i < n; i++)
				fprintf(g, "%s%s %u", i ? ", " : "", l[i].link, l[i].index);
			if (g && fclose(g) == 0)
				log_warning("The links publish different GID indexes (%s): no %s, "
					    "since NCCL takes one NCCL_IB_GID_INDEX for all; use "
					    "each link's env file",
					    list, path);
		}
		nccl_verdict_set(m, verdict, -1);
		return;
	}
	f = open_memstream(&text, &size);
	if (!f)
		return;
	fprintf(f,
		/* no "=" in the comments: NCCL's reader takes any line with one for a variable */
		"# rdmad: every link it manages publishes GID index %u. Point NCCL here with\n"
		"# NCCL_CONF_FILE set to this path, or ln -s %s /etc/nccl.conf. Do not edit.\n"
		"NCCL_IB_GID_INDEX=%u\nNCCL_IB_HCA==",
		l[0].index, path, l[0].index);
	for (size_t i = 0; i < n; i++) { /* "=": exact names, mlx5_1 is no prefix of mlx5_10 */
		const char *p = strchr(l[i].link, '/');

		fprintf(f, "%s%.*s:%s", i ? "," : "", (int) (p ? p - l[i].link : 0), l[i].link,
			p ? p + 1 : "");
	}
	fputc('\n', f);
	if (fclose(f) != 0)
		return;
	r = env_file_write(dir, "nccl.conf", text);
	if (r < 0)
		log_warning_errno(r, "Failed to write %s", path);
	else if (r > 0)
		log_info("Published %s: NCCL_IB_GID_INDEX=%u for %zu link(s)", path, l[0].index, n);
	nccl_verdict_set(m, "agree", (int32_t) l[0].index);
}

/* <rundir>/rdmad/probe.links: the links that declare a probe key, a line each, while there is
 * one; rdmad-probe.path starts rdmad-probe.service when it appears, and the prober leaves when
 * it goes. The prober takes each link's settings from the bus (its Settings), not from here. */
static void probe_links_publish(Manager *m) {
	_cleanup_free_ char *dir = strdup(m->env_dir), *text = NULL, *path = NULL;
	size_t size = 0, n = 0;
	char *slash;
	FILE *f;
	int r;

	if (!dir || !(slash = strrchr(dir, '/')))
		return;
	*slash = 0;
	if (asprintf(&path, "%s/probe.links", dir) < 0)
		return;
	f = open_memstream(&text, &size);
	if (!f)
		return;
	for (size_t i = 0; i < m->n_ports; i++) {
		const PortStatus *s = &m->ports[i];

		for (size_t k = 0; k < s->n_settings; k++)
			if (KEY_BIT(s->settings[k].key) & KEYS_PROBE) {
				fprintf(f, "%s\n", s->name);
				n++;
				break;
			}
	}
	if (fclose(f) != 0)
		return;
	if (n == 0) {
		if (unlink(path) >= 0)
			log_info("No link declares a probe key: removed %s", path);
		else if (errno != ENOENT)
			log_warning_errno(-errno, "Failed to remove %s", path);
		return;
	}
	r = env_file_write(dir, "probe.links", text);
	if (r < 0)
		log_warning_errno(r, "Failed to write %s", path);
	else if (r > 0)
		log_info("Published %s: %zu link(s) to probe", path, n);
}

/* A publication in steps, one link's file each (manager-reconcile.c runs them in its slices):
 * at 4,096 links comparing every file took 30 ms in one step. The status table does not change
 * meanwhile: only the reconcile that publishes replaces it. */
typedef enum PublishStage {
	PUBLISH_FILES,	  /* one link's file a step */
	PUBLISH_INDEX,	  /* the lists sorted, and compared */
	PUBLISH_PRUNE,	  /* the files of links no longer published removed */
	PUBLISH_NCCL,	  /* nccl.conf */
	PUBLISH_PROBE,	  /* probe.links */
	PUBLISH_ANNOUNCE, /* one change a step */
} PublishStage;

struct PublishRun {
	PublishStage stage;
	char **names; /* the files of the links published so far */
	size_t n_names;
	Published *now;
	size_t n_now;
	size_t next; /* the next link of m->ports */
	const Published **now_idx, **old_idx;
	bool same_links; /* the links published are those of the last publication */
	/* then the changes announced, one a step: a first reconcile announces every link (a
	 * journal entry and a GidChanged signal each, 49 ms at 4,096 links in one step) */
	size_t next_now, next_old;
};

PublishRun *publish_run_free(PublishRun *p) {
	if (!p)
		return NULL;
	strv_free(p->names);
	published_free(p->now, p->n_now);
	free(p->now_idx);
	free(p->old_idx);
	free(p);
	return NULL;
}

int publish_begin(Manager *m, PublishRun **ret) {
	_cleanup_(publish_run_freep) PublishRun *p = NULL;
	int r;

	r = env_dir_make(m->env_dir);
	if (r < 0) {
		log_warning_errno(r, "Failed to make %s", m->env_dir);
		return 0; /* nothing published this time; the reconcile goes on */
	}
	/* The last publication was given up half way (a reload made its run stale, or it
	 * failed): it may have written the file of a link that `published` does not have, so the
	 * next prune must not be left out. */
	if (m->publish_in_flight)
		m->env_dir_pruned = false;
	m->publish_in_flight = true;
	p = calloc(1, sizeof(PublishRun));
	if (!p)
		return -ENOMEM;
	p->now = calloc(m->n_ports ? m->n_ports : 1, sizeof(Published));
	p->names = calloc(m->n_ports + 1, sizeof(char *));
	if (!p->now || !p->names)
		return -ENOMEM;
	*ret = TAKE_PTR(p);
	return 1;
}

/* The lists of links published now and before, sorted for the lookups that follow. */
static int publish_index(Manager *m, PublishRun *p) {
	p->now_idx = published_index(p->now, p->n_now);
	p->old_idx = published_index(m->published, m->n_published);
	if (!p->now_idx || !p->old_idx)
		return log_error_errno(-ENOMEM, "Out of memory announcing the published GIDs");
	p->same_links = p->n_now == m->n_published;
	for (size_t i = 0; p->same_links && i < p->n_now; i++)
		p->same_links = published_find(p->old_idx, m->n_published, p->now[i].link) != NULL;
	return 0;
}

/* The files of links gone or no longer published removed. A file is named after its link, so
 * with the same links as the last publication, and that one's prune done, none is stale: the
 * directory is read (2-6 ms at 4,096 links) at the start and when a link stops publishing. */
static void publish_prune(Manager *m, PublishRun *p) {
	int r;

	if (p->same_links && m->env_dir_pruned)
		return;
	m->env_dir_pruned = false;
	r = env_dir_prune(m->env_dir, p->names);
	if (r < 0)
		log_warning_errno(r, "Failed to remove stale files of %s", m->env_dir);
	else {
		m->env_dir_pruned = true;
		if (r > 0)
			log_info(
				"Removed %d environment file(s) of links gone or no longer managed",
				r);
	}
}

/* The next change of a published GID announced: 1 when none is left. Links whose GID stayed
 * are passed over, up to a few hundred a step. */
static int publish_announce_next(Manager *m, PublishRun *p) {
	for (unsigned k = 0; k < 256; k++) {
		if (p->next_now < p->n_now) {
			const Published *now = &p->now[p->next_now++];
			const Published *old =
				published_find(p->old_idx, m->n_published, now->link);

			if (!old || old->index != now->index) {
				change_announce(m, now->link, old, now);
				return 0;
			}
		} else if (p->next_old < m->n_published) {
			const Published *old = &m->published[p->next_old++];

			if (!published_find(p->now_idx, p->n_now, old->link)) {
				change_announce(m, old->link, old, NULL);
				return 0;
			}
		} else
			return 1;
	}
	return 0;
}

int publish_step(Manager *m, PublishRun *p) {
	int r;

	switch (p->stage) {
	case PUBLISH_FILES:
		if (p->next >= m->n_ports) {
			p->stage = PUBLISH_INDEX;
			return 0;
		}
		r = port_publish(m, &m->ports[p->next++], p->names, &p->n_names, &p->now[p->n_now]);
		if (r < 0) {
			/* freed with the run: the partial entry too */
			p->n_now++;
			return r;
		}
		if (r > 0)
			p->n_now++;
		return 0;
	case PUBLISH_INDEX:
		r = publish_index(m, p);
		if (r < 0)
			return r;
		p->stage = PUBLISH_PRUNE;
		return 0;
	case PUBLISH_PRUNE:
		publish_prune(m, p);
		p->stage = PUBLISH_NCCL;
		return 0;
	case PUBLISH_NCCL:
		nccl_conf_publish(m, p->now, p->n_now);
		p->stage = PUBLISH_PROBE;
		return 0;
	case PUBLISH_PROBE:
		probe_links_publish(m);
		p->stage = PUBLISH_ANNOUNCE;
		return 0;
	case PUBLISH_ANNOUNCE:
		return publish_announce_next(m, p);
	}
	return 1;
}

void publish_end(Manager *m, PublishRun *p) {
	m->publish_in_flight = false;
	published_free(m->published, m->n_published);
	m->published = TAKE_PTR(p->now);
	m->n_published = p->n_now;
	p->n_now = 0;
}
