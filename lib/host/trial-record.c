/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "macro.h"
#include "trial-record.h"

#define TRIAL_DIR	 "trial"
#define TRIAL_RECORD	 "record"
#define TRIAL_RECORD_MAX (4 * 1024 * 1024)
#define TRIAL_HEADER	 "rdmad-trial 1\n"

void trial_record_done(TrialRecord *r) {
	if (!r)
		return;
	for (size_t i = 0; i < r->n_files; i++) {
		free(r->files[i].name);
		free(r->files[i].content);
	}
	free(r->files);
	for (size_t i = 0; i < r->n_objects; i++) {
		free(r->objects[i].link);
		free(r->objects[i].netdev);
		free(r->objects[i].value);
	}
	free(r->objects);
	*r = (TrialRecord){ 0 };
}

bool trial_file_name_valid(const char *name) {
	size_t n;

	if (!name || name[0] == '.' || strchr(name, '/'))
		return false;
	n = strlen(name);
	if (n > 200 ||
	    !((n > 5 && streq(name + n - 5, ".yaml")) || (n > 4 && streq(name + n - 4, ".yml"))))
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char) *p <= ' ' || *p == 0x7f)
			return false;
	return true;
}

/* A word of the record: no blank, no control character, not empty. */
static bool word_valid(const char *s) {
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char) *s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/* A value: the rest of a line, not empty, no control character. */
static bool value_valid(const char *s) {
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if ((unsigned char) *s < ' ' || *s == 0x7f)
			return false;
	return true;
}

int trial_record_add_file(TrialRecord *r, const char *name, const char *content) {
	TrialFile *f;

	f = reallocarray(r->files, r->n_files + 1, sizeof(TrialFile));
	if (!f)
		return -ENOMEM;
	r->files = f;
	f = &r->files[r->n_files];
	*f = (TrialFile){ .name = strdup(name), .content = strdup(content) };
	if (!f->name || !f->content) {
		free(f->name);
		free(f->content);
		return -ENOMEM;
	}
	r->n_files++;
	return 0;
}

int trial_record_add_object(TrialRecord *r, const char *link, const char *netdev, Key key,
			    const char *value) {
	TrialObject *o;

	o = reallocarray(r->objects, r->n_objects + 1, sizeof(TrialObject));
	if (!o)
		return -ENOMEM;
	r->objects = o;
	o = &r->objects[r->n_objects];
	*o = (TrialObject){
		.link = strdup(link),
		.netdev = netdev ? strdup(netdev) : NULL,
		.key = key,
		.value = strdup(value),
	};
	if (!o->link || (netdev && !o->netdev) || !o->value) {
		free(o->link);
		free(o->netdev);
		free(o->value);
		return -ENOMEM;
	}
	r->n_objects++;
	return 0;
}

int trial_record_format(const TrialRecord *r, char **ret) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int ok;

	for (size_t i = 0; i < r->n_files; i++)
		if (!trial_file_name_valid(r->files[i].name) || !r->files[i].content)
			return -EINVAL;
	for (size_t i = 0; i < r->n_objects; i++) {
		const TrialObject *o = &r->objects[i];

		if (!word_valid(o->link) || (o->netdev && !word_valid(o->netdev)) ||
		    !key_to_string(o->key) || !value_valid(o->value))
			return -EINVAL;
	}
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	fputs(TRIAL_HEADER, f);
	fprintf(f, "started %" PRIu64 "\ntimeout %" PRIu64 "\n", r->started_usec, r->timeout_usec);
	for (size_t i = 0; i < r->n_files; i++) {
		fprintf(f, "file %s %zu\n", r->files[i].name, strlen(r->files[i].content));
		fputs(r->files[i].content, f);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->n_objects; i++) {
		const TrialObject *o = &r->objects[i];

		fprintf(f, "object %s %s %s %s\n", o->link, o->netdev ? o->netdev : "-",
			key_to_string(o->key), o->value);
	}
	fputs("end\n", f);
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}

/* The next line of text from *pos: NUL-terminated copy in line (of size), -EBADMSG if there is
 * none or it does not fit. */
static int line_next(const char *text, size_t size, size_t *pos, char *line, size_t max) {
	const char *nl;
	size_t n;

	if (*pos >= size)
		return -EBADMSG;
	nl = memchr(text + *pos, '\n', size - *pos);
	if (!nl)
		return -EBADMSG;
	n = (size_t) (nl - (text + *pos));
	if (n >= max || memchr(text + *pos, '\0', n))
		return -EBADMSG;
	memcpy(line, text + *pos, n);
	line[n] = '\0';
	*pos += n + 1;
	return 0;
}

