/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "rail-record.h"
#include "rdma-types.h"
#include "state-records.h"

int rail_record_init(RailRecord *r, const char *netdev) {
	*r = (RailRecord){ .netdev = strdup(netdev) };
	if (!r->netdev)
		return -ENOMEM;
	for (size_t i = 0; i < _RAIL_SYSCTL_MAX; i++)
		r->saved[i] = -1;
	return 0;
}

void rail_record_done(RailRecord *r) {
	free(r->netdev);
	free(r->tables);
	*r = (RailRecord){ 0 };
}

void rail_records_free(RailRecord *r, size_t n) {
	for (size_t i = 0; i < n; i++)
		rail_record_done(&r[i]);
	free(r);
}

bool rail_record_has_table(const RailRecord *r, uint32_t table) {
	for (size_t i = 0; i < r->n_tables; i++)
		if (r->tables[i] == table)
			return true;
	return false;
}

int rail_record_add_table(RailRecord *r, uint32_t table) {
	uint32_t *t;

	if (rail_record_has_table(r, table))
		return 0;
	t = realloc(r->tables, sizeof(uint32_t) * (r->n_tables + 1));
	if (!t)
		return -ENOMEM;
	r->tables = t;
	r->tables[r->n_tables++] = table;
	return 0;
}

void rail_record_remove_table(RailRecord *r, uint32_t table) {
	for (size_t i = 0; i < r->n_tables; i++)
		if (r->tables[i] == table) {
			memmove(&r->tables[i], &r->tables[i + 1],
				sizeof(uint32_t) * (r->n_tables - i - 1));
			r->n_tables--;
			return;
		}
}

/* "table N" and "sysctl NAME VALUE" lines; anything else makes the record unreadable. */
static int record_parse(const char *netdev, FILE *f, RailRecord *ret) {
	RailRecord r;
	char line[128];
	int k;

	k = rail_record_init(&r, netdev);
	if (k < 0)
		return k;
	while (fgets(line, sizeof(line), f)) {
		char name[32];
		unsigned long long t;
		int v, n = 0;

		if (sscanf(line, "table %llu%n", &t, &n) == 1 && line[n] == '\n' &&
		    rail_table_valid(t)) {
			k = rail_record_add_table(&r, (uint32_t) t);
			if (k < 0)
				goto fail;
			continue;
		}
		if (sscanf(line, "sysctl %31s %d%n", name, &v, &n) == 2 && line[n] == '\n' &&
		    rail_sysctl_from_string(name) >= 0 && v >= 0 && v <= 255) {
			r.saved[rail_sysctl_from_string(name)] = v;
			continue;
		}
		k = -EBADMSG;
		goto fail;
	}
	*ret = r;
	return 0;
fail:
	rail_record_done(&r);
	return k;
}

static int record_open(int dirfd, const char *netdev, RailRecord *ret) {
	FILE *f;
	int fd, r;

	if (!netdev_name_valid(netdev))
		return -EBADMSG;
	fd = openat(dirfd, netdev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen_consume(fd, "r");
	if (!f)
		return -errno;
	r = record_parse(netdev, f, ret);
	fclose(f);
	return r;
}

int rail_record_read(const char *state_dir, const char *netdev, RailRecord *ret) {
	_cleanup_free_ char *dir = NULL;
	_cleanup_close_ int dirfd = -EBADF;

	if (!netdev_name_valid(netdev))
		return -EINVAL;
	if (asprintf(&dir, "%s/rails", state_dir) < 0)
		return -ENOMEM;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	return record_open(dirfd, netdev, ret);
}

int rail_record_write(const char *state_dir, const RailRecord *r) {
	_cleanup_free_ char *dir = NULL, *path = NULL, *tmp = NULL;
	bool empty = r->n_tables == 0;
	FILE *f;
	int fd;

	if (!netdev_name_valid(r->netdev))
		return -EINVAL;
	for (size_t i = 0; i < _RAIL_SYSCTL_MAX; i++)
		empty = empty && r->saved[i] < 0;
	if (asprintf(&dir, "%s/rails", state_dir) < 0 ||
	    asprintf(&path, "%s/%s", dir, r->netdev) < 0 ||
	    asprintf(&tmp, "%s/.#%sXXXXXX", dir, r->netdev) < 0)
		return -ENOMEM;
	if (empty)
		return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen_consume(fd, "w");
	if (!f) {
		int k = -errno;

		(void) unlink(tmp);
		return k;
	}
	for (size_t i = 0; i < r->n_tables; i++)
		fprintf(f, "table %" PRIu32 "\n", r->tables[i]);
	for (RailSysctl s = 0; s < _RAIL_SYSCTL_MAX; s++)
		if (r->saved[s] >= 0)
			fprintf(f, "sysctl %s %d\n", rail_sysctl_to_string(s), r->saved[s]);
	if (fchmod(fileno(f), 0644) < 0 || fflush(f) != 0 || ferror(f)) {
		int k = negative_errno();

		fclose(f);
		(void) unlink(tmp);
		return k;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		int k = -errno;

		(void) unlink(tmp);
		return k;
	}
	return 0;
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const RailRecord *) a)->netdev, ((const RailRecord *) b)->netdev);
}

static int record_load(int dirfd, const char *name, void *elem) {
	return record_open(dirfd, name, elem);
}

static void record_done(void *elem) {
	rail_record_done(elem);
}

int rail_records_list(const char *state_dir, RailRecord **ret, size_t *ret_n) {
	return state_records_list(state_dir, "rails", sizeof(RailRecord), record_load, record_done,
				  record_compare, (void **) ret, ret_n);
}
