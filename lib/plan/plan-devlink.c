/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink.params and devlink.reload, on the devlink device of the function behind a matched
 * netdev. Each declared parameter is checked against what the device reports (its name, its
 * cmodes, its type) and written when its value in the declared cmode differs. A runtime or
 * permanent value is in effect once written; a driverinit one only after `devlink dev reload`,
 * and devlink reports the driverinit value, never the one in effect: rdmad keeps what it wrote
 * and has not reloaded in a record (devlink-record.h), valid while the device's netdev is the
 * one it was written with (a reload re-creates it).
 *
 * The driverinit values pending make one devlink.reload row: with devlink.reload: allowed an
 * action (one driver_reinit for all of them, after the writes), else a row that says "pending
 * until reload". A reload that failed for the same pending set is not tried again: the row says
 * why it failed until the config (a new set) or the device (a new netdev) changes. A reload
 * that would take what a pod or a VM holds of the device is refused, naming the holder
 * (reload_held()); the values stay pending until it lets go. */
#include <linux/devlink.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan-function.h"
#include "strv.h"

static const DevlinkParamInfo *param_find(const HostFunction *f, const char *name) {
	for (size_t i = 0; i < f->n_params; i++)
		if (streq(f->params[i].name, name))
			return &f->params[i];
	return NULL;
}

static const char *observe_reason(int error, char *buf, size_t size) {
	if (error == -ENOTCONN)
		return "devlink parameters: read over netlink, not under a fixture root";
	if (error == -EINPROGRESS)
		return "devlink parameters: not read while rdmad changes a function (a devlink "
		       "dump waits for the device's lock)";
	if (error == -ENODEV)
		return "no devlink device: the driver registers none for this function";
	snprintf(buf, size, "devlink parameters cannot be read (%s)", strerror(-error));
	return buf;
}

/* The names the device reports, "a, b, c", in buf. */
static const char *device_names(const HostFunction *f, char *buf, size_t size) {
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < f->n_params && len < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", f->params[i].name);

		if (n < 0)
			break;
		len += (size_t) n;
	}
	return len ? buf : "none";
}

static const char *device_cmodes(const DevlinkParamInfo *info, char *buf, size_t size) {
	size_t len = 0;

	buf[0] = 0;
	for (DevlinkCmode c = 0; c < _DEVLINK_CMODE_MAX && len < size; c++)
		if (info->cmodes & (1u << c)) {
			int n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
					 devlink_cmode_to_string(c));
			if (n < 0)
				break;
			len += (size_t) n;
		}
	return len ? buf : "none";
}

/* One declared parameter: an action when it differs (or cannot be carried out), and its
 * "name=value" added to *pending when a reload is what brings it into effect. */
static int rule_param(Plan *p, const PlanFunction *pf, const DevlinkParam *d,
		      const DevlinkRecord *rec, char ***pending) {
	const HostFunction *f = pf->f;
	const DevlinkParamInfo *info = param_find(f, d->name);
	const char *cmode = devlink_cmode_to_string(d->cmode);
	char desired[DEVLINK_PARAM_NAME_MAX + DEVLINK_VALUE_MAX + 32], current[sizeof(desired)];
	char want[DEVLINK_VALUE_MAX], why[512], list[384];
	ActionValue v = { 0 };

	snprintf(desired, sizeof(desired), "%s=%s (%s)", d->name, d->value, cmode);
	if (!info) {
		snprintf(why, sizeof(why), "the device has no parameter %s (it has: %s)", d->name,
			 device_names(f, list, sizeof(list)));
		return function_add(p, pf, KEY_DEVLINK_PARAMS, NULL, desired, why, NULL);
	}
	if (!(info->cmodes & (1u << d->cmode))) {
		snprintf(why, sizeof(why), "%s has no cmode %s on this device (it has: %s)",
			 d->name, cmode, device_cmodes(info, list, sizeof(list)));
		return function_add(p, pf, KEY_DEVLINK_PARAMS, NULL, desired, why, NULL);
	}
	if (devlink_value_canonical(info->type, NULL, d->value, want) < 0) {
		snprintf(why, sizeof(why), "%s is a %s on this device: '%s' is not one", d->name,
			 devlink_param_type_to_string(info->type), d->value);
		return function_add(p, pf, KEY_DEVLINK_PARAMS, NULL, desired, why, NULL);
	}
	snprintf(desired, sizeof(desired), "%s=%s (%s)", d->name, want, cmode);
	if (d->cmode == DEVLINK_CMODE_DRIVERINIT &&
	    (!streq(info->values[d->cmode], want) || devlink_record_pending(rec, d->name))) {
		char item[sizeof(desired)];

		snprintf(item, sizeof(item), "%s=%s", d->name, want);
		if (strv_extend(pending, item) < 0)
			return -ENOMEM;
	}
	if (streq(info->values[d->cmode], want))
		return 0;
	snprintf(current, sizeof(current), "%s=%s", d->name, info->values[d->cmode]);
	v.param = *d;
	snprintf(v.param.value, sizeof(v.param.value), "%s", want);
	v.param_type = info->type;
	return function_add(p, pf, KEY_DEVLINK_PARAMS, current, desired, NULL, &v);
}

