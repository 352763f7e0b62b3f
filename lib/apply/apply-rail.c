/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* netdev.rail-routing (rail.h): one ip rule, route or sysctl per action, over rtnetlink in the
 * current network namespace and /proc/sys under the root. Each reads the live state again,
 * writes only a difference and reads back; before its first change on a netdev it records
 * (rail-record.c) the table it uses and the sysctl's old value, so that what it set up can be
 * taken away, and only that. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "apply-internal.h"
#include "fileio.h"
#include "host.h"
#include "netlink-io.h"
#include "rail-netlink.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

typedef struct LiveRouting {
	HostState h; /* only rail_rules and rail_routes */
} LiveRouting;

static void live_done(LiveRouting *l) {
	free(l->h.rail_rules);
	free(l->h.rail_routes);
	l->h = (HostState){ 0 };
}

static int live_read(struct nl_sock *sk, LiveRouting *ret) {
	*ret = (LiveRouting){ 0 };
	return rail_routing_read(sk, &ret->h);
}

static bool live_has(const LiveRouting *l, const RailItem *it) {
	if (it->kind == RAIL_KIND_RULE) {
		for (size_t i = 0; i < l->h.n_rail_rules; i++)
			if (rail_rule_equal(&l->h.rail_rules[i], &it->rule))
				return true;
	} else
		for (size_t i = 0; i < l->h.n_rail_routes; i++)
			if (rail_route_equal(&l->h.rail_routes[i], &it->route))
				return true;
	return false;
}

/* Anything of rdmad's left in table. */
static const char *live_left(const LiveRouting *l, uint32_t table) {
	for (size_t i = 0; i < l->h.n_rail_rules; i++)
		if (l->h.rail_rules[i].table == table)
			return "ip rules";
	for (size_t i = 0; i < l->h.n_rail_routes; i++)
		if (l->h.rail_routes[i].table == table)
			return "routes";
	return NULL;
}

static int record_load(Applier *a, const char *netdev, RailRecord *ret) {
	int r = rail_record_read(applier_state_dir(a), netdev, ret);

	if (r == -ENOENT || r == -EBADMSG) /* none, or unreadable: start again */
		return rail_record_init(ret, netdev);
	return r;
}

/* The table goes into the record before anything is put in it. */
static int record_table(Applier *a, const char *netdev, uint32_t table) {
	RailRecord rec;
	int r;

	r = record_load(a, netdev, &rec);
	if (r < 0)
		return r;
	if (!rail_record_has_table(&rec, table)) {
		r = rail_record_add_table(&rec, table);
		if (r >= 0)
			r = rail_record_write(applier_state_dir(a), &rec);
	}
	rail_record_done(&rec);
	return r;
}

static int sysctl_write(const char *root, const char *netdev, RailSysctl s, int value) {
	_cleanup_free_ char *path = NULL, *full = NULL;
	_cleanup_close_ int fd = -EBADF;
	char buf[16];
	int n;

	if (asprintf(&path, "/proc/sys/net/ipv4/conf/%s/%s", netdev, rail_sysctl_to_string(s)) < 0)
		return -ENOMEM;
	full = root_path(root, path);
	if (!full)
		return -ENOMEM;
	fd = open(full, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", value);
	if (write(fd, buf, (size_t) n) != n)
		return negative_errno();
	return 0;
}

static int sysctl_apply(Applier *a, const Action *x, const RailItem *it, ActionOutcome *ret) {
	const char *name = rail_sysctl_to_string(it->sysctl);
	int have, r;

	have = rail_sysctl_read(applier_root(a), x->netdev, it->sysctl);
	if (have == -ENOMEM)
		return have;
	if (have < 0)
		return outcome_set(ret, APPLY_FAILED, -ENOENT,
				   "net.ipv4.conf.%s.%s cannot be read under %s", x->netdev, name,
				   applier_root(a));
	if (have == it->value)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (!it->remove) {
		RailRecord rec;

		/* the value before rdmad's first write, to put back later */
		r = record_load(a, x->netdev, &rec);
		if (r < 0)
			return r;
		if (rec.saved[it->sysctl] < 0) {
			rec.saved[it->sysctl] = have;
			r = rail_record_write(applier_state_dir(a), &rec);
		}
		rail_record_done(&rec);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r,
					   "cannot record %s's rail routing in %s: %s", x->netdev,
					   applier_state_dir(a), strerror(-r));
	}
	r = sysctl_write(applier_root(a), x->netdev, it->sysctl, it->value);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "write net.ipv4.conf.%s.%s=%d: %s",
				   x->netdev, name, it->value, strerror(-r));
	if (rail_sysctl_read(applier_root(a), x->netdev, it->sysctl) != it->value)
		return outcome_set(ret, APPLY_FAILED, -EIO,
				   "net.ipv4.conf.%s.%s does not read back as %d", x->netdev, name,
				   it->value);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

