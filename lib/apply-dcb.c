/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos.*: DCB over dcbnl (IEEE 802.1Qaz), in the current network namespace. Read the live state
 * (IEEE_GET), change only the declared fields of it (read-modify-write: pfc mbc and delay, ets
 * willing, cbs and the recommendation tables stay as read), send one IEEE_SET with only the
 * attribute that differs, then IEEE_DEL for stale DSCP app entries, and read back. A SET whose
 * value is already there is never sent: mlx5 bounces the link when PFC is rewritten.
 *
 * The ETS keys are applied together, whichever of their actions comes first (a driver checks
 * prio-tc, tc-bw and tsa as one); the others then find nothing to do. The kernel answers a SET
 * with the driver's error in the reply (DCB_ATTR_IEEE), and ACKs it with 0 regardless. */
#include <stdio.h>

#include "apply-internal.h"
#include "dcbnl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static int dcbnl_socket(Applier *a, struct nl_sock **ret) {
	int r;

	if (!a->dcbnl) {
		r = dcbnl_socket_open(&a->dcbnl);
		if (r < 0)
			return r;
	}
	*ret = a->dcbnl;
	return 0;
}

/* The live ETS with the declared fields put in. */
static struct ieee_ets ets_desired(const struct ieee_ets *live, const DcbDesired *d) {
	struct ieee_ets e = *live;

	if (d->set & KEY_BIT(KEY_QOS_ETS_PRIO_TC))
		memcpy(e.prio_tc, d->ets_prio_tc, sizeof(e.prio_tc));
	if (d->set & KEY_BIT(KEY_QOS_ETS_TC_BW))
		memcpy(e.tc_tx_bw, d->ets_tc_bw, sizeof(e.tc_tx_bw));
	if (d->set & KEY_BIT(KEY_QOS_ETS_TSA))
		for (size_t i = 0; i < N_TC; i++)
			e.tc_tsa[i] = ets_tsa_to_kernel(d->ets_tsa[i]);
	return e;
}

static bool ets_is(const struct ieee_ets *have, const struct ieee_ets *want) {
	return memcmp(have->prio_tc, want->prio_tc, sizeof(want->prio_tc)) == 0 &&
	       memcmp(have->tc_tx_bw, want->tc_tx_bw, sizeof(want->tc_tx_bw)) == 0 &&
	       memcmp(have->tc_tsa, want->tc_tsa, sizeof(want->tc_tsa)) == 0;
}

/* The DSCP app table an action wants: qos.dscp-map's exactly; qos.trust dscp the default map
 * dscp -> dscp >> 3 (as mlnx_qos does), but only where no DSCP entry exists (any is DSCP trust
 * already); qos.trust pcp none. Returns false when the table is to be left as it is. */
static bool dscp_table_desired(const Action *x, const DcbState *live, uint8_t ret[N_DSCP]) {
	const DcbDesired *d = &x->value.dcb;

	memset(ret, 0, N_DSCP);
	if (x->key == KEY_QOS_DSCP_MAP) {
		for (size_t i = 0; i < N_DSCP; i++)
			if (d->dscp_map[i] >= 0)
				ret[i] = (uint8_t) (1u << d->dscp_map[i]);
		return true;
	}
	if (d->trust == QOS_TRUST_PCP)
		return true;
	for (size_t i = 0; i < N_DSCP; i++)
		if (live->dscp_prio[i])
			return false;
	for (size_t i = 0; i < N_DSCP; i++)
		ret[i] = (uint8_t) (1u << (i >> 3));
	return true;
}

/* Split the difference between live and want into entries to add and to delete. */
static void dscp_diff(const uint8_t live[N_DSCP], const uint8_t want[N_DSCP], struct dcb_app *add,
		      size_t *n_add, struct dcb_app *del, size_t *n_del) {
	*n_add = *n_del = 0;
	for (uint8_t d = 0; d < N_DSCP; d++)
		for (uint8_t p = 0; p < N_PRIO; p++) {
			bool have = live[d] & (1u << p), need = want[d] & (1u << p);

			if (need && !have)
				add[(*n_add)++] = dcb_app_dscp(d, p);
			else if (have && !need)
				del[(*n_del)++] = dcb_app_dscp(d, p);
		}
}

static int send_set(struct nl_sock *sk, const Action *x, const DcbChange *c, const char *what,
		    ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = dcbnl_ieee_set_new(x->netdev, c, &m);
	if (r < 0)
		return r == -ENOMEM ? r
				    : outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_SET of %s: %s",
						  x->netdev, what, strerror(-r));
	r = dcbnl_ieee_write(sk, m);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_SET of %s: %s", x->netdev, what,
				   strerror(-r));
	return 1;
}

