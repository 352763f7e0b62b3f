/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner on hand-built host states: (profiles, host) -> actions. */
#include <arpa/inet.h>

#include "plan.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static HostDevice *host_add_device(HostState *h, const char *name, const char *driver,
				   const char *netdev, LinkLayer ll) {
	HostDevice *d;
	HostPort *p;

	h->devices = realloc(h->devices, sizeof(HostDevice) * (h->n_devices + 1));
	d = &h->devices[h->n_devices++];
	*d = (HostDevice){ .name = strdup(name), .driver = strdup(driver) };
	if (streq(driver, "rdma_rxe"))
		d->parent = strdup(netdev);
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	p = &d->ports[0];
	*p = (HostPort){
		.port = 1,
		.state = PORT_STATE_ACTIVE,
		.phys_state = PORT_PHYS_STATE_LINK_UP,
		.link_layer = ll,
		.netdev = strdup(netdev),
		.has_roce_mode = true,
		.roce_mode = ROCE_MODE_V2,
		.has_roce_tos = true,
		.roce_tos = 0,
	};
	return d;
}

static HostNetdev *host_add_netdev(HostState *h, const char *name, unsigned mtu, bool up) {
	HostNetdev *n;

	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	n = &h->netdevs[h->n_netdevs++];
	*n = (HostNetdev){ .name = strdup(name), .mtu = mtu, .up = up, .addresses_known = true };
	return n;
}

static void netdev_add_address(HostNetdev *n, const char *s) {
	n->addresses = realloc(n->addresses, sizeof(Address) * (n->n_addresses + 1));
	CHECK(address_from_string(s, &n->addresses[n->n_addresses++]) == 0);
}

/* A ConnectX port and a Soft-RoCE device, both up at MTU 1500, ToS 0. Sorted as
 * host_observe() sorts. */
static HostState *host_new(void) {
	HostState *h = calloc(1, sizeof(HostState));
	HostNetdev *n;

	host_add_device(h, "mlx5_0", "mlx5_core", "ens1f0np0", LINK_LAYER_ETHERNET);
	host_add_device(h, "rxe0", "rdma_rxe", "veth0", LINK_LAYER_ETHERNET);
	n = host_add_netdev(h, "ens1f0np0", 1500, true);
	netdev_add_address(n, "192.0.2.10/24");
	netdev_add_address(n, "198.51.100.1/24"); /* not declared: left alone */
	host_add_netdev(h, "veth0", 1500, true);
	h->modules = strv_copy((char *[]){ "ib_core", "ib_uverbs", "mlx5_ib", NULL });
	return h;
}

/* "link setting current->desired profile" per action, one per line; unsupported ones marked. */
static char *plan_text(const char *const *texts, HostState *h) {
	Config *c = config_from(texts);
	Plan *p = NULL;
	char *out = calloc(1, 1);
	size_t len = 0;

	CHECK(plan_compute(c, h, &p) == 0);
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		char line[512];

		snprintf(line, sizeof(line), "%s %s %s->%s %s%s\n", action_subject(a),
			 action_setting(a), a->current ? a->current : "-", a->desired, a->profile,
			 a->unsupported ? " (unsupported)" : "");
		out = realloc(out, len + strlen(line) + 1);
		strcpy(out + len, line);
		len += strlen(line);
	}
	plan_free(p);
	config_free(c);
	host_state_free(h);
	return out;
}

TEST(converged_is_empty) {
	static const char *const texts[] = {
		"modules: [ib_uverbs, mlx5_ib]\nroce: {mode: v2, tos: 0}\n"
		"netdev: {up: true, mtu: 1500}\n",
		"match: {device: \"mlx5_*\"}\nnetdev: {addresses: [192.0.2.10/24]}\n"
		"gids: {require: [roce-v2-ipv4]}\n",
		NULL,
	};
	char *s = plan_text(texts, host_new());

	CHECK_STREQ(s, "");
	free(s);
}

TEST(differences_in_order) {
	static const char *const texts[] = {
		"modules: [rdma_ucm, ib_uverbs]\nroce: {tos: 106}\n",
		"match: {device: \"mlx5_*\"}\n"
		"netdev: {mtu: 4200, addresses: [192.0.2.10/24, \"2001:db8::10/64\"]}\n",
		"match: {device: rxe0}\nroce: {tos: 96}\nnetdev: {up: false}\n",
		NULL,
	};
	char *s = plan_text(texts, host_new());

	CHECK_STREQ(s, "host modules -->rdma_ucm 00-test.yaml\n"
		       "mlx5_0/1 netdev.mtu 1500->4200 10-test.yaml\n"
		       "rxe0/1 netdev.up up->down 20-test.yaml\n"
		       "mlx5_0/1 netdev.addresses -->2001:db8::10/64 10-test.yaml\n"
		       "mlx5_0/1 roce.tos 0->106 00-test.yaml\n"
		       "rxe0/1 roce.tos 0->96 20-test.yaml\n");
	free(s);
}

/* No configfs directory yet: the current value is unknown, the change is planned. */
TEST(configfs_unknown) {
	static const char *const texts[] = { "roce: {mode: v2}\n", NULL };
	HostState *h = host_new();
	char *s;

	h->devices[0].ports[0].has_roce_mode = false;
	s = plan_text(texts, h);
	CHECK_STREQ(s, "mlx5_0/1 roce.mode -->v2 00-test.yaml\n");
	free(s);
}

/* What cannot be done is said, and does not count as pending. */
TEST(unsupported) {
	static const char *const texts[] = {
		"roce: {mode: v1}\necn: {roce-np: [3]}\n",
		NULL,
	};
	HostState *h = host_new();
	Config *c = config_from(texts);
	Plan *p = NULL;

	h->devices[0].ports[0].roce_mode = ROCE_MODE_V1;
	h->netdevs[0].ecn_supported = true;
	h->netdevs[0].ecn_roce_np = 0x08;
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 2);
	CHECK_INTEQ(plan_pending(p), 0);
	CHECK_STREQ(action_subject(&p->actions[0]), "rxe0/1");
	CHECK(p->actions[0].unsupported && strstr(p->actions[0].unsupported, "RoCE v2 only"));
	CHECK_STREQ(action_subject(&p->actions[1]), "rxe0/1");
	CHECK_STREQ(action_setting(&p->actions[1]), "ecn.roce-np");
	CHECK(p->actions[1].unsupported != NULL);
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

