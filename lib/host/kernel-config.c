/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The running kernel's .config: /proc/config.gz (gzip, read with zlib) or /boot/config-<release>.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fileio.h"
#include "kernel-config.h"
#include "strv.h"

/* A .config is ~200-300 KiB; anything far larger is not one. */
#define KERNEL_CONFIG_MAX (16u << 20)

KernelConfig *kernel_config_free(KernelConfig *c) {
	if (!c)
		return NULL;
	free(c->source);
	strv_free(c->values);
	free(c);
	return NULL;
}

static bool option_name_valid(const char *s, size_t n) {
	if (n <= 7 || strncmp(s, "CONFIG_", 7) != 0)
		return false;
	for (size_t i = 7; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return false;
	return true;
}

/* One line: "CONFIG_X=y|m|n" or "# CONFIG_X is not set" -> "CONFIG_X=v" in *ret; 0 for any
 * other line (comments, strings, numbers). */
static int config_line(const char *line, size_t n, char **ret) {
	static const char not_set[] = " is not set";
	const char *name = line, *end;
	char value;

	if (n > 2 && line[0] == '#' && line[1] == ' ') {
		name = line + 2;
		end = memmem(name, n - 2, not_set, sizeof(not_set) - 1);
		if (!end || end + sizeof(not_set) - 1 != line + n)
			return 0;
		value = 'n';
	} else {
		end = memchr(line, '=', n);
		if (!end || end + 2 != line + n || !strchr("ymn", end[1]))
			return 0;
		value = end[1];
	}
	if (!option_name_valid(name, end - name))
		return 0;
	if (asprintf(ret, "%.*s=%c", (int) (end - name), name, value) < 0)
		return -ENOMEM;
	return 1;
}

int kernel_config_parse(const char *text, size_t len, const char *source, KernelConfig **ret) {
	_cleanup_(kernel_config_freep) KernelConfig *c = NULL;
	const char *p = text, *e = text + len;
	int r;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->source = strdup(source);
	if (!c->source)
		return -ENOMEM;
	while (p < e) {
		const char *nl = memchr(p, '\n', e - p);
		size_t n = (nl ? nl : e) - p;
		char *v = NULL;

		r = config_line(p, n, &v);
		if (r < 0)
			return r;
		if (r > 0) {
			r = strv_consume(&c->values, v);
			if (r < 0)
				return r;
		}
		p += n + 1;
	}
	if (!c->values)
		return -EBADMSG;
	strv_sort(c->values);
	*ret = TAKE_PTR(c);
	return 0;
}

/* All of a gzip stream (fd is consumed), at most KERNEL_CONFIG_MAX bytes. */
static int gz_read_all(int fd, char **ret, size_t *ret_len) {
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, size = 0;
	gzFile gz;
	int n;

	gz = gzdopen(fd, "rb");
	if (!gz) {
		close(fd);
		return -ENOMEM;
	}
	do {
		if (size - len < 65536) {
			char *b;

			if (size >= KERNEL_CONFIG_MAX) {
				gzclose(gz);
				return -EFBIG;
			}
			b = realloc(buf, size + 262144);
			if (!b) {
				gzclose(gz);
				return -ENOMEM;
			}
			buf = b;
			size += 262144;
		}
		n = gzread(gz, buf + len, (unsigned) (size - len));
		if (n > 0)
			len += n;
	} while (n > 0);
	gzclose(gz);
	if (n < 0)
		return -EBADMSG;
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

static int plain_read_all(int fd, char **ret, size_t *ret_len) {
	_cleanup_close_ int owned = fd;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, size = 0;
	ssize_t n;

	do {
		if (size - len < 65536) {
			char *b;

			if (size >= KERNEL_CONFIG_MAX)
				return -EFBIG;
			b = realloc(buf, size + 262144);
			if (!b)
				return -ENOMEM;
			buf = b;
			size += 262144;
		}
		n = read(owned, buf + len, size - len);
		if (n < 0)
			return -errno;
		len += n;
	} while (n > 0);
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int kernel_config_read(int rootfd, const char *release, KernelConfig **ret) {
	_cleanup_free_ char *boot = NULL;
	int result = -ENOENT;

	if (release && !strchr(release, '/') && asprintf(&boot, "boot/config-%s", release) < 0)
		return -ENOMEM;
	for (int i = 0; i < 2; i++) {
		const char *path = i == 0 ? "proc/config.gz" : boot;
		_cleanup_free_ char *text = NULL, *source = NULL;
		size_t len = 0;
		int fd, r;

		if (!path)
			continue;
		fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			if (errno != ENOENT && result == -ENOENT)
				result = -errno;
			continue;
		}
		r = i == 0 ? gz_read_all(fd, &text, &len) : plain_read_all(fd, &text, &len);
		if (r == -ENOMEM)
			return r;
		if (r >= 0) {
			if (asprintf(&source, "/%s", path) < 0)
				return -ENOMEM;
			r = kernel_config_parse(text, len, source, ret);
			if (r >= 0 || r == -ENOMEM)
				return r;
		}
		result = r;
	}
	return result;
}

static int str_compare_prefix(const void *key, const void *elem) {
	const char *k = key, *e = *(char *const *) elem;
	size_t n = strlen(k);
	int c = strncmp(k, e, n);

	if (c != 0)
		return c;
	/* the key is "CONFIG_A=": "CONFIG_A0=y" sorts before it, "CONFIG_A_B=y" after */
	return '=' - (unsigned char) e[n];
}

char kernel_config_get(const KernelConfig *c, const char *option) {
	char *const *hit;

	if (!c || !c->values)
		return 'n';
	hit = bsearch(option, c->values, strv_length(c->values), sizeof(char *),
		      str_compare_prefix);
	return hit ? (*hit)[strlen(option) + 1] : 'n';
}