static int routing_apply(Applier *a, const Action *x, const RailItem *it, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	bool rule = it->kind == RAIL_KIND_RULE;
	const char *what = rule ? "ip rule" : "route";
	LiveRouting live;
	bool had;
	int r;

	r = rail_socket_open(&sk);
	if (r < 0)
		return r == -ENOMEM
			       ? r
			       : outcome_set(ret, APPLY_FAILED, r, "cannot open rtnetlink socket");
	r = live_read(sk, &live);
	had = r >= 0 && live_has(&live, it);
	live_done(&live);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "cannot read the ip rules and routes: %s",
				   strerror(-r));
	if (had != it->remove)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (!it->remove) {
		r = record_table(a, x->netdev, rule ? it->rule.table : it->route.table);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r,
					   "cannot record %s's rail routing in %s: %s", x->netdev,
					   applier_state_dir(a), strerror(-r));
	}
	r = rule ? rail_rule_new(!it->remove, &it->rule, &m)
		 : rail_route_new(!it->remove, &it->route, &m);
	if (r == -ENOMEM)
		return r;
	if (r >= 0)
		r = netlink_transact(sk, m, NULL, NULL);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s %s %s (%s): %s",
				   it->remove ? "delete" : "add", what,
				   it->remove ? x->current : x->desired, x->netdev, strerror(-r));
	r = live_read(sk, &live);
	had = r >= 0 && live_has(&live, it);
	live_done(&live);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || had == it->remove)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO, "%s %s is %s after %s it",
				   what, it->remove ? x->current : x->desired,
				   it->remove ? "still there" : "not there",
				   it->remove ? "deleting" : "adding");
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* Drop a table from the record, or the whole record, once nothing of it is left. */
static int forget_apply(Applier *a, const Action *x, const RailItem *it, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	LiveRouting live;
	RailRecord rec;
	int r;

	r = rail_record_read(applier_state_dir(a), x->netdev, &rec);
	if (r == -ENOENT)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (r == -EBADMSG) /* nothing in it can be trusted: drop it */
		r = rail_record_init(&rec, x->netdev);
	if (r < 0)
		return r == -ENOMEM
			       ? r
			       : outcome_set(ret, APPLY_FAILED, r, "cannot read %s's record: %s",
					     x->netdev, strerror(-r));
	r = rail_socket_open(&sk);
	if (r >= 0)
		r = live_read(sk, &live);
	if (r < 0) {
		rail_record_done(&rec);
		return r == -ENOMEM ? r
				    : outcome_set(ret, APPLY_FAILED, r,
						  "cannot read the ip rules and routes: %s",
						  strerror(-r));
	}
	for (size_t i = 0; r >= 0 && i < rec.n_tables; i++) {
		const char *left;

		if (it->table && rec.tables[i] != it->table)
			continue;
		left = live_left(&live, rec.tables[i]);
		if (left)
			r = outcome_set(ret, APPLY_FAILED, -EBUSY,
					"rdmad's %s in table %" PRIu32 " are still there (%s)",
					left, rec.tables[i], x->netdev);
	}
	live_done(&live);
	for (RailSysctl k = 0; r >= 0 && !ret->result && it->table == 0 && k < _RAIL_SYSCTL_MAX;
	     k++) {
		int have = rail_sysctl_read(applier_root(a), x->netdev, k);

		/* a netdev gone (-1) took its sysctls with it */
		if (rec.saved[k] >= 0 && have >= 0 && have != rec.saved[k])
			r = outcome_set(ret, APPLY_FAILED, -EBUSY,
					"net.ipv4.conf.%s.%s is %d, not %d as before rdmad",
					x->netdev, rail_sysctl_to_string(k), have, rec.saved[k]);
	}
	if (r < 0 || ret->result == APPLY_FAILED) {
		rail_record_done(&rec);
		return r;
	}
	if (it->table)
		rail_record_remove_table(&rec, it->table);
	else {
		free(rec.tables);
		rec.tables = NULL;
		rec.n_tables = 0;
		for (RailSysctl k = 0; k < _RAIL_SYSCTL_MAX; k++)
			rec.saved[k] = -1;
	}
	r = rail_record_write(applier_state_dir(a), &rec);
	rail_record_done(&rec);
	if (r < 0)
		return r == -ENOMEM
			       ? r
			       : outcome_set(ret, APPLY_FAILED, r, "cannot update %s's record: %s",
					     x->netdev, strerror(-r));
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int apply_rail(Applier *a, const Action *x, ActionOutcome *ret) {
	const RailItem *it = &x->value.rail;

	if (!x->netdev || !netdev_name_valid(x->netdev))
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev",
				   action_subject(x));
	switch (it->kind) {
	case RAIL_KIND_SYSCTL:
		return sysctl_apply(a, x, it, ret);
	case RAIL_KIND_ROUTE:
	case RAIL_KIND_RULE:
		return routing_apply(a, x, it, ret);
	case RAIL_KIND_FORGET:
		return forget_apply(a, x, it, ret);
	default:
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "unknown rail routing action");
	}
}
