/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <malloc.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "config.h"
#include "file-stamp.h"
#include "fileio.h"
#include "gid.h"
#include "log.h"
#include "manager-devlink.h"
#include "manager-emit.h"
#include "manager-health.h"
#include "manager-lldp.h"
#include "manager-trial.h"
#include "manager-watch.h"
#include "bus-args.h"
#include "manager.h"
#include "manager-publish.h"
#include "manager-worker.h"
#include "strv.h"

int manager_new(const char *root, char **config_dirs, const char *state_dir, bool test_mode,
		Manager **ret) {
	_cleanup_(manager_freep) Manager *m = NULL;
	int r;

	m = calloc(1, sizeof(Manager));
	if (!m)
		return -ENOMEM;
	m->root = strdup(root);
	m->state_dir = strdup(state_dir);
	/* Under a fixture root, what rdmad publishes goes there too. */
	if (asprintf(&m->env_dir, "%s%s", streq(root, "/") ? "" : root, RDMAD_ENV_DIR) < 0)
		m->env_dir = NULL;
	m->config_dirs = config_dirs ? strv_copy(config_dirs) : NULL;
	if (!m->root || !m->state_dir || !m->env_dir || (config_dirs && !m->config_dirs))
		return -ENOMEM;
	m->test_mode = test_mode;
	m->dirty_all = true; /* the first reconcile looks at everything */
	m->nccl_gid_index = -1;
	m->counters_ratelimit = (RateLimit){ .interval_usec = COUNTERS_RATELIMIT_INTERVAL_USEC,
					     .burst = COUNTERS_RATELIMIT_BURST };

	r = sd_event_default(&m->event);
	if (r < 0)
		return r;
	r = applier_new(m->root, m->state_dir, &m->applier);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(m);
	return 0;
}

Manager *manager_free(Manager *m) {
	if (!m)
		return NULL;
	manager_emit_done(m);
	manager_trial_done(m);
	m->worker = worker_free(m->worker); /* before the run whose action it borrows */
	outcomes_done(&m->carried);
	manager_reconcile_done(m);
	manager_plan_done(m);
	manager_describe_done(m);
	polkit_registry_clear(&m->polkit);
	free(m->plan_shared);
	sd_event_source_unref(m->reconcile_timer);
	sd_event_source_unref(m->trim_timer);
	sd_event_source_unref(m->rtnl_source);
	if (m->rtnl_watch)
		nl_socket_free(m->rtnl_watch);
	sd_event_source_unref(m->nft_source);
	sd_event_source_unref(m->hostname_source);
	if (m->nft_watch)
		nl_socket_free(m->nft_watch);
	sd_event_source_unref(m->ethtool_source);
	if (m->ethtool_watch)
		nl_socket_free(m->ethtool_watch);
	manager_unwatch_devlink(m);
	lldp_watch_free(m->lldp_watch);
	health_watch_free(m->health_watch);
	sd_device_monitor_unref(m->udev);
	sd_event_source_unref(m->bus_reconnect);
	sd_bus_flush_close_unref(m->bus);
	for (size_t i = 0; i < m->n_ports; i++)
		port_status_done(&m->ports[i]);
	free(m->ports);
	host_status_done(&m->host);
	for (size_t i = 0; i < m->n_contenders; i++)
		free(m->contenders[i].who);
	free(m->contenders);
	strset_done(&m->dirty_devices);
	strset_done(&m->dirty_netdevs);
	applier_free(m->applier);
	config_free(m->config);
	manager_gpus_done(m);
	diagnostics_done(&m->config_errors);
	strv_free(m->config_dirs);
	free(m->root);
	free(m->test_settle_file);
	free(m->state_dir);
	free(m->env_dir);
	published_free(m->published, m->n_published);
	free(m->nccl_verdict);
	sd_event_unref(m->event);
	free(m);
	return NULL;
}

static void config_errors_log(const Diagnostics *diags) {
	for (size_t i = 0; i < diags->n; i++) {
		_cleanup_free_ char *s = diagnostic_format(&diags->items[i]);

		log_full(diags->items[i].warning ? LOG_WARNING : LOG_ERR, 0,
			 &(LogFields){ .profile = diags->items[i].file }, "%s",
			 s ? s : strna(diags->items[i].message));
	}
}

