/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe follows each link's ToS (issue 45), the part without verbs: where a link's ToS is
 * read, which reading wins, and what a change does to each path (prober-tos.c does it).
 *
 * rdma_cm takes a device port's configfs default_roce_tos when it resolves a route, and a path
 * resolved before a change keeps the old class. rdmad publishes the ToS it observed (RoceFacts,
 * with PropertiesChanged) only when it observes again; a write by hand to configfs raises no
 * event at all. So configfs is read: it is what rdma_cm uses, and the prober reads it before its
 * probes go out, each tick, and at once when rdmad's RoceFacts change. rdmad's ToS stands in only
 * where configfs cannot be read (not mounted, or no group made for the device: rdma_cm then
 * uses the value it had, which nobody can read). */

#include <stdint.h>

#include "probe-wire.h"

#define PROBE_RDMA_CM_CONFIGFS "/sys/kernel/config/rdma_cm"

typedef enum ProbeTosSource {
	PROBE_TOS_NONE,	    /* not known: the paths keep rdma_cm's default */
	PROBE_TOS_CONFIGFS, /* the port's default_roce_tos */
	PROBE_TOS_RDMAD,    /* rdmad's RoceFacts "tos" */
	_PROBE_TOS_SOURCE_MAX,
	_PROBE_TOS_SOURCE_INVALID = -22, /* -EINVAL */
} ProbeTosSource;

const char *probe_tos_source_to_string(ProbeTosSource s);
ProbeTosSource probe_tos_source_from_string(const char *s);

/* root/DEVICE/ports/PORT/default_roce_tos (root: PROBE_RDMA_CM_CONFIGFS, a directory of the
 * same shape in tests): its ToS byte, 0..255; -errno when it cannot be read (-ENOENT: no group
 * for the device), -EINVAL when it holds anything else. */
int probe_tos_read(const char *root, const char *device, unsigned port, uint8_t *ret);

/* A link's ToS from what could be read: configfs's when configfs_r is 0, else rdmad's (facts'
 * PROBE_KNOWN_TOS), else none (-ENODATA). The ToS, 0..255, and where it came from. */
int probe_tos_choose(int configfs_r, uint8_t configfs_tos, const ProbeLinkSettings *facts,
		     ProbeTosSource *ret_source);

/* Where a path is when its link's ToS changes. */
typedef enum PathPhase {
	PATH_PHASE_STOPPED, /* failed, or not made yet: waits for its retry */
	PATH_PHASE_SETUP,   /* resolving the address and route, or the SIDR exchange */
	PATH_PHASE_READY,   /* probing */
} PathPhase;

/* What a path does when its link's ToS is link_tos and its own is path_tos (-1 for either: not
 * known, or rdma_cm's default). None of these is a failure, and none forgets or counts lost a
 * probe in flight:
 *   KEEP    the same class, or the link's not known (the path keeps the class it has);
 *   RETAG   a ready path's requests carry the new class from the next one on (a new address
 *           handle): nothing resolves, so a move to a class the fabric carries loses nothing;
 *           one it drops loses the next probes, and the path is made again after SILENT_MAX
 *           of them, with a setup that carries the class too and fails at connect;
 *   REMAKE  a path being set up is set up again with the new class (its setup's time starts
 *           over; not an error: no probe went out yet);
 *   RETRY   a stopped path (it may have failed on the old class) is made again at once. */
typedef enum PathTosAction {
	PATH_TOS_KEEP,
	PATH_TOS_RETAG,
	PATH_TOS_REMAKE,
	PATH_TOS_RETRY,
	_PATH_TOS_ACTION_MAX,
	_PATH_TOS_ACTION_INVALID = -22, /* -EINVAL */
} PathTosAction;

const char *path_tos_action_to_string(PathTosAction a);
PathTosAction path_tos_action_from_string(const char *s);
PathTosAction path_tos_action(PathPhase phase, int path_tos, int link_tos);
