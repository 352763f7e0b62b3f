/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* roce.mode and roce.tos: the rdma_cm defaults in configfs,
 * /sys/kernel/config/rdma_cm/<dev>/ports/<n>/default_roce_{mode,tos}. The values live in the
 * kernel's cma device: they survive rmdir of the directory, and are reset when the device is
 * added again (driver reload, `rdma link add`) - which is why rdmad re-applies them. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "apply-internal.h"
#include "fileio.h"
#include "sysfs-value.h"

#define CONFIGFS_MAGIC 0x62656570
#define RDMA_CM_DIR    "sys/kernel/config/rdma_cm"

/* On the real root, configfs is mounted by systemd's sys-kernel-config.mount (rdmad.service
 * Wants= it). rdmad does not mount it itself: its sandbox has neither the capability nor the
 * mount namespace for that, and a mount made there would be invisible to the host. */
static int configfs_check_mounted(Applier *a) {
	struct statfs sfs;

	if (!streq(applier_root(a), "/"))
		return 0;
	if (statfs("/sys/kernel/config", &sfs) < 0)
		return -errno;
	return sfs.f_type == CONFIGFS_MAGIC ? 0 : -ENOMEDIUM;
}

/* mkdir rdma_cm/<dev>: the directory appears for a device only when asked for. */
static int configfs_device_dir(Applier *a, const char *dev, ActionOutcome *ret) {
	char path[256];
	int r;

	r = configfs_check_mounted(a);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "configfs is not mounted on /sys/kernel/config (%s): start "
				   "sys-kernel-config.mount, or mount -t configfs none "
				   "/sys/kernel/config",
				   r == -ENOMEDIUM ? "another file system is there" : strerror(-r));
	snprintf(path, sizeof(path), RDMA_CM_DIR "/%s", dev);
	if (mkdirat(applier_rootfd(a), path, 0755) >= 0 || errno == EEXIST)
		return 1;
	r = -errno;
	if (r == -ENOENT)
		return outcome_set(ret, APPLY_FAILED, r,
				   "/%s does not exist: is the rdma_cm module loaded?",
				   RDMA_CM_DIR);
	return outcome_set(ret, APPLY_FAILED, r, "mkdir /%s: %s", path, strerror(-r));
}

static int write_file_at(int dirfd, const char *path, const char *value) {
	_cleanup_close_ int fd = -EBADF;
	size_t n = strlen(value);

	fd = openat(dirfd, path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (write(fd, value, n) != (ssize_t) n)
		return negative_errno();
	return 0;
}

int apply_configfs(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *attr = x->key == KEY_ROCE_MODE ? "default_roce_mode" : "default_roce_tos";
	char path[320], want[32], have[64];
	ssize_t n;
	int r;

	if (x->key == KEY_ROCE_MODE)
		snprintf(want, sizeof(want), "%s",
			 roce_mode_configfs_to_string(x->value.roce_mode));
	else
		snprintf(want, sizeof(want), "%u", x->value.number);

	r = configfs_device_dir(a, x->device, ret);
	if (r <= 0)
		return r;
	snprintf(path, sizeof(path), RDMA_CM_DIR "/%s/ports/%u/%s", x->device, x->port, attr);

	/* Compare before writing: a converged port costs one read. */
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n < 0)
		return outcome_set(ret, APPLY_FAILED, (int) n, "read /%s: %s", path,
				   strerror((int) -n));
	/* with its length: "106\0junk" is not 106 */
	if ((size_t) n == strlen(want) && streq(have, want))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);

	r = applier_write_fault(a, path);
	if (r == 0)
		r = write_file_at(applier_rootfd(a), path, want);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "write '%s' to /%s: %s", want, path,
				   strerror(-r));
	n = read_small_at(applier_rootfd(a), path, have, sizeof(have));
	if (n < 0)
		return outcome_set(ret, APPLY_FAILED, (int) n, "read back /%s: %s", path,
				   strerror((int) -n));
	if ((size_t) n != strlen(want) || !streq(have, want)) {
		char excerpt[SYSFS_EXCERPT_SIZE];

		sysfs_excerpt(have, (size_t) n, false, excerpt);
		return outcome_set(ret, APPLY_FAILED, -EIO, "/%s reads '%s' after writing '%s'",
				   path, excerpt, want);
	}
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
