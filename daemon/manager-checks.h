/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include "manager.h"

/* Stops a Preflight() or SelfTest() at work and fails its callers (at exit). */
void manager_checks_done(Manager *m);
