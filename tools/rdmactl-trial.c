/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl try, confirm, rollback (issue 45), and the trial lines of `rdmactl status`. try sends
 * the files' content: rdmad.service cannot read the caller's /tmp or /home (PrivateTmp=,
 * ProtectHome=). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bus-client.h"
#include "fileio.h"
#include "rdmactl.h"
#include "strv.h"

/* `try --wait`: the gates must have held this long */
#define TRY_SETTLE_USEC ((uint64_t) 10 * 1000000)
#define TRY_FILE_MAX	(1024 * 1024)

static int file_read(const char *path, char **ret) {
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	int r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = read_all_until(fd, UINT64_MAX, TRY_FILE_MAX, &buf, &size);
	if (r < 0)
		return r;
	if (strlen(buf) != size)
		return -EBADMSG; /* a NUL inside: no profile */
	*ret = TAKE_PTR(buf);
	return 0;
}

static json_object *json_parse_or_null(const char *s) {
	return s && *s ? json_tokener_parse(s) : NULL;
}

static int64_t jint(json_object *o, const char *key) {
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static void objects_print(FILE *f, json_object *o, const char *key, const char *what) {
	json_object *a;

	if (!json_object_object_get_ex(o, key, &a))
		return;
	for (size_t i = 0; i < json_object_array_length(a); i++) {
		json_object *e = json_object_array_get_idx(a, i);

		fprintf(f, "  %s %s %s %s\n", json_get_string(e, "link"),
			json_get_string(e, "setting"), what, json_get_string(e, "before"));
	}
}

/* The outcome of the last trial, as status and try --wait say it. */
static void last_print(FILE *f, json_object *last) {
	const char *outcome = json_get_string(last, "outcome");

	if (streq_ptr(outcome, "confirmed")) {
		fprintf(f, "Last trial: confirmed, written to %s\n",
			json_get_string(last, "target"));
		return;
	}
	fprintf(f, "Last trial: %s (%s%s)%s%s, in %.1f s\n", outcome,
		json_get_string(last, "gate") ? "gate " : "",
		json_get_string(last, "gate") ? json_get_string(last, "gate")
					      : json_get_string(last, "reason"),
		json_get_string(last, "seen") ? ": " : "",
		json_get_string(last, "seen") ? json_get_string(last, "seen") : "",
		(double) jint(last, "rollback_usec") / 1e6);
	objects_print(f, last, "restored", "put back to");
	objects_print(f, last, "not_restored", "NOT put back to");
}

int trial_status_print(sd_bus *bus, FILE *f) {
	_cleanup_free_ char *pending = NULL, *last = NULL;
	_cleanup_(json_object_putp) json_object *p = NULL, *l = NULL;

	if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
				       "Trial", NULL, &pending) < 0 ||
	    sd_bus_get_property_string(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
				       "LastTrial", NULL, &last) < 0)
		return 0; /* an rdmad without trials */
	p = json_parse_or_null(pending);
	l = json_parse_or_null(last);
	if (p) {
		fprintf(f, "Trial: %s, %" PRId64 " of %" PRId64 " s, gates held %" PRId64 " s%s\n",
			json_get_string(p, "state"), jint(p, "elapsed_usec") / 1000000,
			jint(p, "timeout_usec") / 1000000, jint(p, "held_usec") / 1000000,
			json_object_get_boolean(json_object_object_get(p, "probe_gate"))
				? ""
				: " (no rdmad-probe state: probe gate off)");
		objects_print(f, p, "objects", "was");
	}
	if (l)
		last_print(f, l);
	return 0;
}

static int trial_call(sd_bus *bus, char **files, uint64_t timeout_usec, char **ret_json) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	const char *json;
	int r;

	r = sd_bus_message_new_method_call(bus, &m, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					   RDMAD_MANAGER_IFACE, "Try");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "(ss)");
	STRV_FOREACH (path, files) {
		_cleanup_free_ char *content = NULL, *copy = strdup(*path);

		if (r < 0)
			break;
		if (!copy)
			return -ENOMEM;
		r = file_read(*path, &content);
		if (r < 0) {
			fprintf(stderr, "rdmactl try: cannot read %s: %s\n", *path, strerror(-r));
			return r;
		}
		r = sd_bus_message_append(m, "(ss)", basename(copy), content);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_append(m, "ta{sv}", timeout_usec, 0);
	if (r < 0)
		return r;
	/* the host is read and planned before the answer: longer than a plain call */
	r = sd_bus_call(bus, m, 120 * 1000000ULL, &error, &reply);
	if (r < 0) {
		fprintf(stderr, "rdmactl try: %s\n", error.message ? error.message : strerror(-r));
		return r;
	}
	r = sd_bus_message_read(reply, "s", &json);
	if (r < 0)
		return r;
	*ret_json = strdup(json);
	return *ret_json ? 0 : -ENOMEM;
}

