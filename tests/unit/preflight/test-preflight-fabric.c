/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The host against its switch port (issue 44): what liblldpctl hands over, in the shape lldpd
 * 1.0.16 gives it (`lldpcli -f keyvalue show neighbors` lists the 802.1Qaz TLVs as unknown-tlvs
 * with these very bytes), into LldpNeighbor (lldp-neighbor.c); the host's side as observed
 * (fabric-host.c); and the fabric preflight rows, for a neighbour that agrees, one that does not,
 * one with no DCB TLV, a broken TLV, and each reason there is no neighbour to compare with. */
#include <errno.h>
#include <string.h>

#include "fabric-host.h"
#include "preflight.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static const uint8_t OUI_8021[3] = { 0x00, 0x80, 0xc2 }, OUI_8023[3] = { 0x00, 0x12, 0x0f };

/* lldp.lvn.unknown-tlvs.unknown-tlv=08,18 (subtype 11): not willing, PFC cap 8, on 3 and 4 */
static const uint8_t PFC_3_4[] = { 0x08, 0x18 };
/* subtype 12: DSCP 26 -> priority 3, DSCP 48 -> priority 6 */
static const uint8_t APP[] = { 0x00, 0x65, 0x00, 0x1a, 0xc5, 0x00, 0x30 };
/* subtype 9: max TCs 8 (0), priority 3 in TC 1, the others TC 0, 50% each, both ETS */
static const uint8_t ETS[] = { 0x00, 0x00, 0x01, 0x00, 0x00, 0x32, 0x32, 0x00, 0x00, 0x00, 0x00,
			       0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };

static const PreflightRow *row_find(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	return NULL;
}

static const PreflightRow *row_expect(const Preflight *p, const char *check, const char *subject,
				      PreflightStatus status) {
	const PreflightRow *r = row_find(p, check, subject);

	CHECK(r != NULL);
	if (!r) {
		printf("#   no row %s %s\n", check, subject);
		return NULL;
	}
	printf("#   %s %s %s: %s [fix: %s]\n", r->check, r->subject,
	       preflight_status_to_string(r->status), r->seen, strna(r->fix));
	CHECK_INTEQ(r->status, status);
	return r;
}

/* rxe0/1 on dcbsim0: ToS 106 (DSCP 26) mapped to priority 3, PFC on 3, ETS priority 3 in TC 1
 * at 50%, MTU 1500; lldpd asked, nothing heard yet */
static HostState *host_new(void) {
	HostState *h = calloc(1, sizeof(HostState));
	HostNetdev *n;
	HostDevice *d;

	h->root = strdup("/");
	h->devices = calloc(1, sizeof(HostDevice));
	h->n_devices = 1;
	d = &h->devices[0];
	*d = (HostDevice){ .name = strdup("rxe0"), .driver = strdup("rdma_rxe") };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup("dcbsim0"),
				  .has_roce_tos = true,
				  .roce_tos = 106 };
	h->netdevs = calloc(1, sizeof(HostNetdev));
	h->n_netdevs = 1;
	n = &h->netdevs[0];
	*n = (HostNetdev){ .name = strdup("dcbsim0"), .mtu = 1500, .dcb_observed = true };
	n->dcb.has_pfc = n->dcb.has_ets = n->dcb.has_dcbx = true;
	n->dcb.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	n->dcb.pfc.pfc_en = 1u << 3;
	n->dcb.dscp_prio[26] = 1u << 3;
	n->dcb.ets.prio_tc[3] = 1;
	n->dcb.ets.tc_tx_bw[0] = n->dcb.ets.tc_tx_bw[1] = 50;
	n->lldp = calloc(1, sizeof(HostLldp));
	return h;
}

