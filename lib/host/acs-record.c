/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acs-record.h"
#include "fileio.h"
#include "macro.h"
#include "pci-config.h"
#include "state-records.h"

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

/* A record of the listing: a file named after a port whose content parses. */
static int record_load(int dirfd, const char *name, void *elem) {
	AcsRecord *rec = elem;
	uint16_t cleared;
	char buf[64];
	ssize_t n;
	int r;

	if (!pci_address_valid(name))
		return -EBADMSG;
	n = read_small_at(dirfd, name, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOMEM ? -EIO : (int) n;
	r = record_parse(buf, &cleared);
	if (r < 0)
		return r;
	rec->port = strdup(name);
	if (!rec->port)
		return -ENOMEM;
	rec->cleared = cleared;
	return 0;
}

static void record_done(void *elem) {
	free(((AcsRecord *) elem)->port);
}

int acs_records_list(const char *state_dir, AcsRecord **ret, size_t *ret_n) {
	return state_records_list(state_dir, "acs", sizeof(AcsRecord), record_load, record_done,
				  record_compare, (void **) ret, ret_n);
}

void acs_records_free(AcsRecord *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		free(l[i].port);
	free(l);
}
