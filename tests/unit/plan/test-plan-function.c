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
		char line[2048];
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
	Plan *p = NULL;
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

	/* ... with only what is declared: the plan knows nothing of a VF not made yet, and its
	 * undeclared min-rate is the kernel's at apply time, not 0 (issue 43) */
	h = calloc(1, sizeof(HostState));
	function_new(h, 2);
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "sriov: {vfs: 3, vf: [{index: 1, max-rate: 500, vlan: 7}]}\n",
			    h, &p);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 2->0 (first: destroys the 2 VFs, to make 3)\n"
			 "pci/0000:03:00.0 sriov.vfs 0->3\n"
			 "pci/0000:03:00.0 sriov.vf -->vf 1 vlan 7, max_tx_rate 500Mbps\n");
	if (p && p->n_actions == 3) {
		CHECK_INTEQ(p->actions[2].value.vf.set, VF_BIT(VF_VLAN) | VF_BIT(VF_MAX_RATE));
		CHECK_INTEQ(p->actions[2].value.vf.max_rate, 500);
	}
	plan_free(p);
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

	h = calloc(1, sizeof(HostState));
	function_new(h, 0);
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 17}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs -->17 | the device has at most 16 VFs "
			 "(sriov_totalvfs)\n");
	free(out);
	host_state_free(h);
}

/* A VF of PF 0000:03:00.0 (address 0000:03:00.N), bound to driver, with its netdevs. */
static HostPciFunction *vf_add(HostState *h, const char *address, const char *driver,
			       char *const *netdevs) {
	HostPciFunction *vf;

	h->pci_functions =
		realloc(h->pci_functions, sizeof(HostPciFunction) * (h->n_pci_functions + 1));
	vf = &h->pci_functions[h->n_pci_functions++];
	*vf = (HostPciFunction){ .address = strdup(address),
				 .class = 0x020000,
				 .driver = driver ? strdup(driver) : NULL,
				 .netdevs = strv_copy(netdevs),
				 .virtual_function = true,
				 .physfn = strdup("0000:03:00.0") };
	return vf;
}

/* A netdev as rtnetlink shows it: up or not, with one address (NULL: none). */
static void netdev_add(HostState *h, const char *name, bool up, const char *address) {
	HostNetdev *n;

	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	n = &h->netdevs[h->n_netdevs++];
	*n = (HostNetdev){ .name = strdup(name), .up = up, .addresses_known = true };
	if (address) {
		n->addresses = calloc(1, sizeof(Address));
		CHECK(address_from_string(address, &n->addresses[0]) == 0);
		n->n_addresses = 1;
	}
}

#define RELEASE                                                                                   \
	". Release them first (unbind vfio-pci, move the netdev back, take its addresses away), " \
	"then rdmactl reconcile"
#define VFIO "is bound to vfio-pci (a VM's or a user-space driver's: removing it waits for them)"

/* A VF in use is never destroyed: not by a smaller count, not by a larger one (through 0),
 * not by 0; each VF named with what holds it. The kernel would wait, uninterruptibly, for a
 * VM to let go of a vfio-pci VF (rdmad hung past its watchdog, issue 43). */