/* A neighbour as host-lldp.c makes it from liblldpctl's atoms */
static LldpNeighbor *neighbor_add(HostNetdev *n, bool dcb) {
	LldpNeighbor *nb;

	CHECK(host_lldp_add_neighbor(n->lldp, &nb) == 0);
	nb->chassis_id = strdup("mac 02:00:00:00:00:01");
	nb->port_id = strdup("ifname swp12");
	nb->system_name = strdup("leaf1");
	if (!dcb)
		return nb;
	CHECK(lldp_neighbor_add_org_tlv(nb, OUI_8021, 3, 11, PFC_3_4, sizeof(PFC_3_4)) == 0);
	CHECK(lldp_neighbor_add_org_tlv(nb, OUI_8021, 3, 12, APP, sizeof(APP)) == 0);
	CHECK(lldp_neighbor_add_org_tlv(nb, OUI_8021, 3, 9, ETS, sizeof(ETS)) == 0);
	nb->dcb.max_frame = 1518; /* lldpd decodes this one itself: lldpctl_k_port_dot3_mfs */
	nb->dcb.has_max_frame = true;
	return nb;
}

static void run(HostState *h, const Config *c, Preflight *p) {
	PreflightInput in = { .root = "/", .host = h, .config = c };

	CHECK(preflight_fabric(p, &in) == 0);
}

TEST(org_tlvs) {
	static const uint8_t other[] = { 0x00, 0x0e, 0xcf }, bad[] = { 0x08 };
	LldpNeighbor n = { 0 };

	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 11, PFC_3_4, sizeof(PFC_3_4)) == 0);
	CHECK(n.dcb.has_pfc && n.dcb.pfc.enable == 0x18 && n.dcb.pfc.cap == 8 &&
	      !n.dcb.pfc.willing);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 12, APP, sizeof(APP)) == 0);
	CHECK_INTEQ(n.dcb.n_apps, 2);
	CHECK_INTEQ(lldp_dcb_dscp_priority(&n.dcb, 26), 3);
	CHECK_INTEQ(lldp_dcb_dscp_priority(&n.dcb, 48), 6);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 9, ETS, sizeof(ETS)) == 0);
	CHECK(n.dcb.has_ets && n.dcb.ets.max_tcs == 8 && n.dcb.ets.prio_tc[3] == 1 &&
	      n.dcb.ets.tc_bw[1] == 50 && n.dcb.ets.tsa[1] == 2);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8023, 3, 4, (const uint8_t[]){ 0x05, 0xee }, 2) ==
	      0);
	CHECK(n.dcb.has_max_frame && n.dcb.max_frame == 1518);
	CHECK(n.tlv_errors == NULL);
	/* another OUI, another subtype, an OUI of the wrong size: passed over */
	CHECK(lldp_neighbor_add_org_tlv(&n, other, 3, 11, PFC_3_4, 2) == 0);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 1, PFC_3_4, 2) == 0);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 2, 11, PFC_3_4, 2) == 0);
	CHECK(n.tlv_errors == NULL);
	/* a second PFC TLV, and a short one: recorded, by name, the first one kept */
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 11, PFC_3_4, sizeof(PFC_3_4)) == 0);
	CHECK(lldp_neighbor_add_org_tlv(&n, OUI_8021, 3, 12, bad, sizeof(bad)) == 0);
	CHECK_INTEQ(strv_length(n.tlv_errors), 2);
	CHECK(n.tlv_errors &&
	      strstr(n.tlv_errors[0], "PFC Configuration TLV (00-80-C2 subtype 11"));
	CHECK(n.tlv_errors && n.tlv_errors[1] && strstr(n.tlv_errors[1], "Application Priority"));
	CHECK(n.dcb.pfc.enable == 0x18 && n.dcb.n_apps == 2);
	lldp_neighbor_done(&n);
}

