/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A pending trial's gates (manager-trial.h): what they judge read from the status table, the
 * netdevs' operstate and rdmad-probe's state file, and judged by trial-gate.h. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "fileio.h"
#include "log.h"
#include "manager-trial-internal.h"
#include "strv.h"

int probe_state_read(Manager *m, ProbePath **ret, size_t *ret_n) {
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	uint64_t deadline = now_monotonic_usec() + 100000;
	int r;

	if (!m->probe_state_path)
		return -ENOENT;
	fd = open(m->probe_state_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = read_all_until(fd, deadline, 8 * 1024 * 1024, &text, &size);
	if (r < 0)
		return r;
	return probe_paths_parse(text, ret, ret_n);
}

/* operstate of netdev, NULL when it is gone */
char *netdev_operstate(Manager *m, const char *netdev) {
	_cleanup_free_ char *path = NULL, *rel = NULL;
	char *s = NULL;

	if (asprintf(&rel, "/sys/class/net/%s/operstate", netdev) < 0)
		return NULL;
	path = root_path(m->root, rel);
	if (!path || read_line_at(AT_FDCWD, path, &s) < 0)
		return NULL;
	return s;
}

/* Each gate in turn: 0 all held, 1 one failed (*ret_gate, *ret_seen), -errno. */
int trial_gates(Manager *m, Trial *t, const char **ret_gate, char **ret_seen) {
	size_t n_links = strv_length(t->links), n_netdevs = strv_length(t->netdevs);
	_cleanup_free_ TrialLinkState *ls = NULL;
	_cleanup_free_ TrialNetdevState *ns = NULL;
	char **states = NULL;
	int r;

	ls = calloc(n_links + 1, sizeof(TrialLinkState));
	ns = calloc(n_netdevs + 1, sizeof(TrialNetdevState));
	states = calloc(n_netdevs + 1, sizeof(char *));
	if (!ls || !ns || !states) {
		free(states);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_links; i++) {
		PortStatus *s = NULL;

		(void) manager_port_find(m, t->links[i], &s);
		ls[i] = (TrialLinkState){
			.link = t->links[i],
			.state = s ? config_state_to_string(s->state) : "failed",
			.detail = s ? s->last_error : "the link is gone",
		};
	}
	r = trial_gate_links(ls, n_links, now_monotonic_usec() - t->started_usec, ret_seen);
	if (r != 0) {
		*ret_gate = trial_gate_to_string(TRIAL_GATE_LINKS);
		goto out;
	}
	for (size_t i = 0; i < n_netdevs; i++) {
		states[i] = netdev_operstate(m, t->netdevs[i]);
		ns[i] = (TrialNetdevState){ t->netdevs[i], t->up_before[i], states[i] };
	}
	r = trial_gate_netdevs(ns, n_netdevs, ret_seen);
	if (r != 0) {
		*ret_gate = trial_gate_to_string(TRIAL_GATE_NETDEV);
		goto out;
	}
	if (t->probe_known) {
		ProbePath *now = NULL;
		size_t n_now = 0;

		/* a state file that cannot be read now (rdmad-probe restarting) is not judged */
		if (probe_state_read(m, &now, &n_now) >= 0) {
			r = trial_gate_probe(t->probe_before, t->n_probe_before, now, n_now,
					     t->links, ret_seen);
			probe_paths_free(now, n_now);
			if (r != 0)
				*ret_gate = trial_gate_to_string(TRIAL_GATE_PROBE);
		}
	}
out:
	for (size_t i = 0; i < n_netdevs; i++)
		free(states[i]);
	free(states);
	return r;
}
