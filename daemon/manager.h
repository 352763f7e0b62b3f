/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <netlink/netlink.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "apply.h"
#include "host.h"
#include "plan.h"
#include "profile.h"

typedef enum LinkState {
	LINK_STATE_UNMANAGED, /* no profile declares anything for it */
	LINK_STATE_PENDING,   /* changes to make, or a readiness condition (gids.require) unmet */
	LINK_STATE_CONVERGED,
	LINK_STATE_DEGRADED, /* converged, but some declared settings are unsupported here */
	LINK_STATE_FAILED,   /* the last attempt to apply something failed */
	_LINK_STATE_MAX,
	_LINK_STATE_INVALID = -EINVAL,
} LinkState;
DECLARE_STRING_TABLE_LOOKUP(link_state, LinkState)

typedef struct LinkStatus {
	char *name; /* "mlx5_0/1", or "host" for modules, links and system */
	char *device;
	uint32_t port;
	char *netdev;
	LinkState state;
	char *last_error;
	unsigned n_failed;   /* consecutive failed attempts, for the backoff */
	uint64_t retry_usec; /* CLOCK_MONOTONIC: a failed link is not tried again before this */
	bool waiting_gids;   /* pending only because gids.require is unmet */
} LinkStatus;

typedef struct Manager {
	sd_event *event;
	char *root;
	char **config_dirs; /* NULL: the drop-in dirs under root */
	char *state_dir;
	bool test_mode; /* no udev monitor (fixture roots have no uevents) */

	Config *config;
	Diagnostics config_errors; /* of the last failed load; kept for status */
	Applier *applier;

	LinkStatus *links;
	size_t n_links;

	/* What events touched since the last reconcile. */
	bool dirty_all;
	char **dirty_devices;
	char **dirty_netdevs;

	sd_event_source *reconcile_timer;
	sd_device_monitor *udev;
	struct nl_sock *rtnl_watch;
	sd_event_source *rtnl_source;

	unsigned n_reconciles;
	unsigned n_writes; /* actions that changed something, over the daemon's life */
	unsigned backoff_exp;
	unsigned gid_wait_exp;
	bool followup_scheduled; /* the next reconcile is the look-again after netdev events */
} Manager;

int manager_new(const char *root, char **config_dirs, const char *state_dir, bool test_mode,
		Manager **ret);
Manager *manager_free(Manager *m);
DEFINE_TRIVIAL_CLEANUP_FUNC(Manager *, manager_free)

/* Load the profiles. On error the previous Config stays, the problems are logged with
 * FILE:LINE:COLUMN and kept in config_errors, and -EINVAL is returned. */
int manager_load_config(Manager *m);
int manager_start(Manager *m);
int manager_run(Manager *m);

/* Mark and schedule (coalesced, short debounce). */
void manager_mark_dirty_all(Manager *m);
void manager_mark_device(Manager *m, const char *device);
void manager_mark_netdev(Manager *m, const char *netdev);
void manager_schedule_reconcile(Manager *m, uint64_t delay_usec);

/* One reconcile of the dirty links (manager-reconcile.c). Returns the number of managed links
 * not converged (pending or failed), or -errno. */
int manager_reconcile(Manager *m);
void manager_notify_status(Manager *m);

/* Watchers (manager-watch.c). */
int manager_watch_udev(Manager *m);
int manager_watch_rtnl(Manager *m);