TEST(host_side) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	HostNetdev *n = &h->netdevs[0];
	FabricHost f;

	fabric_host_observed(&h->devices[0].ports[0], n, &f);
	CHECK_INTEQ(f.link.known, PROBE_KNOWN_TOS | PROBE_KNOWN_NETDEV_MTU | PROBE_KNOWN_PFC |
					  PROBE_KNOWN_PRIORITY);
	CHECK(f.link.tos == 106 && f.link.priority == 3 && f.link.pfc == 0x08 &&
	      f.link.netdev_mtu == 1500);
	CHECK(f.has_ets && f.prio_tc[3] == 1 && f.tc_bw[1] == 50);
	/* no app entry for the DSCP: its priority is not known; no DCB at all: nothing of it */
	n->dcb.dscp_prio[26] = 0;
	n->cnp_supported = true;
	n->cnp_dscp = 48;
	n->cnp_prio = 6;
	fabric_host_observed(&h->devices[0].ports[0], n, &f);
	CHECK(!(f.link.known & PROBE_KNOWN_PRIORITY));
	CHECK(f.link.cnp_dscp == 48 && f.link.cnp_priority == 6);
	n->dcb_error = -EOPNOTSUPP;
	fabric_host_observed(&h->devices[0].ports[0], n, &f);
	CHECK(!(f.link.known & (PROBE_KNOWN_PFC | PROBE_KNOWN_PRIORITY)) && !f.has_ets);
	fabric_host_observed(&h->devices[0].ports[0], NULL, &f);
	CHECK_INTEQ(f.link.known, PROBE_KNOWN_TOS);
}

TEST(switch_disagrees) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	const PreflightRow *r;
	HostNetdev *n = &h->netdevs[0];

	neighbor_add(n, true);
	run(h, NULL, &p);
	r = row_expect(&p, "fabric.switch", "rxe0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "switch mac 02:00:00:00:00:01 (leaf1) port ifname swp12 on "
				   "dcbsim0 advertises PFC on 3,4"));
	CHECK(r && strstr(r->seen, "Application table DSCP 26 -> priority 3, DSCP 48 -> "
				   "priority 6"));
	CHECK(r && strstr(r->seen, "maximum frame size 1518") &&
	      strstr(r->seen, "1 disagreement with the host"));
	r = row_expect(&p, "fabric.pfc", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "dcbsim0 has PFC on 3; switch mac 02:00:00:00:00:01 (leaf1) "
				   "port ifname swp12 has PFC on 3,4"));
	CHECK(r && strstr(r->fix, "qos.pfc"));
	CHECK_INTEQ(p.n_rows, 2);

	/* the host maps DSCP 26 to 4, in a TC of 30%, MTU 9000: three more */
	n->dcb.pfc.pfc_en = 0x18;
	n->dcb.dscp_prio[26] = 1u << 4;
	n->dcb.ets.prio_tc[4] = 2;
	n->dcb.ets.tc_tx_bw[2] = 30;
	n->mtu = 9000;
	run(h, NULL, &q);
	r = row_expect(&q, "fabric.switch", "rxe0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "3 disagreements"));
	CHECK(row_find(&q, "fabric.pfc", "rxe0/1") == NULL);
	r = row_expect(&q, "fabric.app-priority", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "dcbsim0 has DSCP 26 -> priority 4;") &&
	      strstr(r->seen, "has DSCP 26 -> priority 3"));
	r = row_expect(&q, "fabric.ets", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "priority 4 in TC 2, 30%") &&
	      strstr(r->seen, "priority 4 in TC 0, 50%"));
	r = row_expect(&q, "fabric.max-frame", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "netdev MTU 9000 (frames of 9018 bytes)") &&
	      strstr(r->seen, "maximum frame size 1518"));
	CHECK(r && strstr(r->fix, "netdev.mtu"));
}

TEST(switch_agrees) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 };
	const PreflightRow *r;

	h->netdevs[0].dcb.pfc.pfc_en = 0x18;
	neighbor_add(&h->netdevs[0], true);
	run(h, NULL, &p);
	r = row_expect(&p, "fabric.switch", "rxe0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "0 disagreements"));
	CHECK_INTEQ(p.n_rows, 1);
}

TEST(switch_without_dcb) {
	static const uint8_t bad[] = { 0x08 };
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	const PreflightRow *r;
	LldpNeighbor *nb;

	/* a neighbour with no DCB TLV: said, not compared; a second one with DCB is preferred */
	neighbor_add(&h->netdevs[0], false);
	run(h, NULL, &p);
	r = row_expect(&p, "fabric.switch", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "advertises no DCB configuration"));
	CHECK(r && strstr(r->fix, "DCBX"));
	nb = neighbor_add(&h->netdevs[0], true);
	CHECK(lldp_neighbor_add_org_tlv(nb, OUI_8021, 3, 12, bad, 1) == 0);
	run(h, NULL, &q);
	r = row_expect(&q, "fabric.switch", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "leaf1") && strstr(r->seen, "unusable: Application Priority"));
}

