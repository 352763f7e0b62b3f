/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The apply backends, one per kernel interface (apply-*.c), as the dispatcher (apply.c) calls
 * them and the tests do. */

#include "applier.h"

/* Backends (apply-*.c), dispatched by action_apply() on the action's key. */
int apply_module(Applier *a, const Action *x, ActionOutcome *ret);
int apply_soft_device(Applier *a, const Action *x, ActionOutcome *ret);
/* Delete a soft device rdmad created, while it is still on the netdev recorded; one rdmad did
 * not create is left alone (APPLY_UNSUPPORTED, saying so), one gone already is
 * APPLY_UNCHANGED. The record is removed once the device is gone. */
int apply_soft_device_remove(Applier *a, const Action *x, ActionOutcome *ret);
int apply_netns_mode(Applier *a, const Action *x, ActionOutcome *ret);
/* counters.optional: one STAT_SET with the whole set of optional counters to enable. */
int apply_counters_optional(Applier *a, const Action *x, ActionOutcome *ret);
int apply_netdev(Applier *a, const Action *x, ActionOutcome *ret);
int apply_rail(Applier *a, const Action *x, ActionOutcome *ret);
/* security.roce-allow-from: a chain of rdmad's nftables table, or its removal. */
int apply_firewall(Applier *a, const Action *x, ActionOutcome *ret);
int apply_configfs(Applier *a, const Action *x, ActionOutcome *ret);
int apply_dcb(Applier *a, const Action *x, ActionOutcome *ret);
int apply_ecn(Applier *a, const Action *x, ActionOutcome *ret);
int apply_ecn_cnp(Applier *a, const Action *x, ActionOutcome *ret);
int apply_pause(Applier *a, const Action *x, ActionOutcome *ret);
/* apply-device.c: rdma.node-description */
int apply_node_description(Applier *a, const Action *x, ActionOutcome *ret);
/* apply-function.c: sriov.* and pci.*, on the action's function */
int apply_function(Applier *a, const Action *x, ActionOutcome *ret);
/* apply-devlink.c: devlink.params (one parameter) and devlink.reload */
int apply_devlink(Applier *a, const Action *x, ActionOutcome *ret);
