/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The devices' own health as devlink tells it: every health reporter and every device's
 * firmware versions (lib/codec/devlink-health.h), read once from the running kernel (devlink
 * has no root: under a fixture root there is nothing to read, and tests build a DeviceHealth),
 * and the netdevs and RDMA devices of a devlink device, read under a root. */

#include <stddef.h>

#include "devlink-health.h"

typedef struct DeviceHealth {
	/* -errno when devlink could not be read: -ENOENT without devlink in the kernel */
	int error;
	HealthReporter *reporters;
	size_t n_reporters;
	DevlinkInfo *infos;
	size_t n_infos;
} DeviceHealth;

void device_health_done(DeviceHealth *h);

/* Both dumps, in this network namespace. -ENOMEM only: a failure to read is h->error. */
int device_health_read(DeviceHealth *ret);

/* The firmware of device ("pci/0000:03:00.0"), NULL when devlink gave none. */
const DevlinkInfo *device_health_info(const DeviceHealth *h, const char *device);

/* The netdevs and RDMA devices of the devlink device "bus/dev", from
 * ROOT/sys/bus/BUS/devices/DEV/{net,infiniband}/ (each NULL when it has none). -ENOMEM;
 * -EINVAL for a handle that is not "bus/dev". */
int devlink_device_names(const char *root, const char *device, char ***ret_netdevs,
			 char ***ret_rdma);
