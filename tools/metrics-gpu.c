/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl metrics' GPU series: whether GPUDirect RDMA is ready for each NVIDIA GPU, and the
 * PCIe path to its nearest RDMA links (lib/host/topology.h). A GPU is ready when NCCL would
 * use GPUDirect RDMA on it: the preflight gpu family's driver, gdr, nic-path and acs rows
 * are ok for it (the IOMMU row only warns: translated DMA is slower, not off). */
#include <stdlib.h>
#include <string.h>

#include "metrics-gpu.h"
#include "preflight.h"
#include "topology.h"
#include "verbs-facts.h"

static const MetricFamily
	family_gdr = { "rdmad_gpu_gdr_ready", METRIC_GAUGE,
		       "1 when NCCL would use GPUDirect RDMA on this GPU (rdmactl preflight's gpu "
		       "rows ok), 0 when not" },
	family_path = { "rdmad_gpu_link_path_info", METRIC_GAUGE,
			"The PCIe path type (PIX, PXB, PHB, NODE, SYS) between a GPU and each of "
			"its nearest RDMA links; always 1" };

/* Whether every row of check (for subject, or for "host") is ok; a check with no row is. */
static bool rows_ok(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject) &&
		    p->rows[i].status != PREFLIGHT_OK)
			return false;
	return true;
}

int gpu_metrics_add(Metrics *m, const char *root, const HostState *h) {
	_cleanup_(topology_done) Topology t = { 0 };
	_cleanup_(preflight_done) Preflight p = { 0 };
	_cleanup_(verbs_facts_done) VerbsFacts verbs = { 0 };
	PreflightInput in = { .root = root, .host = h };
	bool host_ok;
	int r;

	r = topology_read(root, h, &t);
	if (r < 0 || t.n_gpus == 0)
		return r == -ENOMEM ? r : 0; /* no GPU series without GPUs */
	/* the dma-buf probe only where the verbs library sees this host's devices */
	if (streq(root, "/") && verbs_facts_read(&verbs) >= 0 && verbs.error == 0)
		in.verbs = &verbs;
	in.topology = &t; /* read once, for the rows and the series */
	r = preflight_gpu(&p, &in);
	if (r < 0)
		return r;
	host_ok = rows_ok(&p, "gpu.driver", "host") && rows_ok(&p, "gpu.gdr", "host");
	for (size_t g = 0; r >= 0 && g < t.n_gpus; g++) {
		const TopologyGpu *gpu = &t.gpus[g];
		const char *a = gpu->place.address;
		bool ready = host_ok && gpu->error >= 0 && gpu->n_nearest > 0 &&
			     rows_ok(&p, "gpu.nic-path", a) && rows_ok(&p, "gpu.acs", a);

		r = metrics_add_u64(m, &family_gdr, ready, "gpu", a, NULL);
		for (size_t k = 0; r >= 0 && k < gpu->n_nearest; k++)
			r = metrics_add_u64(m, &family_path, 1, "gpu", a, "link",
					    t.links[gpu->nearest[k]].name, "path",
					    pci_path_type_to_string(gpu->nearest_path), NULL);
	}
	return r;
}
