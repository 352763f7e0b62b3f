/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The DCB difference on hand-built live states: only declared fields change (read-modify-write),
 * nothing is written when the live state is as declared, DSCP app entries are added and removed
 * one by one, other selectors never. */
#include "dcb-diff.h"
#include "tests.h"

/* An mlx5-like port: PFC cap 8, MACsec bypass on, a delay; ETS with a willing bit, CBS and a
 * recommendation table set by someone else; TC 0 ets with all the bandwidth. */
static DcbState live_new(void) {
	DcbState s = { .has_ets = true, .has_pfc = true, .has_maxrate = true };

	s.pfc.pfc_cap = 8;
	s.pfc.mbc = 1;
	s.pfc.delay = 0x1234;
	s.ets.willing = 1;
	s.ets.cbs = 1;
	s.ets.ets_cap = 8;
	s.ets.tc_tx_bw[0] = 100;
	s.ets.tc_tsa[0] = IEEE_8021QAZ_TSA_ETS;
	for (int i = 1; i < N_TC; i++)
		s.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	s.ets.tc_reco_bw[5] = 42;
	s.ets.reco_prio_tc[7] = 7;
	s.n_other_apps = 1;
	return s;
}

static DcbDesired desired_new(KeySet set) {
	DcbDesired d = { .set = set };

	memset(d.dscp_map, -1, sizeof(d.dscp_map));
	return d;
}

TEST(pfc) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_PFC));
	DcbDiff diff;
	DcbChange c;

	d.pfc = 1u << 3;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC, &d, &diff), 1);
	CHECK(diff.set_pfc && !diff.set_ets && !diff.set_maxrate && diff.n_add == 0 &&
	      diff.n_del == 0);
	CHECK_INTEQ(diff.pfc.pfc_en, 0x08);
	CHECK_INTEQ(diff.pfc.pfc_cap, 8);    /* kept */
	CHECK_INTEQ(diff.pfc.mbc, 1);	     /* kept */
	CHECK_INTEQ(diff.pfc.delay, 0x1234); /* kept */
	c = dcb_diff_change(&diff);
	CHECK(c.pfc == &diff.pfc && !c.ets && !c.maxrate && c.n_apps == 0);
	CHECK(dcb_diff_has_set(&diff));
	CHECK_STREQ(diff.what, "PFC");

	/* read back: as written, or not */
	live.pfc.pfc_en = 0x08;
	CHECK(dcb_diff_applied(&diff, &live));
	live.pfc.pfc_en = 0x18;
	CHECK(!dcb_diff_applied(&diff, &live));

	/* converged: nothing to write */
	live.pfc.pfc_en = 0x08;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC, &d, &diff), 0);
	CHECK(!dcb_diff_has_set(&diff));

	live.has_pfc = false;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC, &d, &diff), -EOPNOTSUPP);
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_ROCE_TOS, &d, &diff), -EINVAL);
}

/* qos.pfc-delay alone, then with qos.pfc: one struct ieee_pfc, both declared fields in it. */
TEST(pfc_delay) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_PFC_DELAY));
	DcbDiff diff;

	d.pfc_delay = 7;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC_DELAY, &d, &diff), 1);
	CHECK(diff.set_pfc);
	CHECK_INTEQ(diff.pfc.delay, 7);
	CHECK_INTEQ(diff.pfc.pfc_en, 0); /* not declared: as read */
	live.pfc.delay = 7;
	CHECK(dcb_diff_applied(&diff, &live));
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC_DELAY, &d, &diff), 0);

	/* both declared: whichever action comes first writes both */
	d = desired_new(KEY_BIT(KEY_QOS_PFC) | KEY_BIT(KEY_QOS_PFC_DELAY));
	d.pfc = 1u << 3;
	d.pfc_delay = 30;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC_DELAY, &d, &diff), 1);
	CHECK_INTEQ(diff.pfc.pfc_en, 0x08);
	CHECK_INTEQ(diff.pfc.delay, 30);
	live.pfc.pfc_en = 0x08;
	CHECK(!dcb_diff_applied(&diff, &live)); /* the delay did not take */
	live.pfc.delay = 30;
	CHECK(dcb_diff_applied(&diff, &live));
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_PFC, &d, &diff), 0);
}

