/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdarg.h>

#include "manager-emit.h"

void manager_emit_changed(Manager *m, const char *property, ...) {
	const char *names[8];
	size_t n = 0;
	va_list ap;

	if (!m->emitter || !m->emitter->manager_changed)
		return;
	va_start(ap, property);
	for (const char *p = property; p && n < ELEMENTSOF(names) - 1; p = va_arg(ap, const char *))
		names[n++] = p;
	va_end(ap);
	names[n] = NULL;
	m->emitter->manager_changed(m, (char **) names);
}

void manager_emit_ports_changed(Manager *m, const PortStatus *old, size_t n_old, size_t n_carried) {
	if (m->emitter && m->emitter->ports_changed)
		m->emitter->ports_changed(m, old, n_old, n_carried);
}

void manager_emit_link_changed(Manager *m, const PortStatus *s, unsigned changes) {
	if (m->emitter && m->emitter->link_changed)
		m->emitter->link_changed(m, s, changes);
}

void manager_emit_gid_changed(Manager *m, const char *link, int32_t old_index, int32_t new_index,
			      const char *old_gid, const char *new_gid, const char *reason) {
	if (m->emitter && m->emitter->gid_changed)
		m->emitter->gid_changed(m, link, old_index, new_index, old_gid, new_gid, reason);
}

void manager_emit_health_changed(Manager *m, const HealthReporter *r) {
	if (m->emitter && m->emitter->health_changed)
		m->emitter->health_changed(m, r);
}

void manager_emit_trial_ended(Manager *m, const char *outcome, const char *gate, const char *seen,
			      const char *json) {
	if (m->emitter && m->emitter->trial_ended)
		m->emitter->trial_ended(m, outcome, gate, seen, json);
}

void manager_emit_done(Manager *m) {
	if (m->emitter && m->emitter->done)
		m->emitter->done(m);
}
