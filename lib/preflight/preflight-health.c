/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The hardware family's rows of what devlink says of a device itself (lib/host/device-health.h):
 * hardware.health, one per health reporter, fails while a reporter is in error (mlx5's
 * fw_fatal: the driver lost the firmware; tx, rx: a queue it could not recover), and
 * hardware.firmware-pending warns while a device's stored firmware differs from the one it runs
 * (an update flashed and waiting for a reset: the next reboot changes the device). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device-health.h"
#include "preflight.h"
#include "strv.h"

/* The device's RDMA devices and netdevs under root, and " (mlx5_0 eth2)" to say so ("" for
 * none). */
static int device_names(const char *root, const char *device, char ***ret_all, char **ret_of) {
	_cleanup_strv_free_ char **netdevs = NULL, **rdma = NULL, **all = NULL;
	_cleanup_free_ char *joined = NULL;
	char *of;

	if (devlink_device_names(root, device, &netdevs, &rdma) == -ENOMEM ||
	    strv_extend_strv(&all, rdma, false) < 0 || strv_extend_strv(&all, netdevs, false) < 0)
		return -ENOMEM;
	joined = all ? strv_join(all, " ") : strdup("");
	if (!joined || asprintf(&of, "%s%s%s", all ? " (" : "", joined, all ? ")" : "") < 0)
		return -ENOMEM;
	*ret_all = TAKE_PTR(all);
	*ret_of = of;
	return 0;
}

/* Whether the input asks about a device with these names (all when it names no link). */
static bool names_wanted(const PreflightInput *in, char *const *names) {
	if (!in->links)
		return true;
	for (char *const *a = in->links; *a; a++)
		for (char *const *n = names; n && *n; n++) {
			size_t len = strlen(*n);

			/* "mlx5_0", "mlx5_0/1", "eth2" */
			if (strncmp(*a, *n, len) == 0 && ((*a)[len] == '\0' || (*a)[len] == '/'))
				return true;
		}
	return false;
}

static int check_reporter(Preflight *p, const HealthReporter *r, const char *of) {
	_cleanup_free_ char *subject = NULL, *fix = NULL;
	int k;

	if (r->has_port)
		k = asprintf(&subject, "%s/%u/%s", r->device, r->port, r->name);
	else
		k = asprintf(&subject, "%s/%s", r->device, r->name);
	if (k < 0)
		return -ENOMEM;
	if (r->state == HEALTH_STATE_ERROR) {
		if (asprintf(&fix,
			     "devlink health diagnose %s reporter %s; devlink health recover %s "
			     "reporter %s (mlx5's fw_fatal: a reset, devlink dev reload)",
			     r->device, r->name, r->device, r->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "hardware.health", subject, PREFLIGHT_FAIL, fix,
				     "reporter %s of %s%s is in error: %" PRIu64 " errors, %" PRIu64
				     " recoveries%s",
				     r->name, r->device, of, r->errors, r->recoveries,
				     r->has_recover && !r->auto_recover ? ", auto-recover off"
									: "");
	}
	return preflight_add(p, "hardware.health", subject, PREFLIGHT_OK, NULL,
			     "reporter %s of %s%s is healthy: %" PRIu64 " errors, %" PRIu64
			     " recoveries",
			     r->name, r->device, of, r->errors, r->recoveries);
}

static int check_firmware_pending(Preflight *p, const DevlinkInfo *i, const char *of) {
	if (!i->running[0])
		return 0; /* no firmware version told: nothing to compare */
	if (!i->stored[0])
		return preflight_add(p, "hardware.firmware-pending", i->device, PREFLIGHT_OK, NULL,
				     "%s%s runs %s %s; the driver tells no stored version",
				     i->device, of, i->fw_name, i->running);
	if (!streq(i->running, i->stored))
		return preflight_add(p, "hardware.firmware-pending", i->device, PREFLIGHT_WARN,
				     "reset the device to run the stored firmware (devlink dev "
				     "reload action fw_activate, or a cold reboot), or flash the "
				     "running one again",
				     "%s%s runs %s %s but has %s stored: a firmware update waits "
				     "for a reset%s%s",
				     i->device, of, i->fw_name, i->running, i->stored,
				     i->psid[0] ? ", PSID " : "", i->psid);
	return preflight_add(p, "hardware.firmware-pending", i->device, PREFLIGHT_OK, NULL,
			     "%s%s runs %s %s, the stored version%s%s", i->device, of, i->fw_name,
			     i->running, i->psid[0] ? ", PSID " : "", i->psid);
}

int preflight_device_health(Preflight *p, const PreflightInput *in, const DeviceHealth *h) {
	int r = 0;

	if (h->error == -ENOENT)
		return 0; /* no devlink in this kernel: nothing to say */
	if (h->error < 0)
		return preflight_add(p, "hardware.health", "host", PREFLIGHT_WARN,
				     "devlink health show", "devlink cannot be read: %s",
				     strerror(-h->error));
	for (size_t i = 0; r >= 0 && i < h->n_reporters; i++) {
		_cleanup_strv_free_ char **names = NULL;
		_cleanup_free_ char *of = NULL;

		r = device_names(in->root, h->reporters[i].device, &names, &of);
		if (r >= 0 && names_wanted(in, names))
			r = check_reporter(p, &h->reporters[i], of);
	}
	for (size_t i = 0; r >= 0 && i < h->n_infos; i++) {
		_cleanup_strv_free_ char **names = NULL;
		_cleanup_free_ char *of = NULL;

		r = device_names(in->root, h->infos[i].device, &names, &of);
		if (r >= 0 && names_wanted(in, names))
			r = check_firmware_pending(p, &h->infos[i], of);
	}
	return r;
}