/* An editor that saves in place truncates the file and writes it again: a load in between reads
 * nothing or a prefix. So a profile changed less than PROFILES_SETTLE_NSEC ago is let settle
 * first, and the files are looked at again after the load: a load that raced a write is made
 * again, up to PROFILES_SETTLE_TRIES times (about a second on the event loop at most). */
#define PROFILES_SETTLE_NSEC  (100ULL * 1000 * 1000)
#define PROFILES_SETTLE_TRIES 10

/* The drop-ins to read, and a stamp of every candidate. Warnings about the drop-ins (a
 * directory that is a file, a *.YAML) go to warnings when given. */
static int profiles_list(const Manager *m, Diagnostics *warnings, char ***ret_files,
			 FileStamps *ret_stamps) {
	_cleanup_strv_free_ char **files = NULL;
	int r;

	static const char *const suffixes[] = { ".yaml", ".yml", NULL };
	const char *root = m->config_dirs ? "/" : m->root;
	const char *const *dirs =
		m->config_dirs ? (const char *const *) m->config_dirs : profile_dirs_default;

	r = profile_dropins_find(root, dirs, warnings, &files);
	if (r < 0)
		return r;
	/* Every candidate, masked ones included: an editor's truncate makes an empty file, a
	 * mask, that is not among the files to read. */
	r = file_stamps_take_dirs(root, dirs, suffixes, ret_stamps);
	if (r < 0)
		return r;
	*ret_files = TAKE_PTR(files);
	return 0;
}

static uint64_t realtime_nsec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

/* How long path (changed at t) still needs to settle, 0 if it has. A time in the future (the
 * clock was set back) does not hold a load up. */
static uint64_t profiles_settle_nsec(const Manager *m) {
	_cleanup_free_ char *text = NULL;
	unsigned long long ms;

	if (!m->test_settle_file || read_line_at(AT_FDCWD, m->test_settle_file, &text) < 0 ||
	    sscanf(text, "%llu", &ms) != 1 || ms == 0 || ms > 60000)
		return PROFILES_SETTLE_NSEC;
	return ms * 1000 * 1000;
}

static uint64_t profiles_unsettled(const FileStamps *s, uint64_t settle, const char **ret_path) {
	uint64_t t, now = realtime_nsec();

	if (file_stamps_newest(s, ret_path, &t) < 0 || t > now || now - t >= settle)
		return 0;
	return settle - (now - t);
}

/* A reload refused because path kept changing: the previous configuration stays, the reason is
 * in ConfigErrors until the next load. */
static int profiles_refuse(Manager *m, const char *path, const char *why) {
	Diagnostics diags = { 0 };

	log_full(LOG_ERR, EBUSY,
		 &(LogFields){ .profile = path, .message_id = MESSAGE_ID_PROFILES_UNSETTLED },
		 "%s: %s; keeping the previous configuration (%zu file(s)). Reload again once it "
		 "is saved.",
		 path, why, strv_length(m->config->files));
	if (diagnostics_add(&diags, path, 0, 0, "%s; not loaded", why) < 0)
		return -ENOMEM;
	diagnostics_done(&m->config_errors);
	m->config_errors = diags;
	m->config_skipped = 0;
	return -EINVAL;
}

/* At start there is no previous configuration to keep: an invalid file is left out and the
 * rest applies (networkd's way with a bad .network file), rdmad starts degraded with the errors
 * in its status. A reload is all or nothing: an invalid file keeps the last good configuration. */
