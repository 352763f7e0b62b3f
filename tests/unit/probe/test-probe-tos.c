/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* probe/probe-tos.c: a link's ToS read from a configfs tree of rdma_cm's shape, which reading
 * wins (configfs, else rdmad's RoceFacts, else none), and what a change does to a path in each
 * phase: never a failure, never a probe forgotten. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe-tos.h"
#include "tests.h"

TEST(tables) {
	for (int i = 0; i < _PROBE_TOS_SOURCE_MAX; i++)
		CHECK_INTEQ(probe_tos_source_from_string(probe_tos_source_to_string(i)), i);
	for (int i = 0; i < _PATH_TOS_ACTION_MAX; i++)
		CHECK_INTEQ(path_tos_action_from_string(path_tos_action_to_string(i)), i);
	CHECK(probe_tos_source_to_string(_PROBE_TOS_SOURCE_MAX) == NULL);
	CHECK(probe_tos_source_to_string(_PROBE_TOS_SOURCE_INVALID) == NULL);
	CHECK_INTEQ(probe_tos_source_from_string("sysfs"), _PROBE_TOS_SOURCE_INVALID);
	CHECK_INTEQ(path_tos_action_from_string(NULL), _PATH_TOS_ACTION_INVALID);
}

static void put(const char *dir, const char *device, unsigned port, const char *text) {
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, device);
	(void) mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/ports", dir, device);
	(void) mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/ports/%u", dir, device, port);
	(void) mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/ports/%u/default_roce_tos", dir, device, port);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void drop(const char *dir, const char *device, unsigned port) {
	char path[512];

	snprintf(path, sizeof(path), "%s/%s/ports/%u/default_roce_tos", dir, device, port);
	(void) unlink(path);
	snprintf(path, sizeof(path), "%s/%s/ports/%u", dir, device, port);
	(void) rmdir(path);
	snprintf(path, sizeof(path), "%s/%s/ports", dir, device);
	(void) rmdir(path);
	snprintf(path, sizeof(path), "%s/%s", dir, device);
	(void) rmdir(path);
}

TEST(read) {
	char dir[] = "/tmp/test-probe-tos.XXXXXX";
	uint8_t v = 7;

	CHECK(mkdtemp(dir) != NULL);
	/* as the kernel prints it: "%u\n" */
	put(dir, "rxe0", 1, "184\n");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), 0);
	CHECK_INTEQ(v, 184);
	put(dir, "rxe0", 1, "0\n");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), 0);
	CHECK_INTEQ(v, 0);
	put(dir, "rxe0", 1, "255");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), 0);
	CHECK_INTEQ(v, 255);
	/* another port, another device: no group made for them */
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 2, &v), -ENOENT);
	CHECK_INTEQ(probe_tos_read(dir, "mlx5_0", 1, &v), -ENOENT);
	/* what the kernel never prints: refused, *ret untouched */
	v = 7;
	put(dir, "rxe0", 1, "256\n");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), -EINVAL);
	put(dir, "rxe0", 1, "-1\n");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), -EINVAL);
	put(dir, "rxe0", 1, "0x10\n");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), -EINVAL);
	put(dir, "rxe0", 1, "");
	CHECK_INTEQ(probe_tos_read(dir, "rxe0", 1, &v), -EINVAL);
	CHECK_INTEQ(v, 7);
	/* a name that would leave the tree */
	CHECK_INTEQ(probe_tos_read(dir, "../rxe0", 1, &v), -EINVAL);
	CHECK_INTEQ(probe_tos_read(dir, "..", 1, &v), -EINVAL);
	CHECK_INTEQ(probe_tos_read(dir, "", 1, &v), -EINVAL);
	CHECK_INTEQ(probe_tos_read("/nonexistent-configfs", "rxe0", 1, &v), -ENOENT);
	drop(dir, "rxe0", 1);
	CHECK_INTEQ(rmdir(dir), 0);
}

TEST(choose) {
	ProbeLinkSettings facts = { .known = PROBE_KNOWN_TOS, .tos = 96 }, none = { 0 };
	ProbeTosSource s = _PROBE_TOS_SOURCE_INVALID;

	/* configfs is what rdma_cm resolves with: it wins over rdmad's last observation */
	CHECK_INTEQ(probe_tos_choose(0, 184, &facts, &s), 184);
	CHECK_INTEQ(s, PROBE_TOS_CONFIGFS);
	CHECK_INTEQ(probe_tos_choose(0, 0, &facts, &s), 0);
	CHECK_INTEQ(s, PROBE_TOS_CONFIGFS);
	/* no group, or no configfs: rdmad's */
	CHECK_INTEQ(probe_tos_choose(-ENOENT, 0, &facts, &s), 96);
	CHECK_INTEQ(s, PROBE_TOS_RDMAD);
	CHECK_INTEQ(probe_tos_choose(-EACCES, 184, &facts, &s), 96);
	/* neither: not known, s untouched */
	s = PROBE_TOS_CONFIGFS;
	CHECK_INTEQ(probe_tos_choose(-ENOENT, 0, &none, &s), -ENODATA);
	CHECK_INTEQ(probe_tos_choose(-ENOENT, 0, NULL, &s), -ENODATA);
	CHECK_INTEQ(s, PROBE_TOS_CONFIGFS);
	/* other facts known, not the ToS */
	none.known = PROBE_KNOWN_PFC | PROBE_KNOWN_PRIORITY;
	CHECK_INTEQ(probe_tos_choose(-ENOENT, 0, &none, &s), -ENODATA);
}

TEST(action) {
	static const struct {
		PathPhase phase;
		int path_tos, link_tos;
		PathTosAction want;
	} rows[] = {
		/* the same class, or the link's not known: nothing happens */
		{ PATH_PHASE_READY, 106, 106, PATH_TOS_KEEP },
		{ PATH_PHASE_READY, 106, -1, PATH_TOS_KEEP },
		{ PATH_PHASE_SETUP, -1, -1, PATH_TOS_KEEP },
		{ PATH_PHASE_STOPPED, 184, 184, PATH_TOS_KEEP },
		{ PATH_PHASE_STOPPED, 184, -1, PATH_TOS_KEEP },
		/* a ready path retagged, never set up again: nothing lost for a good move */
		{ PATH_PHASE_READY, 106, 184, PATH_TOS_RETAG },
		{ PATH_PHASE_READY, -1, 0, PATH_TOS_RETAG },
		{ PATH_PHASE_READY, 184, 0, PATH_TOS_RETAG },
		/* one being set up: again, with the class (no probe went out) */
		{ PATH_PHASE_SETUP, 184, 106, PATH_TOS_REMAKE },
		{ PATH_PHASE_SETUP, -1, 106, PATH_TOS_REMAKE },
		/* a stopped one (it failed on the class before): at once */
		{ PATH_PHASE_STOPPED, 184, 106, PATH_TOS_RETRY },
		{ PATH_PHASE_STOPPED, -1, 0, PATH_TOS_RETRY },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		printf("# %zu: phase %d, path %d, link %d\n", i, rows[i].phase, rows[i].path_tos,
		       rows[i].link_tos);
		CHECK_STREQ(path_tos_action_to_string(path_tos_action(
				    rows[i].phase, rows[i].path_tos, rows[i].link_tos)),
			    path_tos_action_to_string(rows[i].want));
	}
}

TESTS_MAIN(TEST_ENTRY(tables), TEST_ENTRY(read), TEST_ENTRY(choose), TEST_ENTRY(action))
