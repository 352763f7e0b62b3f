/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The manager: profiles, the status table, what events made dirty, and the reconcile. Its
 * bus face is manager-bus.c and link-bus.c, its event sources manager-watch.c. */

#include <netlink/netlink.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "apply.h"
#include "bus-polkit.h"
#include "host.h"
#include "plan.h"
#include "pci-topology.h"
#include "port-status.h"
#include "profile.h"
#include "strset.h"
#include "ratelimit.h"
#include "slice-source.h"

typedef struct LldpWatch LldpWatch;
typedef struct HealthWatch HealthWatch;

/* What a change notification was about: a contested setting is blamed only on a change of its
 * own kind. */
typedef enum ContenderKind {
	CONTENDER_LINK,	   /* RTM_NEWLINK: netdev.up, netdev.mtu */
	CONTENDER_ADDRESS, /* RTM_NEWADDR/DELADDR: netdev.addresses */
	CONTENDER_DCB,	   /* RTNLGRP_DCB: qos.* */
	CONTENDER_PAUSE,   /* ethtool PAUSE_NTF: netdev.pause.* */
	_CONTENDER_KIND_MAX,
} ContenderKind;

/* Who last changed a netdev over rtnetlink, where the kernel says (the sender's netlink port:
 * address changes carry it; link and DCB changes carry 0 on the kernels rdmad is tested on):
 * named when a setting of that kind turns out contested. */
typedef struct Contender {
	char netdev[IF_NAMESIZE];
	ContenderKind kind;
	char *who; /* "lldpad, pid 812", or "pid 812" when it has exited */
	uint64_t usec;
} Contender;

/* A GID index rdmad publishes for a link (manager-publish.c). */
typedef struct Published {
	char *link; /* "mlx5_0/1" */
	uint32_t index;
	uint8_t gid[16];
} Published;

/* What unprivileged callers may make rdmad read from the kernel (docs/SECURITY.md). */
#define PLAN_REUSE_USEC			 (5 * 1000000ULL)
#define COUNTERS_RATELIMIT_INTERVAL_USEC (1000000ULL)
#define COUNTERS_RATELIMIT_BURST	 64

typedef struct ManagerEmitter ManagerEmitter;

/* A reconcile at work (manager-reconcile.c), made in slices on the event loop. */
typedef struct ReconcileRun ReconcileRun;
/* A Plan() observation at work (manager-plan.c), in slices too. */
typedef struct PlanJob PlanJob;
/* A long kernel operation off the loop (manager-worker.c). */
typedef struct Worker Worker;
typedef struct DescribeJob DescribeJob;
/* A pending trial or its rollback at work (manager-trial.c). */
typedef struct Trial Trial;

/* LoopDispatches: the upper bounds of its buckets, in microseconds, the last UINT64_MAX */
#define LOOP_DISPATCH_BUCKETS 13
extern const uint64_t loop_dispatch_bounds_usec[LOOP_DISPATCH_BUCKETS];
/* The links' signals not sent yet (link-bus.c), sent in slices too. */
typedef struct LinkSignals LinkSignals;

/* A caller of Reconcile() or Reload(), answered when the reconcile it waits for ends. */
typedef struct RunWaiter {
	sd_bus_message *msg;
	bool report_error; /* Reconcile(): a failed reconcile is its error */
} RunWaiter;

