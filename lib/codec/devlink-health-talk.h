/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink-health.c's messages exchanged on a NETLINK_GENERIC socket the caller opened
 * (netlink_open()): a dump of every health reporter, a dump of every device's versions, and one
 * HEALTH_REPORTER_SET (the family and its "config" group: devlink_config_group_resolve()).
 * Reading needs no privilege (HEALTH_REPORTER_GET and INFO_GET are not GENL_ADMIN_PERM); the
 * SET needs CAP_NET_ADMIN. */

#include <netlink/netlink.h>
#include <stddef.h>
#include <stdint.h>

#include "devlink-health.h"
#include "devlink-talk.h"

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
