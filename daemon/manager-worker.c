/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The worker: a long kernel operation in a child process of its own (manager-worker.h).
 *
 * A child rather than a thread. The child runs the same backend the loop would (action_apply()
 * on its copy of the Applier) and touches nothing of the loop's: the bus connection, the event
 * sources, the Applier's sockets and libkmod context are not made for two threads, and a copy
 * cannot race them. And rdmad can stop while the kernel is still in the write, which nothing
 * interrupts (a VF's driver probing in sriov_numvfs_store(), D state): rdmad then exits at
 * once and frees all it has, while the child, which holds nothing of rdmad's but the file it
 * writes, waits for the kernel alone, logs the outcome to the journal and exits. SIGTERM stays
 * blocked in it (rdmad's mask), so that a service stop waits for that outcome: systemd stops
 * the unit once its cgroup is empty, within TimeoutStopSec. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "manager-worker.h"

struct Worker {
	Manager *m;
	const Action *action;
	char *device; /* the action's, copied */
	uint32_t port;
	char *netdev;
	Key key;
	char *function;
	char *what; /* "writing 8" */
	pid_t pid;
	int fd;
	sd_event_source *child, *io, *progress;
	uint64_t start_usec; /* CLOCK_MONOTONIC */
	char buf[4096];
	size_t len;
	bool exited, eof;
	int exit_code, exit_status;
	worker_done_t done;
	void *userdata;
};

static LogFields worker_fields(const Action *a) {
	return (LogFields){
		.device = a->device,
		.port = a->port,
		.netdev = a->netdev,
		.profile = a->profile,
	};
}

static char *what_new(const Action *a) {
	char *s = NULL;

	if (a->key == KEY_SRIOV_VFS) {
		if (asprintf(&s, "writing %u", a->value.number) < 0)
			return NULL;
	} else if (a->key == KEY_DEVLINK_RELOAD) {
		if (asprintf(&s, "reloading (driver_reinit) for %s", strempty(a->value.name)) < 0)
			return NULL;
	} else if (asprintf(&s, "changing the e-switch mode to %s",
			    eswitch_mode_to_string(a->value.eswitch)) < 0)
		return NULL;
	return s;
}

/* Close what the child inherited, but stdin/out/err and keep[]: the bus connection above all
 * (dbus-daemon must see rdmad's connection end with rdmad), the watch sockets, the loop's. */
static void close_between(unsigned lo, unsigned hi) {
	long max;

	if (lo > hi || close_range(lo, hi, 0) >= 0)
		return;
	/* no close_range() (an old kernel, a seccomp filter): one at a time */
	max = sysconf(_SC_OPEN_MAX);
	if (max <= 0 || max > 65536)
		max = 65536;
	for (unsigned fd = lo; fd <= hi && fd < (unsigned) max; fd++)
		(void) close((int) fd);
}

static void close_all_but(int a, int b) {
	unsigned lo = 3, k[2] = { (unsigned) (a < b ? a : b), (unsigned) (a < b ? b : a) };

	for (size_t i = 0; i < 2; i++) {
		if (k[i] < lo)
			continue;
		if (k[i] > lo)
			close_between(lo, k[i] - 1);
		lo = k[i] + 1;
	}
	close_between(lo, ~0U);
}

/* In the child: apply, hand the outcome to rdmad, or log it when rdmad is gone. */
_Noreturn static void worker_child(Manager *m, const Action *a, int fd) {
	ActionOutcome o = { 0 };
	LogFields f = worker_fields(a);
	char text[4096];
	int r, n;

	(void) prctl(PR_SET_NAME, "rdmad-worker");
	(void) signal(SIGPIPE, SIG_IGN);
	close_all_but(fd, applier_rootfd(m->applier));
	/* the journal's socket is closed with the rest: log to stderr, the journal's stream
	 * under systemd */
	(void) unsetenv("JOURNAL_STREAM");
	log_setup();

	r = action_apply(m->applier, a, &o);
	if (r < 0)
		o = (ActionOutcome){ .result = APPLY_FAILED, .error = r };
	n = snprintf(text, sizeof(text), "%d %d %s", (int) o.result, o.error, strempty(o.message));
	if (n >= (int) sizeof(text))
		n = (int) sizeof(text) - 1;
	if (n < 0 || write(fd, text, (size_t) n) < 0) {
		/* rdmad stopped meanwhile: nobody else says what became of it */
		f.message_id = o.result == APPLY_FAILED ? MESSAGE_ID_ACTION_FAILED : NULL;
		log_full(o.result == APPLY_FAILED ? LOG_ERR : LOG_NOTICE, o.error, &f,
			 "%s: %s %s after rdmad stopped (worker pid %d): %s%s%s", action_subject(a),
			 action_setting(a), a->desired, (int) getpid(),
			 apply_result_to_string(o.result), o.message ? ": " : "",
			 strempty(o.message));
	}
	_exit(0);
}

/* The outcome the child wrote, or why there is none. */
static void worker_outcome(Worker *w, ActionOutcome *ret) {
	int result, error, off = 0, r;

	w->buf[w->len] = 0;
	if (sscanf(w->buf, "%d %d %n", &result, &error, &off) == 2 && result >= 0 &&
	    result < _APPLY_RESULT_MAX && error <= 0) {
		r = outcome_set(ret, (ApplyResult) result, error, w->buf[off] ? "%s" : NULL,
				w->buf + off);
		if (r >= 0)
			return;
		*ret = (ActionOutcome){ .result = APPLY_FAILED, .error = r };
		return;
	}
	if (w->exit_code == CLD_EXITED)
		r = outcome_set(ret, APPLY_FAILED, -EPROTO,
				"the worker (pid %d) exited with status %d, without an outcome",
				(int) w->pid, w->exit_status);
	else
		r = outcome_set(ret, APPLY_FAILED, -EPROTO,
				"the worker (pid %d) was killed by signal %s, without an outcome",
				(int) w->pid, strsignal(w->exit_status));
	if (r < 0)
		*ret = (ActionOutcome){ .result = APPLY_FAILED, .error = r };
}

/* Both the pipe's end and the child's exit seen: the outcome to the caller. w may be freed by
 * the callback: nothing touches it after. */
static void worker_check_done(Worker *w) {
	ActionOutcome o = { 0 };

	if (!w->exited || !w->eof || !w->done)
		return;
	w->progress = sd_event_source_disable_unref(w->progress);
	worker_outcome(w, &o);
	w->done(w->m, w->action, &o, w->userdata);
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Worker *w = userdata;
	ssize_t n;

	for (;;) {
		n = read(fd, w->buf + w->len, sizeof(w->buf) - 1 - w->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0 || w->len + (size_t) n >= sizeof(w->buf) - 1) {
			if (n > 0)
				w->len += (size_t) n;
			break;
		}
		w->len += (size_t) n;
	}
	w->eof = true;
	w->io = sd_event_source_disable_unref(w->io);
	worker_check_done(w);
	return 0;
}

static int on_exit_(sd_event_source *s, const siginfo_t *si, void *userdata) {
	Worker *w = userdata;

	if (!w) /* its Worker is gone (worker_free()): reaped, that is all */
		return 0;
	w->exited = true;
	w->exit_code = si->si_code;
	w->exit_status = si->si_status;
	worker_check_done(w);
	return 0;
}

int worker_describe(const Worker *w, char *buf, size_t size) {
	uint64_t now = now_monotonic_usec();

	return snprintf(buf, size, "%s (started %" PRIu64 " s ago)", w->what,
			(now - w->start_usec) / 1000000);
}

static int on_progress(sd_event_source *s, uint64_t usec, void *userdata) {
	Worker *w = userdata;
	LogFields f = worker_fields(w->action);
	char what[256], slash[64], vfs[64] = "";
	unsigned n;

	(void) worker_describe(w, what, sizeof(what));
	/* how far the kernel is: the VFs made so far (their links; the file would block) */
	snprintf(slash, sizeof(slash), "%s", w->function);
	if (w->key == KEY_SRIOV_VFS && strchr(slash, '/')) {
		*strchr(slash, '/') = 0;
		if (host_function_count_vfs(applier_rootfd(w->m->applier), slash,
					    w->function + strlen(slash) + 1, &n) >= 0)
			snprintf(vfs, sizeof(vfs), "; %u VF%s so far", n, n == 1 ? "" : "s");
	}
	log_full(LOG_INFO, 0, &f, "%s: %s: still %s%s", action_subject(w->action),
		 action_setting(w->action), what, vfs);
	manager_notify_status(w->m);
	(void) sd_event_source_set_time(s, usec + WORKER_PROGRESS_USEC);
	(void) sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
	return 0;
}

int worker_start(Manager *m, const Action *a, worker_done_t done, void *userdata, Worker **ret) {
	_cleanup_(worker_freep) Worker *w = NULL;
	LogFields f = worker_fields(a);
	int pipefd[2], r;

	w = calloc(1, sizeof(Worker));
	if (!w)
		return -ENOMEM;
	w->fd = -EBADF;
	w->m = m;
	w->action = a;
	w->port = a->port;
	w->key = a->key;
	w->device = a->device ? strdup(a->device) : NULL;
	w->netdev = a->netdev ? strdup(a->netdev) : NULL;
	w->function = strdup(strempty(a->function));
	w->what = what_new(a);
	if ((a->device && !w->device) || (a->netdev && !w->netdev) || !w->function || !w->what)
		return -ENOMEM;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	w->start_usec = now_monotonic_usec();
	w->pid = fork();
	if (w->pid < 0) {
		r = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		w->exited = true;
		return r;
	}
	if (w->pid == 0) {
		close(pipefd[0]);
		worker_child(m, a, pipefd[1]);
	}
	close(pipefd[1]);
	w->fd = pipefd[0];
	/* from here on the child is at work: whatever fails below, it is waited for */
	if (fcntl(w->fd, F_SETFL, O_NONBLOCK) < 0)
		log_warning_errno(errno, "Failed to make the worker's pipe non-blocking, ignoring");
	r = sd_event_add_child(m->event, &w->child, w->pid, WEXITED, on_exit_, w);
	if (r < 0) {
		/* not reaped by rdmad then (a zombie until rdmad exits): its pipe says when */
		log_warning_errno(r, "Failed to watch the worker pid %d, ignoring", (int) w->pid);
		w->exited = true;
		w->exit_code = CLD_EXITED;
	}
	r = sd_event_add_io(m->event, &w->io, w->fd, EPOLLIN, on_output, w);
	if (r >= 0)
		r = sd_event_add_time(m->event, &w->progress, CLOCK_MONOTONIC,
				      w->start_usec + WORKER_PROGRESS_USEC, 0, on_progress, w);
	if (r < 0)
		return r; /* the child goes on alone (worker_free()) */
	(void) sd_event_source_set_description(w->io, "worker");
	w->done = done;
	w->userdata = userdata;
	log_full(LOG_INFO, 0, &f, "%s: %s: %s, off the event loop (worker pid %d)",
		 action_subject(a), action_setting(a), w->what, (int) w->pid);
	*ret = TAKE_PTR(w);
	return 0;
}

Worker *worker_free(Worker *w) {
	if (!w)
		return NULL;
	if (w->pid > 0 && !w->exited) {
		/* rdmad stops (or the reconcile is dropped): the kernel goes on, and so does
		 * the child, which says what came of it */
		LogFields f = worker_fields(w->action);

		log_full(LOG_NOTICE, 0, &f,
			 "%s: %s: still %s in worker pid %d, which the kernel cannot interrupt: it "
			 "logs the outcome when the kernel is done",
			 action_subject(w->action), action_setting(w->action), w->what,
			 (int) w->pid);
		(void) sd_event_source_set_userdata(w->child, NULL);
		if (w->child && sd_event_source_set_floating(w->child, true) >= 0)
			sd_event_source_unref(w->child);
		else
			sd_event_source_disable_unref(w->child);
	} else
		sd_event_source_disable_unref(w->child);
	sd_event_source_disable_unref(w->io);
	sd_event_source_disable_unref(w->progress);
	safe_close(w->fd);
	free(w->device);
	free(w->netdev);
	free(w->function);
	free(w->what);
	free(w);
	return NULL;
}

const char *worker_function(const Worker *w) {
	return w->function;
}

Key worker_key(const Worker *w) {
	return w->key;
}

bool worker_concerns(const Worker *w, const PortStatus *s, Key key) {
	if (w->key != key)
		return false;
	if (w->device)
		return streq(w->device, s->device) && w->port == s->port;
	/* a function no RDMA port carries: the ports on its netdev (status_note_worker()) */
	return w->netdev && streq_ptr(w->netdev, s->netdev);
}

const char *worker_setting_error(const Worker *w, const PortStatus *s, const SettingStatus *x,
				 char *buf, size_t size) {
	if (!w || !worker_concerns(w, s, x->key))
		return x->error;
	(void) worker_describe(w, buf, size);
	return buf;
}
