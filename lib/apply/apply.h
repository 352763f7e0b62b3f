/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Carrying out a plan's actions. Each backend re-reads the live value right before writing,
 * writes only a difference, and reads back (rdma-ndd, wireguard-tools setconf): applying a
 * converged setting costs reads only. Backends return results; they do not log. The dispatcher
 * is apply.c, the backends apply-*.c (apply-backends.h), their shared context applier.c. */

#include "apply-backends.h"
#include "applier.h"

/* Carry out one action. Returns -ENOMEM only; everything else is in *ret. */
int action_apply(Applier *a, const Action *action, ActionOutcome *ret);

/* An action whose kernel operation can take seconds, uninterruptibly: sriov.vfs (the PF's
 * driver probes every new VF inside the write to sriov_numvfs; mlx5 takes about a second a VF)
 * sriov.eswitch (the representors are made or deleted) and devlink.reload (the driver tears
 * down and re-creates its ports). A daemon carries these out off its
 * event loop. */
bool action_blocks(const Action *action) _pure_;
