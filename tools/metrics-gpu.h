/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "host.h"
#include "metrics.h"

/* rdmad_gpu_gdr_ready per NVIDIA GPU and rdmad_gpu_link_path_info for each GPU and its
 * nearest links, read under root; nothing on a host without GPUs. -ENOMEM. */
int gpu_metrics_add(Metrics *m, const char *root, const HostState *h);