TEST(infiniband_port) {
	static const char *const texts[] = { "roce: {tos: 106}\n", NULL };
	HostState *h = calloc(1, sizeof(HostState));
	char *s;

	host_add_device(h, "mlx5_0", "mlx5_core", "ib0", LINK_LAYER_INFINIBAND);
	s = plan_text(texts, h);
	CHECK_STREQ(s, "mlx5_0/1 roce.tos -->106 00-test.yaml (unsupported)\n");
	free(s);
}

/* links: create a Soft-RoCE device (and load its module first); leave an existing one. */
TEST(soft_links) {
	static const char *const texts[] = {
		"links:\n  - {name: rxe0, type: rxe, netdev: veth0}\n"
		"  - {name: rxe1, type: rxe, netdev: veth1}\n"
		"  - {name: rxe2, type: rxe, netdev: veth9}\n",
		NULL,
	};
	HostState *h = host_new();
	char *s;

	host_add_netdev(h, "veth1", 1500, true);
	s = plan_text(texts, h);
	CHECK_STREQ(s, "host modules -->rdma_rxe 00-test.yaml\n"
		       "host links -->rxe1: rxe on veth1 00-test.yaml\n"
		       "host links -->rxe2: rxe on veth9 00-test.yaml (unsupported)\n");
	free(s);
}

/* Modules of a profile that matches no link are not loaded. */
TEST(modules_need_a_match) {
	static const char *const texts[] = {
		"match: {driver: bnxt_en}\nmodules: [bnxt_re]\n",
		NULL,
	};
	char *s = plan_text(texts, host_new());

	CHECK_STREQ(s, "");
	free(s);
}

static void host_add_pci(HostState *h, const char *address, const char *driver,
			 const char *netdev) {
	HostPciFunction *f;

	h->pci_functions =
		realloc(h->pci_functions, sizeof(HostPciFunction) * (h->n_pci_functions + 1));
	f = &h->pci_functions[h->n_pci_functions++];
	*f = (HostPciFunction){ .address = strdup(address),
				.class = 0x020000,
				.driver = strdup(driver),
				.netdevs = netdev ? strv_copy((char *[]){ (char *) netdev, NULL })
						  : NULL };
}

/* The modules that create the RDMA device: matched against the PCI functions and netdevs,
 * since no link exists before they load (the README's own example, mlx5_ib). Keys only an
 * RDMA link has (device, port) cannot match hardware, nor can an empty match. */
TEST(modules_create_the_device) {
	static const char *const texts[] = {
		"match: {driver: mlx5_core}\nmodules: [mlx5_ib]\n",
		"match: {pci: \"0000:5e:*\"}\nmodules: [irdma]\n",
		"match: {netdev: \"ens2*\"}\nmodules: [bnxt_re]\n",
		"match: {device: \"mlx5_*\"}\nmodules: [never_by_device]\n",
		"modules: [never_without_match]\n",
		NULL,
	};
	HostState *h = calloc(1, sizeof(HostState));
	char *s;

	host_add_pci(h, "0000:3b:00.0", "mlx5_core", "ens1f0np0");
	host_add_pci(h, "0000:5e:00.0", "ice", NULL);
	host_add_netdev(h, "ens2f0", 1500, true)->driver = strdup("bnxt_en");
	h->modules = strv_copy((char *[]){ "ib_core", NULL });
	s = plan_text(texts, h);
	CHECK_STREQ(s, "host modules -->mlx5_ib 00-test.yaml\n"
		       "host modules -->irdma 10-test.yaml\n"
		       "host modules -->bnxt_re 20-test.yaml\n");
	free(s);
}

static void host_add_record(HostState *h, const char *name, const char *netdev) {
	h->records = realloc(h->records, sizeof(SoftDeviceRecord) * (h->n_records + 1));
	h->records[h->n_records++] = (SoftDeviceRecord){ .name = strdup(name),
							 .type = SOFT_DEVICE_RXE,
							 .netdev = strdup(netdev) };
}

/* rdmad's own soft devices (recorded): one declared on another netdev now is deleted and
 * created again, one no profile declares is deleted, a record of one gone is dropped; the
 * deletions are planned actions like any other. A device rdmad did not create is never
 * touched. */
TEST(soft_devices_rdmad_created) {
	static const char *const texts[] = {
		"links:\n  - {name: rxe0, type: rxe, netdev: veth1}\n", /* rxe0 is on veth0 */
		NULL,
	};
	HostState *h = host_new();
	char *s;

	host_add_netdev(h, "veth1", 1500, true);
	host_add_device(h, "rxe7", "rdma_rxe", "veth1", LINK_LAYER_ETHERNET);
	host_add_record(h, "rxe0", "veth0");
	host_add_record(h, "rxe7", "veth1"); /* undeclared now */
	host_add_record(h, "rxe9", "veth5"); /* undeclared, gone */
	strv_free(h->modules);
	h->modules = strv_copy((char *[]){ "ib_core", "rdma_rxe", NULL });
	s = plan_text(texts, h);
	CHECK_STREQ(s, "host links rxe7: rxe on veth1->rxe7: absent (null)\n"
		       "host links -->rxe9: absent (null)\n"
		       "host links rxe0: rxe on veth0->rxe0: absent 00-test.yaml\n"
		       "host links -->rxe0: rxe on veth1 00-test.yaml\n");
	free(s);

	/* Not recorded: someone else's rxe0, left alone and said so. */
	h = host_new();
	host_add_netdev(h, "veth1", 1500, true);
	s = plan_text(texts, h);
	CHECK_STREQ(s, "host links rxe0: rxe on veth0->rxe0: rxe on veth1 00-test.yaml "
		       "(unsupported)\n");
	free(s);
}

/* Changes to a netdev carry the ifindex it was observed with: apply-rtnl addresses it by
 * that, not by a name that may have moved to another interface since. */
