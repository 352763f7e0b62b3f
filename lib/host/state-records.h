/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A folder of records under rdmad's state directory (<state dir>/SUBDIR/NAME, one file a
 * record), read back as one array sorted by the caller's compare. What a record holds and how
 * it is written is its owner's: acs-record.c, rail-record.c, soft-device-record.c. */

#include <stddef.h>

/* Reads the record NAME (a file of dirfd) into elem, which it owns on success. 0; -ENOMEM ends
 * the listing; any other error passes over the file (not a record of this kind, or one left by
 * another version). */
typedef int (*state_record_load_t)(int dirfd, const char *name, void *elem);
typedef void (*state_record_done_t)(void *elem);

/* Every record of <state dir>/subdir, each size bytes, loaded by load and sorted by compare.
 * Names starting with '.' are passed over (., .., the temporary files of a write). No folder:
 * no record. On failure what was loaded is let go with done. */
int state_records_list(const char *state_dir, const char *subdir, size_t size,
		       state_record_load_t load, state_record_done_t done,
		       int (*compare)(const void *, const void *), void **ret, size_t *ret_n);