static int parse_u64(const char *s, uint64_t *ret) {
	unsigned long long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EBADMSG;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int parse_object(TrialRecord *r, char *line) {
	char *link, *netdev, *key, *value, *save = NULL;
	Key k;

	link = strtok_r(line, " ", &save);
	netdev = strtok_r(NULL, " ", &save);
	key = strtok_r(NULL, " ", &save);
	value = save;
	if (!link || !netdev || !key || !value || !value_valid(value))
		return -EBADMSG;
	k = key_from_string(key);
	if (k < 0)
		return -EBADMSG;
	return trial_record_add_object(r, link, streq(netdev, "-") ? NULL : netdev, k, value);
}

int trial_record_parse(const char *text, size_t size, TrialRecord *ret) {
	_cleanup_(trial_record_done) TrialRecord rec = { 0 };
	char line[4096];
	size_t pos = 0;
	int r;

	if (size < strlen(TRIAL_HEADER) || memcmp(text, TRIAL_HEADER, strlen(TRIAL_HEADER)) != 0)
		return -EBADMSG;
	pos = strlen(TRIAL_HEADER);
	r = line_next(text, size, &pos, line, sizeof(line));
	if (r < 0 || strncmp(line, "started ", 8) != 0 ||
	    parse_u64(line + 8, &rec.started_usec) < 0)
		return -EBADMSG;
	r = line_next(text, size, &pos, line, sizeof(line));
	if (r < 0 || strncmp(line, "timeout ", 8) != 0 ||
	    parse_u64(line + 8, &rec.timeout_usec) < 0)
		return -EBADMSG;
	for (;;) {
		r = line_next(text, size, &pos, line, sizeof(line));
		if (r < 0)
			return r; /* no "end": torn */
		if (streq(line, "end"))
			break;
		if (strncmp(line, "file ", 5) == 0) {
			_cleanup_free_ char *content = NULL;
			char *sp = strrchr(line + 5, ' ');
			uint64_t n;

			if (!sp)
				return -EBADMSG;
			*sp = '\0';
			if (!trial_file_name_valid(line + 5) || parse_u64(sp + 1, &n) < 0 ||
			    n > size - pos || size - pos - n < 1 || text[pos + n] != '\n' ||
			    memchr(text + pos, '\0', n))
				return -EBADMSG;
			content = strndup(text + pos, n);
			if (!content)
				return -ENOMEM;
			pos += n + 1;
			r = trial_record_add_file(&rec, line + 5, content);
		} else if (strncmp(line, "object ", 7) == 0)
			r = parse_object(&rec, line + 7);
		else
			return -EBADMSG;
		if (r < 0)
			return r;
	}
	if (pos != size)
		return -EBADMSG; /* something after "end" */
	*ret = rec;
	rec = (TrialRecord){ 0 };
	return 0;
}

/* text into dirfd/name: a temporary file, fsync, rename, fsync of the folder. */
static int write_synced(int dirfd, const char *name, const char *text) {
	_cleanup_free_ char *tmp = NULL;
	size_t n = strlen(text);
	int fd, r = 0;

	if (asprintf(&tmp, ".%s.tmp", name) < 0)
		return -ENOMEM;
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	errno = 0;
	if (fchmod(fd, 0644) < 0 || write(fd, text, n) != (ssize_t) n || fsync(fd) < 0)
		r = errno ? -errno : -EIO;
	if (close(fd) < 0 && r >= 0)
		r = -errno;
	if (r >= 0 && renameat(dirfd, tmp, dirfd, name) < 0)
		r = -errno;
	if (r < 0) {
		(void) unlinkat(dirfd, tmp, 0);
		return r;
	}
	return fsync(dirfd) < 0 ? -errno : 0;
}

int trial_file_install(const char *dir, const char *name, const char *content) {
	_cleanup_close_ int dirfd = -EBADF;

	if (!trial_file_name_valid(name))
		return -EINVAL;
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return -errno;
	return write_synced(dirfd, name, content);
}

static int trial_dir_open(const char *state_dir, bool create) {
	_cleanup_free_ char *dir = NULL;
	int fd;

	if (asprintf(&dir, "%s/" TRIAL_DIR, state_dir) < 0)
		return -ENOMEM;
	if (create && mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int trial_record_write(const char *state_dir, const TrialRecord *r) {
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int dirfd = -EBADF;
	int k;

	k = trial_record_format(r, &text);
	if (k < 0)
		return k;
	dirfd = trial_dir_open(state_dir, true);
	if (dirfd < 0)
		return dirfd;
	return write_synced(dirfd, TRIAL_RECORD, text);
}

int trial_record_read(const char *state_dir, TrialRecord *ret) {
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int dirfd = -EBADF, fd = -EBADF;
	size_t size = 0;
	ssize_t n;

	dirfd = trial_dir_open(state_dir, false);
	if (dirfd < 0)
		return dirfd;
	fd = openat(dirfd, TRIAL_RECORD, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	buf = malloc(TRIAL_RECORD_MAX + 1);
	if (!buf)
		return -ENOMEM;
	while ((n = read(fd, buf + size, TRIAL_RECORD_MAX + 1 - size)) > 0) {
		size += (size_t) n;
		if (size > TRIAL_RECORD_MAX)
			return -EBADMSG;
	}
	if (n < 0)
		return -errno;
	buf[size] = '\0';
	return trial_record_parse(buf, size, ret);
}

int trial_record_remove(const char *state_dir) {
	_cleanup_close_ int dirfd = -EBADF;

	dirfd = trial_dir_open(state_dir, false);
	if (dirfd == -ENOENT)
		return 0;
	if (dirfd < 0)
		return dirfd;
	if (unlinkat(dirfd, TRIAL_RECORD, 0) < 0 && errno != ENOENT)
		return -errno;
	return fsync(dirfd) < 0 ? -errno : 0;
}

int trial_last_write(const char *state_dir, const char *json) {
	_cleanup_close_ int dirfd = -EBADF;

	dirfd = trial_dir_open(state_dir, true);
	if (dirfd < 0)
		return dirfd;
	return write_synced(dirfd, "last", json);
}

int trial_last_read(const char *state_dir, char **ret) {
	_cleanup_free_ char *path = NULL;

	if (asprintf(&path, "%s/" TRIAL_DIR "/last", state_dir) < 0)
		return -ENOMEM;
	return read_line_at(AT_FDCWD, path, ret);
}

int trial_record_set_aside(const char *state_dir) {
	_cleanup_close_ int dirfd = -EBADF;

	dirfd = trial_dir_open(state_dir, false);
	if (dirfd < 0)
		return dirfd;
	if (renameat(dirfd, TRIAL_RECORD, dirfd, TRIAL_RECORD ".torn") < 0)
		return -errno;
	return 0;
}

/* "rxe0/1" -> "rxe0", 1 */
static int link_split(const char *link, char **ret_device, unsigned *ret_port) {
	const char *slash = strrchr(link, '/');
	unsigned long port;
	char *end;

	if (!slash || slash == link || strpbrk(link, "\"\\*?[]"))
		return -EINVAL;
	errno = 0;
	port = strtoul(slash + 1, &end, 10);
	if (errno != 0 || end == slash + 1 || *end || port == 0 || port > 255)
		return -EINVAL;
	*ret_device = strndup(link, (size_t) (slash - link));
	if (!*ret_device)
		return -ENOMEM;
	*ret_port = (unsigned) port;
	return 0;
}

int trial_record_rollback_yaml(const TrialRecord *r, char **ret) {
	_cleanup_free_ char *buf = NULL;
	bool *done = NULL;
	size_t size = 0;
	FILE *f;
	int k = 0, ok;

	done = calloc(r->n_objects + 1, sizeof(bool));
	if (!done)
		return -ENOMEM;
	f = open_memstream(&buf, &size);
	if (!f) {
		free(done);
		return -ENOMEM;
	}
	for (size_t i = 0; k >= 0 && i < r->n_objects; i++) {
		_cleanup_free_ char *device = NULL;
		unsigned port;

		if (done[i])
			continue;
		k = link_split(r->objects[i].link, &device, &port);
		if (k < 0)
			break;
		fprintf(f, "---\nmatch:\n  device: \"%s\"\n  port: [%u]\n", device, port);
		/* the link's keys, each under its section ("roce.tos": roce: {tos: 106}), a
		 * section once */
		for (size_t j = i; k >= 0 && j < r->n_objects; j++) {
			const char *key = key_to_string(r->objects[j].key), *dot;

			if (done[j] || !streq(r->objects[j].link, r->objects[i].link))
				continue;
			dot = key ? strchr(key, '.') : NULL;
			if (!dot || strchr(dot + 1, '.')) {
				k = -EINVAL;
				break;
			}
			fprintf(f, "%.*s:\n", (int) (dot - key), key);
			for (size_t l = j; l < r->n_objects; l++) {
				const char *key2 = key_to_string(r->objects[l].key);

				if (done[l] || !streq(r->objects[l].link, r->objects[i].link) ||
				    !key2 || strncmp(key2, key, (size_t) (dot - key) + 1) != 0)
					continue;
				if (!value_valid(r->objects[l].value)) {
					k = -EINVAL;
					break;
				}
				done[l] = true;
				fprintf(f, "  %s: %s\n", key2 + (dot - key) + 1,
					r->objects[l].value);
			}
		}
	}
	free(done);
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok)
		return -ENOMEM;
	if (k < 0)
		return k;
	*ret = TAKE_PTR(buf);
	return 0;
}
