/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl metrics [--output FILE]: the Prometheus text exposition of the ports' counters (read
 * now from sysfs: counters.h) and of what only rdmad knows (its Describe(): each link's state
 * and why, the GID index it publishes, declared against current RoCE and QoS settings, config
 * errors). Names in base units, counters ending in _total; the port counters keep
 * node_exporter's node_infiniband_* names under rdmad_, so that dashboards can join them on
 * device and port. The netdevs' per-priority PFC pause frames (ethtool-stats.h) only of this
 * host, not under --root. GPUDirect RDMA readiness per NVIDIA GPU (metrics-gpu.c). devlink's health
 * reporters and firmware versions (metrics-devlink.h), of this host only; the links below what
 * they can do (metrics-degraded.c, preflight's judgement). --output writes
 * the file atomically, for node_exporter's textfile collector (rdmad-metrics.timer). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bus-client.h"
#include "config.h"
#include "counters.h"
#include "ethtool-stats.h"
#include "fileio.h"
#include "metrics.h"
#include "metrics-degraded.h"
#include "metrics-devlink.h"
#include "metrics-gpu.h"
#include "rdmactl.h"
#include "strv.h"

static const MetricFamily
	family_up = { "rdmad_up", METRIC_GAUGE,
		      "1 when rdmad answered on the system bus, 0 when it does not run" },
	family_build = { "rdmad_build_info", METRIC_GAUGE, "rdmad's version, as a label" },
	family_errors = { "rdmad_config_errors", METRIC_GAUGE,
			  "Problems in the profiles of the last load that failed (0: clean)" },
	family_reconcile = { "rdmad_last_reconcile_timestamp_seconds", METRIC_GAUGE,
			     "When rdmad last observed and reconciled the host" },
	family_duration = { "rdmad_last_reconcile_duration_seconds", METRIC_GAUGE,
			    "How long the last reconcile took, observe to publish" },
	family_nccl = { "rdmad_nccl_gid_index", METRIC_GAUGE,
			"The GID index every published link agrees on (nccl.conf), -1 for none" },
	family_state = { "rdmad_link_state", METRIC_GAUGE,
			 "1 for the link's configuration state, 0 for the others" },
	family_converged = { "rdmad_link_converged", METRIC_GAUGE,
			     "1 when the link is as its profiles declare; reason says why not" },
	family_gid = { "rdmad_link_published_gid_index", METRIC_GAUGE,
		       "The GID index rdmad publishes for jobs on the link (env file)" },
	family_tos = { "rdmad_link_roce_tos", METRIC_GAUGE,
		       "RoCE ToS of rdma_cm: declared by the profiles, and current" },
	family_mode = { "rdmad_link_roce_mode_info", METRIC_GAUGE,
			"RoCE mode of rdma_cm, declared and current, as labels" },
	family_trust = { "rdmad_link_qos_trust_info", METRIC_GAUGE,
			 "QoS trust (pcp or dscp), declared and current, as labels" },
	family_pfc_declared = { "rdmad_link_pfc_declared", METRIC_GAUGE,
				"1 for a priority the profiles declare lossless (PFC)" },
	family_pfc_enabled = { "rdmad_link_pfc_enabled", METRIC_GAUGE,
			       "1 for a priority with PFC enabled now (of links that declare "
			       "PFC)" },
	family_switch = { "rdmad_fabric_switch_mismatch", METRIC_GAUGE,
			  "1 when the link's switch port (its LLDP: IEEE 802.1Qaz ETS, PFC, "
			  "Application Priority, 802.3 maximum frame size) disagrees with the host "
			  "on setting, 0 when it agrees" },
	family_rate = { "rdmad_port_rate_bytes_per_second", METRIC_GAUGE,
			"The port's rate (node_infiniband_rate_bytes_per_second)" },
	family_port_other = { "rdmad_port_ib_events_total", METRIC_COUNTER,
			      "A counters/ file of the port node_exporter has no name for" },
	family_hw = { "rdmad_port_hw_events_total", METRIC_COUNTER,
		      "A hw_counters/ file of the port's driver (mlx5, irdma, bnxt_re, rxe, ...)" },
	family_pause[_PAUSE_DIRECTION_MAX] = {
		[PAUSE_RX] = { "rdmad_netdev_pfc_pause_frames_received_total", METRIC_COUNTER,
			       "PFC pause frames the netdev received, per priority (ethtool -S)" },
		[PAUSE_TX] = { "rdmad_netdev_pfc_pause_frames_transmitted_total", METRIC_COUNTER,
			       "PFC pause frames the netdev sent, per priority (ethtool -S)" },
	};

/* "[3,5]" (settings-format.c) as a bit per priority; -1 for anything else. */
static int priorities_parse(const char *s) {
	int mask = 0;

	if (!s || *s++ != '[')
		return -1;
	while (*s && *s != ']') {
		if (*s < '0' || *s > '7')
			return -1;
		mask |= 1 << (*s++ - '0');
		if (*s == ',')
			s++;
	}
	return *s == ']' ? mask : -1;
}

static json_object *setting_find(json_object *l, const char *key) {
	json_object *settings;

	if (!json_object_object_get_ex(l, "settings", &settings))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(settings); i++) {
		json_object *s = json_object_array_get_idx(settings, i);

		if (streq_ptr(json_get_string(s, "setting"), key))
			return s;
	}
	return NULL;
}

