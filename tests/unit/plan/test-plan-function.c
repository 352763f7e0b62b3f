/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The function-level rules (plan-function.c) on hand-built host states: sriov.* and pci.* on
 * the function behind a netdev, with and without an RDMA device on it. */
#include "plan.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

/* A ConnectX PF (0000:03:00.0, netdev ens1f0np0) with sriov_totalvfs 16 and the given VFs'
 * settings as rtnetlink reports them, behind a root port with ACS redirecting P2P. */
static HostFunction *function_new(HostState *h, unsigned numvfs) {
	HostFunction *f;

	h->functions = realloc(h->functions, sizeof(HostFunction) * (h->n_functions + 1));
	f = &h->functions[h->n_functions++];
	*f = (HostFunction){
		.bus = strdup("pci"),
		.name = strdup("0000:03:00.0"),
		.driver = strdup("mlx5_core"),
		.netdevs = strv_copy((char *[]){ "ens1f0np0", NULL }),
		.ifindex = 4,
		.has_sriov = true,
		.has_autoprobe = true,
		.autoprobe = true,
		.numvfs = numvfs,
		.totalvfs = 16,
		.vfs_observed = true,
		.eswitch_observed = true,
		.eswitch = ESWITCH_MODE_LEGACY,
		.pcie_observed = true,
		.max_read_request = 512,
	};
	f->vfs = calloc(numvfs + 1, sizeof(SriovVf));
	for (unsigned i = 0; i < numvfs; i++)
		f->vfs[f->n_vfs++] = (SriovVf){
			.index = i,
			.set = VF_BIT(VF_MAC) | VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) |
			       VF_BIT(VF_VLAN_PROTO) | VF_BIT(VF_LINK_STATE) | VF_BIT(VF_MAX_RATE) |
			       VF_BIT(VF_MIN_RATE) | VF_BIT(VF_TRUST) | VF_BIT(VF_SPOOF_CHECK),
			.vlan_proto = 0x8100,
			.spoof_check = true,
			.min_rate = 100,
		};
	f->bridges = calloc(1, sizeof(PciBridgeState));
	f->bridges[0] = (PciBridgeState){
		.address = strdup("0000:00:01.0"),
		.port_type = 4, /* PCI_EXP_TYPE_ROOT_PORT */
		.has_acs = true,
		.acs_cap = 0x5f,
		.acs_ctrl = 0x1d,
	};
	f->n_bridges = 1;
	return f;
}

/* "subject setting current->desired [unsupported]" per action. */
static char *function_plan(const char *profile, HostState *h, Plan **ret) {
	Config *c = config_from((const char *const[]){ profile, NULL });
	Plan *p = NULL;
	char *out = calloc(1, 1);
	size_t len = 0;

	CHECK(plan_compute(c, h, &p) == 0);
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		char line[512];
		int n;

		n = snprintf(line, sizeof(line), "%s %s %s->%s%s%s\n", action_subject(a),
			     action_setting(a), a->current ? a->current : "-", a->desired,
			     a->unsupported ? " | " : "", a->unsupported ? a->unsupported : "");
		out = realloc(out, len + (size_t) n + 1);
		memcpy(out + len, line, (size_t) n + 1);
		len += (size_t) n;
	}
	config_free(c);
	if (ret)
		*ret = p;
	else
		plan_free(p);
	return out;
}

TEST(numvfs) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	function_new(h, 0);
	out = function_plan("match: {pci: \"0000:03:*\"}\nsriov: {vfs: 4, autoprobe: false}\n", h,
			    NULL);
	/* autoprobe first: it decides what binds the VFs as they appear */
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.autoprobe true->false\n"
			 "pci/0000:03:00.0 sriov.vfs 0->4\n");
	free(out);
	host_state_free(h);

	/* from 4 to 2: the kernel takes 0 first, a step of its own that says what it destroys */
	h = calloc(1, sizeof(HostState));
	function_new(h, 4);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 2}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 4->0 (first: destroys the 4 VFs, to make 2)\n"
			 "pci/0000:03:00.0 sriov.vfs 0->2\n");
	free(out);
	host_state_free(h);

	/* the settings of VFs this plan makes: pending, written after the count */
	h = calloc(1, sizeof(HostState));
	function_new(h, 0);
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "sriov: {vfs: 2, vf: [{index: 1, mac: 02:00:00:00:00:01}]}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 0->2\n"
			 "pci/0000:03:00.0 sriov.vf -->vf 1 mac 02:00:00:00:00:01\n");
	free(out);
	host_state_free(h);

	/* through 0, the VFs that exist are made again: their settings written again too */
	h = calloc(1, sizeof(HostState));
	function_new(h, 4)->vfs[1].mac[5] = 1;
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "sriov: {vfs: 2, vf: [{index: 1, mac: 00:00:00:00:00:01}]}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 4->0 (first: destroys the 4 VFs, to make 2)\n"
			 "pci/0000:03:00.0 sriov.vfs 0->2\n"
			 "pci/0000:03:00.0 sriov.vf -->vf 1 mac 00:00:00:00:00:01\n");
	free(out);
	host_state_free(h);

	/* a VF a VM holds is not destroyed: the kernel would wait for it, uninterruptibly */
	h = calloc(1, sizeof(HostState));
	function_new(h, 4);
	h->pci_functions = calloc(1, sizeof(HostPciFunction));
	h->n_pci_functions = 1;
	h->pci_functions[0] = (HostPciFunction){ .address = strdup("0000:03:00.3"),
						 .driver = strdup("vfio-pci"),
						 .virtual_function = true,
						 .physfn = strdup("0000:03:00.0") };
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 2}\n", h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 sriov.vfs 4->2 | VF 0000:03:00.3 is bound to vfio-pci (a "
		    "VM's?): the kernel would wait for it to be released before removing it; "
		    "unbind it first\n");
	free(out);
	host_state_free(h);

	h = calloc(1, sizeof(HostState));
	function_new(h, 0);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 17}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs -->17 | the device has at most 16 VFs "
			 "(sriov_totalvfs)\n");
	free(out);
	host_state_free(h);
}