/* qos.buffer: prio2buffer and buffer_size, total_size as read. */
TEST(buffer) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_BUFFER_PRIO));
	DcbDiff diff;
	DcbChange c;

	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_BUFFER_PRIO, &d, &diff), -EOPNOTSUPP);
	live.has_buffer = true;
	live.buffer.total_size = 262016;
	live.buffer.buffer_size[0] = 262016;
	d.buffer_prio[3] = 1;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_BUFFER_PRIO, &d, &diff), 1);
	CHECK(diff.set_buffer && !diff.set_pfc && !diff.set_ets);
	CHECK_INTEQ(diff.buffer.prio2buffer[3], 1);
	CHECK_INTEQ(diff.buffer.buffer_size[0], 262016); /* not declared: as read */
	CHECK_INTEQ(diff.buffer.total_size, 262016);
	c = dcb_diff_change(&diff);
	CHECK(c.buffer == &diff.buffer && !c.pfc && !c.ets && !c.maxrate);
	CHECK_STREQ(diff.what, "buffer");

	d.set |= KEY_BIT(KEY_QOS_BUFFER_SIZE);
	d.buffer_size[0] = 131072;
	d.buffer_size[1] = 130944;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_BUFFER_SIZE, &d, &diff), 1);
	CHECK_INTEQ(diff.buffer.prio2buffer[3], 1);
	CHECK_INTEQ(diff.buffer.buffer_size[1], 130944);
	live.buffer.prio2buffer[3] = 1;
	live.buffer.buffer_size[0] = 131072;
	live.buffer.buffer_size[1] = 131000; /* rounded by a driver: not as declared */
	CHECK(!dcb_diff_applied(&diff, &live));
	live.buffer.buffer_size[1] = 130944;
	CHECK(dcb_diff_applied(&diff, &live));
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_BUFFER_PRIO, &d, &diff), 0);
}

/* qos.dcbx: an SDCBX of its own, compared on the mode and version bits. */
TEST(dcbx) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_DCBX));
	DcbDiff diff;

	d.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DCBX, &d, &diff), -EOPNOTSUPP);
	live.has_dcbx = true;
	live.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DCBX, &d, &diff), 1);
	CHECK(diff.set_dcbx && !dcb_diff_has_set(&diff)); /* nothing for the IEEE_SET */
	CHECK_INTEQ(diff.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	CHECK(!dcb_diff_applied(&diff, &live));
	live.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE | DCB_CAP_DCBX_STATIC;
	CHECK(dcb_diff_applied(&diff, &live)); /* the static bit is not declared */
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DCBX, &d, &diff), 0);
}

TEST(ets) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_ETS_TC_BW));
	DcbDiff diff, other;

	/* only tc-bw declared: prio-tc and tsa stay as they are */
	d.ets_tc_bw[0] = 50;
	d.ets_tc_bw[3] = 50;
	d.ets_tsa[3] = ETS_TSA_ETS; /* not declared: ignored */
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_ETS_TC_BW, &d, &diff), 1);
	CHECK(diff.set_ets);
	CHECK_INTEQ(diff.ets.tc_tx_bw[0], 50);
	CHECK_INTEQ(diff.ets.tc_tx_bw[3], 50);
	CHECK_INTEQ(diff.ets.tc_tsa[3], IEEE_8021QAZ_TSA_STRICT);
	CHECK_INTEQ(diff.ets.willing, 1);
	CHECK_INTEQ(diff.ets.cbs, 1);
	CHECK_INTEQ(diff.ets.ets_cap, 8);
	CHECK_INTEQ(diff.ets.tc_reco_bw[5], 42);
	CHECK_INTEQ(diff.ets.reco_prio_tc[7], 7);

	/* all three declared: any ETS action writes all of them, the same SET */
	d = desired_new(KEY_BIT(KEY_QOS_ETS_TC_BW) | KEY_BIT(KEY_QOS_ETS_TSA) |
			KEY_BIT(KEY_QOS_ETS_PRIO_TC));
	d.ets_tc_bw[0] = 50;
	d.ets_tc_bw[3] = 50;
	d.ets_prio_tc[3] = 3;
	for (int i = 0; i < N_TC; i++)
		d.ets_tsa[i] = i == 0 || i == 3 ? ETS_TSA_ETS : ETS_TSA_STRICT;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_ETS_TSA, &d, &diff), 1);
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_ETS_PRIO_TC, &d, &other), 1);
	CHECK(memcmp(&diff.ets, &other.ets, sizeof(diff.ets)) == 0);
	CHECK_INTEQ(diff.ets.tc_tsa[3], IEEE_8021QAZ_TSA_ETS);
	CHECK_INTEQ(diff.ets.prio_tc[3], 3);

	/* once written, the other ETS actions find nothing to do */
	live.ets = diff.ets;
	CHECK(dcb_diff_applied(&diff, &live));
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_ETS_TC_BW, &d, &other), 0);
	live.ets.tc_tx_bw[3] = 49; /* a driver that rounds: not applied */
	CHECK(!dcb_diff_applied(&diff, &live));
}

