/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acs-record.h"
#include "fileio.h"
#include "macro.h"
#include "pci-config.h"

/* "cleared 0xHHHH", a non-zero value. */
static int record_parse(const char *buf, uint16_t *ret) {
	unsigned long v;
	char *end;

	if (strncmp(buf, "cleared 0x", 10) != 0)
		return -EBADMSG;
	errno = 0;
	v = strtoul(buf + 10, &end, 16);
	if (errno != 0 || end == buf + 10 || *end || v == 0 || v > 0xffff)
		return -EBADMSG;
	*ret = (uint16_t) v;
	return 0;
}

int acs_record_read(const char *state_dir, const char *port, uint16_t *ret) {
	_cleanup_free_ char *path = NULL;
	char buf[64];
	ssize_t n;

	if (!pci_address_valid(port))
		return -EINVAL;
	if (asprintf(&path, "%s/acs/%s", state_dir, port) < 0)
		return -ENOMEM;
	n = read_small_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return (int) n;
	return record_parse(buf, ret);
}

int acs_record_write(const char *state_dir, const char *port, uint16_t cleared) {
	_cleanup_free_ char *dir = NULL, *path = NULL;
	char line[32];

	if (!pci_address_valid(port))
		return -EINVAL;
	if (asprintf(&dir, "%s/acs", state_dir) < 0 || asprintf(&path, "%s/%s", dir, port) < 0)
		return -ENOMEM;
	if (cleared == 0)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	snprintf(line, sizeof(line), "cleared 0x%04x\n", cleared);
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return write_file_atomic(path, line, 0644);
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const AcsRecord *) a)->port, ((const AcsRecord *) b)->port);
}

int acs_records_list(const char *state_dir, AcsRecord **ret, size_t *ret_n) {
	_cleanup_free_ char *dir = NULL;
	AcsRecord *l = NULL;
	size_t n = 0, n_alloc = 0;
	DIR *d;
	int r = 0;

	if (asprintf(&dir, "%s/acs", state_dir) < 0)
		return -ENOMEM;
	d = opendir(dir);
	if (!d) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	for (struct dirent *de; (de = readdir(d));) {
		uint16_t cleared;
		char buf[64];

		/* ., .., the temporary files of a write, and what names no port */
		if (!pci_address_valid(de->d_name) ||
		    read_small_at(dirfd(d), de->d_name, buf, sizeof(buf)) < 0 ||
		    record_parse(buf, &cleared) < 0)
			continue;
		r = GREEDY_REALLOC(l, n_alloc, n + 1);
		if (r < 0)
			break;
		l[n].port = strdup(de->d_name);
		if (!l[n].port) {
			r = -ENOMEM;
			break;
		}
		l[n++].cleared = cleared;
	}
	closedir(d);
	if (r < 0) {
		acs_records_free(l, n);
		return r;
	}
	if (n > 1)
		qsort(l, n, sizeof(*l), record_compare);
	*ret = l;
	*ret_n = n;
	return 0;
}

void acs_records_free(AcsRecord *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		free(l[i].port);
	free(l);
}
