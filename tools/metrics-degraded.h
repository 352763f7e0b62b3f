/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "host.h"
#include "metrics.h"

/* rdmad_link_degraded{kind,subject}: 1 for a link below what it can do, 0 for one that is not,
 * from preflight's rows (metrics-degraded.c): kind "pcie" (hardware.pcie-link, subject the PCI
 * address), "ethernet" (network.link-speed), "infiniband" (network.ib-link; no subnet manager
 * counts as degraded too), subject the link ("mlx5_0/1"). -ENOMEM. */
int degraded_metrics_add(Metrics *m, const char *root, const Config *config, const HostState *h);