/* The settings fabric_compare_switch() compares (lib/plan/fabric-agree.h) */
static const char *const switch_settings[] = { "pfc", "app-priority", "cnp-priority", "ets",
					       "max-frame" };

/* Per setting, whether the link's switch port disagrees: for links whose LLDP neighbour
 * advertises DCB (Describe()'s "switch"), labelled with the link and the switch's LLDP chassis
 * and port id. */
static int switch_metrics(Metrics *m, json_object *l) {
	json_object *w, *a;
	int r = 0;

	if (!json_object_object_get_ex(l, "switch", &w) || !json_get_string(w, "advertises") ||
	    !json_object_object_get_ex(w, "mismatches", &a))
		return 0;
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(switch_settings); i++) {
		bool differ = false;

		for (size_t k = 0; k < json_object_array_length(a); k++)
			differ =
				differ || streq_ptr(json_get_string(json_object_array_get_idx(a, k),
								    "setting"),
						    switch_settings[i]);
		r = metrics_add_u64(m, &family_switch, differ, "link", json_get_string(l, "link"),
				    "chassis", strempty(json_get_string(w, "chassis")), "port",
				    strempty(json_get_string(w, "port")), "setting",
				    switch_settings[i], NULL);
	}
	return r;
}

static int link_metrics(Metrics *m, json_object *l) {
	static const char *const states[] = { "converged", "pending", "degraded", "failed",
					      "unmanaged" };
	const char *dev = json_get_string(l, "device"), *netdev = json_get_string(l, "netdev");
	const char *state = json_get_string(l, "state");
	_cleanup_free_ char *profiles = NULL, *reason = NULL;
	json_object *v, *s, *a;
	char port[16];
	int r = 0, declared, enabled;

	snprintf(port, sizeof(port), "%" PRId64,
		 json_object_object_get_ex(l, "port", &v) ? json_object_get_int64(v) : 0);
	if (json_object_object_get_ex(l, "profiles", &a)) {
		_cleanup_strv_free_ char **names = NULL;

		for (size_t i = 0; r >= 0 && i < json_object_array_length(a); i++)
			r = strv_extend(&names,
					json_object_get_string(json_object_array_get_idx(a, i)));
		profiles = r >= 0 ? strv_join(names, " ") : NULL;
		if (!profiles)
			return -ENOMEM;
	}
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(states); i++)
		r = metrics_add_u64(m, &family_state, streq_ptr(state, states[i]), "device", dev,
				    "port", port, "netdev", netdev, "profiles", strempty(profiles),
				    "state", states[i], NULL);
	if (r >= 0 && !streq_ptr(state, "unmanaged")) {
		/* why not: the last error, else the first setting that is not converged */
		const char *why = json_get_string(l, "last_error");
		json_object *settings;

		if (!why && json_object_object_get_ex(l, "settings", &settings))
			for (size_t i = 0; !reason && i < json_object_array_length(settings); i++) {
				json_object *x = json_object_array_get_idx(settings, i);

				if (!streq_ptr(json_get_string(x, "result"), "converged") &&
				    asprintf(&reason, "%s %s%s%s", json_get_string(x, "setting"),
					     json_get_string(x, "result"),
					     json_get_string(x, "error") ? ": " : "",
					     strempty(json_get_string(x, "error"))) < 0)
					return -ENOMEM;
			}
		r = metrics_add_u64(m, &family_converged, streq_ptr(state, "converged"), "device",
				    dev, "port", port, "netdev", netdev, "reason",
				    why ? why : strempty(reason), NULL);
	}
	if (r >= 0 && json_object_object_get_ex(l, "preferred_gid_index", &v))
		r = metrics_add_u64(m, &family_gid, (uint64_t) json_object_get_int64(v), "device",
				    dev, "port", port, "netdev", netdev, "profiles",
				    strempty(profiles), NULL);
	if (r >= 0 && (s = setting_find(l, "roce.tos")) && json_get_string(s, "desired"))
		r = metrics_add_u64(
			m, &family_tos, strtoull(json_get_string(s, "desired"), NULL, 10), "device",
			dev, "port", port, "netdev", netdev, "source", "declared", NULL);
	if (r >= 0 && json_object_object_get_ex(l, "roce_tos", &v))
		r = metrics_add_u64(m, &family_tos, (uint64_t) json_object_get_int64(v), "device",
				    dev, "port", port, "netdev", netdev, "source", "current", NULL);
	if (r >= 0 && (json_get_string(l, "roce_mode") || setting_find(l, "roce.mode")))
		r = metrics_add_u64(
			m, &family_mode, 1, "device", dev, "port", port, "netdev", netdev,
			"declared",
			(s = setting_find(l, "roce.mode")) ? json_get_string(s, "desired") : "",
			"current", strempty(json_get_string(l, "roce_mode")), NULL);
	if (r >= 0 && (s = setting_find(l, "qos.trust")))
		r = metrics_add_u64(m, &family_trust, 1, "device", dev, "port", port, "netdev",
				    netdev, "declared", strempty(json_get_string(s, "desired")),
				    "current", strempty(json_get_string(s, "current")), NULL);
	s = setting_find(l, "qos.pfc");
	declared = s ? priorities_parse(json_get_string(s, "desired")) : -1;
	enabled = s ? priorities_parse(json_get_string(s, "current")) : -1;
	for (int prio = 0; r >= 0 && declared >= 0 && prio < 8; prio++) {
		char p[2] = { (char) ('0' + prio), 0 };

		r = metrics_add_u64(m, &family_pfc_declared, (declared >> prio) & 1, "device", dev,
				    "port", port, "netdev", netdev, "priority", p, NULL);
		if (r >= 0 && enabled >= 0)
			r = metrics_add_u64(m, &family_pfc_enabled, (enabled >> prio) & 1, "device",
					    dev, "port", port, "netdev", netdev, "priority", p,
					    NULL);
	}
	if (r >= 0)
		r = switch_metrics(m, l);
	return r;
}

