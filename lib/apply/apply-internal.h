/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by applier.c and the apply-*.c backends only: the handles a backend opens on first use
 * and the Applier keeps for the next action. Each backend asks for the one it needs; the
 * Applier itself stays opaque to them. */

#include <netlink/netlink.h>

#include "apply-backends.h"
#include "applier.h"
#include "kmod-dl.h"

/* rtnetlink for dcbnl (apply-dcb.c). */
int applier_dcbnl(Applier *a, struct nl_sock **ret);
/* generic netlink for ethtool (apply-pause.c), with the family's id; -ENOENT when the kernel has
 * no ethtool netlink. */
int applier_ethtool(Applier *a, struct nl_sock **ret, uint16_t *ret_family);
/* RDMA netlink (apply-rdmanl.c); -EPROTONOSUPPORT when ib_core is not loaded. */
int applier_rdmanl(Applier *a, struct nl_sock **ret);
/* Send a NEWLINK (apply-rdmanl.c): through the hook of applier_set_newlink(), else on sk. */
int applier_newlink(Applier *a, struct nl_sock *sk, const char *name, const char *type,
		    const char *netdev);
/* libkmod (apply-kmod.c), made again when the module indexes changed under it (a kernel
 * package update). The caller has loaded libkmod (dlopen_kmod()). */
int applier_kmod(Applier *a, struct kmod_ctx **ret);
/* Drop the libkmod context: the next applier_kmod() reads modprobe.d and the indexes again. */
void applier_kmod_forget(Applier *a);