int manager_load_config(Manager *m) {
	Diagnostics diags = { 0 };
	size_t n_skipped = 0;
	Config *c = NULL;
	int r;

	uint64_t settle = profiles_settle_nsec(m);

	for (unsigned attempt = 1;; attempt++) {
		_cleanup_(file_stamps_done) FileStamps before = { 0 }, after = { 0 };
		_cleanup_strv_free_ char **files = NULL, **files_after = NULL;
		const char *path = NULL;
		uint64_t wait;
		bool last = attempt >= PROFILES_SETTLE_TRIES;

		Diagnostics warnings = { 0 };

		/* Warnings about the drop-ins are logged (once), not kept as configuration
		 * errors: the configuration they leave is valid. */
		r = profiles_list(m, attempt == 1 ? &warnings : NULL, &files, &before);
		config_errors_log(&warnings);
		diagnostics_done(&warnings);
		if (r < 0)
			return log_error_errno(r, "Failed to list profiles");
		wait = profiles_unsettled(&before, settle, &path);
		if (wait > 0 && !last) {
			log_debug("%s changed %llu ms ago; letting it settle.", path,
				  (unsigned long long) (settle - wait) / 1000000);
			(void) usleep((useconds_t) (wait / 1000) + 1);
			continue;
		}
		if (wait > 0 && m->config)
			return profiles_refuse(m, path, "still being written");

		n_skipped = 0;
		if (m->config)
			r = config_load_files(files, &diags, &c);
		else
			r = config_load_files_skip_invalid(files, &diags, &c, &n_skipped);

		/* The files must not have changed while they were read. */
		if (profiles_list(m, NULL, &files_after, &after) >= 0 &&
		    file_stamps_equal(&before, &after, &path))
			break;
		if (!path)
			path = "profiles";
		if (last && !m->config)
			break; /* at start, nothing to keep: take what was read */
		config_free(c);
		c = NULL;
		diagnostics_done(&diags);
		if (last)
			return profiles_refuse(m, path, "changed while being read");
		log_debug("%s changed while being read; reading again.", path);
	}

	if (r < 0) {
		config_errors_log(&diags);
		if (m->config)
			log_error("Profiles are invalid; keeping the previous configuration (%zu "
				  "file(s)).",
				  strv_length(m->config->files));
		diagnostics_done(&m->config_errors);
		m->config_errors = diags;
		m->config_skipped = 0;
		return r == -ENOMEM ? r : -EINVAL;
	}
	/* the trial's layer, or its rollback's, above all (manager-trial.h) */
	r = manager_trial_layer(m, c);
	if (r < 0) {
		config_free(c);
		diagnostics_done(&diags);
		return log_error_errno(r, "Failed to add the trial's profiles");
	}
	config_errors_log(&diags);
	diagnostics_done(&m->config_errors);
	m->config_errors = diags;
	m->config_skipped = n_skipped;
	manager_config_retire(m);
	m->config = c;
	if (n_skipped > 0)
		log_error("Left out %zu invalid profile file(s); starting with the other %zu.",
			  n_skipped, strv_length(c->files));
	log_info("Loaded %zu profile(s) from %zu file(s).", c->n_profiles, strv_length(c->files));
	return 0;
}

void manager_forget_contests(Manager *m, const char *device) {
	manager_reconcile_note_forget(m, device);
	for (size_t i = 0; i < m->n_ports; i++) {
		if (device && !streq(m->ports[i].device, device))
			continue;
		for (size_t k = 0; k < m->ports[i].n_history; k++)
			m->ports[i].history[k].contest = (ContestHistory){ 0 };
	}
}

void manager_mark_dirty_all(Manager *m) {
	m->dirty_all = true;
	manager_schedule_reconcile(m, 100 * 1000);
}

void manager_mark_device(Manager *m, const char *device) {
	(void) strset_add(&m->dirty_devices, device);
	manager_schedule_reconcile(m, 100 * 1000);
}

void manager_mark_netdev(Manager *m, const char *netdev) {
	(void) strset_add(&m->dirty_netdevs, netdev);
	manager_schedule_reconcile(m, 100 * 1000);
}

static int on_reconcile_timer(sd_event_source *s, uint64_t usec, void *userdata) {
	Manager *m = userdata;
	int r;

	r = manager_reconcile_start(m);
	if (r < 0)
		log_warning_errno(r, "Failed to begin a reconcile, will retry");
	return 0;
}

/* Coalesce: events arriving within delay are handled by one reconcile. An earlier deadline
 * already set wins. */
