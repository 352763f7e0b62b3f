/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A link's ToS as rdma_cm uses it (configfs), or as rdmad published it, and what its change does
 * to a path (probe-tos.h). Pure but for one read of configfs, under a root given. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "probe-tos.h"
#include "sysfs-value.h"

static const char *const source_table[_PROBE_TOS_SOURCE_MAX] = {
	[PROBE_TOS_NONE] = "none",
	[PROBE_TOS_CONFIGFS] = "configfs",
	[PROBE_TOS_RDMAD] = "rdmad",
};

const char *probe_tos_source_to_string(ProbeTosSource s) {
	return s >= 0 && s < _PROBE_TOS_SOURCE_MAX ? source_table[s] : NULL;
}

ProbeTosSource probe_tos_source_from_string(const char *s) {
	for (int i = 0; s && i < _PROBE_TOS_SOURCE_MAX; i++)
		if (streq(s, source_table[i]))
			return (ProbeTosSource) i;
	return _PROBE_TOS_SOURCE_INVALID;
}

static const char *const action_table[_PATH_TOS_ACTION_MAX] = {
	[PATH_TOS_KEEP] = "keep",
	[PATH_TOS_RETAG] = "retag",
	[PATH_TOS_REMAKE] = "remake",
	[PATH_TOS_RETRY] = "retry",
};

const char *path_tos_action_to_string(PathTosAction a) {
	return a >= 0 && a < _PATH_TOS_ACTION_MAX ? action_table[a] : NULL;
}

PathTosAction path_tos_action_from_string(const char *s) {
	for (int i = 0; s && i < _PATH_TOS_ACTION_MAX; i++)
		if (streq(s, action_table[i]))
			return (PathTosAction) i;
	return _PATH_TOS_ACTION_INVALID;
}

int probe_tos_read(const char *root, const char *device, unsigned port, uint8_t *ret) {
	char path[PATH_MAX], buf[SYSFS_VALUE_MAX];
	int64_t v;
	ssize_t n;
	int r;

	if (!device || !*device || strchr(device, '/') || streq(device, ".") || streq(device, ".."))
		return -EINVAL;
	r = snprintf(path, sizeof(path), "%s/%s/ports/%u/default_roce_tos", root, device, port);
	if (r < 0 || (size_t) r >= sizeof(path))
		return -ENAMETOOLONG;
	n = sysfs_value_read_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n < 0)
		return n == -EFBIG ? -EINVAL : (int) n;
	r = sysfs_int_parse(buf, (size_t) n, 0, UINT8_MAX, &v);
	if (r < 0)
		return -EINVAL;
	*ret = (uint8_t) v;
	return 0;
}

int probe_tos_choose(int configfs_r, uint8_t configfs_tos, const ProbeLinkSettings *facts,
		     ProbeTosSource *ret_source) {
	if (configfs_r >= 0) {
		*ret_source = PROBE_TOS_CONFIGFS;
		return configfs_tos;
	}
	if (facts && (facts->known & PROBE_KNOWN_TOS)) {
		*ret_source = PROBE_TOS_RDMAD;
		return facts->tos;
	}
	return -ENODATA;
}

PathTosAction path_tos_action(PathPhase phase, int path_tos, int link_tos) {
	if (link_tos < 0 || link_tos == path_tos)
		return PATH_TOS_KEEP;
	switch (phase) {
	case PATH_PHASE_READY:
		return PATH_TOS_RETAG;
	case PATH_PHASE_SETUP:
		return PATH_TOS_REMAKE;
	case PATH_PHASE_STOPPED:
		return PATH_TOS_RETRY;
	}
	return PATH_TOS_KEEP;
}