TEST(netdev_actions_carry_ifindex) {
	static const char *const texts[] = { "netdev: {mtu: 9000}\n", NULL };
	Config *c = config_from(texts);
	HostState *h = host_new();
	Plan *p = NULL;

	h->netdevs[0].ifindex = 7; /* ens1f0np0 */
	h->netdevs[1].ifindex = 9; /* veth0 */
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 2);
	for (size_t i = 0; i < p->n_actions; i++)
		CHECK_INTEQ(p->actions[i].ifindex, streq(p->actions[i].netdev, "veth0") ? 9 : 7);
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

/* Two ports on one netdev: the netdev is changed once. */
TEST(shared_netdev) {
	static const char *const texts[] = { "netdev: {mtu: 9000}\n", NULL };
	HostState *h = calloc(1, sizeof(HostState));
	char *s;

	host_add_device(h, "mlx5_0", "mlx5_core", "bond0", LINK_LAYER_ETHERNET);
	host_add_device(h, "mlx5_1", "mlx5_core", "bond0", LINK_LAYER_ETHERNET);
	host_add_netdev(h, "bond0", 1500, true);
	s = plan_text(texts, h);
	CHECK_STREQ(s, "mlx5_0/1 netdev.mtu 1500->9000 00-test.yaml\n");
	free(s);
}

/* Two links on one netdev wanting different MTUs: applying either would undo the other on every
 * reconcile (a flapping link). Neither is applied, both say why. */
TEST(shared_netdev_conflict) {
	static const char *const texts[] = {
		"match: {device: mlx5_0}\nnetdev: {mtu: 4000}\n",
		"match: {device: mlx5_1}\nnetdev: {mtu: 1500, up: true}\n",
		NULL,
	};
	HostState *h = calloc(1, sizeof(HostState));
	char *s;

	host_add_device(h, "mlx5_0", "mlx5_core", "bond0", LINK_LAYER_ETHERNET);
	host_add_device(h, "mlx5_1", "mlx5_core", "bond0", LINK_LAYER_ETHERNET);
	host_add_netdev(h, "bond0", 1500, true);
	s = plan_text(texts, h);
	CHECK_STREQ(s, "mlx5_0/1 netdev.mtu -->4000 00-test.yaml (unsupported)\n"
		       "mlx5_1/1 netdev.mtu -->1500 10-test.yaml (unsupported)\n");
	free(s);
}

TEST(netns_mode) {
	static const char *const texts[] = {
		"system: {netns-mode: shared}\n",
		"system: {netns-mode: exclusive}\n",
		NULL,
	};
	HostState *h = host_new();
	char *s;

	h->has_netns_mode = true;
	h->netns_mode = NETNS_MODE_SHARED;
	s = plan_text(texts, h);
	CHECK_STREQ(s, "host system.netns-mode shared->exclusive 10-test.yaml\n");
	free(s);
}

/* The apply backends get typed values, not the strings shown to people. */
TEST(typed_values) {
	static const char *const texts[] = {
		"modules: [rdma_ucm]\n"
		"roce: {mode: v2, tos: 106}\n"
		"netdev: {mtu: 4200, up: false, addresses: [\"2001:db8::10/64\"]}\n"
		"links: [{name: rxe1, type: rxe, netdev: veth1}]\n"
		"system: {netns-mode: exclusive}\n",
		NULL,
	};
	HostState *h = host_new();
	Config *c = config_from(texts);
	Plan *p = NULL;

	host_add_netdev(h, "veth1", 1500, true);
	h->has_netns_mode = true;
	h->netns_mode = NETNS_MODE_SHARED;
	CHECK(plan_compute(c, h, &p) == 0);
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const Action *a = &p->actions[i];

		if (!streq(action_subject(a), "host") && !streq(action_subject(a), "mlx5_0/1"))
			continue;
		switch (a->key) {
		case KEY_MODULES:
			CHECK(streq(a->value.name, "rdma_ucm") || streq(a->value.name, "rdma_rxe"));
			break;
		case KEY_LINKS:
			CHECK_STREQ(a->value.name, "rxe1");
			CHECK_STREQ(a->value.lower, "veth1");
			CHECK_INTEQ(a->value.link_type, SOFT_DEVICE_RXE);
			break;
		case KEY_SYSTEM_NETNS_MODE:
			CHECK_INTEQ(a->value.netns_mode, NETNS_MODE_EXCLUSIVE);
			break;
		case KEY_ROCE_TOS:
			CHECK_INTEQ(a->value.number, 106);
			break;
		case KEY_NETDEV_MTU:
			CHECK_INTEQ(a->value.number, 4200);
			break;
		case KEY_NETDEV_UP:
			CHECK(!a->value.flag);
			CHECK_STREQ(a->netdev, "ens1f0np0");
			break;
		case KEY_NETDEV_ADDRESSES:
			CHECK_INTEQ(a->value.address.family, AF_INET6);
			CHECK_INTEQ(a->value.address.prefixlen, 64);
			break;
		default:
			CHECK(!"unexpected action");
		}
	}
	CHECK_INTEQ(p->n_actions, 2 + 1 + 1 + 2 * 4); /* 2 modules, system, links, 4 per link */
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

/* A port with IEEE DCB as an mlx5 PF reports it after boot: PFC off, all priorities on TC 0,
 * TC 0 ets with all the bandwidth, no rate limit, no app entries; host DCBX, not willing. */
static HostNetdev *netdev_dcb_default(HostState *h, const char *name) {
	HostNetdev *n = (HostNetdev *) host_netdev_find(h, name);

	n->dcb_observed = true;
	n->dcb = (DcbState){ .has_ets = true,
			     .has_pfc = true,
			     .has_maxrate = true,
			     .has_dcbx = true,
			     .dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE };
	n->dcb.ets.ets_cap = 8;
	n->dcb.ets.tc_tx_bw[0] = 100;
	for (int i = 1; i < N_TC; i++)
		n->dcb.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	n->dcb.ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	n->dcb.pfc.pfc_cap = 8;
	n->dcb.pfc.delay = 0x1234;
	return n;
}

