/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink.params and devlink.reload, on the devlink device of the action's function
 * ("netdevsim/netdevsim1"). A parameter is read, written when it differs, and read back; a
 * driverinit one is then recorded pending (devlink-record.h) until a reload brings it into
 * effect. The reload (driver_reinit) blocks while the driver re-creates its ports: a daemon runs
 * it off its loop (action_blocks()). Its outcome is recorded: a success clears the record, a
 * failure keeps the kernel's reason with the pending set it failed for, which the planner does
 * not try again. */
#include <stdio.h>

#include "apply-internal.h"
#include "devlink-record.h"
#include "devlink-talk.h"
#include "fileio.h"
#include "netlink-io.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

static int handle_split(const char *function, char bus[static 64], char dev[static 64]) {
	const char *slash = function ? strchr(function, '/') : NULL;

	if (!slash || slash == function || (size_t) (slash - function) >= 64 || !slash[1] ||
	    strlen(slash + 1) >= 64 || strchr(slash + 1, '/'))
		return -EINVAL;
	snprintf(bus, 64, "%.*s", (int) (slash - function), function);
	snprintf(dev, 64, "%s", slash + 1);
	return 0;
}

static int devlink_open(struct nl_sock **ret_sk, uint16_t *ret_family) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	int r;

	r = netlink_open(NETLINK_GENERIC, &sk);
	if (r >= 0)
		r = devlink_family_resolve(sk, ret_family);
	if (r < 0)
		return r;
	*ret_sk = TAKE_PTR(sk);
	return 0;
}

/* The value of name in cmode as the device reports it, in buf. */
static int param_value_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			    const char *name, DevlinkCmode cmode,
			    char buf[static DEVLINK_VALUE_MAX]) {
	_cleanup_free_ DevlinkParamInfo *params = NULL;
	size_t n = 0;
	int r;

	r = devlink_params_read(sk, family, bus, dev, &params, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (streq(params[i].name, name)) {
			if (!(params[i].cmodes & (1u << cmode)))
				return -EOPNOTSUPP;
			memcpy(buf, params[i].values[cmode], DEVLINK_VALUE_MAX);
			return 0;
		}
	return -ENOENT;
}

/* name=value added to the record of the function (a new one if the old is for another
 * netdev: reloaded since). */
static int record_pending(Applier *a, const Action *x) {
	_cleanup_(devlink_record_done) DevlinkRecord rec = { 0 };
	_cleanup_free_ char *item = NULL;
	size_t len = strlen(x->value.param.name);
	int r;

	r = devlink_record_read(applier_state_dir(a), x->function, &rec);
	if (r < 0 && r != -ENOENT && r != -EBADMSG)
		return r;
	if (r < 0 || !devlink_record_valid(&rec, x->ifindex)) {
		devlink_record_done(&rec);
		rec.function = strdup(x->function);
		if (!rec.function)
			return -ENOMEM;
	}
	rec.ifindex = x->ifindex;
	if (asprintf(&item, "%s=%s", x->value.param.name, x->value.param.value) < 0)
		return -ENOMEM;
	/* the name's earlier value, if any, replaced */
	for (size_t i = 0; rec.pending && rec.pending[i]; i++)
		if (strncmp(rec.pending[i], item, len) == 0 && rec.pending[i][len] == '=') {
			free(rec.pending[i]);
			rec.pending[i] = TAKE_PTR(item);
			break;
		}
	if (item && strv_extend(&rec.pending, item) < 0)
		return -ENOMEM;
	strv_sort(rec.pending);
	return devlink_record_write(applier_state_dir(a), &rec);
}

static int apply_param(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	const DevlinkParam *p = &x->value.param;
	const char *cmode = devlink_cmode_to_string(p->cmode);
	char bus[64], dev[64], have[DEVLINK_VALUE_MAX], extack[NETLINK_EXTACK_MAX];
	uint16_t family;
	int r;

	if (handle_split(x->function, bus, dev) < 0)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "no function in the action");
	r = devlink_open(&sk, &family);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "devlink: %s", strerror(-r));
	r = param_value_read(sk, family, bus, dev, p->name, p->cmode, have);
	if (r >= 0 && streq(have, p->value))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	r = devlink_param_write(sk, family, bus, dev, p->name, x->value.param_type, p->cmode,
				p->value, extack);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "devlink dev param set %s name %s value %s cmode %s: %s%s%s",
				   x->function, p->name, p->value, cmode, strerror(-r),
				   extack[0] ? ": " : "", extack);
	r = param_value_read(sk, family, bus, dev, p->name, p->cmode, have);
	if (r < 0 || !streq(have, p->value))
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "%s: %s (%s) does not read back %s", x->function, p->name, cmode,
				   p->value);
	if (p->cmode == DEVLINK_CMODE_DRIVERINIT) {
		r = record_pending(a, x);
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r,
					   "%s/devlink: cannot record %s pending: %s",
					   applier_state_dir(a), p->name, strerror(-r));
	}
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* The outcome of a reload into the record: cleared on success; on failure the reason, with the
 * pending set it failed for. */
static int record_reload(Applier *a, const Action *x, const char *failed) {
	_cleanup_(devlink_record_done) DevlinkRecord rec = { 0 };
	int r;

	if (!failed)
		return devlink_record_remove(applier_state_dir(a), x->function);
	r = devlink_record_read(applier_state_dir(a), x->function, &rec);
	if (r < 0 && r != -ENOENT && r != -EBADMSG)
		return r;
	if (r < 0) {
		rec = (DevlinkRecord){ .function = strdup(x->function) };
		if (!rec.function)
			return -ENOMEM;
	}
	if (rec.ifindex <= 0)
		rec.ifindex = x->ifindex;
	free(rec.failed_for);
	free(rec.failed);
	rec.failed_for = strdup(strempty(x->value.name));
	rec.failed = strdup(failed);
	if (!rec.failed_for || !rec.failed)
		return -ENOMEM;
	return devlink_record_write(applier_state_dir(a), &rec);
}

static int apply_reload(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	char bus[64], dev[64], extack[NETLINK_EXTACK_MAX], failed[NETLINK_EXTACK_MAX + 64];
	uint64_t start;
	uint16_t family;
	int r;

	if (handle_split(x->function, bus, dev) < 0)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "no function in the action");
	r = devlink_open(&sk, &family);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "devlink: %s", strerror(-r));
	start = now_monotonic_usec();
	r = devlink_reload(sk, family, bus, dev, extack);
	if (r < 0) {
		snprintf(failed, sizeof(failed), "%s%s%s", extack[0] ? extack : "",
			 extack[0] ? " (" : "", strerror(-r));
		if (extack[0])
			strncat(failed, ")", sizeof(failed) - strlen(failed) - 1);
		(void) record_reload(a, x, failed);
		return outcome_set(ret, APPLY_FAILED, r,
				   "devlink dev reload %s action driver_reinit: %s", x->function,
				   failed);
	}
	(void) record_reload(a, x, NULL);
	return outcome_set(ret, APPLY_CHANGED, 0, "reloaded in %.2f s (%s)",
			   (double) (now_monotonic_usec() - start) / 1e6, strempty(x->value.name));
}

int apply_devlink(Applier *a, const Action *x, ActionOutcome *ret) {
	if (x->key == KEY_DEVLINK_RELOAD)
		return apply_reload(a, x, ret);
	return apply_param(a, x, ret);
}
