/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink's view of a device's own health, on generic netlink: the health reporters
 * (DEVLINK_CMD_HEALTH_REPORTER_GET, _SET; the kernel's net/devlink/health.c) and the device's
 * versions (DEVLINK_CMD_INFO_GET, net/devlink/dev.c). Builders do no I/O; the parsers take
 * what the kernel sends: a dump's replies, and the notifications on devlink's "config" group.
 * The reference is iproute2's devlink/devlink.c (`devlink health show`, `devlink health set`,
 * `devlink dev info`).
 *
 * The kernel multicasts DEVLINK_CMD_HEALTH_REPORTER_RECOVER, with the reporter's whole state,
 * whenever a reporter changes state: devlink_health_report() (an error: its count up, state
 * error) and devlink_health_reporter_recovery_done() (a recovery: state healthy, its count
 * up), both through devlink_recover_notify(). A failed recovery sends nothing after the
 * error's own notification. A reporter's creation and destruction send nothing. */

#include <errno.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stdint.h>

#include "string-table.h"

/* "pci/0000:03:00.0", as devlink names a device: bus, '/', device (each at most NAME_MAX in
 * the kernel; rdmad's handles are shorter: a longer one does not parse). */
#define DEVLINK_HANDLE_MAX 128
/* A reporter's name ("fw_fatal"), a version's name ("fw.psid") or value ("16.35.2000"). */
#define DEVLINK_NAME_MAX 64

typedef enum HealthState {
	HEALTH_STATE_HEALTHY, /* DEVLINK_HEALTH_REPORTER_STATE_HEALTHY */
	HEALTH_STATE_ERROR,   /* DEVLINK_HEALTH_REPORTER_STATE_ERROR */
	_HEALTH_STATE_MAX,
	_HEALTH_STATE_INVALID = -EINVAL,
} HealthState;
/* "healthy", "error" (as `devlink health show` prints them) */
DECLARE_STRING_TABLE_LOOKUP(health_state, HealthState)

typedef struct HealthReporter {
	char device[DEVLINK_HANDLE_MAX]; /* "pci/0000:03:00.0" */
	bool has_port;			 /* a port's reporter (mlx5's tx and rx, on some kernels) */
	uint32_t port;
	char name[DEVLINK_NAME_MAX]; /* "fw", "fw_fatal", "tx", "rx", netdevsim's "dummy" */
	HealthState state;
	uint64_t errors;     /* DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT */
	uint64_t recoveries; /* DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT */
	/* Only for a reporter that can recover (the driver has a recover op): */
	bool has_recover;
	uint64_t grace_period_ms; /* GRACEFUL_PERIOD: no auto-recovery this soon after one */
	bool auto_recover;
} HealthReporter;

/* DEVLINK_CMD_HEALTH_REPORTER_GET of every reporter of every device, NLM_F_REQUEST |
 * NLM_F_DUMP, as `devlink health show` sends it (no handle). -EINVAL for a family id below
 * NLMSG_MIN_TYPE (none resolved). */
int devlink_health_dump_new(uint16_t family, struct nl_msg **ret);

/* What a profile may change of a reporter (`devlink health set DEV reporter NAME
 * grace_period MS auto_recover BOOL`); an unset field is not sent. */
typedef struct HealthReporterChange {
	bool set_grace_period;
	uint64_t grace_period_ms;
	bool set_auto_recover;
	bool auto_recover;
} HealthReporterChange;

/* DEVLINK_CMD_HEALTH_REPORTER_SET of the device reporter name on bus/dev, NLM_F_REQUEST |
 * NLM_F_ACK. -EINVAL for a bad handle, an empty or too long name, or a change of nothing. */
int devlink_health_set_new(uint16_t family, const char *bus, const char *dev, const char *name,
			   const HealthReporterChange *c, struct nl_msg **ret);

/* A reporter's state: a dump's reply (HEALTH_REPORTER_GET) or a notification
 * (HEALTH_REPORTER_RECOVER), devlink_nl_health_reporter_fill(). Attributes rdmad does not use
 * (dump timestamps, auto-dump, burst period) are skipped. -EPROTO for a state rdmad has no name
 * for; -EBADMSG if the message is not such a message, is malformed, or lacks the handle, the
 * reporter's name, state or counts. Nothing is written on an error. */
int devlink_health_parse(const struct nlmsghdr *nlh, size_t len, HealthReporter *ret);

/* A devlink device's coming or going on the "config" group (devlink_notify(): DEVLINK_CMD_NEW,
 * DEVLINK_CMD_DEL, the handle first): the command and the device ("pci/0000:03:00.0").
 * -EBADMSG for any other message (a reporter's, a port's, a param's) or a malformed one. */
int devlink_device_parse(const struct nlmsghdr *nlh, size_t len,
			 char ret_device[static DEVLINK_HANDLE_MAX]);

/* A device's firmware, from DEVLINK_CMD_INFO_GET. */
typedef struct DevlinkInfo {
	char device[DEVLINK_HANDLE_MAX];
	char driver[DEVLINK_NAME_MAX];
	char psid[DEVLINK_NAME_MAX]; /* the fixed "fw.psid"; "" when the driver gives none */
	/* The firmware's version: the first there of the running "fw.version", "fw",
	 * "fw.mgmt", or any "fw.*"; fw_name says which ("" for none). stored is the stored
	 * version of that name, "" when the driver gives none (a device that cannot tell). */
	char fw_name[DEVLINK_NAME_MAX];
	char running[DEVLINK_NAME_MAX];
	char stored[DEVLINK_NAME_MAX];
} DevlinkInfo;

/* DEVLINK_CMD_INFO_GET of every device, NLM_F_REQUEST | NLM_F_DUMP (`devlink dev info`). */
int devlink_info_dump_new(uint16_t family, struct nl_msg **ret);

/* An INFO_GET reply (devlink_nl_info_fill()). -EBADMSG if it is not one, is malformed, or names
 * no device; a version without a name or a value is malformed. Nothing is written on an
 * error. */
int devlink_info_parse(const struct nlmsghdr *nlh, size_t len, DevlinkInfo *ret);
