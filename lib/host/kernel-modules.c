/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Whether the running kernel has a module: /sys/module, modules.builtin and modules.dep, the
 * kernel configuration, and the objects a module makes, in that order (kernel-modules.h). */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "kernel-modules.h"
#include "strv.h"

/* The modules rdmad plans or checks, with the kernel options that build them
 * (drivers/infiniband/core/Makefile: rdma_cm is part of CONFIG_INFINIBAND and rdma_ucm of
 * CONFIG_INFINIBAND_USER_ACCESS, each only with the bool CONFIG_INFINIBAND_ADDR_TRANS), and
 * what each makes when it starts, under the root. */
typedef struct ModuleFacts {
	const char *name;
	const char *option;   /* the tristate that builds it */
	const char *requires; /* a bool it needs as well, or NULL */
	const char *objects[3];
} ModuleFacts;

static const ModuleFacts module_facts[] = {
	{ "ib_core", "CONFIG_INFINIBAND", NULL, { "sys/class/infiniband" } },
	{ "ib_uverbs",
	  "CONFIG_INFINIBAND_USER_ACCESS",
	  NULL,
	  { "sys/class/infiniband_verbs/abi_version" } },
	{ "ib_umad",
	  "CONFIG_INFINIBAND_USER_MAD",
	  NULL,
	  { "sys/class/infiniband_mad/abi_version" } },
	/* rdma_cm's configfs directory, or the misc device of rdma_ucm, which needs rdma_cm */
	{ "rdma_cm",
	  "CONFIG_INFINIBAND",
	  "CONFIG_INFINIBAND_ADDR_TRANS",
	  { "sys/kernel/config/rdma_cm", "sys/class/misc/rdma_cm" } },
	{ "rdma_ucm",
	  "CONFIG_INFINIBAND_USER_ACCESS",
	  "CONFIG_INFINIBAND_ADDR_TRANS",
	  { "sys/class/misc/rdma_cm", "dev/infiniband/rdma_cm" } },
	{ "configfs", "CONFIG_CONFIGFS_FS", NULL, { "sys/kernel/config" } },
	{ "rdma_rxe", "CONFIG_RDMA_RXE", NULL, { NULL } },
	{ "siw", "CONFIG_RDMA_SIW", NULL, { NULL } },
	{ "ib_ipoib", "CONFIG_INFINIBAND_IPOIB", NULL, { NULL } },
	{ "mlx5_core", "CONFIG_MLX5_CORE", NULL, { NULL } },
	{ "mlx5_ib", "CONFIG_MLX5_INFINIBAND", NULL, { NULL } },
	{ "mlx4_core", "CONFIG_MLX4_CORE", NULL, { NULL } },
	{ "mlx4_ib", "CONFIG_MLX4_INFINIBAND", NULL, { NULL } },
	{ "irdma", "CONFIG_INFINIBAND_IRDMA", NULL, { NULL } },
	{ "bnxt_re", "CONFIG_INFINIBAND_BNXT_RE", NULL, { NULL } },
	{ "efa", "CONFIG_INFINIBAND_EFA", NULL, { NULL } },
	{ "qedr", "CONFIG_INFINIBAND_QEDR", NULL, { NULL } },
	{ "erdma", "CONFIG_INFINIBAND_ERDMA", NULL, { NULL } },
	{ "mana_ib", "CONFIG_MANA_INFINIBAND", NULL, { NULL } },
};

static const char *const presence_table[] = {
	[MODULE_UNKNOWN] = "unknown",	  [MODULE_ABSENT] = "absent",
	[MODULE_AVAILABLE] = "available", [MODULE_LOADED] = "loaded",
	[MODULE_BUILTIN] = "built-in",
};

const char *module_presence_to_string(ModulePresence p) {
	return p < ELEMENTSOF(presence_table) ? presence_table[p] : NULL;
}

static const ModuleFacts *facts_find(const char *name) {
	for (size_t i = 0; i < ELEMENTSOF(module_facts); i++)
		if (streq(module_facts[i].name, name))
			return &module_facts[i];
	return NULL;
}

const char *kernel_module_config_option(const char *module) {
	const ModuleFacts *f = facts_find(module);

	return f ? f->option : NULL;
}

KernelModules *kernel_modules_free(KernelModules *k) {
	if (!k)
		return NULL;
	if (k->rootfd >= 0)
		close(k->rootfd);
	free(k->release);
	strv_free(k->loaded);
	strv_free(k->sys_builtin);
	strv_free(k->available);
	strv_free(k->builtin);
	strv_free(k->out_of_tree);
	kernel_config_free(k->config);
	free(k);
	return NULL;
}

/* "kernel/drivers/infiniband/core/ib_core.ko.zst" -> "ib_core" (the name /sys/module gives):
 * 1 and *ret, 0 for a line that names no module, -ENOMEM. */
