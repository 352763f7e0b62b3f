/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "manager-helper.h"
#include "strv.h"

#define HELPER_OUTPUT_MAX (4U << 20)

extern char **environ;

struct Helper {
	sd_event_source *child, *io, *timer;
	sd_bus *bus;
	char *unit; /* the transient service, under systemd */
	pid_t pid;
	int fd;
	char *buf;
	size_t len, alloc;
	bool exited, eof, finished;
	int status;
	helper_done_t done;
	void *userdata;
};

/* Stop the work: the child, and under systemd the transient service, which outlives a killed
 * systemd-run (the client only). Never a PID already reaped, which may be another's now. */
static void helper_stop(Helper *h) {
	if (h->pid > 0 && !h->exited)
		(void) kill(h->pid, SIGKILL);
	if (h->unit && h->bus)
		(void) sd_bus_call_method_async(h->bus, NULL, "org.freedesktop.systemd1",
						"/org/freedesktop/systemd1",
						"org.freedesktop.systemd1.Manager", "StopUnit", NULL,
						NULL, "ss", h->unit, "replace");
}

Helper *helper_free(Helper *h) {
	if (!h)
		return NULL;
	if (!h->finished || !h->exited)
		helper_stop(h);
	if (h->child && !h->exited) {
		/* Killed, not reaped yet: the child source stays, floating, to reap it, so that
		 * the main loop never blocks in waitpid() (a child in D state, in a verbs ioctl
		 * of a device going away, would hold it until the watchdog). */
		(void) sd_event_source_set_userdata(h->child, NULL); /* on_exit_(): an orphan */
		if (sd_event_source_set_floating(h->child, true) >= 0)
			sd_event_source_unref(h->child);
		else
			sd_event_source_disable_unref(h->child);
	} else
		sd_event_source_disable_unref(h->child);
	sd_event_source_disable_unref(h->io);
	sd_event_source_disable_unref(h->timer);
	if (h->fd >= 0)
		close(h->fd);
	sd_bus_unref(h->bus);
	free(h->unit);
	free(h->buf);
	free(h);
	return NULL;
}

static void helper_finish(Helper *h, int status) {
	if (h->finished)
		return;
	h->finished = true;
	h->io = sd_event_source_disable_unref(h->io);
	h->timer = sd_event_source_disable_unref(h->timer);
	h->done(h, status, h->buf ? h->buf : "", h->userdata);
}

static void helper_check_done(Helper *h) {
	if (h->exited && h->eof)
		helper_finish(h, h->status);
}

static int on_output(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Helper *h = userdata;
	ssize_t n;

	for (;;) {
		if (h->alloc - h->len < 4097) {
			size_t alloc = h->alloc ? h->alloc * 2 : 16384;
			char *buf;

			if (alloc > HELPER_OUTPUT_MAX + 1) {
				helper_stop(h);
				helper_finish(h, -EFBIG);
				return 0;
			}
			buf = realloc(h->buf, alloc);
			if (!buf) {
				helper_finish(h, -ENOMEM);
				return 0;
			}
			h->buf = buf;
			h->alloc = alloc;
		}
		n = read(fd, h->buf + h->len, h->alloc - h->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0)
			break;
		h->len += (size_t) n;
		h->buf[h->len] = 0;
	}
	h->buf[h->len] = 0;
	h->eof = true;
	h->io = sd_event_source_disable_unref(h->io);
	helper_check_done(h);
	return 0;
}

static int on_exit_(sd_event_source *s, const siginfo_t *si, void *userdata) {
	Helper *h = userdata;

	if (!h) /* its Helper is gone (helper_free()): sd-event reaps it, that is all */
		return 0;
	h->exited = true;
	h->status = si->si_code == CLD_EXITED ? si->si_status : -EPROTO;
	helper_check_done(h);
	return 0;
}

static int on_timeout(sd_event_source *s, uint64_t usec, void *userdata) {
	Helper *h = userdata;

	helper_stop(h);
	helper_finish(h, -ETIME);
	return 0;
}