TEST(numvfs_in_use) {
	static const char *const profiles[] = {
		"match: {netdev: ens1f0np0}\nsriov: {vfs: 2}\n",
		"match: {netdev: ens1f0np0}\nsriov: {vfs: 8}\n",
		"match: {netdev: ens1f0np0}\nsriov: {vfs: 0}\n",
	};
	static const char *const expected[] = {
		"pci/0000:03:00.0 sriov.vfs 4->2 | going through 0 destroys the VFs in use: VF "
		"0000:03:00.3 " VFIO RELEASE "\n",
		"pci/0000:03:00.0 sriov.vfs 4->8 | going through 0 destroys the VFs in use: VF "
		"0000:03:00.3 " VFIO RELEASE "\n",
		"pci/0000:03:00.0 sriov.vfs 4->0 | going to 0 destroys the VFs in use: VF "
		"0000:03:00.3 " VFIO RELEASE "\n",
	};
	HostState *h;
	char *out;

	for (size_t i = 0; i < ELEMENTSOF(profiles); i++) {
		h = calloc(1, sizeof(HostState));
		function_new(h, 4);
		vf_add(h, "0000:03:00.3", "vfio-pci", NULL);
		out = function_plan(profiles[i], h, NULL);
		CHECK_STREQ(out, expected[i]);
		free(out);
		host_state_free(h);
	}

	/* each holder named, the VFs nobody holds left out: a netdev in another namespace, one up
	 * with an address; one up with the kernel's link-local address only, one down with an
	 * address, one unbound are not in use */
	h = calloc(1, sizeof(HostState));
	function_new(h, 4);
	vf_add(h, "0000:03:00.2", "mlx5_core", NULL)->netdev_elsewhere = true;
	vf_add(h, "0000:03:00.3", "mlx5_core", (char *[]){ "ens1f0v1", NULL });
	vf_add(h, "0000:03:00.4", "mlx5_core", (char *[]){ "ens1f0v2", NULL });
	vf_add(h, "0000:03:00.5", "mlx5_core", (char *[]){ "ens1f0v3", NULL });
	vf_add(h, "0000:03:00.6", NULL, NULL);
	netdev_add(h, "ens1f0v1", true, "192.0.2.5/24");
	netdev_add(h, "ens1f0v2", true, "fe80::1/64");
	netdev_add(h, "ens1f0v3", false, "192.0.2.6/24");
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 8, eswitch: switchdev}\n", h,
			    NULL);
	CHECK_STREQ(
		out,
		"pci/0000:03:00.0 sriov.vfs 4->8 | going through 0 destroys the VFs in use: VF "
		"0000:03:00.2 has its netdev in another network namespace (a container's: "
		"bound to mlx5_core, no netdev in this one); VF 0000:03:00.3 has its netdev "
		"ens1f0v1 up with 192.0.2.5/24" RELEASE "\n"
		"pci/0000:03:00.0 sriov.eswitch legacy->switchdev | the e-switch mode change "
		"(it flushes the FDB, and from switchdev deletes the representors) destroys the "
		"VFs in use: VF 0000:03:00.2 has its netdev in another network namespace (a "
		"container's: bound to mlx5_core, no netdev in this one); VF 0000:03:00.3 has "
		"its netdev ens1f0v1 up with 192.0.2.5/24" RELEASE "\n");
	free(out);
	/* released: the count changes through 0, and the e-switch after it */
	h->pci_functions[0].netdev_elsewhere = false;
	h->netdevs[0].up = false;
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 8, eswitch: switchdev}\n", h,
			    NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 4->0 (first: destroys the 4 VFs, to make 8)\n"
			 "pci/0000:03:00.0 sriov.vfs 0->8\n"
			 "pci/0000:03:00.0 sriov.eswitch legacy->switchdev\n");
	free(out);
	host_state_free(h);

	/* a VF of another PF holds nothing here; VFs of this one past four are counted */
	h = calloc(1, sizeof(HostState));
	function_new(h, 8);
	vf_add(h, "0000:04:00.2", "vfio-pci", NULL)->physfn[6] = '4';
	for (int i = 0; i < 6; i++) {
		char a[16];

		snprintf(a, sizeof(a), "0000:03:00.%d", 2 + i);
		vf_add(h, a, "vfio-pci", NULL);
	}
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 2}\n", h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:03:00.0 sriov.vfs 8->2 | going through 0 destroys the VFs in "
		    "use: VF 0000:03:00.2 " VFIO "; VF 0000:03:00.3 " VFIO "; VF 0000:03:00.4 " VFIO
		    "; VF 0000:03:00.5 " VFIO "; and 2 more" RELEASE "\n");
	free(out);
	host_state_free(h);

	/* refused, the count stays: the VFs' settings are planned on the VFs there are */
	h = calloc(1, sizeof(HostState));
	function_new(h, 2);
	vf_add(h, "0000:03:00.2", "vfio-pci", NULL);
	out = function_plan("match: {netdev: ens1f0np0}\n"
			    "sriov: {vfs: 4, vf: [{index: 1, mac: 02:00:00:00:00:01}, "
			    "{index: 3, trust: true}]}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 2->4 | going through 0 destroys the VFs in "
			 "use: VF 0000:03:00.2 " VFIO RELEASE "\n"
			 "pci/0000:03:00.0 sriov.vf vf 1 mac 00:00:00:00:00:00->vf 1 mac "
			 "02:00:00:00:00:01\n"
			 "pci/0000:03:00.0 sriov.vf -->vf 3 trust on | VF 3 does not exist "
			 "(sriov_numvfs is 2)\n");
	free(out);
	host_state_free(h);

	/* none yet: nothing to destroy, whatever holds VFs of other PFs */
	h = calloc(1, sizeof(HostState));
	function_new(h, 0);
	vf_add(h, "0000:04:00.2", "vfio-pci", NULL)->physfn[6] = '4';
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 2, eswitch: switchdev}\n", h,
			    NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 0->2\n"
			 "pci/0000:03:00.0 sriov.eswitch legacy->switchdev\n");
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
		SriovVf full;

		/* the fields to write; the ones the kernel takes with them are completed at
		 * apply time, from what it reports then (sriov_vf_write()) */
		CHECK_INTEQ(w->set, VF_BIT(VF_VLAN) | VF_BIT(VF_MAX_RATE));
		CHECK_INTEQ(w->vlan, 100);
		CHECK_INTEQ(w->max_rate, 1000);
		full = sriov_vf_write(w, &h->functions[0].vfs[0], w->set);
		CHECK_INTEQ(full.set, VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO) |
					      VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
		CHECK_INTEQ(full.vlan, 100);
		CHECK_INTEQ(full.vlan_proto, 0x8100);
		CHECK_INTEQ(full.max_rate, 1000);
		CHECK_INTEQ(full.min_rate, 100); /* kept as reported */
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
	out = function_plan("match: {netdev: ens1f0np0}\npci: {max-read-request: 4096}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 pci.max-read-request 512->4096\n");
	free(out);
	out = function_plan("match: {netdev: ens1f0np0}\npci: {max-read-request: 512}\n", h, NULL);
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