static int module_name(const char *path, size_t len, char **ret) {
	const char *base = path, *ko = NULL;
	char *s;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	for (const char *c = base; c + 3 <= path + len; c++)
		if (strncmp(c, ".ko", 3) == 0)
			ko = c;
	if (!ko || ko == base)
		return 0;
	s = strndup(base, ko - base);
	if (!s)
		return -ENOMEM;
	for (char *c = s; *c; c++)
		if (*c == '-')
			*c = '_';
	*ret = s;
	return 1;
}

/* modules.dep ("path: deps") or modules.builtin ("path"): the module names, sorted; with
 * ret_out_of_tree, the names whose path is outside kernel/. -errno when unreadable. */
static int module_list_read(int rootfd, const char *path, char ***ret, char ***ret_out_of_tree) {
	_cleanup_free_ char *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t size = 0;
	FILE *f;
	int r = 0;

	fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	f = fdopen_consume(TAKE_FD(fd), "re");
	if (!f)
		return -errno;
	while (r >= 0 && getline(&line, &size, f) > 0) {
		char *name;

		r = module_name(line, strcspn(line, ":\n"), &name);
		if (r <= 0)
			continue;
		if (ret_out_of_tree && strncmp(line, "kernel/", 7) != 0) {
			r = strv_extend(ret_out_of_tree, name);
			if (r < 0) {
				free(name);
				break;
			}
		}
		r = strv_consume(ret, name);
	}
	fclose(f);
	if (r >= 0 && !*ret) {
		*ret = calloc(1, sizeof(char *)); /* read, and empty */
		if (!*ret)
			r = -ENOMEM;
	}
	if (r >= 0)
		strv_sort(*ret);
	return r;
}

/* /sys/module: an entry with initstate is a loadable module (loaded); one without is built in
 * (the kernel makes those only for built-in modules with parameters or a version). */