static const char lossless[] = "match: {device: \"mlx5_*\"}\n"
			       "qos:\n"
			       "  pfc: [3, 4]\n"
			       "  ets: {prio-tc: [0,0,0,3,0,0,0,0], tc-bw: [50,0,0,50,0,0,0,0],\n"
			       "        tsa: [ets,strict,strict,ets,strict,strict,strict,strict]}\n"
			       "  maxrate: [0, 0, 0, 25Gbit, 0, 0, 0, 100Mbit]\n"
			       "  dscp-map: {26: 3, 48: 6}\n"
			       "  trust: dscp\n";

/* Every QoS setting that differs is one action, in apply order, readable like dcb(8) shows it. */
TEST(qos_differences) {
	static const char *const texts[] = { lossless, NULL };
	HostState *h = host_new();
	HostNetdev *n = netdev_dcb_default(h, "ens1f0np0");
	char *s;

	n->dcb.dscp_prio[26] = 1u << 4; /* 26:4 by hand: replaced */
	n->dcb.dscp_prio[10] = 1u << 1; /* not in the map: removed */
	s = plan_text(texts, h);
	CHECK_STREQ(
		s, "mlx5_0/1 qos.pfc pfc-enabled none->pfc-enabled 3,4 00-test.yaml\n"
		   "mlx5_0/1 qos.ets.prio-tc prio-tc 0:0 1:0 2:0 3:0 4:0 5:0 6:0 7:0->"
		   "prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:0 7:0 00-test.yaml\n"
		   "mlx5_0/1 qos.ets.tc-bw tc-bw 0:100 1:0 2:0 3:0 4:0 5:0 6:0 7:0->"
		   "tc-bw 0:50 1:0 2:0 3:50 4:0 5:0 6:0 7:0 00-test.yaml\n"
		   "mlx5_0/1 qos.ets.tsa tc-tsa 0:ets 1:strict 2:strict 3:strict 4:strict "
		   "5:strict 6:strict 7:strict->tc-tsa 0:ets 1:strict 2:strict 3:ets 4:strict "
		   "5:strict 6:strict 7:strict 00-test.yaml\n"
		   "mlx5_0/1 qos.maxrate tc-maxrate unlimited->tc-maxrate 3:25Gbit 7:100Mbit "
		   "00-test.yaml\n"
		   "mlx5_0/1 qos.dscp-map dscp-prio 10:1 26:4->dscp-prio 26:3 48:6 00-test.yaml\n");
	free(s);
}

/* A port already as declared plans nothing: no DCB SET at all on the next reconcile. */
TEST(qos_converged_is_empty) {
	static const char *const texts[] = { lossless, NULL };
	HostState *h = host_new();
	HostNetdev *n = netdev_dcb_default(h, "ens1f0np0");
	char *s;

	n->dcb.pfc.pfc_en = 0x18;
	n->dcb.ets.prio_tc[3] = 3;
	n->dcb.ets.tc_tx_bw[0] = 50;
	n->dcb.ets.tc_tx_bw[3] = 50;
	n->dcb.ets.tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
	n->dcb.maxrate.tc_maxrate[3] = 25000000;
	n->dcb.maxrate.tc_maxrate[7] = 100000;
	n->dcb.dscp_prio[26] = 1u << 3;
	n->dcb.dscp_prio[48] = 1u << 6;
	n->dcb.n_other_apps = 2; /* not DSCP: left alone */
	s = plan_text(texts, h);
	CHECK_STREQ(s, "");
	free(s);
}

/* qos.trust without a map: without apptrust, the DSCP app table is the trust state. */
TEST(qos_trust) {
	static const char *const dscp[] = { "match: {device: \"mlx5_*\"}\nqos: {trust: dscp}\n",
					    NULL };
	static const char *const pcp[] = { "match: {device: \"mlx5_*\"}\nqos: {trust: pcp}\n",
					   NULL };
	static const char *const pcp_map[] = {
		"match: {device: \"mlx5_*\"}\nqos: {trust: pcp, dscp-map: {26: 3}}\n", NULL
	};
	HostState *h = host_new();
	HostNetdev *n;
	char *s;

	netdev_dcb_default(h, "ens1f0np0");
	s = plan_text(dscp, h);
	CHECK_STREQ(s, "mlx5_0/1 qos.trust pcp (no DSCP app entries)->dscp (DSCP app entries "
		       "dscp>>3, no apptrust) 00-test.yaml\n");
	free(s);

	/* any DSCP entry is DSCP trust already: a hand-made map stays */
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.dscp_prio[46] = 1u << 5;
	s = plan_text(dscp, h);
	CHECK_STREQ(s, "");
	free(s);

	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.dscp_prio[46] = 1u << 5;
	n->dcb.dscp_prio[26] = 1u << 3;
	s = plan_text(pcp, h);
	CHECK_STREQ(s, "mlx5_0/1 qos.trust dscp (2 DSCP app entries)->pcp (no DSCP app entries, "
		       "no apptrust) 00-test.yaml\n");
	free(s);

	h = host_new();
	netdev_dcb_default(h, "ens1f0np0");
	s = plan_text(pcp_map, h);
	CHECK_STREQ(s, "mlx5_0/1 qos.dscp-map dscp-prio none->dscp-prio 26:3 00-test.yaml\n"
		       "mlx5_0/1 qos.trust -->pcp (no DSCP app entries, no apptrust) 00-test.yaml "
		       "(unsupported)\n");
	free(s);
}