/* The ports from "ADDRESS KIND [ACSCTL]" lines, nearest first: KIND rp (root port), up (a
 * switch's upstream port: no ACS), dn (its downstream port); ACS Capability 0x5f (SV TB RR CR
 * UF DT, as qemu's root ports and Intel's), Control ACSCTL (hex). */
static void ports_set(PciBridgeState **ret, size_t *ret_n, const char *const *spec) {
	size_t n = 0;

	while (spec[n])
		n++;
	*ret = calloc(n + 1, sizeof(PciBridgeState));
	for (size_t i = 0; i < n; i++) {
		char address[16], kind[4];
		unsigned ctrl = 0;

		CHECK(sscanf(spec[i], "%15s %3s %x", address, kind, &ctrl) >= 2);
		(*ret)[i] = (PciBridgeState){
			.address = strdup(address),
			.port_type = streq(kind, "rp")	 ? 4
				     : streq(kind, "up") ? 5
							 : 6,
			.has_acs = !streq(kind, "up"),
			.acs_cap = streq(kind, "up") ? 0 : 0x5f,
			.acs_ctrl = (uint16_t) ctrl,
		};
	}
	*ret_n = n;
}

/* A NIC at address with netdev, under the ports spec names, in root complex pci0000:00. */
static void nic_add(HostState *h, const char *address, const char *netdev,
		    const char *const *spec) {
	HostFunction *f;

	h->functions = realloc(h->functions, sizeof(HostFunction) * (h->n_functions + 1));
	f = &h->functions[h->n_functions++];
	*f = (HostFunction){ .bus = strdup("pci"),
			     .name = strdup(address),
			     .driver = strdup("mlx5_core"),
			     .netdevs = strv_copy((char *[]){ (char *) netdev, NULL }),
			     .pcie_observed = true,
			     .max_read_request = 512,
			     .host_bridge = strdup("pci0000:00") };
	ports_set(&f->bridges, &f->n_bridges, spec);
}

