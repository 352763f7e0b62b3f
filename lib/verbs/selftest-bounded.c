/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* selftest_run_bounded(): the test in a child that can be abandoned.
 *
 * Every wait of the test itself is bounded (timeout_sec since its last progress, deadline_sec
 * in all), but the kernel can hold a process past that: rdma_destroy_id() of an id whose REQ
 * was sent and never completed (a Soft-RoCE link whose packets a cgroup filter drops: send_err
 * grows, the MAD never completes) waits in the kernel until the CM id's last reference goes
 * (cm_destroy_id_wait_timeout, every 10 s), and a process killed there cannot finish exiting
 * either. So the child hands its result over a pipe as soon as it is known, before it tears
 * anything down, and stores the time of each progress in memory it shares with the parent;
 * the parent waits for the result and the child's exit only until the same bounds + 1 s. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "selftest-internal.h"

/* After the test's own bounds: the result's bytes. */
#define SELFTEST_GRACE_MSEC 1000
/* The packed result: its strings are a sentence or two each. */
#define SELFTEST_RESULT_MAX (1U << 20)
/* After the result: the child's teardown (it is killed after that; the kernel releases what
 * its file descriptors held, as at any exit). */
#define SELFTEST_TEARDOWN_MSEC 500

static int64_t now_msec(void) {
	return (int64_t) (now_monotonic_nsec() / 1000000);
}

/* rxe's count of packets the kernel refused to send (ip_local_out() failed), or -1 when the
 * device has no such counter (hardware drivers name theirs otherwise). */
static int64_t send_errors(const SelftestLink *l) {
	char path[256], buf[32];
	int64_t v;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/ports/%" PRIu32 "/hw_counters/send_err", l->device,
		 l->port);
	if (read_small_at(AT_FDCWD, path, buf, sizeof(buf)) < 0 || sscanf(buf, "%" SCNd64, &v) != 1)
		return -1;
	return v;
}

/* A failed test whose link counted send errors meanwhile: say so, and the likely cause. */
static int hint_send_errors(SelftestResult *r, const SelftestLink *l, int64_t before) {
	int64_t after = send_errors(l);
	char *hint;

	if (before < 0 || after <= before)
		return 0;
	if (asprintf(&hint,
		     "%s%s%s counted %" PRId64
		     " send errors during the test (hw_counters/send_err): "
		     "the kernel drops its packets before they reach the wire. On Soft-RoCE the "
		     "likely cause is the link's UDP socket filtered: the kernel charges a link's "
		     "sockets to the cgroup of the process that created it (rdma link add), and a "
		     "service with IPAddressDeny= drops what they send; create the link outside "
		     "such a service (rdmad does, rdmad(8))",
		     r->hint ? r->hint : "", r->hint ? ". " : "", l->name, after - before) < 0)
		return -ENOMEM;
	free(r->hint);
	r->hint = hint;
	return 0;
}

static void hand_over(const SelftestResult *r, void *userdata) {
	int *fd = userdata;
	char *buf = NULL;
	size_t size = 0, done = 0;

	if (selftest_result_pack(r, &buf, &size) >= 0)
		while (done < size) {
			ssize_t n = write(*fd, buf + done, size - done);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			done += (size_t) n;
		}
	free(buf);
	*fd = safe_close(*fd);
}

/* Wait for the child's exit until the deadline; else kill it and leave it (reaped whenever
 * it can end, by us at exit or by init). */
static void child_end(pid_t pid, int64_t deadline) {
	int fd = (int) syscall(SYS_pidfd_open, pid, 0);

	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - now_msec();

		while (left > 0 && poll(&p, 1, (int) left) < 0 && errno == EINTR)
			left = deadline - now_msec();
		close(fd);
	}
	if (waitpid(pid, NULL, WNOHANG) == pid)
		return;
	(void) kill(pid, SIGKILL);
	(void) waitpid(pid, NULL, WNOHANG);
}

/* The child's last progress, shared with it. */
static void progress_unmapp(uint64_t **p) {
	if (*p && *p != MAP_FAILED)
		(void) munmap(*p, sizeof(**p));
}

/* Until when the parent waits, in ms: the child's bounds as it last said, and the grace. */
static int64_t wait_until_msec(const SelftestProgress *bounds) {
	return (int64_t) (selftest_progress_wake(bounds) / 1000000) + SELFTEST_GRACE_MSEC;
}

