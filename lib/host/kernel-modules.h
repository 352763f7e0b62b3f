/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether the running kernel has a module, and how: built in, loaded, loadable, absent, or
 * unknown, with the evidence that said so. Read from more than /lib/modules, which containers,
 * minimal VMs and cloud images without a modules package do not have: /sys/module, the
 * kernel's configuration (/proc/config.gz, /boot/config-<release>) and the objects a module
 * makes when it starts (/sys/class/infiniband_verbs/abi_version for ib_uverbs, the rdma_cm misc
 * device for rdma_ucm). The planner (modules:) and preflight (kernel.module) read the same. */

#include "kernel-config.h"
#include "macro.h"

typedef enum ModulePresence {
	MODULE_UNKNOWN,	  /* nothing that was looked at could tell */
	MODULE_ABSENT,	  /* this kernel does not have it */
	MODULE_AVAILABLE, /* a loadable module, not loaded */
	MODULE_LOADED,	  /* a module, loaded */
	MODULE_BUILTIN,	  /* built into the kernel */
} ModulePresence;

const char *module_presence_to_string(ModulePresence p) _const_;

/* What the evidence is read from, once for all the modules asked about. */
typedef struct KernelModules {
	int rootfd;	    /* a dup of the root's fd, or -EBADF */
	char *release;	    /* <root>/proc/sys/kernel/osrelease, NULL if unreadable */
	bool sys_module;    /* <root>/sys/module could be read */
	char **loaded;	    /* /sys/module entries with initstate (or all: see the flags) */
	char **sys_builtin; /* /sys/module entries without initstate (built in), sorted */
	bool dep_read, builtin_read;
	char **available;     /* modules.dep, as module names */
	char **builtin;	      /* modules.builtin */
	char **out_of_tree;   /* modules.dep entries outside kernel/ (updates/, extra/) */
	KernelConfig *config; /* NULL when none could be read */
} KernelModules;

KernelModules *kernel_modules_free(KernelModules *k);
DEFINE_TRIVIAL_CLEANUP_FUNC(KernelModules *, kernel_modules_free)

typedef enum KernelModulesFlags {
	/* modules.dep too (which modules could be loaded; ~6,000 lines): preflight's question,
	 * not the planner's */
	KERNEL_MODULES_DEP = 1 << 0,
	/* the kernel configuration even where modules.builtin was read (which then already says
	 * what is built in): preflight reads everything, the planner decompresses /proc/config.gz
	 * only on hosts without /lib/modules */
	KERNEL_MODULES_CONFIG = 1 << 1,
	/* which /sys/module entries are built in (no initstate): one faccessat() per entry,
	 * preflight's question; without it every entry counts as loaded, which is all the planner
	 * asks on each reconcile (is it there?) */
	KERNEL_MODULES_INITSTATE = 1 << 2,
	KERNEL_MODULES_ALL = KERNEL_MODULES_DEP | KERNEL_MODULES_CONFIG | KERNEL_MODULES_INITSTATE,
} KernelModulesFlags;

/* Read the evidence under rootfd (dup'ed; "/" for this host). Whatever cannot be read is left
 * empty and said so by kernel_module_presence(). Returns 0 or -ENOMEM. */
int kernel_modules_read(int rootfd, KernelModulesFlags flags, KernelModules **ret);

/* Whether the kernel has module (its name with _ or -), and in *ret_evidence (allocated) what
 * said so, e.g. "CONFIG_INFINIBAND_USER_ACCESS=y in /proc/config.gz" or, for MODULE_UNKNOWN,
 * what was looked at. Returns 0 or -ENOMEM. */
int kernel_module_presence(const KernelModules *k, const char *module, ModulePresence *ret,
			   char **ret_evidence);

/* The kernel option that builds a module rdmad knows ("CONFIG_RDMA_RXE" for rdma_rxe), NULL for
 * another. */
const char *kernel_module_config_option(const char *module) _pure_;

/* Every module the kernel has now, loaded or built in, as far as the evidence says: /sys/module,
 * modules.builtin, and the modules rdmad knows that the configuration or their objects show.
 * Sorted, no duplicates. Returns 0 or -ENOMEM. */
int kernel_modules_present(const KernelModules *k, char ***ret);