static void gpu_add(HostState *h, const char *address, const char *const *spec) {
	HostGpu *g;

	h->gpus = realloc(h->gpus, sizeof(HostGpu) * (h->n_gpus + 1));
	g = &h->gpus[h->n_gpus++];
	*g = (HostGpu){ .address = strdup(address), .host_bridge = strdup("pci0000:00") };
	ports_set(&g->bridges, &g->n_bridges, spec);
}

static void vfio_add(HostState *h, const char *address, int group, const char *type,
		     char *const *bridges) {
	HostVfioFunction *v;

	h->vfio_functions =
		realloc(h->vfio_functions, sizeof(HostVfioFunction) * (h->n_vfio_functions + 1));
	v = &h->vfio_functions[h->n_vfio_functions++];
	*v = (HostVfioFunction){ .address = strdup(address),
				 .host_bridge = strdup("pci0000:00"),
				 .bridges = strv_copy(bridges),
				 .iommu_group = group,
				 .iommu_type = type ? strdup(type) : NULL };
}

/* The NIC 0000:03:00.0 below switch port 02:00.0 (the switch's upstream port 01:00.0, root port
 * 00:01.0), ACS P2P redirect on everywhere, as the kernel sets it with an IOMMU. */
#define NIC_PORTS "0000:02:00.0 dn 1d", "0000:01:00.0 up", "0000:00:01.0 rp 1d"
#define ACS_OFF	  "match: {netdev: ens1f0np0}\npci: {upstream-acs: off}\n"
#define ACS_ON	  "match: {netdev: ens1f0np0}\npci: {upstream-acs: on}\n"
#define ACS(port, from, to) \
	"pci/0000:03:00.0 pci.upstream-acs " port " ACSCtl 0x" from "->" port " ACSCtl 0x" to "\n"

/* off clears ACS only where it changes the route between the NIC and a GPU (issue 43: every
 * port up to the root complex was cleared, which changes nothing for a GPU below the same
 * switch); with no GPU and no other function declaring it, there is no route to shorten. */