/* A failure before the test, recorded in result: 0, or -ENOMEM. */
static int setup_failed(SelftestResult *result, int error, const char *what) {
	int r = selftest_fail(result, SELFTEST_STEP_LINK, error, NULL, "%s: %s", what,
			      strerror(-error));

	return r == -ENOMEM ? r : 0;
}

int selftest_run_bounded(const SelftestParams *params, SelftestResult *result) {
	uint64_t start = params->start_nsec ? params->start_nsec : now_monotonic_nsec();
	int64_t sent_err = send_errors(&params->link), peer_sent_err = -1;
	_cleanup_(progress_unmapp) uint64_t *progress = NULL;
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -EBADF;
	SelftestProgress bounds;
	SelftestExpiry e;
	size_t size = 0;
	uint64_t last;
	int64_t teardown, until;
	int pipefd[2], r;
	pid_t pid;

	if (params->peer_kind == SELFTEST_PEER_LINK)
		peer_sent_err = send_errors(&params->peer);
	progress = mmap(NULL, sizeof(*progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	if (progress == MAP_FAILED)
		return setup_failed(result, -errno, "cannot share memory with the test's process");
	*progress = start;
	selftest_progress_init(&bounds, start, params->timeout_sec, params->deadline_sec);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return setup_failed(result, -errno, "cannot make a pipe for the test's process");
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return setup_failed(result, r, "cannot start the test's process");
	}
	if (pid == 0) {
		SelftestParams p = *params;
		int out = pipefd[1];

		p.start_nsec = start;
		p.progress_nsec = progress;
		close(pipefd[0]);
		p.result_ready = hand_over;
		p.result_ready_userdata = &out;
		r = selftest_run(&p, result);
		safe_close(out);
		_exit(r < 0 ? 2 : 0);
	}
	close(pipefd[1]);
	fd = pipefd[0];

	/* The result, for as long as the child progresses (the time of its last progress is
	 * the count: it changes with each). */
	for (;;) {
		r = read_all_until(fd, (uint64_t) wait_until_msec(&bounds) * 1000,
				   SELFTEST_RESULT_MAX, &buf, &size);
		if (r != -ETIME)
			break;
		last = __atomic_load_n(progress, __ATOMIC_RELAXED);
		if (last == bounds.last_nsec)
			break;
		(void) selftest_progress_update(&bounds, last, last);
	}
	if (r == -ENOMEM) {
		child_end(pid, 0);
		return r;
	}
	if (r == 0 && size > 0)
		r = selftest_result_unpack(buf, size, result);
	else if (r == 0)
		r = -ECHILD; /* ended without a result: out of memory, or killed */
	teardown = now_msec() + SELFTEST_TEARDOWN_MSEC;
	until = wait_until_msec(&bounds);
	child_end(pid, r == -ETIME ? 0 : teardown < until ? teardown : until);
	if (r == -ENOMEM)
		return r;
	e = selftest_progress_expired(&bounds, selftest_progress_wake(&bounds));
	if (r == -ETIME && e == SELFTEST_EXPIRY_DEADLINE)
		r = selftest_fail(result, SELFTEST_STEP_TIMEOUT, -ETIME,
				  "The kernel held the test in a verbs or RDMA CM call past its "
				  "deadline; see dmesg and the link's counters (rdmactl counters)",
				  "the test did not end within the %" PRIu32 " s of --deadline",
				  params->deadline_sec);
	else if (r == -ETIME)
		r = selftest_fail(result, SELFTEST_STEP_TIMEOUT, -ETIME,
				  "The kernel held the test in a verbs or RDMA CM call; see dmesg "
				  "and the link's counters (rdmactl counters)",
				  "the test's process made no progress for the %" PRIu32
				  " s of --timeout and gave no result",
				  params->timeout_sec);
	else if (r < 0)
		r = selftest_fail(result, SELFTEST_STEP_LINK, r, NULL,
				  "the test's process gave no result: %s", strerror(-r));
	if (r == -ENOMEM)
		return r;
	if (!result->pass) {
		r = hint_send_errors(result, &params->link, sent_err);
		if (r >= 0 && params->peer_kind == SELFTEST_PEER_LINK)
			r = hint_send_errors(result, &params->peer, peer_sent_err);
		if (r < 0)
			return r;
	}
	return 0;
}
