/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "devlink-record.h"
#include "fileio.h"
#include "macro.h"
#include "state-records.h"
#include "strv.h"

#define RECORD_MAX 4096

void devlink_record_done(DevlinkRecord *r) {
	free(r->function);
	strv_free(r->pending);
	free(r->failed_for);
	free(r->failed);
	*r = (DevlinkRecord){ 0 };
}

/* "pci/0000:03:00.0" <-> "pci+0000:03:00.0": a file name, the handle's one '/' swapped. */
static int file_name(const char *function, char ret[static 160]) {
	const char *slash = function ? strchr(function, '/') : NULL;

	if (!slash || slash == function || !slash[1] || strchr(slash + 1, '/') ||
	    strchr(function, '+') || strlen(function) >= 160 || function[0] == '.')
		return -EINVAL;
	snprintf(ret, 160, "%s", function);
	ret[slash - function] = '+';
	return 0;
}

static int record_parse(const char *name, char *text, DevlinkRecord *ret) {
	_cleanup_(devlink_record_done) DevlinkRecord rec = { 0 };
	char *save = NULL;
	bool has_ifindex = false;

	rec.function = strdup(name);
	if (!rec.function)
		return -ENOMEM;
	*strchr(rec.function, '+') = '/';
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *end;

		if (strncmp(line, "ifindex ", 8) == 0) {
			long v = strtol(line + 8, &end, 10);

			if (*end || v <= 0 || v > INT32_MAX)
				return -EBADMSG;
			rec.ifindex = (int) v;
			has_ifindex = true;
		} else if (strncmp(line, "pending ", 8) == 0) {
			if (!strchr(line + 8, '='))
				return -EBADMSG;
			if (strv_extend(&rec.pending, line + 8) < 0)
				return -ENOMEM;
		} else if (strncmp(line, "failed-for ", 11) == 0) {
			free(rec.failed_for);
			rec.failed_for = strdup(line + 11);
			if (!rec.failed_for)
				return -ENOMEM;
		} else if (strncmp(line, "failed ", 7) == 0) {
			free(rec.failed);
			rec.failed = strdup(line + 7);
			if (!rec.failed)
				return -ENOMEM;
		} else
			return -EBADMSG;
	}
	if (!has_ifindex)
		return -EBADMSG;
	strv_sort(rec.pending);
	*ret = rec;
	rec = (DevlinkRecord){ 0 };
	return 0;
}

static int record_load(int dirfd, const char *name, void *elem) {
	char buf[RECORD_MAX];
	ssize_t n;

	if (!strchr(name, '+'))
		return -EBADMSG;
	n = read_small_at(dirfd, name, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOMEM ? -EIO : (int) n;
	return record_parse(name, buf, elem);
}

int devlink_record_read(const char *state_dir, const char *function, DevlinkRecord *ret) {
	_cleanup_free_ char *path = NULL;
	char name[160], buf[RECORD_MAX];
	ssize_t n;

	if (file_name(function, name) < 0)
		return -EINVAL;
	if (asprintf(&path, "%s/devlink/%s", state_dir, name) < 0)
		return -ENOMEM;
	n = read_small_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return (int) n;
	return record_parse(name, buf, ret);
}

int devlink_record_remove(const char *state_dir, const char *function) {
	_cleanup_free_ char *path = NULL;
	char name[160];

	if (file_name(function, name) < 0)
		return -EINVAL;
	if (asprintf(&path, "%s/devlink/%s", state_dir, name) < 0)
		return -ENOMEM;
	return unlink(path) < 0 && errno != ENOENT ? -errno : 0;
}

/* One line of text: no newline may end a line early (a driver's extack has none, but take no
 * chances with what is written back and parsed). */
static void one_line(FILE *f, const char *key, const char *s) {
	fprintf(f, "%s ", key);
	for (; *s; s++)
		fputc(*s == '\n' ? ' ' : *s, f);
	fputc('\n', f);
}

int devlink_record_write(const char *state_dir, const DevlinkRecord *rec) {
	_cleanup_free_ char *dir = NULL, *path = NULL, *text = NULL;
	size_t size = 0;
	char name[160];
	FILE *f;

	if (file_name(rec->function, name) < 0 || rec->ifindex <= 0)
		return -EINVAL;
	if (strv_length(rec->pending) == 0 && !rec->failed)
		return devlink_record_remove(state_dir, rec->function);
	if (asprintf(&dir, "%s/devlink", state_dir) < 0 || asprintf(&path, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	f = open_memstream(&text, &size);
	if (!f)
		return -ENOMEM;
	fprintf(f, "ifindex %d\n", rec->ifindex);
	STRV_FOREACH (p, rec->pending)
		one_line(f, "pending", *p);
	if (rec->failed) {
		one_line(f, "failed-for", strempty(rec->failed_for));
		one_line(f, "failed", rec->failed);
	}
	if (fclose(f) != 0)
		return -ENOMEM;
	if (size >= RECORD_MAX)
		return -E2BIG;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	return write_file_atomic(path, text, 0644);
}

static int record_compare(const void *a, const void *b) {
	return strcmp(((const DevlinkRecord *) a)->function, ((const DevlinkRecord *) b)->function);
}

static void record_done(void *elem) {
	devlink_record_done(elem);
}

int devlink_records_list(const char *state_dir, DevlinkRecord **ret, size_t *ret_n) {
	return state_records_list(state_dir, "devlink", sizeof(DevlinkRecord), record_load,
				  record_done, record_compare, (void **) ret, ret_n);
}

void devlink_records_free(DevlinkRecord *l, size_t n) {
	for (size_t i = 0; i < n; i++)
		devlink_record_done(&l[i]);
	free(l);
}

bool devlink_record_valid(const DevlinkRecord *rec, int ifindex) {
	return rec && ifindex > 0 && rec->ifindex == ifindex;
}

bool devlink_record_pending(const DevlinkRecord *rec, const char *name) {
	size_t len = strlen(name);

	STRV_FOREACH (p, rec ? rec->pending : NULL)
		if (strncmp(*p, name, len) == 0 && (*p)[len] == '=')
			return true;
	return false;
}