/* What rdmad knows, from Describe() (never starting rdmad: a call without auto-start). */
static int daemon_metrics(Metrics *m) {
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = NULL;
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL, *reply = NULL;
	_cleanup_(json_object_putp) json_object *d = NULL;
	json_object *v, *links;
	const char *s;
	int r;

	if (rdmad_bus_open(&bus) > 0) {
		r = sd_bus_message_new_method_call(bus, &call, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH,
						   RDMAD_MANAGER_IFACE, "Describe");
		if (r >= 0)
			r = sd_bus_message_set_auto_start(call, 0);
		if (r >= 0)
			r = sd_bus_call(bus, call, 0, NULL, &reply);
		if (r >= 0)
			r = sd_bus_message_read(reply, "s", &s);
		if (r >= 0)
			d = json_tokener_parse(s);
	}
	if (!d) /* not running, no bus, or no answer: said by rdmad_up, not an error */
		return metrics_add_u64(m, &family_up, 0, NULL) < 0 ? -ENOMEM : 0;
	r = metrics_add_u64(m, &family_up, 1, NULL);
	if (r >= 0)
		r = metrics_add_u64(m, &family_build, 1, "version",
				    strempty(json_get_string(d, "version")), NULL);
	if (r >= 0)
		r = metrics_add_u64(m, &family_errors,
				    json_object_object_get_ex(d, "config_errors", &v)
					    ? json_object_array_length(v)
					    : 0,
				    NULL);
	if (r >= 0 && json_object_object_get_ex(d, "last_reconcile_usec", &v) &&
	    json_object_get_int64(v) > 0)
		r = metrics_add_double(m, &family_reconcile,
				       (double) json_object_get_int64(v) / 1e6, NULL);
	if (r >= 0 && json_object_object_get_ex(d, "last_reconcile_duration_usec", &v) &&
	    json_object_get_int64(v) > 0)
		r = metrics_add_double(m, &family_duration, (double) json_object_get_int64(v) / 1e6,
				       NULL);
	if (r >= 0 && json_object_object_get_ex(d, "nccl_gid_index", &v))
		r = metrics_add_double(m, &family_nccl, (double) json_object_get_int64(v), NULL);
	if (r >= 0 && json_object_object_get_ex(d, "links", &links))
		for (size_t i = 0; r >= 0 && i < json_object_array_length(links); i++)
			r = link_metrics(m, json_object_array_get_idx(links, i));
	return r;
}

