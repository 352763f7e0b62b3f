/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel modules: which are loaded or built in (kernel-modules.c reads the evidence). */
#include <stdio.h>
#include <sys/stat.h>

#include "host-internal.h"
#include "kernel-modules.h"
#include "strv.h"

/* What kernel-modules.c finds present: /sys/module, modules.builtin, and for the modules rdmad
 * knows, the kernel configuration and the objects they make (a host without /lib/modules). The
 * planner reads this, and preflight the same evidence, so that neither asks for a module load
 * of a module that is built in. */
int host_modules_observe(HostState *h, int rootfd) {
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL;
	int r;

	ModulePresence configfs;

	struct stat st;

	/* The configuration is read where /lib/modules is missing, or where /sys/kernel/config is
	 * not (configfs makes it when it starts): it tells whether the kernel has configfs. */
	r = kernel_modules_read(
		rootfd,
		fstatat(rootfd, "sys/kernel/config", &st, 0) < 0 ? KERNEL_MODULES_CONFIG : 0, &k);
	if (r < 0)
		return r;
	r = kernel_module_presence(k, "configfs", &configfs, NULL);
	if (r < 0)
		return r;
	h->configfs_absent = configfs == MODULE_ABSENT;
	return kernel_modules_present(k, &h->modules);
}

bool host_module_loaded(const HostState *h, const char *module) {
	char name[64];

	/* The kernel names /sys/module entries with underscores. */
	snprintf(name, sizeof(name), "%s", module);
	for (char *c = name; *c; c++)
		if (*c == '-')
			*c = '_';
	return strv_contains_sorted(h->modules, strv_length(h->modules), name);
}
