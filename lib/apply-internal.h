/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by apply.c and the apply-*.c backends only. */

#include <libkmod.h>
#include <netlink/netlink.h>

#include "apply.h"

struct Applier {
	char *root;
	int rootfd;
	char *state_dir;
	/* opened on first use by the backend that needs it */
	struct kmod_ctx *kmod;
	struct nl_sock *rtnl;
	struct nl_sock *rdmanl;
	struct nl_sock *dcbnl;
};

/* Close what the backends opened. */
void applier_backends_done(Applier *a);
