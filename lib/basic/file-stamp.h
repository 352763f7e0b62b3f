/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What a set of files looked like at one moment (identity, size, times), to tell whether they
 * changed while being read: a profile rewritten in place by an editor (truncate, then write)
 * must not be taken half-written. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "macro.h"

typedef struct FileStamp {
	char *path;
	int error; /* stat()'s negative errno (a file gone meanwhile), else 0 */
	dev_t dev;
	ino_t ino;
	mode_t mode;
	off_t size;
	uint64_t mtime_nsec, ctime_nsec; /* CLOCK_REALTIME */
} FileStamp;

typedef struct FileStamps {
	FileStamp *items;
	size_t n;
} FileStamps;

/* stat() each of files (following symlinks: a mask's target counts). */
int file_stamps_take(char *const *files, FileStamps *ret);
/* The same for every entry of dirs (under root) whose name ends in one of suffixes, sorted by
 * path: masked and invalid files included, a missing dir is empty. */
int file_stamps_take_dirs(const char *root, const char *const *dirs, const char *const *suffixes,
			  FileStamps *ret);
void file_stamps_done(FileStamps *s);
/* Whether a and b list the same files, unchanged. Otherwise *ret_path names the first one that
 * differs (appeared, went, or changed), pointing into a or b. */
bool file_stamps_equal(const FileStamps *a, const FileStamps *b, const char **ret_path);
/* The file changed last (its mtime or ctime, whichever is newer), and when; -ENOENT if none. */
int file_stamps_newest(const FileStamps *s, const char **ret_path, uint64_t *ret_nsec);
