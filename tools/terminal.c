/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "macro.h"
#include "terminal.h"

static pid_t pager_pid;

bool colors_enabled(void) {
	static int cached = -1;
	const char *term = getenv("TERM");

	if (cached < 0)
		cached = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") &&
			 !(term && streq(term, "dumb"));
	return cached;
}

const char *state_color(const char *state) {
	if (!colors_enabled() || !state)
		return "";
	if (streq(state, "converged") || streq(state, "running"))
		return "\033[0;32m";
	if (streq(state, "failed"))
		return "\033[0;1;31m";
	if (streq(state, "pending") || streq(state, "degraded") || streq(state, "starting"))
		return "\033[0;33m";
	return "";
}

const char *color_reset(void) {
	return colors_enabled() ? "\033[0m" : "";
}

void pager_open(bool disabled) {
	const char *pager;
	int fd[2];

	if (disabled || !isatty(STDOUT_FILENO))
		return;
	pager = getenv("RDMACTL_PAGER");
	if (!pager)
		pager = getenv("PAGER");
	if (pager && (!*pager || streq(pager, "cat")))
		return;
	(void) colors_enabled(); /* decided while stdout is still the terminal */
	if (pipe(fd) < 0)
		return;
	fflush(stdout);
	pager_pid = fork();
	if (pager_pid < 0) {
		pager_pid = 0;
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (pager_pid == 0) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRSXK", 0);
		if (pager)
			execl("/bin/sh", "sh", "-c", pager, (char *) NULL);
		execlp("less", "less", (char *) NULL);
		execlp("more", "more", (char *) NULL);
		/* No pager at all: copy through. */
		for (char buf[4096];;) {
			ssize_t n = read(STDIN_FILENO, buf, sizeof(buf));

			if (n <= 0 || write(STDOUT_FILENO, buf, n) != n)
				_exit(0);
		}
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	/* ^C is the pager's to handle. */
	signal(SIGINT, SIG_IGN);
}

void pager_close(void) {
	if (pager_pid <= 0)
		return;
	fflush(stdout);
	fclose(stdout);
	(void) waitpid(pager_pid, NULL, 0);
	pager_pid = 0;
}
