/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdma.node-description: /sys/class/infiniband/<dev>/node_desc, which the kernel hands to the
 * driver's modify_device (IB_DEVICE_MODIFY_NODE_DESC) and keeps up to 64 bytes of. Compared
 * before it is written (as rdma-ndd does), read back after. A driver without modify_device
 * answers EOPNOTSUPP: unsupported, not a failure. */
#include <fcntl.h>
#include <stdio.h>

#include "apply-internal.h"
#include "fileio.h"

int apply_node_description(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_close_ int fd = -EBADF;
	const char *want = x->value.name;
	char path[128], have[NODE_DESC_MAX + 2];
	ssize_t n;
	int r;

	snprintf(path, sizeof(path), "sys/class/infiniband/%s/node_desc", x->device);
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n == -ENOENT)
		return outcome_set(ret, APPLY_FAILED, (int) n, "/%s does not exist (device gone?)",
				   path);
	if (n >= 0 && streq(have, want))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	r = applier_write_fault(a, path);
	if (r == 0) {
		fd = openat(applier_rootfd(a), path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, want, strlen(want)) != (ssize_t) strlen(want))
			r = negative_errno();
	}
	if (r == -EOPNOTSUPP)
		return outcome_set(ret, APPLY_UNSUPPORTED, r,
				   "the driver of %s cannot set its node description (%s)",
				   x->device, strerror(-r));
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "write '%s' to /%s: %s", want, path,
				   strerror(-r));
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n < 0 || !streq(have, want))
		return outcome_set(ret, APPLY_FAILED, -EIO, "/%s does not read back '%s'%s%s", path,
				   want, n >= 0 ? ": it reads " : "", n >= 0 ? have : "");
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
