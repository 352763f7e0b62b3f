/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The per-link environment files: their name and text, a write that happens only when the
 * text changes (same inode otherwise), atomically (no temporary left), 0644 under any umask,
 * and the pruning of the files of links that went away. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env-file.h"
#include "fileio.h"
#include "macro.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static const EnvLink link0 = {
	.device = "mlx5_0",
	.port = 1,
	.netdev = "ens1f0np0",
	.gid_index = 3,
	.gid = { [10] = 0xff, [11] = 0xff, [12] = 192, [13] = 0, [14] = 2, [15] = 10 },
};

TEST(format) {
	_cleanup_free_ char *name = NULL, *text = NULL;

	CHECK(env_file_name(&link0, &name) == 0);
	CHECK_STREQ(name, "mlx5_0-1.env");
	CHECK(env_file_format(&link0, &text) == 0);
	CHECK_STREQ(text, "# rdmad: the GID jobs use on mlx5_0/1. Rewritten when it changes; do "
			  "not edit.\n"
			  "RDMA_DEVICE=mlx5_0\n"
			  "RDMA_PORT=1\n"
			  "RDMA_NETDEV=ens1f0np0\n"
			  "RDMA_GID_INDEX=3\n"
			  "RDMA_GID=0000:0000:0000:0000:0000:ffff:c000:020a\n"
			  "NCCL_IB_HCA==mlx5_0:1\n"
			  "NCCL_IB_GID_INDEX=3\n"
			  "UCX_NET_DEVICES=mlx5_0:1\n"
			  "UCX_IB_GID_INDEX=3\n");
}

/* On a GPU host: the GPUs nearest to the link, last (issue 27). */
TEST(format_nearest_gpus) {
	_cleanup_free_ char *text = NULL;
	EnvLink l = link0;
	const char *tail;

	l.nearest_gpus = "0000:13:00.0,0000:14:00.0";
	CHECK(env_file_format(&l, &text) == 0);
	tail = text ? strstr(text, "UCX_IB_GID_INDEX=3\n") : NULL;
	CHECK_STREQ(tail, "UCX_IB_GID_INDEX=3\nRDMA_NEAREST_GPUS=0000:13:00.0,0000:14:00.0\n");
}

TEST(write_and_prune) {
	char dir[] = "/tmp/rdmad-test-env-XXXXXX", path[256];
	_cleanup_free_ char *text = NULL, *read_back = NULL;
	EnvLink l = link0;
	struct stat a, b;
	mode_t old_umask = umask(0077);

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/mlx5_0-1.env", dir);
	CHECK(env_file_format(&l, &text) == 0);
	CHECK_INTEQ(env_file_write(dir, "mlx5_0-1.env", text), 1);
	CHECK(stat(path, &a) == 0);
	CHECK_INTEQ(a.st_mode & 07777, 0644); /* whatever the umask */
	CHECK_INTEQ(env_file_write(dir, "mlx5_0-1.env", text), 0); /* the same: not written */
	CHECK(stat(path, &b) == 0);
	CHECK(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec);

	/* another index: a new file renamed over the old one (another inode), no temporary */
	free(text);
	l.gid_index = 4;
	CHECK(env_file_format(&l, &text) == 0);
	CHECK_INTEQ(env_file_write(dir, "mlx5_0-1.env", text), 1);
	CHECK(stat(path, &b) == 0);
	CHECK(a.st_ino != b.st_ino);
	snprintf(path, sizeof(path), "%s/.mlx5_0-1.env.tmp", dir);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/mlx5_0-1.env", dir);
	CHECK(read_line_at(AT_FDCWD, path, &read_back) == 0); /* the first line */
	CHECK(strstr(text, read_back) == text);

	/* prune: only the *.env files not kept; other files stay */
	put_file(dir, "mlx5_1-1.env", "RDMA_DEVICE=mlx5_1\n");
	put_file(dir, "README", "not ours\n");
	CHECK_INTEQ(env_dir_prune(dir, (char *[]){ "mlx5_0-1.env", NULL }), 1);
	snprintf(path, sizeof(path), "%s/mlx5_1-1.env", dir);
	CHECK(access(path, F_OK) < 0);
	snprintf(path, sizeof(path), "%s/README", dir);
	CHECK(access(path, F_OK) == 0);
	CHECK_INTEQ(env_dir_prune(dir, NULL), 1); /* no link left: all of them */
	CHECK_INTEQ(env_dir_prune("/nonexistent-rdmad-env", NULL), 0);

	umask(old_umask);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

TESTS_MAIN(TEST_ENTRY(format), TEST_ENTRY(format_nearest_gpus), TEST_ENTRY(write_and_prune))
