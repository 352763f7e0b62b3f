/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one way out of the core: what changed, told to whoever listens (manager-emit.c). The
 * D-Bus layer sets its ManagerEmitter when it connects (manager-bus.c); with none (--once, no
 * bus) nothing is told. The core never calls into the *-bus.c files. */

#include <stdint.h>

#include "devlink-health.h"
#include "manager.h"

struct ManagerEmitter {
	/* Properties of the Manager changed: their names, NULL-terminated. */
	void (*manager_changed)(Manager *m, char **properties);
	/* The status table was rebuilt: what differs from old (the first n_carried entries of
	 * the new table were moved over unchanged), ports that came or went. */
	void (*ports_changed)(Manager *m, const PortStatus *old, size_t n_old, size_t n_carried);
	/* Properties of one link changed in place, outside a rebuild (a bit per PortProperty). */
	void (*link_changed)(Manager *m, const PortStatus *s, unsigned changes);
	/* The GID index a link publishes changed (-1: none). */
	void (*gid_changed)(Manager *m, const char *link, int32_t old_index, int32_t new_index,
			    const char *old_gid, const char *new_gid, const char *reason);
	/* A devlink health reporter changed (manager-health.c): r as it is now. */
	void (*health_changed)(Manager *m, const HealthReporter *r);
	/* A trial ended (manager-trial.h): "confirmed", "rolled-back" or "rollback-incomplete",
	 * the gate that failed ("" none), what it saw or why, the whole outcome as JSON. */
	void (*trial_ended)(Manager *m, const char *outcome, const char *gate, const char *seen,
			    const char *json);
	/* The emitter's own state goes, with the Manager. */
	void (*done)(Manager *m);
};

/* Properties of the Manager changed: names, NULL-terminated (at most 7). */
void manager_emit_changed(Manager *m, const char *property, ...);
void manager_emit_ports_changed(Manager *m, const PortStatus *old, size_t n_old, size_t n_carried);
void manager_emit_link_changed(Manager *m, const PortStatus *s, unsigned changes);
void manager_emit_gid_changed(Manager *m, const char *link, int32_t old_index, int32_t new_index,
			      const char *old_gid, const char *new_gid, const char *reason);
void manager_emit_health_changed(Manager *m, const HealthReporter *r);
void manager_emit_trial_ended(Manager *m, const char *outcome, const char *gate, const char *seen,
			      const char *json);
void manager_emit_done(Manager *m);