static int port_metrics(Metrics *m, int rootfd, const HostDevice *d, const HostPort *p) {
	_cleanup_(port_counters_done) PortCounters c = { 0 };
	char port[16];
	int r;

	r = port_counters_read(rootfd, d->name, p->port, &c);
	if (r == -ENODEV)
		return 0; /* gone meanwhile */
	if (r < 0)
		return r;
	snprintf(port, sizeof(port), "%u", p->port);
	if (c.rate_bps)
		r = metrics_add_u64(m, &family_rate, c.rate_bps / 8, "device", d->name, "port",
				    port, "netdev", p->netdev, NULL);
	for (size_t i = 0; r >= 0 && i < c.n; i++) {
		const Counter *x = &c.items[i];
		const char *suffix = counter_metric_suffix(x->source, x->name);
		const MetricFamily *f;
		char name[128], ext[80];

		if (x->source == COUNTER_HW) {
			r = metrics_add_u64(m, &family_hw, x->value, "device", d->name, "port",
					    port, "netdev", p->netdev, "counter", x->name, NULL);
			continue;
		}
		/* counters_ext/ (64 bits) wins over the 32-bit counters/ file of the same name */
		snprintf(ext, sizeof(ext), "%s_64", x->name);
		if (x->source == COUNTER_PORT && suffix &&
		    port_counters_find(&c, COUNTER_PORT_EXT, ext))
			continue;
		if (!suffix) {
			r = metrics_add_u64(m, &family_port_other, x->value, "device", d->name,
					    "port", port, "netdev", p->netdev, "counter", x->name,
					    NULL);
			continue;
		}
		snprintf(name, sizeof(name), "rdmad_%s", suffix);
		r = metrics_family_new(m, name, METRIC_COUNTER,
				       "The port's IB counter of that name "
				       "(node_infiniband_*; data counters in bytes)",
				       &f);
		if (r >= 0)
			r = metrics_add_u64(m, f, x->value, "device", d->name, "port", port,
					    "netdev", p->netdev, NULL);
	}
	return r;
}

