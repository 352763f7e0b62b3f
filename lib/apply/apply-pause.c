/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* netdev.pause.*: global (802.3x) pause over ethtool netlink, in the current network namespace.
 * Read the live parameters (PAUSE_GET), send one PAUSE_SET with only the declared fields that
 * differ, and read back. The three keys are applied together, whichever of their actions comes
 * first; the others then find nothing to do. The kernel calls the driver only when a value
 * changes, and announces it as PAUSE_NTF on ethtool's "monitor" group (manager-watch.c). */
#include <stdio.h>

#include "apply-internal.h"
#include "ethtool-pause-talk.h"

static const char *onoff(int8_t v) {
	return v ? "on" : "off";
}

/* The declared fields of want that have does not show, as one PauseChange; the count. */
static unsigned pause_diff(const PauseChange *want, const PauseParams *have, PauseChange *ret) {
	unsigned n = 0;

	*ret = (PauseChange){ .autoneg = -1, .rx = -1, .tx = -1 };
	if (want->autoneg >= 0 && want->autoneg != have->autoneg)
		ret->autoneg = want->autoneg, n++;
	if (want->rx >= 0 && want->rx != have->rx)
		ret->rx = want->rx, n++;
	if (want->tx >= 0 && want->tx != have->tx)
		ret->tx = want->tx, n++;
	return n;
}

/* "autoneg off rx off tx off", as `ethtool -A` takes them: the fields of c that are set. */
static void change_format(const PauseChange *c, char buf[48]) {
	char *p = buf;

	*p = 0;
	if (c->autoneg >= 0)
		p += sprintf(p, "autoneg %s ", onoff(c->autoneg));
	if (c->rx >= 0)
		p += sprintf(p, "rx %s ", onoff(c->rx));
	if (c->tx >= 0)
		p += sprintf(p, "tx %s ", onoff(c->tx));
	if (p > buf)
		p[-1] = 0;
}

int apply_pause(Applier *a, const Action *x, ActionOutcome *ret) {
	PauseParams live, after;
	PauseChange change;
	struct nl_sock *sk;
	uint16_t family;
	char what[48];
	int r;

	if (!x->netdev)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s has no netdev",
				   action_subject(x));
	r = applier_ethtool(a, &sk, &family);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOENT)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "the kernel has no ethtool netlink (CONFIG_ETHTOOL_NETLINK)");
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "ethtool netlink: %s", strerror(-r));
	r = ethtool_pause_read(sk, family, x->netdev, &live);
	if (r == -EOPNOTSUPP || r == -ENODEV)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "no pause parameters on %s: %s",
				   x->netdev, strerror(-r));
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: PAUSE_GET: %s", x->netdev,
				   strerror(-r));
	if (pause_diff(&x->value.pause, &live, &change) == 0)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	change_format(&change, what);
	r = ethtool_pause_write(sk, family, x->netdev, &change);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: ethtool -A %s: %s", x->netdev, what,
				   strerror(-r));
	r = ethtool_pause_read(sk, family, x->netdev, &after);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: PAUSE_GET after ethtool -A %s: %s",
				   x->netdev, what, strerror(-r));
	if (pause_diff(&x->value.pause, &after, &change) > 0)
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s: pause does not read back as %s",
				   x->netdev, what);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
