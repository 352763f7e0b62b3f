/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink-health.c's messages exchanged on a NETLINK_GENERIC socket the caller opened
 * (netlink_open()): the family's id and its "config" multicast group from the controller, a dump
 * of every health reporter, a dump of every device's versions, and one HEALTH_REPORTER_SET.
 * Reading needs no privilege (HEALTH_REPORTER_GET and INFO_GET are not GENL_ADMIN_PERM); the
 * SET needs CAP_NET_ADMIN. */

#include <netlink/netlink.h>
#include <stddef.h>
#include <stdint.h>

#include "devlink-health.h"

/* The devlink family's id and the id of its "config" group (DEVLINK_GENL_MCGRP_CONFIG_NAME),
 * where the kernel multicasts HEALTH_REPORTER_RECOVER (and PARAM_NEW, the devices' and ports'
 * NEW/DEL). -ENOENT when the kernel has no devlink, -ETIMEDOUT, -EIO, -EBADMSG. */
int devlink_config_group_resolve(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_group);

/* Every health reporter of every devlink device in this network namespace, in the kernel's
 * order; none is no error (*ret NULL, *ret_n 0). Replies that do not parse are skipped
 * (counted in *ret_skipped, may be NULL). -ETIMEDOUT, -EIO, -ENOMEM, the kernel's error. */
int devlink_health_read_all(struct nl_sock *sk, uint16_t family, HealthReporter **ret,
			    size_t *ret_n, size_t *ret_skipped);

/* Every devlink device's versions (INFO_GET dump). A device whose driver has no info_get is
 * left out by the kernel's dump. As devlink_health_read_all(). */
int devlink_info_read_all(struct nl_sock *sk, uint16_t family, DevlinkInfo **ret, size_t *ret_n,
			  size_t *ret_skipped);

/* HEALTH_REPORTER_SET and the kernel's answer: 0, -EOPNOTSUPP when the reporter cannot recover
 * (a period or auto-recover for it), -EINVAL for no such reporter, -ENODEV, -EPERM. */
int devlink_health_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			 const char *name, const HealthReporterChange *c);