/* The netdev's pause frames per priority, once per netdev (an rxe device may share it with the
 * hardware's); nothing when its driver counts none. */
static int pause_metrics(Metrics *m, const char *netdev, char ***done) {
	PauseCounters c;
	int r;

	if (!netdev || strv_contains(*done, netdev))
		return 0;
	r = strv_extend(done, netdev);
	if (r < 0)
		return r;
	if (pause_counters_read(netdev, &c) < 0) /* none, or the netdev is gone */
		return 0;
	for (PauseDirection d = 0; r >= 0 && d < _PAUSE_DIRECTION_MAX; d++)
		for (unsigned prio = 0; r >= 0 && prio < PAUSE_PRIORITIES; prio++) {
			char p[2] = { (char) ('0' + prio), 0 };

			if (c.present[d] & (1u << prio))
				r = metrics_add_u64(m, &family_pause[d], c.frames[d][prio],
						    "netdev", netdev, "priority", p, NULL);
		}
	return r;
}

int verb_metrics(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(metrics_done) Metrics m = { 0 };
	_cleanup_close_ int rootfd = -EBADF;
	_cleanup_strv_free_ char **netdevs_done = NULL;
	_cleanup_free_ char *text = NULL;
	int r = 0;

	rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		fprintf(stderr, "rdmactl metrics: %s: %s\n", o->root, strerror(errno));
		return EXIT_FAILURE;
	}
	/* rdmad's view only of this host: not under --root */
	if (streq(o->root, "/"))
		r = daemon_metrics(&m);
	if (r >= 0) {
		/* PCI functions for rdmad_link_degraded{kind="pcie"} */
		r = host_observe(o->root, HOST_OBSERVE_DETAILS | HOST_OBSERVE_PCI, &h);
		if (r == -ENOENT) /* no RDMA device at all: no port counters */
			r = 0;
	}
	for (size_t i = 0; r >= 0 && h && i < h->n_devices; i++)
		for (size_t k = 0; r >= 0 && k < h->devices[i].n_ports; k++)
			r = port_metrics(&m, rootfd, &h->devices[i], &h->devices[i].ports[k]);
	if (r >= 0 && h)
		r = gpu_metrics_add(&m, o->root, h);
	if (r >= 0 && h) {
		_cleanup_(diagnostics_done) Diagnostics diags = { 0 };
		_cleanup_(config_freep) Config *c = NULL;
		_cleanup_strv_free_ char **files = NULL;

		/* the profiles for netdev.expect-speed; none, or invalid ones: judged without */
		if (options_profile_files(o, &files) >= 0)
			(void) config_load_files(files, &diags, &c);
		r = degraded_metrics_add(&m, o->root, c, h);
	}
	/* the live netdevs of this host: a fixture has none */
	for (size_t i = 0; r >= 0 && h && streq(o->root, "/") && i < h->n_devices; i++)
		for (size_t k = 0; r >= 0 && k < h->devices[i].n_ports; k++)
			r = pause_metrics(&m, h->devices[i].ports[k].netdev, &netdevs_done);
	if (r >= 0 && streq(o->root, "/")) { /* devlink has no root */
		_cleanup_(device_health_done) DeviceHealth dh = { 0 };

		r = device_health_read(&dh);
		if (r >= 0)
			r = devlink_metrics_add(&m, o->root, &dh);
	}
	if (r >= 0)
		r = metrics_format(&m, &text);
	if (r < 0) {
		fprintf(stderr, "rdmactl metrics: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	if (!o->output) {
		fputs(text, stdout);
		return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	r = write_file_atomic(o->output, text, 0644); /* node_exporter reads it at any time */
	if (r < 0) {
		fprintf(stderr, "rdmactl metrics: cannot write %s: %s\n", o->output, strerror(-r));
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
