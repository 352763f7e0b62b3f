/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* security.roce-allow-from: rdmad's nftables table (firewall.h). Each action reads the table
 * again, writes nothing when it is already as wanted, sends its change as one transaction
 * (a chain flushed and filled, or made again, in one batch: packets see the old rules or the
 * new ones, never none) and reads it back. Nothing outside table inet rdmad is written. */
#include <stdio.h>

#include "apply-internal.h"

typedef struct Live {
	FirewallState s;
	int r;
	char *error; /* when r < 0: libnftables' words, if any */
} Live;

static int live_read(Live *l) {
	l->error = mfree(l->error);
	l->r = firewall_read(&l->s, &l->error);
	return l->r;
}

static void live_done(Live *l) {
	if (l->r >= 0)
		firewall_state_done(&l->s);
	l->error = mfree(l->error);
	l->r = -ENODATA;
}

/* The outcome of a read that failed (r < 0 but -ENOMEM), in libnftables' words if it had
 * some; live done with. */
static int live_failed(Live *l, ActionOutcome *ret, const char *what) {
	int r = l->r;

	if (r != -ENOMEM)
		r = outcome_set(ret, APPLY_FAILED, r, "cannot read the nftables table %s %s%s: %s",
				FIREWALL_FAMILY, FIREWALL_TABLE, what,
				l->error ? l->error : strerror(-l->r));
	live_done(l);
	return r;
}

static bool live_done_as_wanted(const Live *l, const Action *x) {
	const ActionValue *v = &x->value;

	switch (v->firewall_op) {
	case FIREWALL_OP_CHAIN:
		return l->s.table && firewall_chain_converged(firewall_chain_find(&l->s, x->netdev),
							      x->netdev, v->allow, v->n_allow);
	case FIREWALL_OP_CHAIN_REMOVE:
		return !l->s.table || !firewall_chain_find(&l->s, x->netdev);
	case FIREWALL_OP_TABLE_REMOVE:
		return !l->s.table;
	default:
		return false;
	}
}

int apply_firewall(Applier *a, const Action *x, ActionOutcome *ret) {
	const ActionValue *v = &x->value;
	_cleanup_free_ char *batch = NULL, *error = NULL, *now = NULL;
	Live live = { .r = -ENODATA };
	bool done;
	int r;

	if (v->firewall_op != FIREWALL_OP_TABLE_REMOVE && !x->netdev)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev",
				   action_subject(x));
	/* every change is written through libnftables: without it, say so first */
	r = firewall_dlopen(&error);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s", error);
	r = live_read(&live);
	if (r < 0)
		return live_failed(&live, ret, "");
	done = live_done_as_wanted(&live, x);
	if (!done) {
		switch (v->firewall_op) {
		case FIREWALL_OP_CHAIN:
			r = firewall_chain_batch(&live.s, x->netdev, v->allow, v->n_allow, &batch);
			break;
		case FIREWALL_OP_CHAIN_REMOVE:
			r = firewall_chain_delete_batch(x->netdev, &batch);
			break;
		case FIREWALL_OP_TABLE_REMOVE:
			r = firewall_table_delete_batch(&batch);
			break;
		default:
			r = -EINVAL;
		}
	}
	live_done(&live);
	if (done)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "cannot build the nftables commands for %s", strna(x->netdev));
	r = firewall_write(batch, &error);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "nftables refused %s (%s): %s", x->desired,
				   strna(x->netdev), error ? error : strerror(-r));
	r = live_read(&live);
	if (r < 0)
		return live_failed(&live, ret, " back");
	done = live_done_as_wanted(&live, x);
	if (!done && v->firewall_op == FIREWALL_OP_CHAIN)
		now = firewall_chain_describe(&live.s, x->netdev);
	live_done(&live);
	if (!done)
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s does not read back as %s%s%s",
				   x->netdev ? x->netdev : FIREWALL_TABLE, x->desired,
				   now ? ": it is " : "", strempty(now));
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
