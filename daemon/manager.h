/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <netlink/netlink.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "apply.h"
#include "host.h"
#include "link-status.h"
#include "plan.h"
#include "profile.h"

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

	sd_bus *bus;			/* NULL with --once */
	sd_event_source *bus_reconnect; /* after the connection was lost */
	bool started;			/* the first reconcile is done */
	uint64_t last_reconcile_usec;	/* CLOCK_REALTIME at the end of the last reconcile */
	const char *state_emitted;	/* the State last announced with PropertiesChanged */

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

/* Load the profiles again; when they are valid, forget backoffs and look at everything. */
int manager_reload(Manager *m);
/* A full pass now, failed links included. */
int manager_reconcile_all(Manager *m);

/* starting (before the first reconcile), degraded (invalid profiles, a failed link), running */
const char *manager_state(const Manager *m);
/* PropertiesChanged for State, when it differs from what was last said. */
void manager_state_update(Manager *m);
/* A link by "DEV/PORT", "DEV" (one-port devices) or netdev name: -EINVAL for a name that is
 * none of these, -EADDRNOTAVAIL for a device with several ports, -ENODEV if there is none. */
int manager_link_find(Manager *m, const char *name, LinkStatus **ret);
/* The GID a job should use on s, from the port's table read now (-ENODATA: none). */
int manager_gid_resolve(Manager *m, const LinkStatus *s, GidType type, GidFamily family, Gid *ret);
/* The config errors as "FILE:LINE:COLUMN: error: ..." lines. */
int manager_config_errors(const Manager *m, char ***ret);
/* What a reconcile would change now, observed afresh (no GID tables: plans do not need them). */
int manager_plan(const Manager *m, Plan **ret);

/* The whole status as JSON (manager-describe.c): Describe(), rdmactl status --json. */
int manager_describe(Manager *m, char **ret);

/* D-Bus (manager-bus.c, link-bus.c). */
int manager_connect_bus(Manager *m);
bool manager_bus_ready(Manager *m);
int link_bus_register(Manager *m, sd_bus *bus);
char *link_bus_path(const char *name);
/* After statuses were rebuilt: PropertiesChanged for what differs from old (the first
 * n_carried new entries were moved over unchanged), InterfacesAdded/Removed for links that
 * came or went. */
void manager_bus_links_changed(Manager *m, const LinkStatus *old, size_t n_old, size_t n_carried);
void manager_bus_emit_changed(Manager *m, const char *property, ...);

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
