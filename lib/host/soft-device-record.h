/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's record of the soft RDMA devices (rxe, siw) it created: <state dir>/links/NAME holds
 * "TYPE NETDEV\n". Only a recorded device, still on the netdev recorded, is ever deleted: one
 * rdmad did not create is never touched. Written by apply-rdmanl.c when it creates a device,
 * removed when the device is gone; read by the observer (host_records_observe()) so that the
 * planner knows which devices are rdmad's. */

#include <stddef.h>

#include "rdma-types.h"

typedef struct SoftDeviceRecord {
	char *name;
	SoftDeviceType type;
	char *netdev;
} SoftDeviceRecord;

/* Write the record of name atomically (temp + rename), making <state dir>/links if needed. */
int soft_device_record_write(const char *state_dir, const char *name, SoftDeviceType type,
			     const char *netdev);
/* -ENOENT if there is none, -EBADMSG if it does not parse. */
int soft_device_record_read(const char *state_dir, const char *name, SoftDeviceRecord *ret);
/* Gone already is fine. */
int soft_device_record_remove(const char *state_dir, const char *name);
/* Every record, sorted by name; one that does not parse is skipped. No directory: none. */
int soft_device_records_list(const char *state_dir, SoftDeviceRecord **ret, size_t *ret_n);

void soft_device_record_done(SoftDeviceRecord *r);
void soft_device_records_free(SoftDeviceRecord *r, size_t n);
