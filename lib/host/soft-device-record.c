/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "soft-device-record.h"
#include "state-records.h"

static char *record_path(const char *state_dir, const char *name) {
	char *p;

	if (asprintf(&p, "%s/links/%s", state_dir, name) < 0)
		return NULL;
	return p;
}

int soft_device_record_write(const char *state_dir, const char *name, SoftDeviceType type,
			     const char *netdev) {
	_cleanup_free_ char *dir = NULL, *path = NULL, *tmp = NULL, *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	const char *t = soft_device_type_to_string(type);
	ssize_t n;
	int len;

	if (!t || !rdma_device_name_valid(name) || !netdev_name_valid(netdev))
		return -EINVAL;
	path = record_path(state_dir, name);
	if (!path || asprintf(&dir, "%s/links", state_dir) < 0 ||
	    asprintf(&tmp, "%s/.#%sXXXXXX", dir, name) < 0)
		return -ENOMEM;
	len = asprintf(&line, "%s %s\n", t, netdev);
	if (len < 0)
		return -ENOMEM;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, (size_t) len);
	if (n != len || fchmod(fd, 0644) < 0) {
		int r = n < 0 || n == len ? negative_errno() : -EIO;

		(void) unlink(tmp);
		return r;
	}
	if (rename(tmp, path) < 0) {
		int r = -errno;

		(void) unlink(tmp);
		return r;
	}
	return 0;
}

static int record_parse(const char *name, char *buf, SoftDeviceRecord *ret) {
	SoftDeviceType type;
	char *sep;

	sep = strchr(buf, ' ');
	if (!sep)
		return -EBADMSG;
	*sep++ = 0;
	type = soft_device_type_from_string(buf);
	if (type < 0 || !netdev_name_valid(sep) || !rdma_device_name_valid(name))
		return -EBADMSG;
	*ret = (SoftDeviceRecord){ .name = strdup(name), .type = type, .netdev = strdup(sep) };
	if (!ret->name || !ret->netdev) {
		soft_device_record_done(ret);
		return -ENOMEM;
	}
	return 0;
}

int soft_device_record_read(const char *state_dir, const char *name, SoftDeviceRecord *ret) {
	_cleanup_free_ char *path = NULL;
	char buf[128];
	ssize_t n;

	if (!rdma_device_name_valid(name))
		return -EINVAL;
	path = record_path(state_dir, name);
	if (!path)
		return -ENOMEM;
	n = read_small_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return (int) n;
	return record_parse(name, buf, ret);
}

int soft_device_record_remove(const char *state_dir, const char *name) {
	_cleanup_free_ char *path = NULL;

	if (!rdma_device_name_valid(name))
		return -EINVAL;
	path = record_path(state_dir, name);
	if (!path)
		return -ENOMEM;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const SoftDeviceRecord *) a)->name, ((const SoftDeviceRecord *) b)->name);
}

static int record_load(int dirfd, const char *name, void *elem) {
	char buf[128];
	ssize_t n = read_small_at(dirfd, name, buf, sizeof(buf));

	if (n < 0)
		return n == -ENOMEM ? -EIO : (int) n;
	return record_parse(name, buf, elem);
}

static void record_done(void *elem) {
	soft_device_record_done(elem);
}

int soft_device_records_list(const char *state_dir, SoftDeviceRecord **ret, size_t *ret_n) {
	return state_records_list(state_dir, "links", sizeof(SoftDeviceRecord), record_load,
				  record_done, record_compare, (void **) ret, ret_n);
}

void soft_device_record_done(SoftDeviceRecord *r) {
	free(r->name);
	free(r->netdev);
	*r = (SoftDeviceRecord){ 0 };
}

void soft_device_records_free(SoftDeviceRecord *r, size_t n) {
	for (size_t i = 0; i < n; i++)
		soft_device_record_done(&r[i]);
	free(r);
}
