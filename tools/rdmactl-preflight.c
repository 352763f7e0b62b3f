/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl preflight [LINK...]: is RDMA ready on this host, and if not, why and the fix. The
 * checks are librdmad's (lib/preflight*.c); this file gathers what they read that needs a bus
 * or libibverbs (systemd's memlock default, rdmad's Describe(), ibv_get_device_list()) and
 * prints the rows. Exit 0 when no check fails (warnings do not), 1 when one does. */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bus-client.h"
#include "host.h"
#include "output.h"
#include "preflight.h"
#include "profile.h"
#include "rdmactl.h"
#include "strv.h"
#include "terminal.h"
#include "verbs-facts.h"

/* What systemd gives services that set no LimitMEMLOCK= (DefaultLimitMEMLOCKSoft and
 * DefaultLimitMEMLOCK, as the running manager has them: its files may have changed since). */
static int service_memlock_read(uint64_t *ret_soft, uint64_t *ret_hard) {
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	uint64_t soft, hard;
	int r;

	r = sd_bus_open_system(&bus);
	if (r < 0)
		return r;
	r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1",
					"/org/freedesktop/systemd1",
					"org.freedesktop.systemd1.Manager",
					"DefaultLimitMEMLOCKSoft", &error, 't', &soft);
	if (r >= 0)
		r = sd_bus_get_property_trivial(bus, "org.freedesktop.systemd1",
						"/org/freedesktop/systemd1",
						"org.freedesktop.systemd1.Manager",
						"DefaultLimitMEMLOCK", &error, 't', &hard);
	if (r < 0)
		return r;
	*ret_soft = soft;
	*ret_hard = hard;
	return 0;
}

/* rdmad's Describe(), or NULL with why not in *ret_why. */
static int rdmad_describe(json_object **ret, const char **ret_why) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	int r;

	r = rdmad_bus_open(&bus);
	if (r < 0) {
		*ret_why = "the system bus cannot be reached";
		return 0;
	}
	if (r == 0) {
		*ret_why = "nothing owns " RDMAD_BUS_NAME " on the system bus";
		return 0;
	}
	r = rdmad_call_json(bus, "preflight", "Describe", ret);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		*ret_why = "its Describe() failed";
	return 0;
}

static Config *profiles_load(const Options *o) {
	_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
	_cleanup_strv_free_ char **files = NULL;
	Config *c = NULL;
	int r;

	r = options_profile_files(o, &files);
	/* Invalid profiles are rdmad.config's business (when rdmad runs) and rdmactl check's:
	 * the checks that use profiles go on without them. */
	if (r < 0 || config_load_files(files, &diags, &c) < 0)
		return NULL;
	return c;
}

/* USER as a name or a UID, with its primary group. */
static int user_resolve(const char *user, uid_t *ret_uid, gid_t *ret_gid) {
	struct passwd pw, *res = NULL;
	char buf[4096], *end;
	unsigned long id;
	int r;

	errno = 0;
	id = strtoul(user, &end, 10);
	if (*user && !*end && errno == 0 && id < UINT32_MAX)
		r = getpwuid_r((uid_t) id, &pw, buf, sizeof(buf), &res);
	else
		r = getpwnam_r(user, &pw, buf, sizeof(buf), &res);
	if (r != 0)
		return -r;
	if (!res)
		return -ESRCH;
	*ret_uid = pw.pw_uid;
	*ret_gid = pw.pw_gid;
	return 0;
}

static void rows_print(const Preflight *p) {
	unsigned n[_PREFLIGHT_STATUS_MAX] = { 0 };
	static const char *const color_state[_PREFLIGHT_STATUS_MAX] = {
		[PREFLIGHT_OK] = "converged",
		[PREFLIGHT_WARN] = "pending",
		[PREFLIGHT_FAIL] = "failed",
	};

	for (size_t i = 0; i < p->n_rows; i++) {
		const PreflightRow *row = &p->rows[i];

		n[row->status]++;
		printf("%s%-4s%s %-26s %-16s %s\n", state_color(color_state[row->status]),
		       preflight_status_to_string(row->status), color_reset(), row->check,
		       row->subject, row->seen);
		if (row->status != PREFLIGHT_OK && row->fix)
			printf("%48s fix: %s\n", "", row->fix);
	}
	printf("\n%s%s%s: %u failed, %u warnings, %u ok\n",
	       state_color(color_state[preflight_worst(p)]),
	       n[PREFLIGHT_FAIL] > 0 ? "NOT READY" : "READY", color_reset(), n[PREFLIGHT_FAIL],
	       n[PREFLIGHT_WARN], n[PREFLIGHT_OK]);
}

int verb_preflight(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(config_freep) Config *c = NULL;
	_cleanup_(verbs_facts_done) VerbsFacts verbs = { 0 };
	_cleanup_(preflight_done) Preflight p = { 0 };
	_cleanup_(json_object_putp) json_object *describe = NULL;
	bool this_host = streq(o->root, "/") && !o->config_dirs;
	const char *why_not = NULL;
	PreflightInput in = {
		.root = o->root,
		.links = argc > 0 ? argv : NULL,
		.uid = getuid(),
		.gid = getgid(),
	};
	int r;

	if (o->user) {
		r = user_resolve(o->user, &in.uid, &in.gid);
		if (r < 0) {
			fprintf(stderr, "rdmactl preflight: --user %s: %s\n", o->user,
				r == -ESRCH ? "no such user" : strerror(-r));
			return EXIT_FAILURE;
		}
	}

	r = host_observe(o->root, HOST_OBSERVE_ALL, &h);
	if (r < 0) {
		fprintf(stderr, "rdmactl preflight: cannot read the host: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	in.host = h;
	c = profiles_load(o);
	in.config = c;
	if (streq(o->root, "/")) {
		r = verbs_facts_read(&verbs);
		if (r < 0)
			goto oom;
		in.verbs = &verbs;
		in.has_service_memlock = service_memlock_read(&in.service_memlock,
							      &in.service_memlock_hard) >= 0;
	}

	r = preflight_run(&in, &p);
	if (r < 0)
		goto oom;
	if (this_host) {
		r = rdmad_describe(&describe, &why_not);
		if (r >= 0)
			r = preflight_rdmad(&p, &in, describe, why_not);
	} else
		r = preflight_add(&p, "rdmad.running", "host", PREFLIGHT_WARN, NULL,
				  "rdmad was not asked: --root or --config-dir name another host");
	if (r < 0)
		goto oom;
	preflight_sort(&p);

	if (o->json) {
		_cleanup_(json_object_putp) json_object *a = NULL;

		r = preflight_to_json(&p, &a);
		if (r < 0)
			goto oom;
		json_print(a, stdout);
	} else
		rows_print(&p);
	return preflight_worst(&p) == PREFLIGHT_FAIL ? EXIT_FAILURE : EXIT_SUCCESS;
oom:
	fprintf(stderr, "rdmactl preflight: out of memory\n");
	return EXIT_FAILURE;
}
