/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* qos.*: DCB over dcbnl (IEEE 802.1Qaz), in the current network namespace. Read the live state
 * (IEEE_GET), work out the difference (dcb-diff.c: only the declared fields change, the rest is
 * sent back as read), send one IEEE_SET with only the attribute that differs, then IEEE_DEL for
 * stale DSCP app entries, and read back. A SET whose value is already there is never sent: mlx5
 * bounces the link when PFC is rewritten.
 *
 * The ETS keys are applied together, whichever of their actions comes first (a driver checks
 * prio-tc, tc-bw and tsa as one); the others then find nothing to do. So are qos.pfc with
 * qos.pfc-delay (one struct ieee_pfc) and the two qos.buffer keys (one struct dcbnl_buffer).
 * qos.dcbx is an SDCBX of its own; the kernel multicasts nothing for it. The kernel answers a SET
 * with the driver's error in the reply (DCB_ATTR_IEEE), and ACKs it with 0 regardless. */
#include <stdio.h>

#include "apply-internal.h"
#include "dcb-diff.h"
#include "dcbnl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* Returns 1 when sent and the driver took it, else the outcome is set (0) or -ENOMEM. */
static int send_set(struct nl_sock *sk, const Action *x, const DcbDiff *diff, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DcbChange c = dcb_diff_change(diff);
	int r;

	r = dcbnl_ieee_set_new(x->netdev, &c, &m);
	if (r >= 0)
		r = dcbnl_ieee_write(sk, m);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_SET of %s: %s", x->netdev,
				   diff->what, strerror(-r));
	return 1;
}

static int send_dcbx(struct nl_sock *sk, const Action *x, const DcbDiff *diff, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = dcbnl_dcbx_set_new(x->netdev, diff->dcbx, &m);
	if (r >= 0)
		r = dcbnl_ieee_write(sk, m);
	if (r == -ENOMEM)
		return r;
	if (r == -EINVAL)
		return outcome_set(ret, APPLY_FAILED, r, "%s: the driver refused DCBX mode %s",
				   x->netdev, x->desired);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: SDCBX %s: %s", x->netdev, x->desired,
				   strerror(-r));
	return 1;
}

static int send_del(struct nl_sock *sk, const Action *x, const DcbDiff *diff, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = dcbnl_ieee_del_new(x->netdev, diff->del, diff->n_del, &m);
	if (r >= 0)
		r = dcbnl_ieee_write(sk, m);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_DEL of %zu DSCP app entries: %s",
				   x->netdev, diff->n_del, strerror(-r));
	return 1;
}

int apply_dcb(Applier *a, const Action *x, ActionOutcome *ret) {
	DcbDiff diff;
	DcbState live, after;
	struct nl_sock *sk;
	int r;

	if (!x->netdev)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev",
				   action_subject(x));
	r = applier_dcbnl(a, &sk);
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
	/* Planned on the strength of a declared host DCBX mode whose own action did not take the
	 * port over (a driver that refuses while its firmware agent runs): the agent owns DCB. */
	if (x->key != KEY_QOS_DCBX && x->value.dcb.owner != QOS_OWNER_RDMAD && live.has_dcbx &&
	    (live.dcbx & DCB_CAP_DCBX_LLD_MANAGED))
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "%s: DCBX is still managed by the NIC's LLDP agent (dcbx "
				   "lld-managed): qos.dcbx did not take the port over",
				   x->netdev);
	r = dcb_diff_compute(&live, x->key, &x->value.dcb, &diff);
	if (r == -EOPNOTSUPP)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "%s: the driver has no IEEE DCB object for %s", x->netdev,
				   action_setting(x));
	if (r < 0)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s is not a DCB setting",
				   action_setting(x));
	if (r == 0)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);

	if (diff.set_dcbx) {
		r = send_dcbx(sk, x, &diff, ret);
		if (r <= 0)
			return r;
	}
	/* New app entries first, then the stale ones (iproute2's `dcb app replace` order): a DSCP
	 * that changes priority is never without one. */
	if (dcb_diff_has_set(&diff)) {
		r = send_set(sk, x, &diff, ret);
		if (r <= 0)
			return r;
	}
	if (diff.n_del > 0) {
		r = send_del(sk, x, &diff, ret);
		if (r <= 0)
			return r;
	}
	r = dcbnl_ieee_read(sk, x->netdev, &after);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: IEEE_GET after the %s change: %s",
				   x->netdev, diff.what, strerror(-r));
	if (!dcb_diff_applied(&diff, &after))
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s: %s does not read back as %s",
				   x->netdev, diff.what, x->desired);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