TEST(no_neighbor) {
	static const char *const qos[] = { "qos: {pfc: [3]}\n", NULL };
	static const struct {
		int error;
		const char *message, *seen, *fix;
	} cases[] = {
		{ 0, NULL, "lldpd hears no LLDP neighbour on dcbsim0", "enable LLDP" },
		{ -EOPNOTSUPP, "liblldpctl.so.4: cannot open shared object file",
		  "lldpd's liblldpctl not installed (liblldpctl.so.4: cannot open",
		  "apt install lldpd" },
		{ -ECONNREFUSED, "/run/lldpd.socket: Connection refused", "lldpd is not running",
		  "systemctl enable --now lldpd" },
		{ -ENOENT, "/run/lldpd.socket: No such file", "lldpd is not running", "lldpd" },
		{ -EACCES, "/run/lldpd.socket: Permission denied", "not allowed to ask lldpd",
		  "_lldpd" },
		{ -ENODEV, NULL, "lldpd runs but does not listen on dcbsim0", "interface pattern" },
		{ -ETIMEDOUT, NULL, "lldpd did not answer about dcbsim0 (Connection timed out)",
		  "journalctl" },
	};
	_cleanup_(config_freep) Config *c = config_from(qos);
	_cleanup_(host_state_freep) HostState *h = host_new();
	HostNetdev *n = &h->netdevs[0];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
		const PreflightRow *r;

		free(n->lldp->message);
		n->lldp->error = cases[i].error;
		n->lldp->message = cases[i].message ? strdup(cases[i].message) : NULL;
		run(h, c, &p);
		r = row_expect(&p, "fabric.switch", "rxe0/1", PREFLIGHT_WARN);
		CHECK(r && strstr(r->seen, cases[i].seen));
		CHECK(r && r->fix && strstr(r->fix, cases[i].fix));
		/* no QoS declared and no neighbour: nothing to say */
		run(h, NULL, &q);
		CHECK_INTEQ(q.n_rows, 0);
	}
	/* not asked (another root): no row at all */
	n->lldp = host_lldp_free(n->lldp);
	{
		_cleanup_(preflight_done) Preflight p = { 0 };

		run(h, c, &p);
		CHECK_INTEQ(p.n_rows, 0);
	}
}

TEST(firmware_agent) {
	static const char *const qos[] = { "qos: {pfc: [3]}\n", NULL };
	_cleanup_(config_freep) Config *c = config_from(qos);
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	HostNetdev *n = &h->netdevs[0];
	const PreflightRow *r;

	/* the NIC's firmware runs DCBX (ice with fw-lldp-agent on; mlx5 firmware mode): it
	 * consumes LLDP, and the row says so, with the fix of the driver */
	n->dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
	free(n->driver);
	n->driver = strdup("ice");
	run(h, c, &p);
	r = row_expect(&p, "fabric.switch", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "firmware consumes the switch's LLDP") &&
	      strstr(r->seen, "lld-managed"));
	CHECK(r && strstr(r->fix, "fw-lldp-agent off"));
	free(n->driver);
	n->driver = strdup("mlx5_core");
	run(h, c, &q);
	r = row_expect(&q, "fabric.switch", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->fix, "dcb dcbx set dev NETDEV host"));
	/* a neighbour heard all the same: compared as any */
	neighbor_add(n, true);
	run(h, c, &u);
	row_expect(&u, "fabric.switch", "rxe0/1", PREFLIGHT_OK);
	row_expect(&u, "fabric.pfc", "rxe0/1", PREFLIGHT_FAIL);
}

TESTS_MAIN(TEST_ENTRY(org_tlvs), TEST_ENTRY(host_side), TEST_ENTRY(switch_disagrees),
	   TEST_ENTRY(switch_agrees), TEST_ENTRY(switch_without_dcb), TEST_ENTRY(no_neighbor),
	   TEST_ENTRY(firmware_agent))
