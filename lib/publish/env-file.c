/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env-file.h"
#include "fileio.h"
#include "gid.h"
#include "strv.h"

int env_file_name(const EnvLink *l, char **ret) {
	char *s;

	if (asprintf(&s, "%s-%" PRIu32 ".env", l->device, l->port) < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int env_file_format(const EnvLink *l, char **ret) {
	char gid[GID_STRING_MAX], *s;

	gid_format(l->gid, gid);
	if (asprintf(&s,
		     "# rdmad: the GID jobs use on %s/%" PRIu32 ". Rewritten when it changes; "
		     "do not edit.\n"
		     "RDMA_DEVICE=%s\n"
		     "RDMA_PORT=%" PRIu32 "\n"
		     "RDMA_NETDEV=%s\n"
		     "RDMA_GID_INDEX=%" PRIu32 "\n"
		     "RDMA_GID=%s\n"
		     /* "=": NCCL matches the name exactly, not mlx5_1 as a prefix of mlx5_10 */
		     "NCCL_IB_HCA==%s:%" PRIu32 "\n"
		     "NCCL_IB_GID_INDEX=%" PRIu32 "\n"
		     "UCX_NET_DEVICES=%s:%" PRIu32 "\n"
		     "UCX_IB_GID_INDEX=%" PRIu32 "\n"
		     /* a launcher pairs ranks on these GPUs with this link */
		     "%s%s%s",
		     l->device, l->port, l->device, l->port, strempty(l->netdev), l->gid_index, gid,
		     l->device, l->port, l->gid_index, l->device, l->port, l->gid_index,
		     l->nearest_gpus ? "RDMA_NEAREST_GPUS=" : "", strempty(l->nearest_gpus),
		     l->nearest_gpus ? "\n" : "") < 0)
		return -ENOMEM;
	*ret = s;
	return 0;
}

/* Whether dir/name holds exactly text. */
static bool file_holds(int dirfd, const char *name, const char *text) {
	size_t n = strlen(text);
	char buf[4096];
	ssize_t k;
	int fd;
	bool same;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return false;
	k = n < sizeof(buf) ? read(fd, buf, sizeof(buf)) : -1;
	same = k >= 0 && (size_t) k == n && memcmp(buf, text, n) == 0;
	close(fd);
	return same;
}

int env_file_write(const char *dir, const char *name, const char *text) {
	int dirfd, r;

	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	if (file_holds(dirfd, name, text)) {
		close(dirfd);
		return 0;
	}
	/* 0644 whatever the umask (the unit's is 0077): jobs of every user read it. */
	r = write_file_atomic_at(dirfd, name, text, 0644);
	close(dirfd);
	return r < 0 ? r : 1;
}

int env_dir_prune(const char *dir, char *const *keep) {
	_cleanup_strv_free_ char **sorted = strv_copy(keep);
	size_t n_keep = strv_length(sorted);
	struct dirent *de;
	int n = 0, r = 0;
	DIR *d;

	if (keep && !sorted)
		return -ENOMEM;
	strv_sort(sorted); /* a lookup per file, on hosts with thousands of links */
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || len < 5 || !streq(de->d_name + len - 4, ".env") ||
		    strv_contains_sorted(sorted, n_keep, de->d_name))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) < 0) {
			if (errno != ENOENT)
				r = -errno;
		} else
			n++;
	}
	closedir(d);
	return r < 0 ? r : n;
}