/* What a reload of pf's device would take from whoever holds part of it, in *ret (NULL when
 * nothing is held): driver_reinit re-creates the device's ports, so a port's netdev a pod holds
 * (moved into its network namespace) comes back in this one, and the VFs go with the driver's
 * SR-IOV state (a VM's vfio-pci one among them). Ports that cannot be read are refused alike:
 * what holds them is not known. The reload is refused, never waited on (DESIGN.md). */
static int reload_held(const PlanFunction *pf, char **ret) {
	_cleanup_free_ char *text = NULL, *vfs = NULL;
	const HostFunction *f = pf->f;
	size_t n = 0, size = 0;
	FILE *out;
	int r;

	if (!f->ports_observed) {
		if (asprintf(
			    &text,
			    "the device's ports cannot be read (%s): a reload re-creates them, and "
			    "whether a pod holds one is not known",
			    strerror(-f->ports_error)) < 0)
			return -ENOMEM;
		*ret = TAKE_PTR(text);
		return 0;
	}
	out = open_memstream(&text, &size);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < f->n_ports; i++) {
		const DevlinkPortInfo *port = &f->ports[i];

		/* devlink names the netdev only when it is in devlink's network namespace */
		if (port->type != DEVLINK_PORT_TYPE_ETH || port->has_netdev)
			continue;
		fprintf(out,
			"%sport %u's netdev is in another network namespace (a pod's); a "
			"reload re-creates it in this one",
			n > 0 ? "; " : "", port->index);
		n++;
	}
	if (n > 0)
		fprintf(out, ": move %s back, then rdmactl reconcile", n > 1 ? "them" : "it");
	if (fclose(out) != 0)
		return -ENOMEM;
	r = vfs_in_use(pf->host, f, "a reload (driver_reinit)", &vfs);
	if (r < 0)
		return r;
	if (n == 0) {
		*ret = TAKE_PTR(vfs); /* NULL: nothing held */
		return 0;
	}
	if (vfs) {
		char *both = NULL;

		if (asprintf(&both, "%s; %s", text, vfs) < 0)
			return -ENOMEM;
		free(text);
		text = both;
	}
	*ret = TAKE_PTR(text);
	return 0;
}

int rule_devlink(Plan *p, const PlanFunction *pf) {
	_cleanup_strv_free_ char **pending = NULL;
	_cleanup_free_ char *joined = NULL, *current = NULL, *held = NULL;
	const PortSettings *s = pf->settings;
	const HostFunction *f = pf->f;
	const DevlinkRecord *rec = host_devlink_record_find(pf->host, pf->handle);
	char why[1024];
	int r;

	if (!devlink_record_valid(rec, f->ifindex))
		rec = NULL; /* reloaded since (by rdmad or by hand): what it wrote is in effect */
	if (!f->params_observed) {
		_cleanup_free_ char *des = NULL;

		r = port_setting_format(s, KEY_DEVLINK_PARAMS, &des);
		if (r < 0)
			return r;
		return function_add(p, pf, KEY_DEVLINK_PARAMS, NULL, des,
				    observe_reason(f->params_error, why, sizeof(why)), NULL);
	}
	for (size_t i = 0; i < s->n_devlink_params; i++) {
		r = rule_param(p, pf, &s->devlink_params[i], rec, &pending);
		if (r < 0)
			return r;
	}
	if (strv_length(pending) == 0)
		return 0;
	strv_sort(pending);
	joined = strv_join(pending, " ");
	if (!joined || asprintf(&current, "pending: %s", joined) < 0)
		return -ENOMEM;
	if (!(s->set & KEY_BIT(KEY_DEVLINK_RELOAD)) ||
	    s->devlink_reload != DEVLINK_RELOAD_ALLOWED) {
		snprintf(why, sizeof(why),
			 "pending until reload: %s (devlink.reload is never: `devlink dev reload "
			 "%s` brings them into effect)",
			 joined, pf->handle);
		return function_add(p, pf, KEY_DEVLINK_RELOAD, current, "reload (driver_reinit)",
				    why, NULL);
	}
	r = reload_held(pf, &held);
	if (r < 0)
		return r;
	if (held)
		return function_add(p, pf, KEY_DEVLINK_RELOAD, current, "reload (driver_reinit)",
				    held, NULL);
	if (rec && rec->failed && streq_ptr(rec->failed_for, joined)) {
		snprintf(why, sizeof(why),
			 "the last reload failed: %s; not tried again until the config or the "
			 "device changes",
			 rec->failed);
		return function_add(p, pf, KEY_DEVLINK_RELOAD, current, "reload (driver_reinit)",
				    why, NULL);
	}
	return function_add(p, pf, KEY_DEVLINK_RELOAD, current, "reload (driver_reinit)", NULL,
			    &(ActionValue){ .name = joined });
}
