/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "preflight.h"

/* What libibverbs sees on this host: ibv_get_device_list(), and per port ibv_query_port()
 * (state, active and max MTU). A device that cannot be opened or queried records -errno in its
 * .error; only a failing ibv_get_device_list() sets ret->error. Returns -ENOMEM only. */
int verbs_facts_read(VerbsFacts *ret);
