/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* lldpd's notifications (issue 44): a neighbour added, changed or gone on a netdev marks that
 * netdev dirty, so that the switch port's comparison (port-status.c's SwitchStatus) follows a
 * change at the switch without waiting for another event. One connection to lldpd's control
 * socket, subscribed with lldpctl_watch_callback2() and driven without blocking on the loop
 * (liblldpctl's I/O callbacks). No lldpd at start, or lldpd gone: the socket's appearance in
 * /run (inotify: made, then its mode and owner set, after lldpd listens) starts it again, and
 * nothing polls. liblldpctl is loaded only once lldpd answers (lldpctl-dl.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/inotify.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lldpctl-dl.h"
#include "log.h"
#include "manager-lldp.h"

struct LldpWatch {
	Manager *m;
	int fd;
	lldpctl_conn_t *conn;
	bool subscribed;
	sd_event_source *io, *inotify;
};

static void watch_close(LldpWatch *w) {
	w->io = sd_event_source_disable_unref(w->io);
	if (w->conn)
		sym_lldpctl_release(w->conn);
	w->conn = NULL;
	w->fd = safe_close(w->fd);
	w->subscribed = false;
}

LldpWatch *lldp_watch_free(LldpWatch *w) {
	if (!w)
		return NULL;
	watch_close(w);
	sd_event_source_disable_unref(w->inotify);
	free(w);
	return NULL;
}

static ssize_t io_send(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user_data) {
	LldpWatch *w = user_data;
	ssize_t n = send(w->fd, data, length, MSG_DONTWAIT | MSG_NOSIGNAL);

	(void) conn;
	if (n >= 0)
		return n;
	return errno == EAGAIN ? LLDPCTL_ERR_WOULDBLOCK : LLDPCTL_ERR_CALLBACK_FAILURE;
}

static ssize_t io_recv(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user_data) {
	LldpWatch *w = user_data;
	ssize_t n = recv(w->fd, (void *) data, length, MSG_DONTWAIT);

	(void) conn;
	if (n > 0)
		return n;
	if (n == 0)
		return LLDPCTL_ERR_EOF;
	return errno == EAGAIN ? LLDPCTL_ERR_WOULDBLOCK : LLDPCTL_ERR_CALLBACK_FAILURE;
}

static void on_change(lldpctl_change_t type, lldpctl_atom_t *interface, lldpctl_atom_t *neighbor,
		      void *data) {
	LldpWatch *w = data;
	const char *name = sym_lldpctl_atom_get_str(interface, lldpctl_k_interface_name);

	(void) neighbor;
	if (!name)
		return;
	log_debug("lldpd: a neighbour %s on %s",
		  type == lldpctl_c_added     ? "added"
		  : type == lldpctl_c_deleted ? "gone"
					      : "changed",
		  name);
	manager_mark_netdev(w->m, name);
}

/* The subscription, started or carried on: 1 subscribed, 0 waiting for lldpd's answer, -errno. */
static int subscribe(LldpWatch *w) {
	if (sym_lldpctl_watch_callback2(w->conn, on_change, w) == 0) {
		w->subscribed = true;
		log_debug("lldpd: subscribed to its notifications");
		return 1;
	}
	return sym_lldpctl_last_error(w->conn) == LLDPCTL_ERR_WOULDBLOCK ? 0 : -EPROTO;
}

static int on_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	LldpWatch *w = userdata;
	uint8_t buf[4096];
	ssize_t n;
	int r;

	(void) s;
	(void) fd;
	if (!w->subscribed) {
		r = subscribe(w);
		if (r < 0)
			goto gone;
		return 0;
	}
	for (;;) {
		n = recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			goto gone;
		if (sym_lldpctl_recv(w->conn, buf, (size_t) n) < 0)
			goto gone;
		while (sym_lldpctl_process_conn_buffer(w->conn) == 0)
			;
	}
	if (revents & (EPOLLHUP | EPOLLERR))
		goto gone;
	return 0;
gone:
	/* its neighbours went with it: look again, and wait for its socket to come back */
	log_info("lldpd's notifications stopped (%s): a change at a switch is seen at the next "
		 "reconcile, or when lldpd is back",
		 w->conn ? sym_lldpctl_strerror(sym_lldpctl_last_error(w->conn)) : "closed");
	watch_close(w);
	manager_mark_dirty_all(w->m);
	return 0;
}

/* Connect and subscribe, when lldpd listens: 0 also when it does not (nothing to watch yet).
 * appearing: tried on an event of the socket's, while lldpd makes it (it binds, then chowns,
 * then chmods it: a refusal before the last is expected, and not said; one that lasts is said
 * by each link's observation, in rdmactl status and preflight). */
static int watch_open(LldpWatch *w, bool appearing) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX, .sun_path = LLDPD_SOCKET };
	_cleanup_free_ char *error = NULL;
	int r;

	if (w->conn)
		return 0;
	w->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (w->fd < 0)
		return log_warning_errno(errno,
					 "Failed to make a socket for lldpd's notifications, "
					 "ignoring");
	if (connect(w->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		r = -errno;
		w->fd = safe_close(w->fd);
		if (r == -EACCES || r == -EPERM)
			log_full_errno(appearing ? LOG_DEBUG : LOG_INFO, r, NULL,
				       "Not allowed on %s: switch ports (LLDP) are not compared",
				       LLDPD_SOCKET);
		return 0; /* no lldpd (yet): its socket's creation starts this again */
	}
	r = dlopen_lldpctl(&error);
	if (r < 0) {
		log_info("lldpd runs but %s cannot be loaded (%s): switch ports (LLDP) are not "
			 "compared",
			 LLDPCTL_SONAME, strna(error));
		w->fd = safe_close(w->fd);
		return r == -ENOMEM ? r : 0;
	}
	w->conn = sym_lldpctl_new(io_send, io_recv, w);
	if (!w->conn) {
		w->fd = safe_close(w->fd);
		return log_error_errno(-ENOMEM, "Failed to watch lldpd's notifications");
	}
	r = sd_event_add_io(w->m->event, &w->io, w->fd, EPOLLIN, on_io, w);
	if (r < 0) {
		watch_close(w);
		return log_warning_errno(r, "Failed to watch lldpd's socket, ignoring");
	}
	(void) sd_event_source_set_description(w->io, "lldpd-notifications");
	r = subscribe(w);
	if (r < 0) {
		log_info("lldpd refused notifications (%s), ignoring",
			 sym_lldpctl_strerror(sym_lldpctl_last_error(w->conn)));
		watch_close(w);
		return 0;
	}
	return 0;
}