TEST(upstream_acs_route) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 pci.upstream-acs -->off | no peer-to-peer route to "
			 "shorten: no GPU on this host and no other function declares "
			 "pci.upstream-acs: off\n");
	free(out);

	/* a GPU below the same switch: its downstream port and the NIC's, not the root port */
	gpu_add(h, "0000:04:00.0",
		(const char *const[]){ "0000:02:01.0 dn 1d", "0000:01:00.0 up",
				       "0000:00:01.0 rp 1d", NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, ACS("0000:02:00.0", "001d", "0011") ACS("0000:02:01.0", "001d", "0011"));
	free(out);
	host_state_free(h);

	/* a GPU on another root port: every port on both sides, root ports included (an
	 * upstream port has no ACS) */
	h = calloc(1, sizeof(HostState));
	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	gpu_add(h, "0000:05:00.0", (const char *const[]){ "0000:00:02.0 rp 1d", NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, ACS("0000:02:00.0", "001d", "0011") ACS("0000:00:01.0", "001d", "0011")
				 ACS("0000:00:02.0", "001d", "0011"));
	free(out);
	host_state_free(h);

	/* behind one port (PIX): nothing between them to clear */
	h = calloc(1, sizeof(HostState));
	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	gpu_add(h, "0000:03:00.1", (const char *const[]){ NIC_PORTS, NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, "");
	free(out);
	host_state_free(h);

	/* without a GPU, the other functions that declare off are the peers: a port on the
	 * route of both is planned once */
	h = calloc(1, sizeof(HostState));
	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	nic_add(h, "0000:05:00.0", "ens2np0", (const char *const[]){ "0000:00:02.0 rp 1d", NULL });
	out = function_plan("match: {netdev: \"ens*\"}\npci: {upstream-acs: off}\n", h, NULL);
	CHECK_STREQ(out, ACS("0000:02:00.0", "001d", "0011") ACS("0000:00:01.0", "001d", "0011")
				 ACS("0000:00:02.0", "001d", "0011"));
	free(out);
	host_state_free(h);
}

#define DISABLE_ACS_REDIR(port, vf, more, type)                                                \
	"port " port ": " vf more " is bound to vfio-pci in IOMMU group 12 (" type "), which " \
	"the kernel formed with this ACS on and does not form again: cleared now, vfio would " \
	"go on trusting an isolation that no longer holds. Clear it at boot: "                 \
	"pci=disable_acs_redir=" port " on the kernel command line\n"

#define REFUSED(fn, port)                                           \
	"pci/" fn " pci.upstream-acs " port " ACSCtl 0x001d->" port \
	" ACSCtl 0x0011 | " DISABLE_ACS_REDIR(port, "0000:05:00.1", "", "DMA-FQ")

/* off is refused where ACS still isolates a function bound to vfio-pci: below the port, or
 * below a sibling it could then be reached from; the refusal names the boot-time way. */
TEST(upstream_acs_vfio) {
	HostState *h = calloc(1, sizeof(HostState));
	char *out;

	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	gpu_add(h, "0000:04:00.0",
		(const char *const[]){ "0000:02:01.0 dn 1d", "0000:01:00.0 up",
				       "0000:00:01.0 rp 1d", NULL });
	/* a VF of the NIC handed to a VM: both ports of the route would expose it */
	vfio_add(h, "0000:03:00.2", 12, "DMA",
		 (char *[]){ "0000:02:00.0", "0000:01:00.0", "0000:00:01.0", NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 pci.upstream-acs 0000:02:00.0 ACSCtl 0x001d->0000:02:"
			 "00.0 ACSCtl 0x0011 | " DISABLE_ACS_REDIR(
				 "0000:02:00.0", "0000:03:00.2", "",
				 "DMA") "pci/0000:03:00.0 pci.upstream-acs 0000:02:01.0 ACSCtl "
					"0x001d->0000:02:"
					"01.0 ACSCtl 0x0011 | " DISABLE_ACS_REDIR(
						"0000:02:01.0", "0000:03:00.2", "", "DMA"));
	free(out);
	/* identity (iommu=pt) and DMA-FQ alike: vfio attaches a domain of its own; a second
	 * one is counted */
	free(h->vfio_functions[0].iommu_type);
	h->vfio_functions[0].iommu_type = strdup("identity");
	vfio_add(h, "0000:04:00.1", 13, "DMA-FQ",
		 (char *[]){ "0000:02:01.0", "0000:01:00.0", "0000:00:01.0", NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK(strstr(out, DISABLE_ACS_REDIR("0000:02:00.0", "0000:03:00.2", " (and 1 more)",
					    "identity")) != NULL);
	free(out);
	/* no-IOMMU groups ("unknown": vfio's unsafe mode) and no group isolate nothing */
	free(h->vfio_functions[0].iommu_type);
	h->vfio_functions[0].iommu_type = strdup("unknown");
	h->vfio_functions[1].iommu_group = -1;
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, ACS("0000:02:00.0", "001d", "0011") ACS("0000:02:01.0", "001d", "0011"));
	free(out);
	host_state_free(h);

	/* below another switch of the root complex: a root port's siblings are the root
	 * complex's other root ports; the downstream port's are not */
	h = calloc(1, sizeof(HostState));
	nic_add(h, "0000:03:00.0", "ens1f0np0", (const char *const[]){ NIC_PORTS, NULL });
	gpu_add(h, "0000:05:00.0", (const char *const[]){ "0000:00:02.0 rp 1d", NULL });
	vfio_add(h, "0000:08:00.0", 12, "DMA",
		 (char *[]){ "0000:07:00.0", "0000:06:00.0", "0000:00:03.0", NULL });
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out,
		    ACS("0000:02:00.0", "001d",
			"0011") "pci/0000:03:00.0 pci.upstream-acs "
				"0000:00:01.0 ACSCtl 0x001d->0000:00:01.0 ACSCtl 0x0011 "
				"| " DISABLE_ACS_REDIR(
					"0000:00:01.0", "0000:08:00.0", "",
					"DMA") "pci/0000:03:00.0 pci.upstream-acs 0000:00:02.0 "
					       "ACSCtl 0x001d->0000:00:"
					       "02.0 ACSCtl 0x0011 | " DISABLE_ACS_REDIR(
						       "0000:00:02.0", "0000:08:00.0", "", "DMA"));
	free(out);
	/* in another root complex: not reachable */
	free(h->vfio_functions[0].host_bridge);
	h->vfio_functions[0].host_bridge = strdup("pci0000:80");
	out = function_plan(ACS_OFF, h, NULL);
	CHECK_STREQ(out, ACS("0000:02:00.0", "001d", "0011") ACS("0000:00:01.0", "001d", "0011")
				 ACS("0000:00:02.0", "001d", "0011"));
	free(out);
	host_state_free(h);

	/* two functions declaring off, each the other's peer, on root ports of their own (the
	 * VM's e1000e and sriovsim PF, sriov-guard.sh), a VF of the second bound to vfio-pci:
	 * the ports are refused for the function that planned them first, and for the second
	 * too, whose status rows would otherwise read converged (it has no action of its own) */
	h = calloc(1, sizeof(HostState));
	nic_add(h, "0000:04:00.0", "ens2", (const char *const[]){ "0000:00:1d.0 rp 1d", NULL });
	nic_add(h, "0000:05:00.0", "ens3", (const char *const[]){ "0000:00:1e.0 rp 1d", NULL });
	vfio_add(h, "0000:05:00.1", 12, "DMA-FQ", (char *[]){ "0000:00:1e.0", NULL });
	out = function_plan("match: {netdev: \"ens*\"}\npci: {upstream-acs: off}\n", h, NULL);
	CHECK_STREQ(out,
		    REFUSED("0000:04:00.0", "0000:00:1d.0") REFUSED("0000:04:00.0", "0000:00:1e.0")
			    REFUSED("0000:05:00.0", "0000:00:1e.0")
				    REFUSED("0000:05:00.0", "0000:00:1d.0"));
	free(out);
	/* let go: each port once, as before */
	h->vfio_functions[0].iommu_group = -1;
	out = function_plan("match: {netdev: \"ens*\"}\npci: {upstream-acs: off}\n", h, NULL);
	CHECK_STREQ(out,
		    "pci/0000:04:00.0 pci.upstream-acs 0000:00:1d.0 ACSCtl 0x001d->0000:00:1d.0 "
		    "ACSCtl 0x0011\n"
		    "pci/0000:04:00.0 pci.upstream-acs 0000:00:1e.0 ACSCtl 0x001d->0000:00:1e.0 "
		    "ACSCtl 0x0011\n");
	free(out);
	host_state_free(h);
}

static void acs_record_add(HostState *h, const char *port, uint16_t cleared) {
	h->acs_records = realloc(h->acs_records, sizeof(AcsRecord) * (h->n_acs_records + 1));
	h->acs_records[h->n_acs_records++] =
		(AcsRecord){ .port = strdup(port), .cleared = cleared };
}

/* on puts back what rdmad recorded clearing, on the route and above the function, and only
 * that; not a port another function's off clears in the same plan. */
TEST(upstream_acs_on) {
	HostState *h = calloc(1, sizeof(HostState));
	Plan *p = NULL;
	char *out;

	nic_add(h, "0000:03:00.0", "ens1f0np0",
		(const char *const[]){ "0000:02:00.0 dn 11", "0000:01:00.0 up",
				       "0000:00:01.0 rp 11", NULL });
	gpu_add(h, "0000:04:00.0",
		(const char *const[]){ "0000:02:01.0 dn 11", "0000:01:00.0 up",
				       "0000:00:01.0 rp 11", NULL });
	/* nothing recorded: nothing to put back, whatever ACS reads */
	out = function_plan(ACS_ON, h, NULL);
	CHECK_STREQ(out, "");
	free(out);
	acs_record_add(h, "0000:00:01.0", 0x0c); /* above the NIC, off the route */
	acs_record_add(h, "0000:02:01.0", 0x04); /* the GPU's: RR only was set */
	acs_record_add(h, "0000:09:00.0", 0x0c); /* elsewhere */
	out = function_plan(ACS_ON, h, &p);
	CHECK_STREQ(out, ACS("0000:02:01.0", "0011", "0015") ACS("0000:00:01.0", "0011", "001d"));
	if (p && p->n_actions == 2) {
		CHECK(p->actions[0].value.flag);
		CHECK_INTEQ(p->actions[0].value.number, 0x15);
		CHECK_STREQ(p->actions[0].value.name, "0000:02:01.0");
	}
	plan_free(p);
	free(out);
	/* set again meanwhile: nothing to write */
	h->gpus[0].bridges[0].acs_ctrl = 0x15;
	h->functions[0].bridges[2].acs_ctrl = 0x1d;
	out = function_plan(ACS_ON, h, NULL);
	CHECK_STREQ(out, "");
	free(out);
	h->gpus[0].bridges[0].acs_ctrl = 0x11;

	/* another NIC below the switch wants off: the GPU's port stays clear */
	nic_add(h, "0000:0a:00.0", "ens2np0",
		(const char *const[]){ "0000:02:02.0 dn 1d", "0000:01:00.0 up",
				       "0000:00:01.0 rp 1d", NULL });
	out = function_plan("match: {netdev: ens1f0np0}\npci: {upstream-acs: on}\n---\n"
			    "match: {netdev: ens2np0}\npci: {upstream-acs: off}\n",
			    h, NULL);
	CHECK_STREQ(out, "pci/0000:0a:00.0 pci.upstream-acs 0000:02:02.0 ACSCtl 0x001d->0000:02:"
			 "02.0 ACSCtl 0x0011\n");
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

/* A soft device on a PCI function's netdev (Soft-RoCE on a NIC without RDMA): when a profile
 * matching its link declares the function's keys, they are its port's actions, so that its
 * status rows say what the plan says (a refused count read "converged" there, issue 43's VM
 * run). A profile matching the function's PCI address, which the link's facts do not have, still
 * plans them, on the function: the link has no row for them. */
TEST(soft_port_carries_them) {
	HostState *h = calloc(1, sizeof(HostState));
	HostDevice *d;
	char *out;

	function_new(h, 2);
	vf_add(h, "0000:03:00.2", "vfio-pci", NULL);
	h->devices = calloc(1, sizeof(HostDevice));
	h->n_devices = 1;
	d = &h->devices[0];
	*d = (HostDevice){ .name = strdup("rxe0"), .driver = strdup("rdma_rxe") };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup("ens1f0np0") };
	out = function_plan("match: {netdev: ens1f0np0}\nsriov: {vfs: 4}\n", h, NULL);
	CHECK_STREQ(out, "rxe0/1 sriov.vfs 2->4 | going through 0 destroys the VFs in use: VF "
			 "0000:03:00.2 " VFIO RELEASE "\n");
	free(out);
	out = function_plan("match: {pci: \"0000:03:00.0\"}\nsriov: {vfs: 0}\n", h, NULL);
	CHECK_STREQ(out, "pci/0000:03:00.0 sriov.vfs 2->0 | going to 0 destroys the VFs in use: "
			 "VF 0000:03:00.2 " VFIO RELEASE "\n");
	free(out);
	host_state_free(h);
}

TESTS_MAIN(TEST_ENTRY(numvfs), TEST_ENTRY(numvfs_in_use), TEST_ENTRY(vf_settings),
	   TEST_ENTRY(vf_rate_below_min), TEST_ENTRY(eswitch), TEST_ENTRY(virtual_function),
	   TEST_ENTRY(pci), TEST_ENTRY(upstream_acs_route), TEST_ENTRY(upstream_acs_vfio),
	   TEST_ENTRY(upstream_acs_on), TEST_ENTRY(rdma_port_carries_them),
	   TEST_ENTRY(soft_port_carries_them), TEST_ENTRY(being_written))