void manager_schedule_reconcile(Manager *m, uint64_t delay_usec) {
	uint64_t now, when;
	int enabled = SD_EVENT_OFF;
	int r;

	struct timespec ts;

	/* Not sd_event_now(): after a long reconcile that is the start of this iteration, and
	 * "in a second" would already be past. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
	when = now + delay_usec;
	if (!m->reconcile_timer) {
		r = sd_event_add_time(m->event, &m->reconcile_timer, CLOCK_MONOTONIC, when,
				      10 * 1000, on_reconcile_timer, m);
		if (r < 0) {
			log_error_errno(r, "Failed to schedule a reconcile");
			return;
		}
		(void) sd_event_source_set_description(m->reconcile_timer, "reconcile");
		return;
	}
	(void) sd_event_source_get_enabled(m->reconcile_timer, &enabled);
	if (enabled != SD_EVENT_OFF) {
		uint64_t cur;

		if (sd_event_source_get_time(m->reconcile_timer, &cur) >= 0 && cur <= when)
			return;
	}
	(void) sd_event_source_set_time(m->reconcile_timer, when);
	(void) sd_event_source_set_enabled(m->reconcile_timer, SD_EVENT_ONESHOT);
}

int manager_reload(Manager *m) {
	_cleanup_strv_free_ char **files = NULL, **errors = NULL, **errors_now = NULL;
	int r;

	files = strv_copy(m->config ? m->config->files : NULL);
	(void) manager_config_errors(m, &errors);

	if (m->started)
		(void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading profiles...");
	log_info("Reloading profiles.");
	r = manager_load_config(m);
	/* a reload is how an administrator says the hardware changed, GPUs too */
	(void) manager_gpus_read(m);
	if (r >= 0) {
		/* New profiles: what failed before is worth trying at once, and what was
		 * contested is written again (the administrator may have settled it). */
		for (size_t i = 0; i < m->n_ports; i++)
			m->ports[i].retry_usec = 0;
		manager_forget_contests(m, NULL);
		m->host.retry_usec = 0;
		manager_reconcile_note_reset(m);
		manager_mark_dirty_all(m);
	}
	/* Not while the first reconcile runs (a SIGHUP meanwhile): its end says READY=1. */
	if (m->started)
		(void) sd_notify(false, "READY=1");
	manager_notify_status(m);
	(void) manager_config_errors(m, &errors_now);
	if (!strv_equal(files, m->config ? m->config->files : NULL))
		manager_emit_changed(m, "ConfigFiles", NULL);
	if (!strv_equal(errors, errors_now))
		manager_emit_changed(m, "ConfigErrors", NULL);
	manager_state_update(m);
	return r;
}

