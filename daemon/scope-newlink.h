/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

/* Is rdmad a service of systemd's, so that NEWLINKs go through scope_newlink()? */
bool scope_newlink_wanted(void);

/* An applier_newlink_t (apply.h): sends the NEWLINK from `rdmad --newlink` in a transient
 * scope (systemd-run --scope), so that the new device's sockets are not charged to rdmad's
 * cgroup. userdata: the sd_event that reaps a helper killed on timeout. Returns 0, the
 * kernel's -errno, -ETIMEDOUT (no answer in time) or -ECHILD (the helper ended without one).
 * Waits for it: at most 20 s. */
int scope_newlink(const char *name, const char *type, const char *netdev, void *userdata);