/* No dcbnl (veth, VFs), a driver without an op, an LLDP agent that manages the port. */
TEST(qos_unsupported) {
	static const char *const texts[] = {
		"match: {device: \"mlx5_*\"}\nqos: {pfc: [3], maxrate: [0,0,0,1Gbit,0,0,0,0]}\n",
		NULL,
	};
	static const char *const owned[] = {
		"match: {device: \"mlx5_*\"}\nqos: {pfc: [3], owner: rdmad}\n", NULL
	};
	HostState *h = host_new();
	HostNetdev *n;
	Config *c;
	Plan *p = NULL;
	char *s;

	n = (HostNetdev *) host_netdev_find(h, "ens1f0np0");
	n->dcb_observed = true;
	n->dcb_error = -EOPNOTSUPP;
	c = config_from(texts);
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 2);
	CHECK_INTEQ(plan_pending(p), 0);
	CHECK_STREQ(p->actions[0].unsupported,
		    "no DCB (dcbnl) on ens1f0np0: Operation not supported");
	CHECK_STREQ(p->actions[0].desired, "pfc-enabled 3");
	plan_free(p);
	host_state_free(h);

	/* the driver has PFC but no maxrate */
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.has_maxrate = false;
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 2);
	CHECK_INTEQ(plan_pending(p), 1);
	CHECK(!p->actions[0].unsupported);
	CHECK_STREQ(p->actions[1].unsupported,
		    "the driver has no IEEE maxrate (dcbnl ieee_getmaxrate)");
	plan_free(p);
	host_state_free(h);

	/* willing ETS: lldpad manages the port; the NIC's own agent likewise */
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.ets.willing = 1;
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(plan_pending(p), 0);
	CHECK(p->n_actions > 0 && strstr(p->actions[0].unsupported, "lldpad"));
	plan_free(p);
	host_state_free(h);
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(plan_pending(p), 0);
	CHECK(p->n_actions > 0 && strstr(p->actions[0].unsupported, "lld-managed"));
	plan_free(p);
	host_state_free(h);
	config_free(c);

	/* qos.owner: rdmad writes regardless */
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.ets.willing = 1;
	n->dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED;
	s = plan_text(owned, h);
	CHECK_STREQ(s, "mlx5_0/1 qos.pfc pfc-enabled none->pfc-enabled 3 00-test.yaml\n");
	free(s);
}

/* The DCB backend gets every declared QoS value with each QoS action. */
TEST(qos_typed_values) {
	static const char *const texts[] = { lossless, NULL };
	HostState *h = host_new();
	Config *c = config_from(texts);
	Plan *p = NULL;

	netdev_dcb_default(h, "ens1f0np0");
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 6);
	for (size_t i = 0; i < p->n_actions; i++) {
		const DcbDesired *d = &p->actions[i].value.dcb;

		CHECK_INTEQ(p->actions[i].phase, PHASE_QOS);
		CHECK_STREQ(p->actions[i].netdev, "ens1f0np0");
		CHECK_INTEQ(d->set,
			    KEYS_QOS & ~(KEY_BIT(KEY_QOS_OWNER) | KEY_BIT(KEY_QOS_PFC_DELAY) |
					 KEY_BIT(KEY_QOS_BUFFER_PRIO) |
					 KEY_BIT(KEY_QOS_BUFFER_SIZE) | KEY_BIT(KEY_QOS_DCBX)));
		CHECK_INTEQ(d->pfc, 0x18);
		CHECK_INTEQ(d->ets_prio_tc[3], 3);
		CHECK_INTEQ(d->ets_tc_bw[3], 50);
		CHECK_INTEQ(d->ets_tsa[3], ETS_TSA_ETS);
		CHECK_INTEQ(d->maxrate[3], 25000000);
		CHECK_INTEQ(d->dscp_map[26], 3);
		CHECK_INTEQ(d->dscp_map[27], -1);
		CHECK_INTEQ(d->trust, QOS_TRUST_DSCP);
	}
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

/* ---- the rest of lossless RoCE ----------------------------------------------------------------
 */

static const char lossless_rest[] = "match: {device: \"mlx5_*\"}\n"
				    "netdev: {pause: {autoneg: false, rx: false, tx: false}}\n"
				    "qos:\n"
				    "  dcbx: [host, ieee]\n"
				    "  pfc: [3]\n"
				    "  pfc-delay: 7\n"
				    "  buffer: {prio-buffer: [0,0,0,1,0,0,0,0]}\n"
				    "ecn: {cnp-dscp: 48, cnp-prio: 6}\n";

/* From a port with global pause on, firmware DCBX, no PFC and other CNP marking to the whole
 * setup: the DCBX mode first (it lets the rest be written), one row per field. */
TEST(lossless_rest_differences) {
	static const char *const texts[] = { lossless_rest, NULL };
	HostState *h = host_new();
	HostNetdev *n = netdev_dcb_default(h, "ens1f0np0");
	char *s;

	n->dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;
	n->dcb.has_buffer = true;
	n->pause_observed = true;
	n->pause = (PauseParams){ .autoneg = true, .rx = true, .tx = true };
	n->cnp_supported = true;
	n->cnp_dscp = 26;
	n->cnp_prio = 3;
	s = plan_text(texts, h);
	CHECK_STREQ(s, "mlx5_0/1 netdev.pause.autoneg on->off 00-test.yaml\n"
		       "mlx5_0/1 netdev.pause.rx on->off 00-test.yaml\n"
		       "mlx5_0/1 netdev.pause.tx on->off 00-test.yaml\n"
		       "mlx5_0/1 qos.dcbx lld-managed cee ieee->host ieee 00-test.yaml\n"
		       "mlx5_0/1 qos.pfc pfc-enabled none->pfc-enabled 3 00-test.yaml\n"
		       "mlx5_0/1 qos.pfc-delay delay 4660->delay 7 00-test.yaml\n"
		       "mlx5_0/1 qos.buffer.prio-buffer prio-buffer 0:0 1:0 2:0 3:0 4:0 5:0 6:0 "
		       "7:0->prio-buffer 0:0 1:0 2:0 3:1 4:0 5:0 6:0 7:0 00-test.yaml\n"
		       "mlx5_0/1 ecn.cnp-dscp 26->48 00-test.yaml\n"
		       "mlx5_0/1 ecn.cnp-prio 3->6 00-test.yaml\n");
	free(s);

	/* converged: nothing */
	h = host_new();
	n = netdev_dcb_default(h, "ens1f0np0");
	n->dcb.has_buffer = true;
	n->dcb.buffer.prio2buffer[3] = 1;
	n->dcb.pfc.pfc_en = 0x08;
	n->dcb.pfc.delay = 7;
	n->pause_observed = true;
	n->cnp_supported = true;
	n->cnp_dscp = 48;
	n->cnp_prio = 6;
	s = plan_text(texts, h);
	CHECK_STREQ(s, "");
	free(s);
}