static int on_run(sd_event_source *s, const struct inotify_event *event, void *userdata) {
	LldpWatch *w = userdata;

	(void) s;
	if (w->conn || !event->len || !streq(event->name, strrchr(LLDPD_SOCKET, '/') + 1))
		return 0;
	(void) watch_open(w, true);
	if (w->conn) /* a new lldpd: what it hears is new too */
		manager_mark_dirty_all(w->m);
	return 0;
}

int manager_watch_lldp(Manager *m) {
	LldpWatch *w;
	int r;

	w = calloc(1, sizeof(*w));
	if (!w)
		return log_error_errno(-ENOMEM, "Failed to watch lldpd's notifications");
	*w = (LldpWatch){ .m = m, .fd = -1 };
	m->lldp_watch = w;
	/* IN_ATTRIB too: lldpd binds its socket (IN_CREATE), listens, then chowns and chmods it; a
	 * connect at IN_CREATE alone can come before the listen() */
	r = sd_event_add_inotify(m->event, &w->inotify, "/run", IN_CREATE | IN_MOVED_TO | IN_ATTRIB,
				 on_run, w);
	if (r < 0)
		log_warning_errno(r, "Failed to watch /run for lldpd's socket, ignoring");
	else
		(void) sd_event_source_set_description(w->inotify, "lldpd-socket");
	return watch_open(w, false);
}