/* Until the gates held TRY_SETTLE_USEC (0) or the trial ended (1 rolled back, 0 confirmed). */
static int trial_wait(sd_bus *bus) {
	for (;;) {
		_cleanup_free_ char *pending = NULL, *last = NULL;
		_cleanup_(json_object_putp) json_object *p = NULL, *l = NULL;
		int r;

		r = sd_bus_get_property_string(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
					       RDMAD_MANAGER_IFACE, "Trial", NULL, &pending);
		if (r < 0)
			return r;
		p = json_parse_or_null(pending);
		if (p && streq_ptr(json_get_string(p, "state"), "pending") &&
		    (uint64_t) jint(p, "held_usec") >= TRY_SETTLE_USEC) {
			printf("The gates held for %" PRIu64 " s; `rdmactl confirm` to keep it.\n",
			       TRY_SETTLE_USEC / 1000000);
			return 0;
		}
		if (!p) {
			r = sd_bus_get_property_string(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
						       RDMAD_MANAGER_IFACE, "LastTrial", NULL,
						       &last);
			if (r < 0)
				return r;
			l = json_parse_or_null(last);
			if (l)
				last_print(stdout, l);
			return l && streq_ptr(json_get_string(l, "outcome"), "confirmed") ? 0 : 1;
		}
		(void) usleep(250 * 1000);
	}
}

int verb_try(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(json_object_putp) json_object *t = NULL;
	_cleanup_free_ char *json = NULL;
	int r;

	if (argc < 1) {
		fprintf(stderr, "rdmactl try: which profile files? (rdmactl try FILE...)\n");
		return EXIT_FAILURE;
	}
	if (rdmad_bus_require("try", &bus) < 0)
		return EXIT_FAILURE;
	r = trial_call(bus, argv, o->timeout_given ? o->timeout * 1000000ULL : 0, &json);
	if (r < 0)
		return EXIT_FAILURE;
	t = json_parse_or_null(json);
	if (t) {
		printf("Trial begun; rolled back in %" PRId64
		       " s unless `rdmactl confirm`. Recorded before it wrote:\n",
		       jint(t, "timeout_usec") / 1000000);
		objects_print(stdout, t, "objects", "was");
	}
	if (!o->try_wait)
		return EXIT_SUCCESS;
	r = trial_wait(bus);
	if (r < 0) {
		fprintf(stderr, "rdmactl try: lost rdmad while waiting: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	return r == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int verb_confirm(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_(json_object_putp) json_object *l = NULL;
	const char *json;

	if (rdmad_bus_require("confirm", &bus) < 0 ||
	    rdmad_call(bus, "confirm", "Confirm", &reply, "s", o->to ? o->to : "") < 0 ||
	    sd_bus_message_read(reply, "s", &json) < 0)
		return EXIT_FAILURE;
	l = json_parse_or_null(json);
	if (l)
		last_print(stdout, l);
	return EXIT_SUCCESS;
}

int verb_rollback(const Options *o, int argc, char **argv) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_free_ char *last = NULL;
	_cleanup_(json_object_putp) json_object *l = NULL;
	int r;

	if (rdmad_bus_require("rollback", &bus) < 0)
		return EXIT_FAILURE;
	/* answered once every object was written back and read back: a reconcile */
	r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
			       "Rollback", &error, NULL, NULL);
	if (r < 0)
		fprintf(stderr, "rdmactl rollback: %s\n",
			error.message ? error.message : strerror(-r));
	if (sd_bus_get_property_string(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
				       "LastTrial", NULL, &last) >= 0 &&
	    (l = json_parse_or_null(last)) && !error.name)
		last_print(stdout, l);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