/* Where a driver has none of it: each row says why, nothing pending. */
TEST(lossless_rest_unsupported) {
	static const char *const texts[] = { lossless_rest, NULL };
	static const char *const agents[] = {
		"match: {device: \"mlx5_*\"}\nqos: {dcbx: [lld-managed, ieee], pfc: [3]}\n", NULL
	};
	/* each valid, their merge not */
	static const char *const owned[] = {
		"match: {device: \"mlx5_*\"}\nqos: {owner: rdmad}\n",
		"match: {device: \"mlx5_*\"}\nqos: {dcbx: [lld-managed, ieee]}\n",
		NULL,
	};
	HostState *h = host_new();
	HostNetdev *n = netdev_dcb_default(h, "ens1f0np0");
	Config *c = config_from(texts);
	Plan *p = NULL;

	n->dcb.has_dcbx = false;
	n->pause_observed = true;
	n->pause_error = -EOPNOTSUPP;
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(plan_pending(p), 2); /* qos.pfc and its delay: dcbnl has them */
	for (size_t i = 0; i < p->n_actions; i++) {
		const Action *a = &p->actions[i];

		if (a->key == KEY_QOS_PFC || a->key == KEY_QOS_PFC_DELAY)
			continue;
		CHECK(a->unsupported != NULL);
		if (a->key == KEY_NETDEV_PAUSE_RX)
			CHECK_STREQ(a->unsupported, "ens1f0np0 has no pause parameters (the driver "
						    "has no get_pauseparam)");
		if (a->key == KEY_QOS_DCBX)
			CHECK_STREQ(a->unsupported, "no DCBX mode (dcbnl getdcbx) on ens1f0np0");
		if (a->key == KEY_QOS_BUFFER_PRIO)
			CHECK_STREQ(a->unsupported, "the driver has no port buffer configuration "
						    "(dcbnl_getbuffer)");
		if (a->key == KEY_ECN_CNP_DSCP)
			CHECK_STREQ(
				a->unsupported,
				"no ecn/roce_np/cnp_dscp or cnp_802p_prio in the netdev's sysfs: "
				"this netdev has no interface for the CNP's DSCP (mlx5 "
				"has, not on VFs)");
	}
	plan_free(p);
	config_free(c);

	/* a declared lld-managed DCBX leaves the rest to the NIC's agent */
	c = config_from(agents);
	n->dcb.has_dcbx = true;
	CHECK(c && plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p ? plan_pending(p) : 1, 1); /* the DCBX mode itself */
	CHECK_INTEQ(p ? p->n_actions : 0, 2);	 /* and qos.pfc, not applied */
	for (size_t i = 0; p && i < p->n_actions; i++)
		if (p->actions[i].key == KEY_QOS_PFC)
			CHECK_STREQ(p->actions[i].unsupported,
				    "qos.dcbx is lld-managed: the NIC's LLDP agent owns DCB; "
				    "qos.owner: rdmad overrides");
	plan_free(p);
	p = NULL;
	config_free(c);

	/* and contradicts an owner rdmad (the merged settings are refused) */
	c = config_from(owned);
	CHECK(c && plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p ? p->n_actions : 0, 1);
	if (!p || p->n_actions != 1)
		return;
	CHECK(p->actions[0].unsupported &&
	      strstr(p->actions[0].unsupported, "the merged settings are invalid"));
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

/* The plan in steps, as the daemon makes it: one port per step, the same plan as in one go. */
TEST(plan_in_steps) {
	static const char *const texts[] = { lossless_rest, "roce: {tos: 106}\n", NULL };
	HostState *h = host_new();
	Config *c = config_from(texts);
	PlanBuilder *b = NULL;
	Plan *whole = NULL, *stepped = NULL;
	unsigned steps = 0;
	int r;

	netdev_dcb_default(h, "ens1f0np0");
	CHECK(plan_compute(c, h, &whole) == 0);
	CHECK(plan_builder_new(c, h, &b) == 0);
	CHECK(plan_builder_finish(b, &stepped) == -EBUSY);
	while ((r = plan_builder_step(b)) == 0)
		steps++;
	CHECK_INTEQ(r, 1);
	CHECK_INTEQ(steps, 2); /* mlx5_0/1 and rxe0/1 */
	CHECK_INTEQ(plan_builder_step(b), 1);
	CHECK(plan_builder_finish(b, &stepped) == 0);
	plan_builder_free(b);
	CHECK(whole->n_actions > 0);
	CHECK_INTEQ(stepped->n_actions, whole->n_actions);
	for (size_t i = 0; i < whole->n_actions && i < stepped->n_actions; i++) {
		CHECK_INTEQ(stepped->actions[i].key, whole->actions[i].key);
		CHECK_STREQ(action_subject(&stepped->actions[i]),
			    action_subject(&whole->actions[i]));
		CHECK_STREQ(stepped->actions[i].desired, whole->actions[i].desired);
	}
	plan_free(whole);
	plan_free(stepped);
	config_free(c);
	host_state_free(h);
}

/* ---- counters.optional ---------------------------------------------------------------------- */

static void port_add_counter(HostPort *p, const char *name, uint32_t index, bool optional,
			     bool enabled) {
	p->hw_counters = realloc(p->hw_counters, sizeof(HwCounter) * (p->n_hw_counters + 1));
	p->hw_counters[p->n_hw_counters++] = (HwCounter){
		.name = strdup(name),
		.index = index,
		.optional = optional,
		.enabled = enabled,
	};
	p->hw_counters_observed = true;
}

/* mlx5_0/1 with a counter always on and two optional ones, cc_rx_ce_pkts enabled; rxe0/1 with
 * its counters, none optional (as Linux 6.1's STAT_GET_STATUS lists them). */
static HostState *host_new_counters(void) {
	HostState *h = host_new();
	HostPort *mlx = &h->devices[0].ports[0], *rxe = &h->devices[1].ports[0];

	port_add_counter(mlx, "rx_icrc", 0, false, false);
	port_add_counter(mlx, "cc_rx_ce_pkts", 40, true, true);
	port_add_counter(mlx, "np_cnp_sent", 41, true, false);
	port_add_counter(rxe, "sent_pkts", 0, false, false);
	port_add_counter(rxe, "rcvd_pkts", 1, false, false);
	return h;
}

TEST(counters_converged) {
	/* the declared set is enabled: nothing to do, in any order */
	static const char *const one[] = {
		"match: {device: mlx5_0}\ncounters: {optional: [cc_rx_ce_pkts]}\n", NULL
	};
	HostState *h = host_new_counters();
	char *s;

	s = plan_text(one, host_new_counters());
	CHECK_STREQ(s, "");
	free(s);

	h->devices[0].ports[0].hw_counters[2].enabled = true;
	s = plan_text((const char *const[]){ "match: {device: mlx5_0}\n"
					     "counters: {optional: [np_cnp_sent, cc_rx_ce_pkts]}\n",
					     NULL },
		      h);
	CHECK_STREQ(s, "");
	free(s);

	/* not declared: not looked at, on a device that has none either */
	s = plan_text((const char *const[]){ "roce: {tos: 0}\n", NULL }, host_new_counters());
	CHECK_STREQ(s, "");
	free(s);
}

TEST(counters_difference) {
	Config *c;
	HostState *h = host_new_counters();
	Plan *p = NULL;
	char *s;

	/* one action with the whole set wanted: the kernel replaces the set */
	s = plan_text((const char *const[]){ "match: {device: mlx5_0}\n"
					     "counters: {optional: [np_cnp_sent, cc_rx_ce_pkts]}\n",
					     NULL },
		      host_new_counters());
	CHECK_STREQ(s, "mlx5_0/1 counters.optional cc_rx_ce_pkts->np_cnp_sent,cc_rx_ce_pkts "
		       "00-test.yaml\n");
	free(s);

	/* the declared list is the whole set: one not listed goes off */
	s = plan_text((const char *const[]){ "match: {device: mlx5_0}\n"
					     "counters: {optional: [np_cnp_sent]}\n",
					     NULL },
		      host_new_counters());
	CHECK_STREQ(s, "mlx5_0/1 counters.optional cc_rx_ce_pkts->np_cnp_sent 00-test.yaml\n");
	free(s);
	s = plan_text((const char *const[]){ "match: {device: mlx5_0}\ncounters: {optional: []}\n",
					     NULL },
		      host_new_counters());
	CHECK_STREQ(s, "mlx5_0/1 counters.optional cc_rx_ce_pkts->none 00-test.yaml\n");
	free(s);

	/* the typed value the backend sends; a later profile's list replaces an earlier one's */
	c = config_from((const char *const[]){
		"counters: {optional: [cc_rx_ce_pkts]}\n",
		"match: {device: mlx5_0}\ncounters: {optional: [np_cnp_sent, cc_rx_ce_pkts]}\n",
		NULL });
	h->devices[1].ports[0].hw_counters_observed = false; /* rxe0: planned unsupported */
	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 2);
	CHECK_INTEQ(plan_pending(p), 1);
	if (p->n_actions == 2) {
		const Action *a = &p->actions[0];

		CHECK_STREQ(a->port_name, "mlx5_0/1");
		CHECK_INTEQ(a->phase, PHASE_COUNTERS);
		CHECK_STREQ(a->profile, "10-test.yaml");
		CHECK(!a->unsupported);
		CHECK_STREQ(a->device, "mlx5_0");
		CHECK_INTEQ(a->port, 1);
		CHECK_INTEQ(strv_length(a->value.counters), 2);
		CHECK_STREQ(a->value.counters[0], "np_cnp_sent");
		CHECK_STREQ(a->value.counters[1], "cc_rx_ce_pkts");
		CHECK_STREQ(p->actions[1].port_name, "rxe0/1");
		CHECK_STREQ(p->actions[1].unsupported,
			    "hw counters not read (RDMA netlink is kernel-global: not under a "
			    "fixture root)");
	}
	plan_free(p);
	config_free(c);
	host_state_free(h);
}

