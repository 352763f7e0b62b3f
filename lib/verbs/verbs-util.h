/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Cleanup helpers for libibverbs objects, shared by the verbs-*.c readers. */

#include <infiniband/verbs.h>

static inline void ibv_close_devicep(struct ibv_context **c) {
	if (*c)
		(void) ibv_close_device(*c);
}

static inline void ibv_free_device_listp(struct ibv_device ***l) {
	if (*l)
		ibv_free_device_list(*l);
}