TEST(maxrate) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_MAXRATE));
	DcbDiff diff;

	d.maxrate[3] = 25000000;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_MAXRATE, &d, &diff), 1);
	CHECK(diff.set_maxrate && !diff.set_pfc);
	CHECK_INTEQ(diff.maxrate.tc_maxrate[3], 25000000);
	live.maxrate.tc_maxrate[3] = 25000000;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_MAXRATE, &d, &diff), 0);
	live.has_maxrate = false;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_MAXRATE, &d, &diff), -EOPNOTSUPP);
}

static bool app_is(const struct dcb_app *a, uint8_t dscp, uint8_t prio) {
	return a->selector == IEEE_8021QAZ_APP_SEL_DSCP && a->protocol == dscp &&
	       a->priority == prio;
}

TEST(dscp_map) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_DSCP_MAP));
	DcbDiff diff;

	live.dscp_prio[26] = 1u << 4; /* replaced by 26:3 */
	live.dscp_prio[10] = 1u << 1; /* not declared: removed */
	live.dscp_prio[48] = 1u << 6; /* kept */
	d.dscp_map[26] = 3;
	d.dscp_map[48] = 6;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DSCP_MAP, &d, &diff), 1);
	CHECK_INTEQ(diff.n_add, 1);
	CHECK(app_is(&diff.add[0], 26, 3));
	CHECK_INTEQ(diff.n_del, 2);
	CHECK(app_is(&diff.del[0], 10, 1));
	CHECK(app_is(&diff.del[1], 26, 4));
	CHECK(dcb_diff_has_set(&diff));
	CHECK_INTEQ(dcb_diff_change(&diff).n_apps, 1);

	live.dscp_prio[10] = 0;
	live.dscp_prio[26] = 1u << 3;
	CHECK(dcb_diff_applied(&diff, &live));
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DSCP_MAP, &d, &diff), 0);

	/* only removals: no SET at all */
	d.dscp_map[26] = -1;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_DSCP_MAP, &d, &diff), 1);
	CHECK(!dcb_diff_has_set(&diff));
	CHECK_INTEQ(diff.n_del, 1);
}

TEST(trust) {
	DcbState live = live_new();
	DcbDesired d = desired_new(KEY_BIT(KEY_QOS_TRUST));
	DcbDiff diff;

	/* dscp on a port with no DSCP entry: the default map, dscp >> 3 */
	d.trust = QOS_TRUST_DSCP;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_TRUST, &d, &diff), 1);
	CHECK_INTEQ(diff.n_add, 64);
	CHECK_INTEQ(diff.n_del, 0);
	CHECK(app_is(&diff.add[0], 0, 0));
	CHECK(app_is(&diff.add[26], 26, 3));
	CHECK(app_is(&diff.add[63], 63, 7));

	/* any DSCP entry is DSCP trust: nothing to do, nothing removed */
	live.dscp_prio[46] = 1u << 5;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_TRUST, &d, &diff), 0);
	CHECK(dcb_diff_applied(&diff, &live));

	/* pcp: every DSCP entry goes, other selectors stay */
	live.dscp_prio[26] = (1u << 3) | (1u << 4);
	d.trust = QOS_TRUST_PCP;
	CHECK_INTEQ(dcb_diff_compute(&live, KEY_QOS_TRUST, &d, &diff), 1);
	CHECK_INTEQ(diff.n_add, 0);
	CHECK_INTEQ(diff.n_del, 3);
	CHECK(app_is(&diff.del[0], 26, 3));
	CHECK(app_is(&diff.del[1], 26, 4));
	CHECK(app_is(&diff.del[2], 46, 5));
	CHECK(!dcb_diff_applied(&diff, &live));
	memset(live.dscp_prio, 0, sizeof(live.dscp_prio));
	CHECK(dcb_diff_applied(&diff, &live));
}

TESTS_MAIN(TEST_ENTRY(pfc), TEST_ENTRY(pfc_delay), TEST_ENTRY(buffer), TEST_ENTRY(dcbx),
	   TEST_ENTRY(ets), TEST_ENTRY(maxrate), TEST_ENTRY(dscp_map), TEST_ENTRY(trust))