/* Only the declared fields that differ are written, with the ones the kernel takes together
 * completed from what it reports. */
TEST(vf_settings) {
	HostState *h = calloc(1, sizeof(HostState));
	Plan *p = NULL;
	char *out;

	function_new(h, 2);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov:\n  vf:\n"
			    "    - {index: 0, vlan: 100, max-rate: 1000, spoof-check: true}\n"
			    "    - {index: 1, mac: 02:00:00:00:00:01}\n"
			    "    - {index: 5, trust: true}\n",
			    h, &p);
	CHECK_STREQ(
		out,
		"pci/0000:03:00.0 sriov.vf vf 0 vlan 0, max_tx_rate 0Mbps->vf 0 vlan 100, "
		"max_tx_rate 1000Mbps\n"
		"pci/0000:03:00.0 sriov.vf vf 1 mac 00:00:00:00:00:00->vf 1 mac "
		"02:00:00:00:00:01\n"
		"pci/0000:03:00.0 sriov.vf -->vf 5 trust on | VF 5 does not exist (sriov_numvfs "
		"is 2)\n");
	if (p && p->n_actions == 3) {
		const SriovVf *w = &p->actions[0].value.vf;

		CHECK_INTEQ(w->set, VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO) |
					    VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
		CHECK_INTEQ(w->vlan, 100);
		CHECK_INTEQ(w->vlan_proto, 0x8100);
		CHECK_INTEQ(w->max_rate, 1000);
		CHECK_INTEQ(w->min_rate, 100); /* kept as reported */
		CHECK_STREQ(p->actions[0].netdev, "ens1f0np0");
		CHECK_INTEQ(p->actions[0].ifindex, 4);
		CHECK_STREQ(p->actions[0].function, "pci/0000:03:00.0");
		CHECK_INTEQ(p->actions[1].value.vf.set, VF_BIT(VF_MAC));
	}
	plan_free(p);
	free(out);
	host_state_free(h);

	/* a field the driver leaves out of its report cannot be known to hold */
	h = calloc(1, sizeof(HostState));
	function_new(h, 1)->vfs[0].set &= ~VF_BIT(VF_SPOOF_CHECK);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vf: [{index: 0, spoof-check: "
			    "false}]}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vf -->vf 0 spoof checking off | the driver does "
			 "not report vf 0 spoof checking off for its VFs\n");
	free(out);
	host_state_free(h);
}

/* The kernel takes min and max rate at once: a max-rate below the VF's min-rate says so. */
TEST(vf_rate_below_min) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	function_new(h, 1);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vf: [{index: 0, max-rate: 50}]}\n",
			    h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 sriov.vf vf 0 max_tx_rate 0Mbps->vf 0 max_tx_rate 50Mbps "
		    "| max-rate 50 is below VF 0's min-rate 100: declare min-rate too\n");
	free(out);
	host_state_free(h);
}

TEST(eswitch) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	function_new(h, 0);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {eswitch: switchdev}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.eswitch legacy->switchdev\n");
	free(out);
	host_state_free(h);

	h = calloc(1, sizeof(HostState));
	function_new(h, 0)->eswitch_observed = false;
	h->functions[0].eswitch_error = -EOPNOTSUPP;
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {eswitch: switchdev}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.eswitch -->switchdev | the e-switch mode "
			 "(devlink): the driver does not support it (EOPNOTSUPP)\n");
	free(out);
	host_state_free(h);
}