static int send_del(struct nl_sock *sk, const Action *x, const struct dcb_app *apps, size_t n,
		    ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = dcbnl_ieee_del_new(x->netdev, apps, n, &m);
	if (r < 0)
		return r == -ENOMEM ? r
				    : outcome_set(ret, APPLY_FAILED, r,
						  "%s: IEEE_DEL of %zu DSCP app entries: %s",
						  x->netdev, n, strerror(-r));
	r = dcbnl_ieee_write(sk, m);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_DEL of %zu DSCP app entries: %s",
				   x->netdev, n, strerror(-r));
	return 1;
}

static int apply_app_table(struct nl_sock *sk, const Action *x, const DcbState *live,
			   ActionOutcome *ret) {
	struct dcb_app add[N_DSCP * N_PRIO], del[N_DSCP * N_PRIO];
	uint8_t want[N_DSCP];
	size_t n_add, n_del;
	DcbState after;
	int r;

	if (!dscp_table_desired(x, live, want))
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	dscp_diff(live->dscp_prio, want, add, &n_add, del, &n_del);
	if (n_add == 0 && n_del == 0)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	/* New entries first, then the stale ones (iproute2's `dcb app replace` order): a DSCP
	 * that changes priority is never without one. */
	if (n_add > 0) {
		r = send_set(sk, x, &(DcbChange){ .apps = add, .n_apps = n_add },
			     "DSCP app entries", ret);
		if (r <= 0)
			return r;
	}
	if (n_del > 0) {
		r = send_del(sk, x, del, n_del, ret);
		if (r <= 0)
			return r;
	}
	r = dcbnl_ieee_read(sk, x->netdev, &after);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_GET after the change: %s",
				   x->netdev, strerror(-r));
	if (memcmp(after.dscp_prio, want, sizeof(want)) != 0)
		return outcome_set(ret, APPLY_FAILED, -EIO,
				   "%s: the DSCP app table does not read back as %s", x->netdev,
				   x->desired);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int apply_dcb(Applier *a, const Action *x, ActionOutcome *ret) {
	const DcbDesired *d = &x->value.dcb;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate rate;
	DcbChange c = { 0 };
	const char *what;
	DcbState live, after;
	struct nl_sock *sk;
	bool same;
	int r;

	if (!x->netdev)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev", x->link);
	r = dcbnl_socket(a, &sk);
	if (r < 0)
		return r == -ENOMEM ? r
				    : outcome_set(ret, APPLY_FAILED, r,
						  "cannot open an rtnetlink socket for dcbnl");
	/* Compare with the live state, not the plan's snapshot. */
	r = dcbnl_ieee_read(sk, x->netdev, &live);
	if (r == -EOPNOTSUPP || r == -ENODEV)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "no DCB (dcbnl) on %s: %s", x->netdev,
				   strerror(-r));
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_GET: %s", x->netdev,
				   strerror(-r));

	switch (x->key) {
	case KEY_QOS_PFC:
		if (!live.has_pfc)
			return outcome_set(ret, APPLY_UNSUPPORTED, 0,
					   "%s: the driver has no IEEE PFC", x->netdev);
		pfc = live.pfc;
		pfc.pfc_en = d->pfc;
		same = live.pfc.pfc_en == pfc.pfc_en;
		c.pfc = &pfc;
		what = "PFC";
		break;
	case KEY_QOS_ETS_PRIO_TC:
	case KEY_QOS_ETS_TC_BW:
	case KEY_QOS_ETS_TSA:
		if (!live.has_ets)
			return outcome_set(ret, APPLY_UNSUPPORTED, 0,
					   "%s: the driver has no IEEE ETS", x->netdev);
		ets = ets_desired(&live.ets, d);
		same = ets_is(&live.ets, &ets);
		c.ets = &ets;
		what = "ETS";
		break;
	case KEY_QOS_MAXRATE:
		if (!live.has_maxrate)
			return outcome_set(ret, APPLY_UNSUPPORTED, 0,
					   "%s: the driver has no IEEE maxrate", x->netdev);
		rate = live.maxrate;
		for (size_t i = 0; i < N_TC; i++)
			rate.tc_maxrate[i] = d->maxrate[i];
		same = memcmp(&rate, &live.maxrate, sizeof(rate)) == 0;
		c.maxrate = &rate;
		what = "maxrate";
		break;
	case KEY_QOS_DSCP_MAP:
	case KEY_QOS_TRUST:
		return apply_app_table(sk, x, &live, ret);
	default:
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s is not a DCB setting",
				   action_setting(x));
	}
	if (same)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);

	r = send_set(sk, x, &c, what, ret);
	if (r <= 0)
		return r;
	r = dcbnl_ieee_read(sk, x->netdev, &after);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_GET after the %s change: %s",
				   x->netdev, what, strerror(-r));
	if ((c.pfc && after.pfc.pfc_en != pfc.pfc_en) || (c.ets && !ets_is(&after.ets, &ets)) ||
	    (c.maxrate &&
	     memcmp(after.maxrate.tc_maxrate, rate.tc_maxrate, sizeof(rate.tc_maxrate)) != 0))
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s: %s does not read back as %s",
				   x->netdev, what, x->desired);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
