/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The degraded-link judgements (preflight-link-speed.c) on facts no test host has: a 200GbE
 * port trained at 100G, one a profile expects at 200G, one at its fastest; InfiniBand ports at
 * 1X, below their HCA's speed, in a split 2X, without a subnet manager, down. */
#include "preflight.h"
#include "tests.h"

static const PreflightRow *row(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	printf("# no row %s %s\n", check, subject);
	return NULL;
}

static bool row_is(const Preflight *p, const char *check, const char *subject,
		   PreflightStatus status, const char *seen) {
	const PreflightRow *r = row(p, check, subject);

	if (r && r->status == status && strstr(r->seen, seen) &&
	    (status == PREFLIGHT_OK) == !r->fix)
		return true;
	if (r)
		printf("# %s %s: %s '%s'\n", check, subject, preflight_status_to_string(r->status),
		       r->seen);
	return false;
}

TEST(ethernet) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	LinkSpeedFacts slow = { .netdev = "ens1f0np0",
				.speed = 100000,
				.lanes = 4,
				.max_speed = 200000,
				.max_lanes = 4,
				.max_mode = "200000baseCR4_Full" };
	LinkSpeedFacts expected = { .netdev = "ens2f0np0", .speed = 100000, .expect = 200000 };
	LinkSpeedFacts fastest = { .netdev = "ens3f0np0",
				   .speed = 200000,
				   .lanes = 4,
				   .expect = 200000,
				   .max_speed = 200000,
				   .max_mode = "200000baseCR4_Full" };
	LinkSpeedFacts veth = { .netdev = "veth0", .speed = 10000 };
	LinkSpeedFacts down = { .netdev = "ens4f0np0", .max_speed = 100000 };

	CHECK_INTEQ(preflight_link_speed_judge(&p, "mlx5_0/1", &slow), 0);
	CHECK_INTEQ(preflight_link_speed_judge(&p, "mlx5_2/1", &expected), 0);
	CHECK_INTEQ(preflight_link_speed_judge(&p, "mlx5_4/1", &fastest), 0);
	CHECK_INTEQ(preflight_link_speed_judge(&p, "rxe0/1", &veth), 0);
	CHECK_INTEQ(preflight_link_speed_judge(&p, "mlx5_6/1", &down), 0);
	CHECK(row_is(&p, "network.link-speed", "mlx5_0/1", PREFLIGHT_WARN,
		     "link degraded: ens1f0np0 runs at 100000 Mb/s on 4 lanes, its port supports "
		     "200000 Mb/s (200000baseCR4_Full)"));
	CHECK(row_is(&p, "network.link-speed", "mlx5_2/1", PREFLIGHT_FAIL,
		     "ens2f0np0 runs at 100000 Mb/s, the profile expects 200000 Mb/s "
		     "(netdev.expect-speed)"));
	CHECK(row_is(&p, "network.link-speed", "mlx5_4/1", PREFLIGHT_OK,
		     "ens3f0np0 runs at 200000 Mb/s on 4 lanes, the fastest its port supports (as "
		     "the profile expects)"));
	/* nothing to judge by, and no link: no rows */
	CHECK_INTEQ(p.n_rows, 3);
}

TEST(infiniband) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	IbLinkFacts edr = { PORT_STATE_ACTIVE, PORT_PHYS_STATE_LINK_UP, "100 Gb/sec (4X EDR)", 1,
			    "15b3:1017" };
	IbLinkFacts one_x = { PORT_STATE_ACTIVE, PORT_PHYS_STATE_LINK_UP, "25 Gb/sec (1X EDR)", 1,
			      "15b3:1017" };
	IbLinkFacts slow = { PORT_STATE_ACTIVE, PORT_PHYS_STATE_LINK_UP, "100 Gb/sec (4X EDR)", 1,
			     "15b3:101b" };
	IbLinkFacts split = { PORT_STATE_ACTIVE, PORT_PHYS_STATE_LINK_UP, "100 Gb/sec (2X HDR)", 1,
			      "15b3:101b" };
	IbLinkFacts no_sm = { PORT_STATE_INIT, PORT_PHYS_STATE_LINK_UP, "200 Gb/sec (4X HDR)", 0,
			      "15b3:101b" };
	IbLinkFacts down = { PORT_STATE_DOWN, PORT_PHYS_STATE_POLLING, "10 Gb/sec (4X SDR)", 0,
			     "15b3:1017" };
	IbLinkFacts unknown = { PORT_STATE_ACTIVE, PORT_PHYS_STATE_LINK_UP, "400 Gb/sec (4X NDR)",
				3, "15b3:0000" };

	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_0/1", &edr), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_1/1", &one_x), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_2/1", &slow), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_3/1", &split), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_4/1", &no_sm), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_5/1", &down), 0);
	CHECK_INTEQ(preflight_ib_link_judge(&p, "mlx5_6/1", &unknown), 0);
	CHECK(row_is(&p, "network.ib-link", "mlx5_0/1", PREFLIGHT_OK,
		     "100 Gb/sec (4X EDR), the fastest the HCA does: EDR; subnet manager at LID "
		     "0x1"));
	CHECK(row_is(&p, "network.ib-link", "mlx5_1/1", PREFLIGHT_WARN,
		     "link degraded: 25 Gb/sec (1X EDR), trained at 1X"));
	CHECK(row_is(&p, "network.ib-link", "mlx5_2/1", PREFLIGHT_WARN,
		     "link degraded: 100 Gb/sec (4X EDR), the HCA (ConnectX-6) does HDR"));
	CHECK(row_is(&p, "network.ib-link", "mlx5_3/1", PREFLIGHT_OK,
		     "100 Gb/sec (2X HDR), a split port (2X), the fastest the HCA does: HDR"));
	CHECK(row_is(&p, "network.ib-link", "mlx5_4/1", PREFLIGHT_FAIL,
		     "no subnet manager has answered (sm_lid 0x0, port INIT)"));
	CHECK(!row(&p, "network.ib-link", "mlx5_5/1"));
	CHECK(row_is(&p, "network.ib-link", "mlx5_6/1", PREFLIGHT_OK,
		     "400 Gb/sec (4X NDR); subnet manager at LID 0x3"));
	CHECK_STREQ(ib_hca_speed("15b3:1021", NULL), "NDR");
	CHECK(!ib_hca_speed(NULL, NULL));
}

TESTS_MAIN(TEST_ENTRY(ethernet), TEST_ENTRY(infiniband))