/* A function rdmad writes meanwhile (HostFunction.writing): its count is not read (the kernel
 * blocks the read until the write ends), so nothing is known to differ or to have converged;
 * the plan says what is in progress, with the VFs made so far when they could be counted, and
 * that the e-switch mode and the VFs' settings are not read either. */
TEST(being_written) {
	HostState *h = calloc(1, sizeof(HostState));
	HostFunction *f;
	char *out;

	f = function_new(h, 0);
	f->writing = strdup("writing 8 (started 12 s ago)");
	f->numvfs = 3;
	f->numvfs_counted = true;
	f->vfs_observed = f->eswitch_observed = false;
	f->vfs_error = f->eswitch_error = -EINPROGRESS;
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "sriov: {vfs: 8, eswitch: switchdev, vf: [{index: 1, trust: true}]}\n",
			    h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 sriov.vfs 3 so far->8 | in progress: writing 8 "
		    "(started 12 s ago); sriov_numvfs is not read until it ends\n"
		    "pci/0000:03:00.0 sriov.eswitch -->switchdev | the e-switch mode (devlink): "
		    "not read while rdmad changes the function\n"
		    "pci/0000:03:00.0 sriov.vf -->vf 1 trust on | the VFs' settings "
		    "(rtnetlink): not read while rdmad changes the function\n");
	free(out);
	/* netdevsim's VFs are not devices: none counted, none said */
	f->numvfs_counted = false;
	f->numvfs = 0;
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 8}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs -->8 | in progress: writing 8 (started 12 s "
			 "ago); sriov_numvfs is not read until it ends\n");
	free(out);
	host_state_free(h);
}

/* SR-IOV keys on a VF (a profile matching PFs and VFs alike) say where they belong. */
TEST(virtual_function) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	function_new(h, 0)->virtual_function = true;
	h->functions[0].has_sriov = false;
	out = function_plan("match: {driver: mlx5_core}\nsriov: {vfs: 2}\n"
			    "pci: {max-read-request: 4096}\n",
			    h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 sriov.vfs -->2 | a virtual function: SR-IOV settings act "
		    "on its PF (match the PFs by pci or netdev)\n"
		    "pci/0000:03:00.0 pci.max-read-request -->4096 | a VF: its "
		    "Max_Read_Request_Size is its PF's (the field is reserved in a VF)\n");
	free(out);
	host_state_free(h);
}

TEST(pci) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	function_new(h, 0);
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "pci: {max-read-request: 4096, upstream-acs: off}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 pci.max-read-request 512->4096\n"
			 "pci/0000:03:00.0 pci.upstream-acs 0000:00:01.0 ACSCtl 0x001d->"
			 "0000:00:01.0 ACSCtl 0x0011\n");
	free(out);
	host_state_free(h);

	/* keep: left alone; equal: nothing; unreadable: says why */
	h = calloc(1, sizeof(HostState));
	function_new(h, 0)->bridges[0].acs_ctrl = 0x11;
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "pci: {max-read-request: 512, upstream-acs: off}\n",
			    h, NULL);
	CHECK_STREQ(out, "");
	free(out);
	out = function_plan("match: {netdev: ens1f0np0}\npci: {upstream-acs: keep}\n", h, NULL);
	CHECK_STREQ(out, "");
	free(out);
	h->functions[0].pcie_observed = false;
	h->functions[0].pcie_error = -EPERM;
	out = function_plan("match: {netdev: ens1f0np0}\npci: {max-read-request: 4096}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 pci.max-read-request -->4096 | its config space past 64 "
			 "bytes reads only with CAP_SYS_ADMIN\n");
	free(out);
	host_state_free(h);
}

/* On a function with an RDMA device, the actions are its port's: its status rows. */
TEST(rdma_port_carries_them) {
	HostState *h = calloc(1, sizeof(HostState));
	HostDevice *d;
	char *out;

	function_new(h, 0);
	h->devices = calloc(1, sizeof(HostDevice));
	h->n_devices = 1;
	d = &h->devices[0];
	*d = (HostDevice){ .name = strdup("mlx5_0"),
			   .driver = strdup("mlx5_core"),
			   .pci = strdup("0000:03:00.0") };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup("ens1f0np0") };
	out = function_plan("match: {device: mlx5_0}\nsriov: {vfs: 2}\n", h, NULL);
	CHECK_STREQ(out, "mlx5_0/1 sriov.vfs 0->2\n");
	free(out);
	host_state_free(h);
}

TESTS_MAIN(TEST_ENTRY(numvfs), TEST_ENTRY(vf_settings), TEST_ENTRY(vf_rate_below_min),
	   TEST_ENTRY(eswitch), TEST_ENTRY(virtual_function), TEST_ENTRY(pci),
	   TEST_ENTRY(rdma_port_carries_them), TEST_ENTRY(being_written))
