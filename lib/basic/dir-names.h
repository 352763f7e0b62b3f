/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A directory's entry names, read a piece at a time. A sysfs directory of thousands of entries
 * (/sys/class/infiniband and /sys/class/net with 4,096 links) takes milliseconds to read whole,
 * more than the daemon may spend in one step of a reconcile (slice-source.h); one
 * getdents64() of DIR_NAMES_CHUNK bytes is some 200 names. Entries whose name begins with a
 * dot are left out. */

#include "macro.h"

#define DIR_NAMES_CHUNK (8 * 1024)

typedef struct DirNames DirNames;

/* A reader of the directory dirfd refers to, from its first entry (the caller keeps dirfd). */
int dir_names_new(int dirfd, DirNames **ret);
DirNames *dir_names_free(DirNames *d);
DEFINE_TRIVIAL_CLEANUP_FUNC(DirNames *, dir_names_free)

/* One read: 0 while entries remain, 1 when the directory is read, or -errno. */
int dir_names_step(DirNames *d);

/* The names read so far, sorted (an empty strv when none); the reader holds none after. */
int dir_names_take(DirNames *d, char ***ret);
