/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl metrics' degraded-link series: what rdmactl preflight judges (hardware.pcie-link,
 * network.link-speed, network.ib-link), one 0/1 series per row, so that an alert sees a link
 * that stays UP below what it can do. */
#include "metrics-degraded.h"
#include "preflight.h"

static const MetricFamily family_degraded = {
	"rdmad_link_degraded", METRIC_GAUGE,
	"1 when a link runs below what it and its other end can do (a PCIe link narrower or "
	"slower, a netdev below its port's fastest link mode or the profile's expect-speed, an "
	"InfiniBand port below 4X or its HCA's speed, or without a subnet manager), 0 when not"
};

static const struct {
	const char *check, *kind;
} kinds[] = {
	{ "hardware.pcie-link", "pcie" },
	{ "network.link-speed", "ethernet" },
	{ "network.ib-link", "infiniband" },
};

int degraded_metrics_add(Metrics *m, const char *root, const Config *config, const HostState *h) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	/* the devlink rows are not wanted here: an empty table stands in for reading devlink */
	DeviceHealth none = { .error = -ENOENT };
	PreflightInput in = { .root = root, .host = h, .config = config, .device_health = &none };
	int r;

	r = preflight_hardware(&p, &in);
	if (r >= 0)
		r = preflight_links_speed(&p, &in);
	for (size_t i = 0; r >= 0 && i < p.n_rows; i++)
		for (size_t k = 0; r >= 0 && k < ELEMENTSOF(kinds); k++)
			if (streq(p.rows[i].check, kinds[k].check))
				r = metrics_add_u64(
					m, &family_degraded, p.rows[i].status != PREFLIGHT_OK,
					"kind", kinds[k].kind, "subject", p.rows[i].subject, NULL);
	return r;
}
