/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * vfiohold - hold a PCI function bound to vfio-pci as a VM does, until SIGTERM or SIGINT: the
 * VFIO container (/dev/vfio/vfio), the function's group (/dev/vfio/N, N from its iommu_group
 * link) attached to it with the type1 IOMMU, and the device's own fd (VFIO_GROUP_GET_DEVICE_FD).
 * qemu holds these for as long as a guest has the device; the kernel then cannot remove the
 * function (a VF: sriov_numvfs 0) until they are closed.
 *
 * Usage: vfiohold [--group] BDF   (BDF as in sysfs, 0000:01:00.1; --group: only the group fd)
 * Prints "vfiohold: holding BDF group N" once everything is open (a test waits for that line),
 * "vfiohold: released" on the signal, and exits 0 then; exit 1 with the step that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/vfio.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int fail(const char *what, const char *where) {
	fprintf(stderr, "vfiohold: %s %s: %s\n", what, where, strerror(errno));
	return 1;
}

int main(int argc, char **argv) {
	bool group_only = argc == 3 && strcmp(argv[1], "--group") == 0;
	char link[PATH_MAX], target[PATH_MAX], node[PATH_MAX + 16];
	const char *bdf, *n;
	int container = -1, group, device = -1;
	sigset_t set;
	ssize_t len;
	int sig;

	if (argc != 2 && !group_only) {
		fprintf(stderr, "usage: vfiohold [--group] BDF\n");
		return 2;
	}
	bdf = argv[argc - 1];

	/* block the signals first: one sent as soon as the line is printed is not lost */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/iommu_group", bdf);
	len = readlink(link, target, sizeof(target) - 1);
	if (len < 0)
		return fail("cannot read", link);
	target[len] = '\0';
	n = strrchr(target, '/');
	n = n ? n + 1 : target;
	snprintf(node, sizeof(node), "/dev/vfio/%s", n);

	if (!group_only) {
		container = open("/dev/vfio/vfio", O_RDWR | O_CLOEXEC);
		if (container < 0)
			return fail("cannot open", "/dev/vfio/vfio");
		if (ioctl(container, VFIO_GET_API_VERSION) != VFIO_API_VERSION)
			return fail("unknown VFIO API version of", "/dev/vfio/vfio");
		if (ioctl(container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) <= 0)
			return fail("no type1v2 IOMMU in", "/dev/vfio/vfio");
	}
	group = open(node, O_RDWR | O_CLOEXEC);
	if (group < 0)
		return fail("cannot open", node);
	if (!group_only) {
		struct vfio_group_status status = { .argsz = sizeof(status) };

		if (ioctl(group, VFIO_GROUP_GET_STATUS, &status) < 0)
			return fail("VFIO_GROUP_GET_STATUS failed on", node);
		if (!(status.flags & VFIO_GROUP_FLAGS_VIABLE)) {
			errno = EBUSY;
			return fail("not viable (a function in it is bound to another driver):", node);
		}
		if (ioctl(group, VFIO_GROUP_SET_CONTAINER, &container) < 0)
			return fail("VFIO_GROUP_SET_CONTAINER failed on", node);
		if (ioctl(container, VFIO_SET_IOMMU, VFIO_TYPE1v2_IOMMU) < 0)
			return fail("VFIO_SET_IOMMU (type1v2) failed on", "/dev/vfio/vfio");
		device = ioctl(group, VFIO_GROUP_GET_DEVICE_FD, bdf);
		if (device < 0)
			return fail("VFIO_GROUP_GET_DEVICE_FD failed for", bdf);
	}
	(void) device;
	printf("vfiohold: holding %s group %s%s\n", bdf, n, group_only ? " (group fd only)" : "");
	fflush(stdout);

	if (sigwait(&set, &sig) != 0)
		return fail("sigwait failed for", bdf);
	printf("vfiohold: released\n");
	return 0;
}