void manager_reconcile_all(Manager *m) {
	for (size_t i = 0; i < m->n_ports; i++)
		m->ports[i].retry_usec = 0;
	m->host.retry_usec = 0;
	manager_reconcile_note_reset(m);
	m->dirty_all = true;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
	(void) manager_reload(userdata);
	return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
	Manager *m = userdata;

	log_info("Stopping on %s.", si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
	return sd_event_exit(m->event, 0);
}

int manager_start(Manager *m) {
	sigset_t mask;
	int r;

	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD); /* sd-event's child sources: manager-helper.c */
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return -errno;
	r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m);
	if (r >= 0)
		r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch signals");
	r = sd_event_set_watchdog(m->event, true);
	if (r < 0)
		log_warning_errno(r, "Failed to enable the watchdog, ignoring");

	r = manager_watch_rtnl(m);
	if (r < 0)
		return r;
	r = manager_watch_nft(m);
	if (r < 0)
		return r;
	r = manager_watch_ethtool(m);
	if (r < 0)
		return r;
	r = manager_watch_devlink(m);
	if (r < 0)
		return r;
	r = manager_watch_hostname(m);
	if (r < 0)
		return r;
	if (streq(m->root, "/")) {
		r = manager_watch_lldp(m);
		if (r < 0)
			return r;
	}
	if (!m->test_mode) {
		r = manager_watch_udev(m);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A dispatch longer than this is logged (debug): while it runs, no bus call, event or watchdog
 * ping is served. A reconcile, Plan() and Describe() run in slices well below it. */
#define LOOP_SLOW_USEC (10 * 1000ULL)

const uint64_t loop_dispatch_bounds_usec[LOOP_DISPATCH_BUCKETS] = {
	100,   500,    1000,   2000,   5000,	10000,	    20000,
	50000, 100000, 200000, 500000, 1000000, UINT64_MAX,
};

static uint64_t thread_cpu_usec(void) {
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

static void loop_dispatch_count(Manager *m, uint64_t usec) {
	for (size_t i = 0; i < LOOP_DISPATCH_BUCKETS; i++)
		if (usec <= loop_dispatch_bounds_usec[i]) {
			m->loop_dispatches[i]++;
			return;
		}
}

/* sd_event_loop(), with each dispatch timed and counted (LoopDispatches on the bus): the loop's
 * own account of how long it was deaf, which a client's round trip cannot give (dbus-daemon
 * relaying a big message delays it too). */
static int loop_run(Manager *m) {
	int code = 0, r;

	/* with -v, a slow dispatch also says how much of it was rdmad's own work: on a loaded
	 * machine the rest is time the kernel gave to others (a syscall per dispatch, so only
	 * then) */
	bool cpu = log_get_max_level() >= LOG_DEBUG;

	while (sd_event_get_state(m->event) != SD_EVENT_FINISHED) {
		uint64_t t, c = 0;

		/* sd_event_run(), with the dispatch apart */
		r = sd_event_prepare(m->event);
		if (r == 0)
			r = sd_event_wait(m->event, UINT64_MAX);
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		t = now_monotonic_usec();
		if (cpu)
			c = thread_cpu_usec();
		r = sd_event_dispatch(m->event);
		if (r < 0)
			return r;
		t = now_monotonic_usec() - t;
		loop_dispatch_count(m, t);
		if (t > LOOP_SLOW_USEC) {
			c = cpu ? thread_cpu_usec() - c : 0;
			log_debug("loop: one dispatch took %" PRIu64 ".%03" PRIu64 " ms (%" PRIu64
				  ".%03" PRIu64 " ms on the CPU)",
				  t / 1000, t % 1000, c / 1000, c % 1000);
		}
	}
	(void) sd_event_get_exit_code(m->event, &code);
	return code;
}

/* malloc_trim() hands back the pages a reconcile or a Describe() freed (at 4,096 links a heap
 * of 10 MB trims to 3), but it walks every free chunk: 5-15 ms in one piece. So it runs once
 * rdmad has been quiet for a moment, not after each of a storm of reconciles or calls that
 * would fill the same pages again at once. */
#define TRIM_DELAY_USEC (100 * 1000ULL)

static int on_trim(sd_event_source *s, uint64_t usec, void *userdata) {
	(void) malloc_trim(0);
	return 0;
}

void manager_trim_later(Manager *m) {
	uint64_t now;

	if (sd_event_now(m->event, CLOCK_MONOTONIC, &now) < 0)
		goto now;
	if (m->trim_timer) {
		if (sd_event_source_set_time(m->trim_timer, now + TRIM_DELAY_USEC) < 0 ||
		    sd_event_source_set_enabled(m->trim_timer, SD_EVENT_ONESHOT) < 0)
			goto now;
		return;
	}
	if (sd_event_add_time(m->event, &m->trim_timer, CLOCK_MONOTONIC, now + TRIM_DELAY_USEC,
			      10 * 1000, on_trim, m) < 0)
		goto now;
	/* below everything else: a bus call or an event that comes first goes first */
	(void) sd_event_source_set_priority(m->trim_timer, SD_EVENT_PRIORITY_IDLE);
	(void) sd_event_source_set_description(m->trim_timer, "trim");
	return;
now:
	(void) malloc_trim(0);
}

int manager_run(Manager *m) {
	int r;

	/* The first reconcile; READY=1 when it ends (manager-reconcile.c), so that a unit ordered
	 * after rdmad sees converged links. The bus is served meanwhile. */
	r = manager_reconcile_start(m);
	if (r < 0)
		return log_error_errno(r, "Failed to begin the first reconcile");
	return loop_run(m);
}

void manager_notify_status(Manager *m) {
	unsigned n[_CONFIG_STATE_MAX] = { 0 };
	size_t links = m->n_ports;
	char status[512], worker[256] = "";

	for (size_t i = 0; i < m->n_ports; i++)
		n[m->ports[i].state]++;
	snprintf(status, sizeof(status),
		 "STATUS=%zu link%s: %u converged, %u pending, %u degraded, %u failed, %u "
		 "unmanaged%s",
		 links, links == 1 ? "" : "s", n[CONFIG_STATE_CONVERGED], n[CONFIG_STATE_PENDING],
		 n[CONFIG_STATE_DEGRADED], n[CONFIG_STATE_FAILED], n[CONFIG_STATE_UNMANAGED],
		 m->config_errors.n == 0 ? ""
		 : m->config_skipped	 ? "; invalid profile files left out"
					 : "; profiles invalid, previous ones in force");
	if (m->worker) {
		/* "; sriov.vfs of pci/0000:3b:00.1: writing 8 (started 12 s ago)" */
		size_t l = strlen(status);

		(void) worker_describe(m->worker, worker, sizeof(worker));
		snprintf(status + l, sizeof(status) - l, "; %s of %s: %s",
			 key_to_string(worker_key(m->worker)), worker_function(m->worker), worker);
	}
	(void) sd_notify(false, status);
}

const char *manager_state(const Manager *m) {
	if (!m->started)
		return "starting";
	if (m->config_errors.n > 0 || m->host.state == CONFIG_STATE_FAILED)
		return "degraded";
	for (size_t i = 0; i < m->n_ports; i++) {
		if (m->ports[i].state == CONFIG_STATE_FAILED)
			return "degraded";
		for (size_t k = 0; k < m->ports[i].n_settings; k++)
			if (m->ports[i].settings[k].result == SETTING_CONTESTED)
				return "degraded";
	}
	return "running";
}

void manager_state_update(Manager *m) {
	const char *state = manager_state(m);

	if (state == m->state_emitted)
		return;
	m->state_emitted = state;
	manager_emit_changed(m, "State", NULL);
}

int manager_port_find(Manager *m, const char *name, PortStatus **ret) {
	return link_name_resolve(m->ports, m->n_ports, name, ret);
}

static int port_key_compare(const void *key, const void *elem) {
	const PortStatus *k = key, *e = elem;
	int c = strcmp(k->device, e->device);

	return c != 0 ? c : (k->port > e->port) - (k->port < e->port);
}

PortStatus *manager_port_status(Manager *m, const char *device, uint32_t port) {
	PortStatus key = { .device = (char *) device, .port = port };

	if (!device || m->n_ports == 0)
		return NULL;
	return bsearch(&key, m->ports, m->n_ports, sizeof(PortStatus), port_key_compare);
}

int manager_config_errors(const Manager *m, char ***ret) {
	_cleanup_strv_free_ char **l = NULL;

	for (size_t i = 0; i < m->config_errors.n; i++) {
		char *s = diagnostic_format(&m->config_errors.items[i]);

		if (!s || strv_consume(&l, s) < 0)
			return -ENOMEM;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

/* A job asks which GID to use now: for root, read the port's table again rather than trust the
 * last reconcile's copy (GIDs of an upper netdev, a VLAN or macvlan, arrive without an event on
 * the link's own netdev); when it differs, the link's status is refreshed too. An unprivileged
 * caller gets the copy: it must not make rdmad read or reconcile (docs/SECURITY.md). */
int manager_gid_resolve(Manager *m, const PortStatus *s, GidType type, GidFamily family, bool fresh,
			Gid *ret) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	char *const devices[] = { s->device, NULL };
	const HostDevice *d;
	const Gid *g = NULL;
	Gid cached;
	int r;

	if (!fresh)
		return port_status_gid_preferred(s, type, family, ret);
	r = host_observe_devices_only(m->root, HOST_OBSERVE_GIDS | HOST_OBSERVE_DETAILS, devices,
				      &h);
	if (r < 0)
		return r;
	d = host_device_find(h, s->device);
	for (size_t i = 0; d && i < d->n_ports; i++)
		if (d->ports[i].port == s->port) {
			r = gid_preferred(&d->ports[i], type, family, &g);
			break;
		}
	if (!g)
		return d ? r : -ENODEV;
	if (port_status_gid_preferred(s, type, family, &cached) < 0 || cached.index != g->index ||
	    memcmp(cached.raw, g->raw, sizeof(g->raw)) != 0)
		manager_mark_device(m, s->device);
	*ret = *g;
	return 0;
}
