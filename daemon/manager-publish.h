/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Write, rewrite or remove the per-link environment files after a reconcile. Problems are
 * logged: publishing never fails a reconcile. */
void manager_publish(Manager *m);

void published_free(Published *l, size_t n);
