/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The running kernel's build configuration, as the kernel or the distribution gives it:
 * /proc/config.gz (CONFIG_IKCONFIG_PROC) or /boot/config-<release>. Read only; the lines
 * "CONFIG_X=y", "CONFIG_X=m" and "# CONFIG_X is not set" are what matter here. */

#include <stddef.h>

#include "macro.h"

typedef struct KernelConfig {
	char *source;  /* where it was read: "/proc/config.gz" or "/boot/config-<release>" */
	char **values; /* "CONFIG_X=y", "CONFIG_X=m", "CONFIG_X=n" (not set), sorted */
} KernelConfig;

KernelConfig *kernel_config_free(KernelConfig *c);
DEFINE_TRIVIAL_CLEANUP_FUNC(KernelConfig *, kernel_config_free)

/* Parse a .config text of len bytes (no I/O): the tristate and bool options; strings and numbers
 * are skipped. Returns 0, -EBADMSG when not a single CONFIG_ line was found, -ENOMEM. */
int kernel_config_parse(const char *text, size_t len, const char *source, KernelConfig **ret);

/* The configuration of the kernel running under rootfd (release: its uname -r): the first of
 * <root>/proc/config.gz and <root>/boot/config-<release> that can be read and parsed. Returns 0,
 * -ENOENT when there is neither, -EBADMSG when what is there is not a kernel configuration,
 * -ENOMEM. */
int kernel_config_read(int rootfd, const char *release, KernelConfig **ret);

/* An option's value: 'y', 'm', or 'n' (set to n, "is not set", or not in the file at all,
 * which the kernel's own tools read the same way). */
char kernel_config_get(const KernelConfig *c, const char *option);
