/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink health reporters (issue 46): mlx5's fw_fatal says the driver lost its firmware while
 * the link still reads UP. The kernel multicasts DEVLINK_CMD_HEALTH_REPORTER_RECOVER on
 * devlink's "config" group with the reporter's state and counts whenever it reports an error
 * (devlink_health_report()) and whenever a recovery succeeds; a failed recovery sends nothing
 * more. rdmad joins the group (manager-devlink.c, whose socket hands each message here), then
 * reads every reporter once (a dump), so that nothing falls between the two; afterwards each notification is compared with the table and a change is
 * told: a journal line with the device's RDMA_DEVICE= and NETDEV=, and DevlinkHealthChanged
 * on the bus. ENOBUFS (notifications lost) reads the table again. A device's DEL (unbound,
 * removed) drops its reporters: they go with it, and the kernel says nothing of them. The same
 * group carries PARAM_NEW and the ports' NEW/DEL: not this file's. */
#include <errno.h>
#include <linux/devlink.h>
#include <stdlib.h>
#include <string.h>

#include "device-health.h"
#include "devlink-health-talk.h"
#include "json-util.h"
#include "log.h"
#include "manager-emit.h"
#include "manager-health.h"
#include "netlink-io.h"
#include "strv.h"

struct HealthWatch {
	Manager *m;
	uint16_t family;
	HealthReporter *reporters;
	size_t n;
};

