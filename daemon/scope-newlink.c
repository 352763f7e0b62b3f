/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Soft-RoCE links made from a cgroup of their own.
 *
 * The kernel charges a socket to the cgroup of the task that creates it, kernel sockets too
 * (sk_alloc() -> cgroup_sk_alloc(): current's cgroup), and a cgroup's BPF egress filter runs
 * on every packet sent through it (ip_finish_output() -> BPF_CGROUP_RUN_PROG_INET_EGRESS).
 * rxe gives each QP a UDP socket (rxe_qp_init_req(): sock_create_kern()) and sends the QP's
 * packets through it (rxe_send(): skb->sk = qp->sk->sk). The GSI QP (QP1), which carries every
 * RDMA CM MAD of the link, is made while NEWLINK registers the device (ib_register_device() ->
 * ib_mad's port open -> ib_create_qp()), in the context of the task that sent the NEWLINK.
 * Sent from rdmad.service, whose IPAddressDeny=any is such a filter, every CM packet of the
 * link was dropped for the link's lifetime: send_err counted them, no connection was ever
 * made (cm_destroy_id_wait_timeout in the kernel log), while data QPs that other processes
 * make went out.
 *
 * So under systemd the NEWLINK is sent by a child of rdmad that `systemd-run --scope` first
 * moves into a transient scope: the same binary, namespaces, capabilities and system call
 * filter, another cgroup (under system.slice: no IP filter, none of rdmad's accounting). The
 * child is `rdmad --newlink -- NAME TYPE NETDEV` (rdmad.c); it prints the kernel's answer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-event.h>

#include "fileio.h"
#include "log.h"
#include "scope-newlink.h"

/* systemd-run asks PID 1 for a scope and waits for its job: rdmad's loop waits on that, so a
 * bound well inside WatchdogSec=. */
#define SCOPE_NEWLINK_TIMEOUT_USEC (20ULL * 1000 * 1000)

extern char **environ;

bool scope_newlink_wanted(void) {
	/* A service of systemd's ($INVOCATION_ID), on a host systemd runs. */
	return getenv("INVOCATION_ID") && access("/run/systemd/system", F_OK) >= 0;
}

/* A killed helper, reaped when it ends. (A NULL handler would make sd-event exit the loop.) */
static int on_reaped(sd_event_source *s, const siginfo_t *si, void *userdata) {
	return 0;
}

int scope_newlink(const char *name, const char *type, const char *netdev, void *userdata) {
	sd_event *e = userdata;
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t none;
	char self[PATH_MAX], desc[256];
	_cleanup_free_ char *answer = NULL;
	size_t size = 0;
	_cleanup_close_ int fd = -EBADF;
	int pipefd[2], status = 0, value;
	ssize_t n;
	pid_t pid;
	int r;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return log_error_errno(-errno, "Cannot find rdmad's own binary (/proc/self/exe)");
	self[n] = 0;
	snprintf(desc, sizeof(desc), "--description=rdmad: add RDMA link %s (%s on %s)", name, type,
		 netdev);
	char *argv[] = { (char *) "systemd-run",
			 (char *) "--scope",
			 (char *) "--quiet",
			 (char *) "--collect",
			 desc,
			 (char *) "--",
			 self,
			 (char *) "--newlink",
			 (char *) "--", /* the names are operands, whatever they start with */
			 (char *) name,
			 (char *) type,
			 (char *) netdev,
			 NULL };

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	fd = pipefd[0];
	/* Not sd-event's blocked signals. */
	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	r = posix_spawn_file_actions_init(&actions);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY,
						     0);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&actions, pipefd[1], STDOUT_FILENO);
	if (r == 0)
		r = posix_spawnp(&pid, "systemd-run", &actions, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	posix_spawnattr_destroy(&attr);
	safe_close(pipefd[1]);
	if (r != 0)
		return log_error_errno(-r, "Cannot run systemd-run --scope to add RDMA link %s",
				       name);

	r = read_all_until(fd, now_monotonic_usec() + SCOPE_NEWLINK_TIMEOUT_USEC, 4096, &answer,
			   &size);
	if (r == -ETIME) {
		/* Not waited for: reaped by sd-event whenever it ends. */
		(void) kill(pid, SIGKILL);
		if (e && sd_event_add_child(e, NULL, pid, WEXITED, on_reaped, NULL) < 0)
			log_warning("Cannot watch the killed helper %d, ignoring.", (int) pid);
		log_error("systemd-run --scope ... rdmad --newlink %s %s %s gave no answer within "
			  "%d s: killed.",
			  name, type, netdev, (int) (SCOPE_NEWLINK_TIMEOUT_USEC / 1000000));
		return -ETIMEDOUT;
	}
	if (r < 0) /* more than an answer, or a failed read: not waited for either */
		(void) kill(pid, SIGKILL);
	/* stdout closed (or the child killed): it is ending. */
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r >= 0 && answer && sscanf(answer, "%d", &value) == 1 && value <= 0) {
		log_debug("RDMA link %s (%s on %s) sent from a scope of its own: %d.", name, type,
			  netdev, value);
		return value;
	}
	log_error("systemd-run --scope ... rdmad --newlink %s %s %s ended without an answer "
		  "(%s %d).",
		  name, type, netdev, WIFEXITED(status) ? "exit status" : "signal",
		  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return -ECHILD;
}
