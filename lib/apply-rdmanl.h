/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Soft RDMA links (rxe, siw) and the RDMA netns mode, over RDMA netlink (apply-rdmanl.c).
 * apply_soft_device() and apply_netns_mode() are declared in apply.h with the other backends. */

#include "apply.h"

/* Delete the soft RDMA link NAME, but only if rdmad created it: apply_soft_device() records each
 * link it creates in <state dir>/links/NAME ("TYPE NETDEV"), and a link is deleted only while
 * it still sits on the netdev recorded there. A link rdmad did not create is left alone
 * (APPLY_UNSUPPORTED, saying so); one already gone is APPLY_UNCHANGED. The record is removed
 * once the link is gone. Returns -ENOMEM only; everything else is in *ret. */
int soft_device_remove(Applier *a, const char *name, ActionOutcome *ret);
