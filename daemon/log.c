/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <systemd/sd-journal.h>

#include "log.h"

static int max_level = LOG_INFO;
static bool to_journal;

void log_setup(void) {
	/* systemd sets JOURNAL_STREAM=dev:ino when stderr is connected to the journal; a child
	 * that inherited it with stderr redirected elsewhere must not log to the journal. */
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	to_journal = e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 &&
		     fstat(STDERR_FILENO, &st) >= 0 && (unsigned long long) st.st_dev == dev &&
		     (unsigned long long) st.st_ino == ino;
}

void log_set_max_level(int level) {
	max_level = level;
}

int log_get_max_level(void) {
	return max_level;
}

int log_level_from_string(const char *s) {
	static const char *const names[] = { "emerg",	"alert",  "crit", "err",
					     "warning", "notice", "info", "debug" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (streq(s, names[i]))
			return (int) i;
	if (s[0] >= '0' && s[0] <= '7' && !s[1])
		return s[0] - '0';
	return -EINVAL;
}

/* One "FIELD=value" per iovec; optional fields only when set. */
static int log_journal(int level, int error, const LogFields *f, const char *message) {
	char fields[10][2200];
	struct iovec iov[10];
	size_t n = 0;

#define FIELD(...)                                                                              \
	do {                                                                                    \
		snprintf(fields[n], sizeof(fields[n]), __VA_ARGS__);                            \
		iov[n] = (struct iovec){ .iov_base = fields[n], .iov_len = strlen(fields[n]) }; \
		n++;                                                                            \
	} while (0)

	FIELD("MESSAGE=%s", message);
	FIELD("PRIORITY=%d", level);
	FIELD("SYSLOG_IDENTIFIER=rdmad");
	if (f && f->device)
		FIELD("RDMA_DEVICE=%s", f->device);
	if (f && f->port)
		FIELD("RDMA_PORT=%u", f->port);
	if (f && f->netdev)
		FIELD("NETDEV=%s", f->netdev);
	if (f && f->profile)
		FIELD("PROFILE=%s", f->profile);
	if (f && f->message_id)
		FIELD("MESSAGE_ID=%s", f->message_id);
	if (error)
		FIELD("ERRNO=%d", error);
#undef FIELD
	(void) sd_journal_sendv(iov, (int) n);
	return -error;
}

static int log_message(int level, int error, const LogFields *f, bool append_error,
		       const char *format, va_list ap) _printf_(5, 0);
static int log_message(int level, int error, const LogFields *f, bool append_error,
		       const char *format, va_list ap) {
	char message[2048];
	int n;

	if (error < 0)
		error = -error;
	if (level > max_level)
		return -error;
	n = vsnprintf(message, sizeof(message), format, ap);
	if (append_error && error && n >= 0 && (size_t) n < sizeof(message))
		snprintf(message + n, sizeof(message) - n, ": %s", strerror(error));
	if (!to_journal) {
		fprintf(stderr, "<%d>%s\n", level, message);
		return -error;
	}
	return log_journal(level, error, f, message);
}

int log_full(int level, int error, const LogFields *f, const char *format, ...) {
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_message(level, error, f, false, format, ap);
	va_end(ap);
	return r;
}

int log_full_errno(int level, int error, const LogFields *f, const char *format, ...) {
	va_list ap;
	int r;

	va_start(ap, format);
	r = log_message(level, error, f, true, format, ap);
	va_end(ap);
	return r;
}