typedef struct Manager {
	sd_event *event;
	char *root;
	char **config_dirs; /* NULL: the drop-in dirs under root */
	char *state_dir;
	char *env_dir;	      /* the per-link environment files (manager-publish.c) */
	Published *published; /* what the last reconcile published, by link */
	size_t n_published;
	bool env_dir_pruned;	/* holds only the files of `published` (a prune since the start) */
	bool publish_in_flight; /* a publication began and has not ended (manager-publish.c) */
	char *nccl_verdict;	/* "agree", "disagree", "none" (NULL before the first publish) */
	int32_t nccl_gid_index; /* the index all published links agree on, -1 */
	bool test_mode;		/* no udev monitor (fixture roots have no uevents) */
	bool use_bus;		/* own org.rdmad1 (always on the real root, --bus under --root) */

	Config *config;
	Diagnostics config_errors; /* of the last failed load; kept for status */
	size_t config_skipped;	   /* invalid files left out at start (none after a reload) */
	Applier *applier;

	/* NVIDIA GPUs (manager-gpus.c): their places, and the distinct lists of the GPUs nearest
	 * to a link, which PortStatus.nearest_gpus index */
	PciPlace *gpus;
	size_t n_gpus;
	char **nearest_gpu_sets;

	/* The status table (port-status.h), sorted by device and port. */
	PortStatus *ports;
	size_t n_ports;
	/* One more each time the table is replaced by one that reads differently (a port came,
	 * went or changed); a table replaced by an equal one keeps it. */
	uint64_t ports_generation;
	/* The event loop's dispatches, counted by how long each took (manager.c) */
	uint64_t loop_dispatches[LOOP_DISPATCH_BUCKETS];
	HostStatus host;

	/* What events touched since the last reconcile. */
	bool dirty_all;
	StrSet dirty_devices;
	StrSet dirty_netdevs;
	Contender *contenders;
	size_t n_contenders;

	sd_bus *bus;			/* NULL with --once */
	LinkSignals *link_signals;	/* link-bus.c */
	const ManagerEmitter *emitter;	/* who is told of changes (manager-emit.h); NULL: nobody */
	sd_event_source *bus_reconnect; /* after the connection was lost */
	bool started;			/* the first reconcile is done */
	uint64_t last_reconcile_usec;	/* CLOCK_REALTIME at the end of the last reconcile */
	uint64_t last_reconcile_duration_usec; /* and how long that one took */
	const char *state_emitted;	       /* the State last announced with PropertiesChanged */

	/* Preflight() and SelfTest() at work (manager-checks.c): one run each at a time;
	 * Preflight() callers that come meanwhile get the same answer. */
	struct Helper *preflight;
	sd_bus_message **preflight_callers;
	size_t n_preflight_callers;
	uid_t preflight_uid;  /* whom the run at work judges for */
	char *preflight_last; /* the last answer, for whom, and when (CLOCK_MONOTONIC) */
	uid_t preflight_last_uid;
	uint64_t preflight_last_usec;
	struct Helper *self_test;
	sd_bus_message *self_test_caller;

	/* Unprivileged callers (docs/SECURITY.md): polkit checks at work (bus-polkit.h); the
	 * last Plan() they were given, and when (CLOCK_MONOTONIC), observed at most once per
	 * PLAN_REUSE_USEC for all of them; their GetCounters() reads of sysfs. */
	PolkitRegistry polkit;
	char *plan_shared;
	uint64_t plan_shared_usec;
	/* Plan()'s observation at work, its slices, the callers waiting for the next one. */
	PlanJob *plan_job;
	SliceSource *plan_slices;
	sd_bus_message **plan_next;
	size_t n_plan_next;
	/* Describe()'s document at work and its slices (manager-describe.c) */
	DescribeJob *describe_job;
	SliceSource *describe_slices;
	size_t describe_links_size; /* of the last document: its buffer's size from the start */
	RateLimit counters_ratelimit;
	/* How long a profile must be unchanged before it is loaded (PROFILES_SETTLE_NSEC). Tests
	 * only, under --root: read from this file at each load when it holds a number of ms
	 * (RDMAD_TEST_SETTLE_FILE), so that a test's writer is judged against a window it sets,
	 * not against how fast this machine runs it. */
	char *test_settle_file;

	sd_event_source *reconcile_timer;
	sd_event_source *trim_timer; /* malloc_trim() once quiet (manager_trim_later()) */
	/* The reconcile at work, its slices (a defer source below every other), whether another
	 * must follow it, and the callers waiting for one that begins after their call. */
	ReconcileRun *run;
	SliceSource *run_slices;
	bool run_again;
	RunWaiter *run_waiters;
	size_t n_run_waiters;
	/* The run's long kernel operation at work (manager-worker.h), and the outcome of one that
	 * ended after a reload made its run stale: the next run's, which holds the action as
	 * this one's own and reports it. */
	Worker *worker;
	Outcomes carried;
	sd_device_monitor *udev;
	struct nl_sock *rtnl_watch;
	sd_event_source *rtnl_source;
	struct nl_sock *nft_watch; /* NFNLGRP_NFTABLES (security.roce-allow-from) */
	sd_event_source *nft_source;
	struct nl_sock *ethtool_watch; /* ethtool's monitor group (netdev.pause.*) */
	HealthWatch *health_watch;     /* devlink health reporters (manager-health.c) */
	LldpWatch *lldp_watch;	       /* lldpd's neighbour notifications (manager-lldp.c) */
	sd_event_source *ethtool_source;
	struct nl_sock *devlink_watch; /* devlink's config group (devlink.params) */
	sd_event_source *devlink_source;
	sd_event_source *hostname_source; /* rdma.node-description's %h */

	/* `rdmactl try` (manager-trial.h): the trial pending or rolling back, the last that
	 * ended (JSON), and rdmad-probe's state file its probe gate reads */
	Trial *trial;
	char *trial_last;
	char *probe_state_path;

	unsigned n_reconciles;
	unsigned n_writes;   /* actions that changed something, over the daemon's life */
	unsigned n_overruns; /* ENOBUFS on the rtnetlink watch socket */
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
/* The next reconcile a full pass, failed ports included (manager_reconcile_wait() begins it). */
void manager_reconcile_all(Manager *m);

/* starting (before the first reconcile), degraded (invalid profiles, a failed or contested
 * port), running */
const char *manager_state(const Manager *m);
/* PropertiesChanged for State, when it differs from what was last said. */
void manager_state_update(Manager *m);
/* A port by "DEV/PORT", "DEV" (one-port devices) or netdev name: -EINVAL for a name that is
 * none of these, -EADDRNOTAVAIL for a device with several ports, -ENODEV if there is none. */
int manager_port_find(Manager *m, const char *name, PortStatus **ret);
/* The status of device/port, NULL if none. */
PortStatus *manager_port_status(Manager *m, const char *device, uint32_t port);
/* The GID a job should use on s: with fresh, from the port's table read now (a difference
 * from the last reconcile's copy schedules one); without, from that copy, no I/O and nothing
 * scheduled (an unprivileged caller's). -ENODATA: none. */
int manager_gid_resolve(Manager *m, const PortStatus *s, GidType type, GidFamily family, bool fresh,
			Gid *ret);
/* The config errors as "FILE:LINE:COLUMN: error: ..." lines. */
int manager_config_errors(const Manager *m, char ***ret);
/* Plan() (manager-plan.c): msg answered with what a reconcile would change now, as JSON, once
 * an observation made in slices ends: the one at work, or with fresh (root) one that begins
 * after the call. */
int manager_plan_wait(Manager *m, sd_bus_message *msg, bool fresh);
/* The plan at work and its callers dropped (manager_free()). */
void manager_plan_done(Manager *m);
PlanJob *plan_job_free(PlanJob *j);
DEFINE_TRIVIAL_CLEANUP_FUNC(PlanJob *, plan_job_free)

/* The whole status as JSON (manager-describe.c), for Describe() and rdmactl status: written in
 * slices, msg answered when it is whole. */
int manager_describe_wait(Manager *m, sd_bus_message *msg);
void manager_describe_done(Manager *m);
DescribeJob *describe_job_free(DescribeJob *j);

/* What rdmad wrote to device's ports starts over (a new device instance, a reload). */
void manager_forget_contests(Manager *m, const char *device);

/* Mark and schedule (coalesced, short debounce). */
void manager_mark_dirty_all(Manager *m);
void manager_mark_device(Manager *m, const char *device);
void manager_mark_netdev(Manager *m, const char *netdev);
void manager_schedule_reconcile(Manager *m, uint64_t delay_usec);
/* Who changed key on netdev (manager-watch.c), NULL if not known within the contest window. */
const char *manager_contender(const Manager *m, const char *netdev, Key key, uint64_t now);

/* What a reconcile observes for c: only what its keys need (manager-reconcile.c). */
HostObserveFlags manager_observe_flags(const Config *c, char *const *only);
/* A reconcile of what is dirty (manager-reconcile.c), in slices on the event loop: begun now,
 * or, when one is at work, at once after it (it may have observed before what asked). */
int manager_reconcile_start(Manager *m);
/* The same, and msg answered when that reconcile ends: with an error if it failed and
 * report_error is set. */
int manager_reconcile_wait(Manager *m, sd_bus_message *msg, bool report_error);
/* One reconcile of what is dirty, whole, without the loop (rdmad --once). Returns the number
 * of managed ports not converged (pending or failed), or -errno; -EBUSY while one is at work. */
int manager_reconcile(Manager *m);
/* The run at work and its waiters dropped (manager_free()). */
void manager_reconcile_done(Manager *m);
ReconcileRun *reconcile_run_free(ReconcileRun *run);
DEFINE_TRIVIAL_CLEANUP_FUNC(ReconcileRun *, reconcile_run_free)
/* What the status table the run at work builds must take over when it replaces the old one:
 * every retry reset (a reload, Reconcile()), device's contests forgotten (NULL: all). */
void manager_reconcile_note_reset(Manager *m);
void manager_reconcile_note_forget(Manager *m, const char *device);
/* m->config is about to be replaced: freed, or kept by the run at work that plans with it. */
void manager_config_retire(Manager *m);
void manager_notify_status(Manager *m);
/* malloc_trim() once rdmad has been quiet for a moment (manager.c). */
void manager_trim_later(Manager *m);

/* manager-gpus.c: the GPUs read again (start, reload): 1 when they changed, 0 when not; a
 * failure is logged and keeps the old list. */
int manager_gpus_read(Manager *m);
void manager_gpus_done(Manager *m);
/* The nearest GPUs of the link of d, p, for its new status: old's when known, else read.
 * -ENOMEM, -E2BIG (more distinct lists than fit). */
int manager_port_nearest_gpus(Manager *m, const HostDevice *d, const HostPort *p,
			      const PortStatus *old, uint16_t *ret);
/* s's nearest GPUs, comma-joined; NULL for none. */
const char *manager_nearest_gpus(const Manager *m, const PortStatus *s);