HealthWatch *health_watch_free(HealthWatch *w) {
	if (!w)
		return NULL;
	free(w->reporters);
	free(w);
	return NULL;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(HealthWatch *, health_watch_free)

static bool reporter_same(const HealthReporter *a, const HealthReporter *b) {
	return streq(a->device, b->device) && a->has_port == b->has_port && a->port == b->port &&
	       streq(a->name, b->name);
}

/* A change of r (old: as it was, NULL when new to rdmad): the journal, and the bus. */
static void health_changed(HealthWatch *w, const HealthReporter *old, const HealthReporter *r) {
	_cleanup_strv_free_ char **netdevs = NULL, **rdma = NULL;
	LogFields f = { 0 };
	const char *name;
	int level;

	(void) devlink_device_names(w->m->root, r->device, &netdevs, &rdma);
	f.device = rdma ? rdma[0] : NULL;
	f.netdev = netdevs ? netdevs[0] : NULL;
	/* RDMA_PORT= stays out: a devlink port's index (mlx5's 65535) is no RDMA port number */
	name = f.device ? f.device : f.netdev;
	f.message_id = MESSAGE_ID_DEVLINK_HEALTH_CHANGED;
	level = r->state == HEALTH_STATE_ERROR		  ? LOG_ERR
		: old && old->state == HEALTH_STATE_ERROR ? LOG_NOTICE
							  : LOG_INFO;
	log_full(level, 0, &f,
		 "devlink health reporter %s of %s%s%s%s: %s%s, %" PRIu64 " errors, %" PRIu64
		 " recoveries",
		 r->name, r->device, name ? " (" : "", strempty(name), name ? ")" : "",
		 health_state_to_string(r->state),
		 r->state == HEALTH_STATE_ERROR && r->has_recover && !r->auto_recover
			 ? " (auto-recover off)"
			 : "",
		 r->errors, r->recoveries);
	manager_emit_health_changed(w->m, r);
}

/* r as the kernel says it now: compare, keep, tell. */
static int health_update(HealthWatch *w, const HealthReporter *r, bool tell_new) {
	HealthReporter *l;

	for (size_t i = 0; i < w->n; i++) {
		HealthReporter old = w->reporters[i];

		if (!reporter_same(&old, r))
			continue;
		w->reporters[i] = *r;
		if (old.state != r->state || old.errors != r->errors ||
		    old.recoveries != r->recoveries)
			health_changed(w, &old, r);
		return 0;
	}
	l = realloc(w->reporters, (w->n + 1) * sizeof(HealthReporter));
	if (!l)
		return -ENOMEM;
	w->reporters = l;
	w->reporters[w->n++] = *r;
	/* a reporter first seen in error is news; one seen healthy at start is not */
	if (tell_new || r->state == HEALTH_STATE_ERROR)
		health_changed(w, NULL, r);
	return 0;
}

/* Every reporter, read again: at start, and after lost notifications. Reporters gone (a
 * driver's reload re-creates them, counts at 0) leave the table. */
static int health_read_all(HealthWatch *w, bool tell_new) {
	_cleanup_free_ HealthReporter *now = NULL;
	struct nl_sock *sk = NULL;
	size_t n = 0;
	int r;

	r = netlink_open(NETLINK_GENERIC, &sk);
	if (r >= 0)
		r = devlink_health_read_all(sk, w->family, &now, &n, NULL);
	if (sk)
		nl_socket_free(sk);
	if (r < 0)
		return r;
	for (size_t i = 0; i < w->n;) {
		bool found = false;

		for (size_t k = 0; k < n && !found; k++)
			found = reporter_same(&w->reporters[i], &now[k]);
		if (found)
			i++;
		else
			w->reporters[i] = w->reporters[--w->n];
	}
	for (size_t k = 0; k < n; k++) {
		r = health_update(w, &now[k], tell_new);
		if (r < 0)
			return r;
	}
	return 0;
}

/* device went away: its reporters with it. */
static void health_device_gone(HealthWatch *w, const char *device) {
	for (size_t i = 0; i < w->n;)
		if (streq(w->reporters[i].device, device)) {
			log_debug("devlink device %s gone, with its health reporter %s.", device,
				  w->reporters[i].name);
			w->reporters[i] = w->reporters[--w->n];
		} else
			i++;
}

void manager_health_message(Manager *m, const struct nlmsghdr *nlh) {
	HealthWatch *w = m->health_watch;
	char device[DEVLINK_HANDLE_MAX];
	HealthReporter r;

	if (!w)
		return;
	if (devlink_device_parse(nlh, nlh->nlmsg_len, device) == DEVLINK_CMD_DEL) {
		health_device_gone(w, device);
		return;
	}
	/* PARAM_NEW and the rest of the group do not parse as a reporter: not ours */
	if (devlink_health_parse(nlh, nlh->nlmsg_len, &r) >= 0 &&
	    health_update(w, &r, true) == -ENOMEM)
		log_warning("Out of memory keeping devlink health reporter %s of %s, ignoring.",
			    r.name, r.device);
}

void manager_health_lost(Manager *m) {
	int r;

	if (!m->health_watch)
		return;
	/* ENOBUFS: changes were lost; the kernel has the counts, read them again */
	log_full(LOG_NOTICE, 0, &(LogFields){ .message_id = MESSAGE_ID_EVENTS_LOST },
		 "devlink notifications were lost, reading every health reporter again.");
	r = health_read_all(m->health_watch, true);
	if (r < 0)
		log_warning_errno(r, "Failed to read devlink health reporters, ignoring");
}

int manager_health_start(Manager *m, uint16_t family) {
	_cleanup_(health_watch_freep) HealthWatch *w = NULL;
	int r;

	w = calloc(1, sizeof(HealthWatch));
	if (!w)
		return log_error_errno(-ENOMEM, "Failed to watch devlink health");
	*w = (HealthWatch){ .m = m, .family = family };
	/* the group joined first: a change from here on is either in the dump or on the socket */
	r = health_read_all(w, false);
	if (r == -ENOMEM)
		return log_error_errno(r, "Failed to read devlink health reporters");
	if (r < 0)
		log_warning_errno(r, "Failed to read devlink health reporters, ignoring");
	log_debug("Watching %zu devlink health reporters.", w->n);
	m->health_watch = TAKE_PTR(w);
	return 0;
}

int manager_health_describe(Manager *m, json_object *o) {
	HealthWatch *w = m->health_watch;
	json_object *a, *e;
	int r;

	if (!w)
		return 0;
	r = json_add_array(o, "devlink_health", &a);
	for (size_t i = 0; r >= 0 && i < w->n; i++) {
		const HealthReporter *x = &w->reporters[i];

		r = json_add_object(a, NULL, &e);
		if (r >= 0)
			r = json_add_string(e, "device", x->device);
		if (r >= 0 && x->has_port)
			r = json_add_int(e, "port", x->port);
		if (r >= 0)
			r = json_add_string(e, "reporter", x->name);
		if (r >= 0)
			r = json_add_string(e, "state", health_state_to_string(x->state));
		if (r >= 0)
			r = json_add_int(e, "errors", (int64_t) x->errors);
		if (r >= 0)
			r = json_add_int(e, "recoveries", (int64_t) x->recoveries);
	}
	return r;
}
