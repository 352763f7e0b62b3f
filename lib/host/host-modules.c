/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel modules: what /sys/module lists, and what modules.builtin says is built in (a built-in
 * module without parameters has no /sys/module entry). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "fileio.h"
#include "host-internal.h"
#include "strv.h"

/* "kernel/drivers/infiniband/core/ib_core.ko" -> "ib_core", as /sys/module names it. */
static char *builtin_name(const char *line) {
	const char *base = strrchr(line, '/');
	size_t n;
	char *s;

	base = base ? base + 1 : line;
	n = strlen(base);
	if (n <= 3 || !streq(base + n - 3, ".ko"))
		return NULL;
	s = strndup(base, n - 3);
	for (char *c = s; c && *c; c++)
		if (*c == '-')
			*c = '_';
	return s;
}

/* The running kernel's modules.builtin (its release from <root>/proc, which a fixture can
 * give). Missing or unreadable: nothing is known to be built in. */
static int builtin_modules_read(HostState *h, int rootfd) {
	_cleanup_free_ char *release = NULL, *line = NULL, *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	FILE *f;
	int r = 0;

	if (read_line_at(rootfd, "proc/sys/kernel/osrelease", &release) < 0 ||
	    strchr(release, '/') || streq(release, "..") || streq(release, "."))
		return 0;
	if (asprintf(&path, "lib/modules/%s/modules.builtin", release) < 0)
		return -ENOMEM;
	fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &size, f) > 0) {
		char *name;

		line[strcspn(line, "\n")] = 0;
		name = builtin_name(line);
		if (!name)
			continue;
		if (strv_contains(h->modules, name))
			free(name);
		else
			r = strv_consume(&h->modules, name);
	}
	fclose(f);
	return r;
}

int host_modules_observe(HostState *h, int rootfd) {
	_cleanup_close_ int fd = -EBADF;
	DIR *dir;
	int r = 0;

	h->modules = calloc(1, sizeof(char *));
	if (!h->modules)
		return -ENOMEM;
	fd = openat(rootfd, "sys/module", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		dir = fdopendir_consume(TAKE_FD(fd));
		if (!dir)
			return -errno;
		for (struct dirent *de; r >= 0 && (de = readdir(dir));)
			if (de->d_name[0] != '.')
				r = strv_extend(&h->modules, de->d_name);
		closedir(dir);
	} else if (errno != ENOENT)
		return -errno;
	if (r >= 0)
		r = builtin_modules_read(h, rootfd);
	strv_sort(h->modules);
	return r;
}

static int str_compare(const void *a, const void *b) {
	return strcmp(*(char *const *) a, *(char *const *) b);
}

bool host_module_loaded(const HostState *h, const char *module) {
	char name[64];
	const char *key = name;

	/* The kernel names /sys/module entries with underscores. */
	snprintf(name, sizeof(name), "%s", module);
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return h->modules && h->modules[0] &&
	       bsearch(&key, h->modules, strv_length(h->modules), sizeof(char *), str_compare);
}
