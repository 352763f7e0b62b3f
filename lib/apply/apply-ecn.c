/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* ecn.*: mlx5's ECN sysfs (MLNX_OFED's layout): the per-priority switches
 * /sys/class/net/<if>/ecn/roce_{np,rp}/enable/<prio> ("1" or "0"), and the DSCP and priority of
 * the CNPs the notification point sends, ecn/roce_np/cnp_dscp and cnp_802p_prio. Absent on VFs,
 * on other drivers and on kernels without it: that is "unsupported", not a failure. */
#include <fcntl.h>
#include <stdio.h>

#include "apply-internal.h"
#include "fileio.h"

int apply_ecn(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *kind = x->key == KEY_ECN_ROCE_NP ? "roce_np" : "roce_rp";
	char have[N_PRIO][16];
	size_t len[N_PRIO];
	bool changed = false;

	/* Read all eight first: a missing or unreadable one means nothing is written. */
	for (unsigned prio = 0; prio < N_PRIO; prio++) {
		char path[128];
		ssize_t n;

		snprintf(path, sizeof(path), "sys/class/net/%s/ecn/%s/enable/%u", x->netdev, kind,
			 prio);
		n = read_small_at(applier_rootfd(a), path, have[prio], sizeof(have[prio]));
		if (n == -ENOENT)
			return outcome_set(ret, APPLY_UNSUPPORTED, 0, "/%s does not exist", path);
		if (n < 0)
			return outcome_set(ret, APPLY_FAILED, (int) n, "read /%s: %s", path,
					   strerror((int) -n));
		len[prio] = (size_t) n;
	}
	for (unsigned prio = 0; prio < N_PRIO; prio++) {
		const char *want = (x->value.priorities & (1u << prio)) ? "1" : "0";
		_cleanup_close_ int fd = -EBADF;
		char path[128], back[16];
		ssize_t n;
		int r;

		if (streq(have[prio], want) && strlen(have[prio]) == len[prio])
			continue;
		snprintf(path, sizeof(path), "sys/class/net/%s/ecn/%s/enable/%u", x->netdev, kind,
			 prio);
		r = applier_write_fault(a, path);
		if (r == 0)
			fd = openat(applier_rootfd(a), path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (r < 0 || fd < 0 || write(fd, want, 1) != 1) {
			if (r == 0)
				r = negative_errno();

			return outcome_set(
				ret, APPLY_FAILED, r, "write '%s' to /%s%s: %s", want, path,
				changed ? " (lower priorities already written)" : "", strerror(-r));
		}
		n = read_small_at(applier_rootfd(a), path, back, sizeof(back));
		if (n != 1 || !streq(back, want))
			return outcome_set(ret, APPLY_FAILED, -EIO, "/%s does not read back '%s'",
					   path, want);
		changed = true;
	}
	return outcome_set(ret, changed ? APPLY_CHANGED : APPLY_UNCHANGED, 0, NULL);
}

/* ecn.cnp-dscp / ecn.cnp-prio: one number in /sys/class/net/<if>/ecn/roce_np/cnp_dscp or
 * cnp_802p_prio. Compared before writing, read back after. */
int apply_ecn_cnp(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *file = x->key == KEY_ECN_CNP_DSCP ? "cnp_dscp" : "cnp_802p_prio";
	_cleanup_close_ int fd = -EBADF;
	char path[128], have[16], want[16];
	ssize_t n;
	int r, len;

	snprintf(path, sizeof(path), "sys/class/net/%s/ecn/roce_np/%s", x->netdev, file);
	len = snprintf(want, sizeof(want), "%u", x->value.number);
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n == -ENOENT)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "/%s does not exist", path);
	if (n < 0)
		return outcome_set(ret, APPLY_FAILED, (int) n, "read /%s: %s", path,
				   strerror((int) -n));
	if (streq(have, want))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	r = applier_write_fault(a, path);
	if (r == 0)
		fd = openat(applier_rootfd(a), path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (r < 0 || fd < 0 || write(fd, want, (size_t) len) != len) {
		if (r == 0)
			r = negative_errno();
		return outcome_set(ret, APPLY_FAILED, r, "write '%s' to /%s: %s", want, path,
				   strerror(-r));
	}
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n < 0 || !streq(have, want))
		return outcome_set(ret, APPLY_FAILED, -EIO, "/%s does not read back '%s'", path,
				   want);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
