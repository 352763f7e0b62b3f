/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's record of the rail routing it set up on a netdev (rail.h): <state dir>/rails/NETDEV
 * holds a "table N" line for each table rdmad put rules and routes in for it, and a
 * "sysctl NAME VALUE" line for each sysctl rdmad changed, with the value it had before. Written
 * by apply-rail.c before it changes anything; read by the observer (host_records_observe())
 * so that the planner can take away what no profile declares any more, and put the sysctls
 * back. */

#include <stddef.h>
#include <stdint.h>

#include "rail.h"

typedef struct RailRecord {
	char *netdev;
	uint32_t *tables;
	size_t n_tables;
	int saved[_RAIL_SYSCTL_MAX]; /* the value before rdmad's first write; -1: none */
} RailRecord;

/* An empty record of netdev (nothing saved). */
int rail_record_init(RailRecord *r, const char *netdev);
/* -ENOENT if there is none, -EBADMSG if it does not parse. */
int rail_record_read(const char *state_dir, const char *netdev, RailRecord *ret);
/* Write it atomically (temp + rename), making <state dir>/rails if needed; a record that holds
 * nothing (no table, no sysctl) is removed instead. */
int rail_record_write(const char *state_dir, const RailRecord *r);
/* Every record, sorted by netdev; one that does not parse is skipped. No directory: none. */
int rail_records_list(const char *state_dir, RailRecord **ret, size_t *ret_n);

bool rail_record_has_table(const RailRecord *r, uint32_t table) _pure_;
int rail_record_add_table(RailRecord *r, uint32_t table);
void rail_record_remove_table(RailRecord *r, uint32_t table);

void rail_record_done(RailRecord *r);
void rail_records_free(RailRecord *r, size_t n);
