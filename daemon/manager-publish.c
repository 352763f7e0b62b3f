/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What rdmad publishes for the jobs that run on RDMA, after each reconcile: a per-link
 * environment file (env-file.h) for every managed link that has a GID to use, rewritten only
 * when its content changes, removed when the link goes away or stops being managed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env-file.h"
#include "log.h"
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

static int port_publish(Manager *m, const PortStatus *s, char ***names) {
	_cleanup_free_ char *name = NULL, *text = NULL;
	LogFields f = { .device = s->device, .port = s->port, .netdev = s->netdev };
	const Gid *g;
	EnvLink l;
	int r;

	if (s->state == CONFIG_STATE_UNMANAGED ||
	    port_status_gid_preferred(s, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) < 0)
		return 0;
	l = (EnvLink) { .device = s->device, .port = s->port, .netdev = s->netdev,
			.gid_index = g->index };
	memcpy(l.gid, g->raw, sizeof(l.gid));
	r = env_file_name(&l, &name);
	if (r >= 0)
		r = env_file_format(&l, &text);
	if (r >= 0)
		r = strv_extend(names, name);
	if (r < 0)
		return r;
	r = env_file_write(m->env_dir, name, text);
	if (r < 0)
		return log_full_errno(LOG_WARNING, r, &f, "Failed to write %s/%s", m->env_dir,
				      name);
	if (r > 0)
		log_full(LOG_INFO, 0, &f, "%s: published GID index %u in %s/%s", s->name,
			 g->index, m->env_dir, name);
	return 0;
}

void manager_publish(Manager *m) {
	_cleanup_strv_free_ char **names = NULL;
	int r;

	r = env_dir_make(m->env_dir);
	if (r < 0) {
		log_warning_errno(r, "Failed to make %s", m->env_dir);
		return;
	}
	for (size_t i = 0; i < m->n_ports; i++) {
		r = port_publish(m, &m->ports[i], &names);
		if (r == -ENOMEM) {
			log_error_errno(r, "Failed to publish the environment files");
			return; /* prune nothing on a partial list */
		}
	}
	r = env_dir_prune(m->env_dir, names);
	if (r < 0)
		log_warning_errno(r, "Failed to remove stale files of %s", m->env_dir);
	else if (r > 0)
		log_info("Removed %d environment file(s) of links gone or no longer managed", r);
}
