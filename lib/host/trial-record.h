/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's record of a pending trial (`rdmactl try`, issue 45): <state dir>/trial/record holds the
 * trial's files (their names and contents: rdmad.service cannot read the caller's /tmp or /home)
 * and, for every kernel object the trial's plan writes, the value it had when the trial began,
 * read live, in the profile's own words ("v2", "106", "true"). Written atomically (temp file,
 * fsync, rename) before the trial writes anything; its presence at rdmad's start means a trial
 * was pending when rdmad stopped, and is rolled back. The state dir is under /run
 * (RuntimeDirectoryPreserve=yes): it survives a restart of rdmad, not a reboot, which resets the
 * kernel objects too.
 *
 *   rdmad-trial 1
 *   started USEC                (CLOCK_REALTIME)
 *   timeout USEC
 *   file NAME SIZE              then SIZE bytes of content and a newline
 *   object LINK NETDEV KEY VALUE   NETDEV "-" when none; VALUE the rest of the line
 *   end
 *
 * A record without its "end" line, or with anything else out of place, is torn: -EBADMSG. */

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

typedef struct TrialFile {
	char *name; /* "50-tos.yaml": a basename */
	char *content;
} TrialFile;

typedef struct TrialObject {
	char *link;   /* "rxe0/1" */
	char *netdev; /* NULL: none */
	Key key;
	char *value; /* before the trial, as a profile writes it */
} TrialObject;

typedef struct TrialRecord {
	uint64_t started_usec; /* CLOCK_REALTIME */
	uint64_t timeout_usec;
	TrialFile *files;
	size_t n_files;
	TrialObject *objects;
	size_t n_objects;
} TrialRecord;

void trial_record_done(TrialRecord *r);
int trial_record_add_file(TrialRecord *r, const char *name, const char *content);
int trial_record_add_object(TrialRecord *r, const char *link, const char *netdev, Key key,
			    const char *value);
/* A file name a trial may carry: a basename ending in .yaml or .yml, no '/', no leading '.',
 * no whitespace or control characters. */
bool trial_file_name_valid(const char *name) _pure_;

/* The record as text (pure). -EINVAL for a name or value that would not read back. */
int trial_record_format(const TrialRecord *r, char **ret);
/* Text back to a record (pure): -EBADMSG for a torn or foreign one. */
int trial_record_parse(const char *text, size_t size, TrialRecord *ret);

/* <state dir>/trial/record, written atomically (the folder made when needed). */
int trial_record_write(const char *state_dir, const TrialRecord *r);
/* -ENOENT: no trial pending; -EBADMSG: torn. */
int trial_record_read(const char *state_dir, TrialRecord *ret);
/* Gone (none there is fine). */
int trial_record_remove(const char *state_dir);
/* A torn record set aside as record.torn, so that it is seen once, not at every start. */
int trial_record_set_aside(const char *state_dir);
/* The outcome of the last trial that ended (JSON, as rdmad's LastTrial property says it), kept in
 * <state dir>/trial/last so that `rdmactl status` says it after rdmad restarted too. */
int trial_last_write(const char *state_dir, const char *json);
/* -ENOENT: none. */
int trial_last_read(const char *state_dir, char **ret);

/* A confirmed trial's file made an ordinary profile: dir/name written as the record is (a
 * temporary file, fsync, rename, fsync of dir). -EINVAL for a name a trial may not carry. */
int trial_file_install(const char *dir, const char *name, const char *content);

/* The profile that puts back what r recorded (pure): one YAML document per link, matching its
 * device and port, declaring each recorded key with the value it had. Applied as the top layer
 * for one reconcile, it writes back only what differs, through the same backends (and their
 * guards) as any profile. -EINVAL for a link that is not DEVICE/PORT. */
int trial_record_rollback_yaml(const TrialRecord *r, char **ret);