static int sys_module_read(KernelModules *k, bool initstate) {
	_cleanup_close_ int fd = -EBADF;
	DIR *dir;
	int r = 0;

	fd = openat(k->rootfd, "sys/module", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : 0;
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return errno == ENOMEM ? -ENOMEM : 0;
	k->sys_module = true;
	for (struct dirent *de; r >= 0 && (de = readdir(dir));) {
		char path[512];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/initstate", de->d_name);
		if (!initstate || faccessat(dirfd(dir), path, F_OK, 0) >= 0)
			r = strv_extend(&k->loaded, de->d_name);
		else
			r = strv_extend(&k->sys_builtin, de->d_name);
	}
	closedir(dir);
	strv_sort(k->loaded);
	strv_sort(k->sys_builtin);
	return r;
}

int kernel_modules_read(int rootfd, KernelModulesFlags flags, KernelModules **ret) {
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL;
	_cleanup_free_ char *path = NULL;
	int r;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->rootfd = rootfd >= 0 ? fcntl(rootfd, F_DUPFD_CLOEXEC, 3) : -EBADF;
	r = sys_module_read(k, flags & KERNEL_MODULES_INITSTATE);
	if (r < 0)
		return r;
	r = read_line_at(k->rootfd, "proc/sys/kernel/osrelease", &k->release);
	if (r == -ENOMEM)
		return r;
	if (k->release &&
	    (strchr(k->release, '/') || streq(k->release, "..") || streq(k->release, ".")))
		k->release = mfree(k->release);
	if (k->release) {
		if (asprintf(&path, "lib/modules/%s/modules.builtin", k->release) < 0)
			return -ENOMEM;
		r = module_list_read(k->rootfd, path, &k->builtin, NULL);
		if (r == -ENOMEM)
			return r;
		k->builtin_read = r >= 0;
		path = mfree(path);
		if (flags & KERNEL_MODULES_DEP) {
			if (asprintf(&path, "lib/modules/%s/modules.dep", k->release) < 0)
				return -ENOMEM;
			r = module_list_read(k->rootfd, path, &k->available, &k->out_of_tree);
			if (r == -ENOMEM)
				return r;
			k->dep_read = r >= 0;
		}
	}
	if ((flags & KERNEL_MODULES_CONFIG) || !k->builtin_read) {
		r = kernel_config_read(k->rootfd, k->release, &k->config);
		if (r == -ENOMEM)
			return r;
	}
	*ret = TAKE_PTR(k);
	return 0;
}

static bool object_exists(const KernelModules *k, const char *path) {
	struct stat st;

	return fstatat(k->rootfd, path, &st, 0) >= 0;
}

/* What was looked at, for a module nothing could tell about. */
static int unknown_evidence(const KernelModules *k, const ModuleFacts *f, char **ret) {
	_cleanup_free_ char *objects = NULL;
	const char *rel = k->release ? k->release : "<release>";

	for (size_t i = 0; f && i < ELEMENTSOF(f->objects) && f->objects[i]; i++) {
		char *o;

		if (asprintf(&o, "%s, /%s (missing)", strempty(objects), f->objects[i]) < 0)
			return -ENOMEM;
		free(objects);
		objects = o;
	}
	if (asprintf(ret, "looked at /sys/module (%s), /lib/modules/%s/modules.builtin (%s), %s%s",
		     k->sys_module ? "not there" : "cannot be read", rel,
		     k->builtin_read ? "not in it" : "cannot be read",
		     !f		 ? "no kernel option known for it"
		     : k->config ? "the kernel configuration (says nothing of it)"
				 : "/proc/config.gz and /boot/config-* (none)",
		     strempty(objects)) < 0)
		return -ENOMEM;
	return 0;
}

int kernel_module_presence(const KernelModules *k, const char *module, ModulePresence *ret,
			   char **ret_evidence) {
	_cleanup_free_ char *name = NULL, *evidence = NULL;
	const ModuleFacts *f;
	ModulePresence p = MODULE_UNKNOWN;
	char value = 0, required = 'y';
	int r = 0;

	name = strdup(module);
	if (!name)
		return -ENOMEM;
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	f = facts_find(name);
	if (f && k->config) {
		value = kernel_config_get(k->config, f->option);
		if (f->requires)
			required = kernel_config_get(k->config, f->requires);
	}

	if (strv_contains(k->loaded, name)) {
		p = MODULE_LOADED;
		r = asprintf(&evidence, "/sys/module/%s/initstate", name);
	} else if (strv_contains(k->sys_builtin, name)) {
		p = MODULE_BUILTIN;
		r = asprintf(&evidence, "/sys/module/%s without initstate", name);
	} else if (strv_contains(k->builtin, name)) {
		p = MODULE_BUILTIN;
		r = asprintf(&evidence, "/lib/modules/%s/modules.builtin", k->release);
	} else if (value == 'y' && required == 'y') {
		p = MODULE_BUILTIN;
		r = asprintf(&evidence, "%s=y in %s", f->option, k->config->source);
	}
	for (size_t i = 0; p == MODULE_UNKNOWN && f && i < ELEMENTSOF(f->objects) && f->objects[i];
	     i++)
		if (object_exists(k, f->objects[i])) {
			/* there, and no /sys/module entry of a loaded module: built in */
			p = k->sys_module ? MODULE_BUILTIN : MODULE_LOADED;
			r = asprintf(&evidence, "/%s exists%s", f->objects[i],
				     k->sys_module ? ", and no loaded module makes it" : "");
		}
	if (p != MODULE_UNKNOWN)
		;
	else if (strv_contains(k->available, name)) {
		p = MODULE_AVAILABLE;
		r = asprintf(&evidence, "/lib/modules/%s/modules.dep", k->release);
	} else if (value == 'm' && required == 'y' && k->dep_read) {
		/* built as a module whose file is not installed (Ubuntu's linux-modules-extra) */
		p = MODULE_ABSENT;
		r = asprintf(&evidence,
			     "%s=m in %s, but not in /lib/modules/%s/modules.dep: its "
			     "file is not installed",
			     f->option, k->config->source, k->release);
	} else if (value == 'm' && required == 'y') {
		p = MODULE_AVAILABLE;
		r = asprintf(&evidence,
			     "%s=m in %s, and no /lib/modules/%s/modules.dep to load it from",
			     f->option, k->config->source, k->release ? k->release : "<release>");
	} else if (value) {
		p = MODULE_ABSENT;
		r = asprintf(&evidence, "%s is not set in %s",
			     required != 'y' ? f->requires : f->option, k->config->source);
	} else if (k->dep_read && k->builtin_read) {
		p = MODULE_ABSENT;
		r = asprintf(&evidence, "neither in modules.dep nor in modules.builtin of %s",
			     k->release);
	} else
		r = unknown_evidence(k, f, &evidence);
	if (r < 0) {
		evidence = NULL; /* asprintf() leaves it undefined */
		return -ENOMEM;
	}
	*ret = p;
	if (ret_evidence)
		*ret_evidence = TAKE_PTR(evidence);
	return 0;
}

int kernel_modules_present(const KernelModules *k, char ***ret) {
	_cleanup_strv_free_ char **l = NULL;
	int r;

	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	r = strv_extend_strv(&l, k->loaded, true);
	if (r >= 0)
		r = strv_extend_strv(&l, k->sys_builtin, true);
	if (r >= 0)
		r = strv_extend_strv(&l, k->builtin, true);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(module_facts); i++) {
		ModulePresence p;

		if (strv_contains(l, module_facts[i].name))
			continue;
		r = kernel_module_presence(k, module_facts[i].name, &p, NULL);
		if (r >= 0 && (p == MODULE_LOADED || p == MODULE_BUILTIN))
			r = strv_extend(&l, module_facts[i].name);
	}
	if (r < 0)
		return r;
	strv_sort(l);
	*ret = TAKE_PTR(l);
	return 0;
}
