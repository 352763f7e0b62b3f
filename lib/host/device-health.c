/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device-health.h"
#include "devlink-health-talk.h"
#include "macro.h"
#include "netlink-io.h"
#include "strv.h"

void device_health_done(DeviceHealth *h) {
	free(h->reporters);
	free(h->infos);
	*h = (DeviceHealth){ 0 };
}

int device_health_read(DeviceHealth *ret) {
	DeviceHealth h = { 0 };
	struct nl_sock *sk = NULL;
	uint16_t family;
	uint32_t group;
	int r;

	r = netlink_open(NETLINK_GENERIC, &sk);
	if (r >= 0)
		r = devlink_config_group_resolve(sk, &family, &group);
	if (r >= 0)
		r = devlink_health_read_all(sk, family, &h.reporters, &h.n_reporters, NULL);
	/* a driver without info_get is left out of the dump; a kernel that refuses it all
	 * still has its reporters told */
	if (r >= 0 && devlink_info_read_all(sk, family, &h.infos, &h.n_infos, NULL) == -ENOMEM)
		r = -ENOMEM;
	if (sk)
		nl_socket_free(sk);
	if (r == -ENOMEM) {
		device_health_done(&h);
		return r;
	}
	h.error = r < 0 ? r : 0;
	*ret = h;
	return 0;
}

const DevlinkInfo *device_health_info(const DeviceHealth *h, const char *device) {
	for (size_t i = 0; h && i < h->n_infos; i++)
		if (streq(h->infos[i].device, device))
			return &h->infos[i];
	return NULL;
}

/* The entries of dir (relative to rootfd), sorted; NULL for none or no such directory. */
static int dir_names(int rootfd, const char *dir, char ***ret) {
	_cleanup_strv_free_ char **l = NULL;
	DIR *d;
	int fd, r = 0;

	fd = openat(rootfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*ret = NULL;
		return 0;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	for (struct dirent *e; r >= 0 && (e = readdir(d));)
		if (e->d_name[0] != '.')
			r = strv_extend(&l, e->d_name);
	closedir(d);
	if (r < 0)
		return r;
	strv_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}

int devlink_device_names(const char *root, const char *device, char ***ret_netdevs,
			 char ***ret_rdma) {
	_cleanup_strv_free_ char **netdevs = NULL, **rdma = NULL;
	_cleanup_close_ int rootfd = -EBADF;
	char path[2 * DEVLINK_HANDLE_MAX + 64];
	const char *slash = strchr(device, '/');
	int r;

	if (!slash || slash == device || !slash[1] || strchr(slash + 1, '/') ||
	    strstr(device, ".."))
		return -EINVAL;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0) {
		snprintf(path, sizeof(path), "sys/bus/%.*s/devices/%s/net", (int) (slash - device),
			 device, slash + 1);
		r = dir_names(rootfd, path, &netdevs);
		if (r < 0)
			return r;
		snprintf(path, sizeof(path), "sys/bus/%.*s/devices/%s/infiniband",
			 (int) (slash - device), device, slash + 1);
		r = dir_names(rootfd, path, &rdma);
		if (r < 0)
			return r;
	}
	*ret_netdevs = TAKE_PTR(netdevs);
	*ret_rdma = TAKE_PTR(rdma);
	return 0;
}
