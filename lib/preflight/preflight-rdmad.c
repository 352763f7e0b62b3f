/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rdmad checks: is the daemon there to keep the declared state, are the profiles valid,
 * which links are not converged and why. From the daemon's Describe() JSON (the same document
 * `rdmactl status --json` prints), so that this file reads no bus itself. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "json-util.h"
#include "preflight.h"
#include "strv.h"

static json_object *member_array(json_object *o, const char *key) {
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_array))
		return NULL;
	return v;
}

static size_t array_length(json_object *a) {
	return a ? json_object_array_length(a) : 0;
}

/* "roce_mode is v1, wants v2 (failed: EBUSY); ..." for the settings that are not converged. */
static int link_reasons(json_object *link, char **ret) {
	_cleanup_free_ char *s = NULL;
	json_object *settings = member_array(link, "settings");
	size_t size = 0;
	FILE *f = open_memstream(&s, &size);

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < array_length(settings); i++) {
		json_object *x = json_object_array_get_idx(settings, i);
		const char *result = json_get_string(x, "result");
		const char *error = json_get_string(x, "error");

		if (!result || streq(result, "converged"))
			continue;
		fprintf(f, "%s%s is %s, wants %s (%s%s%s)", ftell(f) > 0 ? "; " : "",
			strna(json_get_string(x, "setting")), strna(json_get_string(x, "current")),
			strna(json_get_string(x, "desired")), result, error ? ": " : "",
			error ? error : "");
	}
	if (ftell(f) == 0 && json_get_string(link, "last_error"))
		fputs(json_get_string(link, "last_error"), f);
	if (fclose(f) != 0)
		return -ENOMEM;
	*ret = TAKE_PTR(s);
	return 0;
}

static bool link_wanted(const PreflightInput *in, json_object *link) {
	const char *name = json_get_string(link, "link"), *device = json_get_string(link, "device");
	const char *netdev = json_get_string(link, "netdev");

	if (!in->links)
		return true;
	return (name && strv_contains(in->links, name)) ||
	       (device && strv_contains(in->links, device)) ||
	       (netdev && strv_contains(in->links, netdev));
}

int preflight_rdmad(Preflight *p, const PreflightInput *in, json_object *describe,
		    const char *why_not) {
	json_object *errors = member_array(describe, "config_errors");
	json_object *links = member_array(describe, "links");
	json_object *host;
	int r;

	if (!describe)
		return preflight_add(p, "rdmad.running", "host", PREFLIGHT_WARN,
				     "systemctl enable --now rdmad",
				     "rdmad is not running (%s): nothing applies the profiles or "
				     "puts them back after a driver reload",
				     why_not ? why_not : "not on the system bus");

	r = preflight_add(p, "rdmad.running", "host", PREFLIGHT_OK, NULL,
			  "rdmad %s is running, %s", strna(json_get_string(describe, "version")),
			  strna(json_get_string(describe, "state")));
	if (r < 0)
		return r;

	if (array_length(errors) == 0)
		r = preflight_add(p, "rdmad.config", "host", PREFLIGHT_OK, NULL,
				  "the profiles are valid");
	for (size_t i = 0; r >= 0 && i < array_length(errors); i++)
		r = preflight_add(p, "rdmad.config", "host", PREFLIGHT_FAIL,
				  "fix the profile, then systemctl reload rdmad (rdmactl check)",
				  "%s (the previous profiles stay in force)",
				  json_object_get_string(json_object_array_get_idx(errors, i)));
	if (r < 0)
		return r;

	if (json_object_object_get_ex(describe, "host", &host) &&
	    json_get_string(host, "state") &&
	    !streq(json_get_string(host, "state"), "converged") &&
	    !streq(json_get_string(host, "state"), "unmanaged")) {
		r = preflight_add(p, "rdmad.host", "host", PREFLIGHT_FAIL,
				  "rdmactl status; journalctl -u rdmad",
				  "the host settings (modules, links, netns mode) are %s%s%s",
				  json_get_string(host, "state"),
				  json_get_string(host, "last_error") ? ": " : "",
				  strempty(json_get_string(host, "last_error")));
		if (r < 0)
			return r;
	}

	for (size_t i = 0; i < array_length(links); i++) {
		json_object *link = json_object_array_get_idx(links, i);
		const char *name = strna(json_get_string(link, "link"));
		const char *state = json_get_string(link, "state");
		_cleanup_free_ char *reasons = NULL, *fix = NULL;

		if (!link_wanted(in, link))
			continue;
		if (streq_ptr(state, "converged"))
			r = preflight_add(p, "rdmad.link", name, PREFLIGHT_OK, NULL,
					  "converged: the profiles' settings hold");
		else if (streq_ptr(state, "unmanaged"))
			r = preflight_add(p, "rdmad.link", name, PREFLIGHT_OK, NULL,
					  "no profile matches this link: rdmad leaves it alone");
		else {
			r = link_reasons(link, &reasons);
			if (r < 0)
				return r;
			if (asprintf(&fix, "rdmactl status %s; journalctl RDMA_DEVICE=%s", name,
				     strna(json_get_string(link, "device"))) < 0)
				return -ENOMEM;
			r = preflight_add(p, "rdmad.link", name,
					  streq_ptr(state, "pending") ? PREFLIGHT_WARN
								      : PREFLIGHT_FAIL,
					  fix,
					  "%s%s%s", strna(state), reasons && *reasons ? ": " : "",
					  strempty(reasons));
		}
		if (r < 0)
			return r;
	}
	return 0;
}