/* The reason an action is unsupported, for one declared profile on host h (freed). */
static char *counters_reason(const char *text, HostState *h) {
	Config *c = config_from((const char *const[]){ text, NULL });
	Plan *p = NULL;
	char *r = NULL;

	CHECK(plan_compute(c, h, &p) == 0);
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_INTEQ(plan_pending(p), 0);
	if (p->n_actions == 1 && p->actions[0].unsupported)
		r = strdup(p->actions[0].unsupported);
	plan_free(p);
	config_free(c);
	host_state_free(h);
	return r ? r : strdup("(none)");
}

TEST(counters_unsupported) {
	HostState *h;
	char *s;

	/* rxe offers none: the plan says so, and nothing is written */
	s = counters_reason("match: {device: rxe0}\ncounters: {optional: [np_cnp_sent]}\n",
			    host_new_counters());
	CHECK_STREQ(s, "np_cnp_sent: the device offers no optional counters (2 hw counters, "
		       "none optional)");
	free(s);
	s = counters_reason("match: {device: rxe0}\ncounters: {optional: [sent_pkts]}\n",
			    host_new_counters());
	CHECK_STREQ(s, "sent_pkts: the device offers no optional counters (2 hw counters, none "
		       "optional)");
	free(s);
	/* a counter the device has, but always on; one it does not have: what it offers */
	s = counters_reason("match: {device: mlx5_0}\ncounters: {optional: [rx_icrc]}\n",
			    host_new_counters());
	CHECK_STREQ(s, "rx_icrc is always on, not optional; the device's optional counters: "
		       "cc_rx_ce_pkts,np_cnp_sent");
	free(s);
	s = counters_reason("match: {device: mlx5_0}\n"
			    "counters: {optional: [cc_rx_ce_pkts, cc_tx_cnp_pkts]}\n",
			    host_new_counters());
	CHECK_STREQ(s, "the device has no counter cc_tx_cnp_pkts; its optional counters: "
		       "cc_rx_ce_pkts,np_cnp_sent");
	free(s);
	/* the kernel refused to list them */
	h = host_new_counters();
	h->devices[0].ports[0].hw_counters_observed = false;
	h->devices[0].ports[0].hw_counters_error = -EINVAL;
	s = counters_reason("match: {device: mlx5_0}\ncounters: {optional: []}\n", h);
	CHECK_STREQ(s, "cannot read the port's hw counters (NLDEV STAT_GET_STATUS): the device "
		       "has no hw counters, or the kernel (< 5.17) has no optional counters");
	free(s);
}

