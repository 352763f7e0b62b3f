/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The per-link environment files rdmad publishes for the jobs that run on RDMA
 * (<rundir>/rdmad/env/<dev>-<port>.env): which device, port, netdev and GID to use, in the
 * variables NCCL, UCX and scripts read. Usable as a unit's EnvironmentFile= and by `source`:
 * one NAME=value per line, values without quotes, spaces or shell metacharacters (device and
 * netdev names are validated before they get here). */

#include <stdint.h>

#include "macro.h"

typedef struct EnvLink {
	const char *device;
	uint32_t port;
	const char *netdev; /* may be NULL */
	uint32_t gid_index;
	uint8_t gid[16];
	/* the GPUs nearest to it, PCI addresses comma-joined (topology.h); NULL: none */
	const char *nearest_gpus;
} EnvLink;

/* "mlx5_0-1.env" */
int env_file_name(const EnvLink *l, char **ret);
/* The file's text. */
int env_file_format(const EnvLink *l, char **ret);

/* Make dir/name hold text: written to a temporary file in dir (0644) and renamed over it, so a
 * reader sees the old file or the new one, never a part; not written when it already holds
 * text. Returns 1 when written, 0 when it was already so, -errno. */
int env_file_write(const char *dir, const char *name, const char *text);
/* Remove the *.env files of dir not named in keep (NULL-terminated, may be NULL): the links that
 * went away or are no longer managed. Returns how many were removed, or -errno. */
int env_dir_prune(const char *dir, char *const *keep);
