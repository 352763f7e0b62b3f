/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad's logging: to the journal with structured fields when systemd started us (so that
 * `journalctl RDMA_DEVICE=mlx5_0` works), else to stderr with <N> priority prefixes. */

#include <inttypes.h>
#include <stdint.h>
#include <syslog.h>

#include "macro.h"

/* Stable ids for the messages other tools look for (journalctl MESSAGE_ID=...). */
#define MESSAGE_ID_LINK_CONVERGED "6b1c0d8e2f7a4e5b9c3d1a0f4e8b7c21"
#define MESSAGE_ID_ACTION_FAILED  "c4f1e2a9b8d74c6e8a5f3b2d1e0c9a74"
/* A setting another agent keeps reverting: rdmad holds off (contest.h). */
#define MESSAGE_ID_SETTING_CONTESTED "02c831ddaed5422d8652b03042156eb2"
/* The GID index rdmad publishes for a link changed (manager-publish.c): jobs that pinned the
 * old one must move. */
#define MESSAGE_ID_PUBLISHED_GID_CHANGED "fbcab208ef60401685f0445a50234ef4"

/* The kernel dropped change notifications (ENOBUFS on a watch socket): rdmad looks at
 * everything again (manager-watch.c). */
#define MESSAGE_ID_EVENTS_LOST "5e0d3c7a91b44f2e8d6a2b19c0f7e344"
/* A reload refused because a profile file changed while it was being read (manager.c). */
#define MESSAGE_ID_PROFILES_UNSETTLED "a37f52c6e0d94b1f9e28c4d7b6015a93"

/* A devlink health reporter changed state or counts (manager-health.c). */
#define MESSAGE_ID_DEVLINK_HEALTH_CHANGED "9a4d6f0b2c3e4d51a8b7e6f5c4d3b2a1"

typedef struct LogFields {
	const char *device;
	uint32_t port;
	const char *netdev;
	const char *profile;
	const char *message_id;
} LogFields;

void log_setup(void);
void log_set_max_level(int level);
int log_get_max_level(void) _pure_;
int log_level_from_string(const char *s);

/* Returns -abs(error) (or 0), so that "return log_error_errno(r, ...)" reads well. error is
 * sent as ERRNO=; log_full() leaves its text to the caller, log_full_errno() and the *_errno()
 * macros append ": <strerror>". */
int log_full(int level, int error, const LogFields *fields, const char *format, ...) _printf_(4, 5);
int log_full_errno(int level, int error, const LogFields *fields, const char *format, ...)
	_printf_(4, 5);

#define log_debug(...)		  log_full(LOG_DEBUG, 0, NULL, __VA_ARGS__)
#define log_info(...)		  log_full(LOG_INFO, 0, NULL, __VA_ARGS__)
#define log_notice(...)		  log_full(LOG_NOTICE, 0, NULL, __VA_ARGS__)
#define log_warning(...)	  log_full(LOG_WARNING, 0, NULL, __VA_ARGS__)
#define log_error(...)		  log_full(LOG_ERR, 0, NULL, __VA_ARGS__)
#define log_error_errno(e, ...)	  log_full_errno(LOG_ERR, (e), NULL, __VA_ARGS__)
#define log_warning_errno(e, ...) log_full_errno(LOG_WARNING, (e), NULL, __VA_ARGS__)
