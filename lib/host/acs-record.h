/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's record of the ACS Control bits it cleared on a PCIe port (pci.upstream-acs: off):
 * <state dir>/acs/PORT holds "cleared 0xHHHH\n", the bits that were set there before rdmad's
 * first write, so that pci.upstream-acs: on puts back those and only those (not what the
 * kernel, firmware or an administrator's setpci left clear). Written by apply-function.c
 * before it writes the port, removed once they are set again; read by the observer
 * (host_records_observe()) for the planner. The state directory is under /run: a reboot, which
 * sets ACS again as the kernel enumerates, forgets them with it. */

#include <stddef.h>
#include <stdint.h>

typedef struct AcsRecord {
	char *port;	  /* "0000:02:00.0" */
	uint16_t cleared; /* the ACS Control bits rdmad cleared there */
} AcsRecord;

/* The bits recorded for port: -ENOENT if there is no record, -EBADMSG if it does not parse,
 * -EINVAL if port is no PCI address. */
int acs_record_read(const char *state_dir, const char *port, uint16_t *ret);
/* Record cleared for port atomically (temp + rename), making <state dir>/acs if needed;
 * cleared 0 removes the record (none there is fine). */
int acs_record_write(const char *state_dir, const char *port, uint16_t cleared);
/* Every record, sorted by port; one that does not parse is skipped. No directory: none. */
int acs_records_list(const char *state_dir, AcsRecord **ret, size_t *ret_n);
void acs_records_free(AcsRecord *l, size_t n);
