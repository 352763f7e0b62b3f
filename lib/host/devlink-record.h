/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's record of a devlink device's driverinit parameters that it wrote and that are not in
 * effect yet: devlink reports the driverinit value, never the one the driver runs with, so only
 * rdmad can say "pending until reload". <state dir>/devlink/BUS+DEV holds
 *
 *     ifindex 7                    the netdev of the device when it was written
 *     pending max_macs=64          one line a parameter written, not yet in effect
 *     failed-for max_macs=64       the pending set the last reload failed for, and why
 *     failed User forbid the reload for testing purposes
 *
 * A reload re-creates the device's ports: a netdev of another ifindex says a reload happened
 * since (rdmad's, or one by hand), and the record no longer holds (devlink_record_valid()).
 * Written by apply-devlink.c, read by the observer (host_records_observe()) for the planner.
 * Under /run: a reboot loads the driver with its defaults, and forgets the record with it. */

#include <stdbool.h>
#include <stddef.h>

#include "macro.h"

typedef struct DevlinkRecord {
	char *function; /* "netdevsim/netdevsim1" */
	int ifindex;
	char **pending;	  /* "max_macs=64", sorted */
	char *failed_for; /* the pending set ("max_macs=64 test1=false") a reload failed for */
	char *failed;	  /* its error, NULL if the last reload did not fail */
} DevlinkRecord;

void devlink_record_done(DevlinkRecord *r);
/* The record of function: -ENOENT if none, -EBADMSG if it does not parse. */
int devlink_record_read(const char *state_dir, const char *function, DevlinkRecord *ret);
/* Write rec atomically (temp + rename), making <state dir>/devlink if needed; a record with
 * nothing pending and no failure removes the file. */
int devlink_record_write(const char *state_dir, const DevlinkRecord *rec);
int devlink_record_remove(const char *state_dir, const char *function);
/* Every record, sorted by function; one that does not parse is skipped. */
int devlink_records_list(const char *state_dir, DevlinkRecord **ret, size_t *ret_n);
void devlink_records_free(DevlinkRecord *l, size_t n);
/* Whether the record still holds for the device whose netdev has ifindex now. */
bool devlink_record_valid(const DevlinkRecord *rec, int ifindex) _pure_;
/* Whether pending lists a value for name. */
bool devlink_record_pending(const DevlinkRecord *rec, const char *name) _pure_;
