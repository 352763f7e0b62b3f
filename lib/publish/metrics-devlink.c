/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>

#include "metrics-devlink.h"
#include "strv.h"

static const MetricFamily
	family_state = { "rdmad_devlink_health_state", METRIC_GAUGE,
			 "A devlink health reporter's state: 0 healthy, 1 error" },
	family_errors = { "rdmad_devlink_health_errors_total", METRIC_COUNTER,
			  "Errors a devlink health reporter counted (devlink health show)" },
	family_recoveries = { "rdmad_devlink_health_recoveries_total", METRIC_COUNTER,
			      "Recoveries a devlink health reporter counted" },
	family_firmware = { "rdmad_firmware_info", METRIC_GAUGE,
			    "The device's running and stored firmware and its PSID (devlink dev "
			    "info), as labels; always 1" };

/* The device's first netdev under root, or NULL. */
static int first_netdev(const char *root, const char *device, char **ret) {
	_cleanup_strv_free_ char **netdevs = NULL, **rdma = NULL;
	int r;

	r = devlink_device_names(root, device, &netdevs, &rdma);
	if (r == -ENOMEM)
		return r;
	*ret = NULL;
	if (r >= 0 && netdevs) {
		*ret = strdup(netdevs[0]);
		if (!*ret)
			return -ENOMEM;
	}
	return 0;
}

int devlink_metrics_add(Metrics *m, const char *root, const DeviceHealth *h) {
	int r = 0;

	if (h->error < 0)
		return 0;
	for (size_t i = 0; r >= 0 && i < h->n_reporters; i++) {
		const HealthReporter *x = &h->reporters[i];
		_cleanup_free_ char *netdev = NULL;
		char port[16];

		r = first_netdev(root, x->device, &netdev);
		if (r < 0)
			break;
		snprintf(port, sizeof(port), "%u", x->port);
#define LABELS                                                                                 \
	"device", x->device, "reporter", x->name, "port", x->has_port ? port : NULL, "netdev", \
		netdev, NULL
		r = metrics_add_u64(m, &family_state, (uint64_t) x->state, LABELS);
		if (r >= 0)
			r = metrics_add_u64(m, &family_errors, x->errors, LABELS);
		if (r >= 0)
			r = metrics_add_u64(m, &family_recoveries, x->recoveries, LABELS);
#undef LABELS
	}
	for (size_t i = 0; r >= 0 && i < h->n_infos; i++) {
		const DevlinkInfo *x = &h->infos[i];

		if (x->running[0])
			r = metrics_add_u64(m, &family_firmware, 1, "device", x->device, "psid",
					    x->psid, "running", x->running, "stored", x->stored,
					    NULL);
	}
	return r;
}