/* argv for the run: under systemd (this is a service: $INVOCATION_ID) a transient service of
 * its own, named so that it can be stopped, bounded by RuntimeMaxSec=; else rdmactl itself. */
static int helper_argv(Helper *h, const char *name, char *const *args, uint64_t timeout_usec,
		       char ***ret) {
	static unsigned counter;
	_cleanup_strv_free_ char **argv = NULL;
	const char *rdmactl = getenv("RDMAD_RDMACTL") ? getenv("RDMAD_RDMACTL") : RDMACTL_PATH;
	char max[64], desc[128], unit[128];
	int r = 0;

	if (getenv("INVOCATION_ID")) {
		snprintf(unit, sizeof(unit), "rdmad-%s-%d-%u.service", name, (int) getpid(),
			 ++counter);
		h->unit = strdup(unit);
		if (!h->unit)
			return -ENOMEM;
		snprintf(max, sizeof(max), "--property=RuntimeMaxSec=%" PRIu64,
			 timeout_usec / 1000000 + 1);
		snprintf(desc, sizeof(desc), "--description=rdmad %s (rdmactl %s)", name, name);
		snprintf(unit, sizeof(unit), "--unit=%s", h->unit);
		r = strv_extend(&argv, "systemd-run");
		if (r >= 0)
			r = strv_extend(&argv, "--quiet");
		if (r >= 0)
			r = strv_extend(&argv, "--wait");
		if (r >= 0)
			r = strv_extend(&argv, "--pipe");
		if (r >= 0)
			r = strv_extend(&argv, "--collect");
		if (r >= 0)
			r = strv_extend(&argv, "--service-type=exec");
		if (r >= 0)
			r = strv_extend(&argv, unit);
		if (r >= 0)
			r = strv_extend(&argv, max);
		if (r >= 0)
			r = strv_extend(&argv, desc);
		if (r >= 0)
			r = strv_extend(&argv, "--");
	}
	if (r >= 0)
		r = strv_extend(&argv, rdmactl);
	if (r >= 0)
		r = strv_extend_strv(&argv, args, false);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(argv);
	return 0;
}

int helper_run_rdmactl(sd_event *e, sd_bus *bus, char *const *args, uint64_t timeout_usec,
		       const char *name, helper_done_t done, void *userdata, Helper **ret) {
	_cleanup_(helper_freep) Helper *h = NULL;
	_cleanup_strv_free_ char **argv = NULL;
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t none;
	uint64_t now;
	int pipefd[2], r;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->fd = -1;
	h->bus = sd_bus_ref(bus);
	r = helper_argv(h, name, args, timeout_usec, &argv);
	if (r < 0)
		return r;
	h->done = done;
	h->userdata = userdata;
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	h->fd = pipefd[0];
	/* Non-blocking for us only: O_NONBLOCK on pipe2() would make the child's stdout so. */
	if (fcntl(h->fd, F_SETFL, O_NONBLOCK) < 0) {
		close(pipefd[1]);
		return -errno;
	}

	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
	r = -posix_spawnp(&h->pid, argv[0], &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (r < 0)
		return r;
	/* The write end is the child's alone now: EOF comes when it (and whatever it passed the
	 * pipe to: systemd-run --pipe hands it to the transient service) is done. */

	r = sd_event_add_child(e, &h->child, h->pid, WEXITED, on_exit_, h);
	if (r < 0) {
		(void) kill(h->pid, SIGKILL);
		(void) waitpid(h->pid, NULL, 0); /* just started, not yet in a verbs call */
		h->exited = true;
		return r;
	}
	if (r >= 0)
		r = sd_event_add_io(e, &h->io, h->fd, EPOLLIN, on_output, h);
	if (r >= 0)
		r = sd_event_now(e, CLOCK_MONOTONIC, &now);
	if (r >= 0)
		r = sd_event_add_time(e, &h->timer, CLOCK_MONOTONIC, now + timeout_usec, 0,
				      on_timeout, h);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(h);
	return 0;
}