/* rdma.node-description: the format expanded as rdma-ndd does, cut at 64 bytes. */
TEST(node_description_expand) {
	char buf[NODE_DESC_MAX + 1], want[NODE_DESC_MAX + 1];

	node_description_expand("%h %d", "gpu-17", "mlx5_0", buf);
	CHECK_STREQ(buf, "gpu-17 mlx5_0");
	node_description_expand("100%% %d on %h", "n", "rxe0", buf);
	CHECK_STREQ(buf, "100% rxe0 on n");
	/* no host name: %h stays as written (the planner marks the key unsupported) */
	node_description_expand("%h-%d", NULL, "rxe0", buf);
	CHECK_STREQ(buf, "%h-rxe0");
	/* a trailing '%' (check refuses it) is copied, not read past */
	node_description_expand("a%", "n", "d", buf);
	CHECK_STREQ(buf, "a%");
	/* cut at NODE_DESC_MAX, in the middle of an expansion too */
	memset(want, 'x', NODE_DESC_MAX);
	want[NODE_DESC_MAX] = 0;
	node_description_expand("%h%d", want, "rxe0", buf);
	CHECK_STREQ(buf, want);
	CHECK_INTEQ(strlen(buf), NODE_DESC_MAX);
}

TEST(node_description) {
	static const char *const texts[] = { "rdma: {node-description: \"%h %d\"}\n", NULL };
	HostState *h = host_new();
	char *out;

	h->hostname = strdup("gpu-17");
	h->devices[0].node_desc = strdup("MT4125 ConnectX6DX Mellanox Technologies");
	h->devices[1].node_desc = strdup("gpu-17 rxe0"); /* already as declared */
	out = plan_text(texts, h);
	CHECK_STREQ(out, "mlx5_0/1 rdma.node-description MT4125 ConnectX6DX Mellanox "
			 "Technologies->gpu-17 mlx5_0 00-test.yaml\n");
	free(out);

	/* a device with two ports: one action, with its first port */
	h = host_new();
	h->hostname = strdup("gpu-17");
	h->devices[1].node_desc = strdup("gpu-17 rxe0");
	h->devices[0].ports = realloc(h->devices[0].ports, 2 * sizeof(HostPort));
	h->devices[0].ports[1] = h->devices[0].ports[0];
	h->devices[0].ports[1].port = 2;
	h->devices[0].ports[1].netdev = strdup("ens1f1np1");
	h->devices[0].ports[1].gids = NULL;
	h->devices[0].n_ports = 2;
	out = plan_text(texts, h);
	CHECK_STREQ(out, "mlx5_0/1 rdma.node-description -->gpu-17 mlx5_0 00-test.yaml\n");
	free(out);

	/* the host name unknown: not written with a literal %h */
	h = host_new();
	out = plan_text(texts, h);
	CHECK(strstr(out,
		     "mlx5_0/1 rdma.node-description -->%h mlx5_0 00-test.yaml (unsupported)"));
	free(out);
}

/* plan_order(): by phase, in place, and within a phase in the order planned (the port field
 * numbers the actions here). */
TEST(order_is_stable_by_phase) {
	_cleanup_(plan_freep) Plan *p = calloc(1, sizeof(Plan));
	const size_t n = 1000;
	uint32_t x = 12345, sum = 0, got = 0;
	Action *before;

	p->actions = calloc(n, sizeof(Action));
	p->n_actions = p->n_alloc = n;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p->actions[i].phase = (ActionPhase) ((x >> 16) % _PHASE_MAX);
		p->actions[i].port = (uint32_t) i;
		sum += (uint32_t) i;
	}
	CHECK_INTEQ(plan_order(p), 0);
	for (size_t i = 0; i < n; i++) {
		got += p->actions[i].port;
		if (i == 0)
			continue;
		CHECK(p->actions[i - 1].phase <= p->actions[i].phase);
		if (p->actions[i - 1].phase == p->actions[i].phase)
			CHECK(p->actions[i - 1].port < p->actions[i].port);
	}
	CHECK_INTEQ(got, sum);

	/* in order already: nothing moves */
	before = p->actions;
	CHECK_INTEQ(plan_order(p), 0);
	CHECK(p->actions == before);
	for (size_t i = 1; i < n; i++)
		CHECK(p->actions[i - 1].phase <= p->actions[i].phase);

	/* the first and the last exchanged: each goes back to its phase, the last of it now (stable
	 * by position, not by number) */
	SWAP(p->actions[0], p->actions[n - 1]);
	CHECK_INTEQ(plan_order(p), 0);
	got = 0;
	for (size_t i = 0; i < n; i++) {
		got += p->actions[i].port;
		if (i > 0)
			CHECK(p->actions[i - 1].phase <= p->actions[i].phase);
	}
	CHECK_INTEQ(got, sum);
	CHECK(p->actions[n - 1].phase == _PHASE_MAX - 1);
}

TESTS_MAIN(TEST_ENTRY(typed_values), TEST_ENTRY(plan_in_steps), TEST_ENTRY(order_is_stable_by_phase),
	   TEST_ENTRY(lossless_rest_differences), TEST_ENTRY(lossless_rest_unsupported),
	   TEST_ENTRY(converged_is_empty), TEST_ENTRY(differences_in_order),
	   TEST_ENTRY(configfs_unknown), TEST_ENTRY(unsupported), TEST_ENTRY(infiniband_port),
	   TEST_ENTRY(soft_links), TEST_ENTRY(modules_need_a_match), TEST_ENTRY(shared_netdev),
	   TEST_ENTRY(shared_netdev_conflict), TEST_ENTRY(netns_mode), TEST_ENTRY(qos_differences),
	   TEST_ENTRY(qos_converged_is_empty), TEST_ENTRY(qos_trust), TEST_ENTRY(qos_unsupported),
	   TEST_ENTRY(qos_typed_values), TEST_ENTRY(modules_create_the_device),
	   TEST_ENTRY(soft_devices_rdmad_created), TEST_ENTRY(netdev_actions_carry_ifindex),
	   TEST_ENTRY(counters_converged), TEST_ENTRY(counters_difference),
	   TEST_ENTRY(counters_unsupported), TEST_ENTRY(node_description_expand),
	   TEST_ENTRY(node_description))
