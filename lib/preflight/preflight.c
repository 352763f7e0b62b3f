/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json-util.h"
#include "preflight.h"
#include "strv.h"

static const char *const preflight_status_table[_PREFLIGHT_STATUS_MAX] = {
	[PREFLIGHT_OK] = "ok",
	[PREFLIGHT_WARN] = "warn",
	[PREFLIGHT_FAIL] = "fail",
};
DEFINE_STRING_TABLE_LOOKUP(preflight_status, PreflightStatus)

void preflight_done(Preflight *p) {
	if (!p)
		return;
	for (size_t i = 0; i < p->n_rows; i++) {
		free(p->rows[i].check);
		free(p->rows[i].subject);
		free(p->rows[i].seen);
		free(p->rows[i].fix);
	}
	free(p->rows);
	*p = (Preflight){ 0 };
}

int preflight_add(Preflight *p, const char *check, const char *subject, PreflightStatus status,
		  const char *fix, const char *seen_format, ...) {
	PreflightRow row = { .status = status };
	PreflightRow *rows;
	va_list ap;
	int r;

	va_start(ap, seen_format);
	r = vasprintf(&row.seen, seen_format, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	row.check = strdup(check);
	row.subject = strdup(subject);
	row.fix = fix ? strdup(fix) : NULL;
	rows = reallocarray(p->rows, p->n_rows + 1, sizeof(*rows));
	if (!row.check || !row.subject || (fix && !row.fix) || !rows) {
		if (rows)
			p->rows = rows;
		free(row.check);
		free(row.subject);
		free(row.seen);
		free(row.fix);
		return -ENOMEM;
	}
	p->rows = rows;
	p->rows[p->n_rows++] = row;
	return 0;
}

PreflightStatus preflight_worst(const Preflight *p) {
	PreflightStatus worst = PREFLIGHT_OK;

	for (size_t i = 0; i < p->n_rows; i++)
		if (p->rows[i].status > worst)
			worst = p->rows[i].status;
	return worst;
}

static int row_compare(const void *a, const void *b) {
	const PreflightRow *x = a, *y = b;
	int c = strcmp(x->check, y->check);

	return c ? c : strcmp(x->subject, y->subject);
}

void preflight_sort(Preflight *p) {
	if (p->n_rows > 1)
		qsort(p->rows, p->n_rows, sizeof(*p->rows), row_compare);
}

void verbs_facts_done(VerbsFacts *v) {
	if (!v)
		return;
	for (size_t i = 0; i < v->n_devices; i++) {
		free(v->devices[i].name);
		free(v->devices[i].ports);
	}
	free(v->devices);
	*v = (VerbsFacts){ 0 };
}

const VerbsDevice *verbs_facts_find(const VerbsFacts *v, const char *device) {
	for (size_t i = 0; v && i < v->n_devices; i++)
		if (streq(v->devices[i].name, device))
			return &v->devices[i];
	return NULL;
}

bool preflight_wants_port(const PreflightInput *in, const HostDevice *d, const HostPort *p) {
	char buf[256];

	if (!in->links)
		return true;
	snprintf(buf, sizeof(buf), "%s/%" PRIu32, d->name, p->port);
	return strv_contains(in->links, buf) || strv_contains(in->links, d->name) ||
	       (p->netdev && strv_contains(in->links, p->netdev));
}

int preflight_each_port(Preflight *p, const PreflightInput *in, preflight_port_check_t check,
			void *userdata) {
	int r;

	for (size_t i = 0; i < in->host->n_devices; i++) {
		const HostDevice *d = &in->host->devices[i];

		for (size_t j = 0; j < d->n_ports; j++) {
			if (!preflight_wants_port(in, d, &d->ports[j]))
				continue;
			r = check(p, in, d, &d->ports[j], userdata);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

char *preflight_port_subject(const HostDevice *d, const HostPort *p) {
	char *s;

	if (asprintf(&s, "%s/%" PRIu32, d->name, p->port) < 0)
		return NULL;
	return s;
}

int preflight_run(const PreflightInput *in, Preflight *ret) {
	static int (*const checks[])(Preflight *, const PreflightInput *) = {
		preflight_hardware, preflight_kernel,	preflight_userspace,
		preflight_memlock,  preflight_network,	preflight_qos,
		preflight_fabric,   preflight_security, preflight_gpu,
	};
	Preflight p = { 0 };
	int r;

	for (size_t i = 0; i < ELEMENTSOF(checks); i++) {
		r = checks[i](&p, in);
		if (r < 0) {
			preflight_done(&p);
			return r;
		}
	}
	preflight_sort(&p);
	*ret = p;
	return 0;
}

int preflight_to_json(const Preflight *p, json_object **ret) {
	_cleanup_(json_object_putp) json_object *a = json_object_new_array();

	if (!a)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_rows; i++) {
		const PreflightRow *row = &p->rows[i];
		json_object *o;

		if (json_add_object(a, NULL, &o) < 0 ||
		    json_add_string(o, "check", row->check) < 0 ||
		    json_add_string(o, "subject", row->subject) < 0 ||
		    json_add_string(o, "status", preflight_status_to_string(row->status)) < 0 ||
		    json_add_string(o, "seen", row->seen) < 0 ||
		    json_add_string(o, "fix", row->fix) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(a);
	return 0;
}
