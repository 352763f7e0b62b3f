/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "device-health.h"
#include "metrics.h"

/* devlink's series of h (metrics-devlink.c): per health reporter, labelled with the devlink
 * device ("pci/0000:08:00.0"), the reporter, its port when it is a port's, and the device's first
 * netdev under root when it has one:
 *   rdmad_devlink_health_state            0 healthy, 1 error (the kernel's numbers)
 *   rdmad_devlink_health_errors_total     errors the driver reported
 *   rdmad_devlink_health_recoveries_total recoveries that succeeded
 * and per device with a firmware version, rdmad_firmware_info{device,psid,running,stored} 1
 * (psid and stored "" when the driver tells none). Nothing when h could not be read. -ENOMEM. */
int devlink_metrics_add(Metrics *m, const char *root, const DeviceHealth *h);
