/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The QoS checks, for the ports whose profiles declare qos.* (the others have no rows: rdmad
 * leaves their DCB alone, and nothing says what it should be): the netdev has DCB (dcbnl), PFC
 * is on for every priority declared lossless, the trust state is the declared one, and no other
 * agent owns DCB (the NIC's LLDP/DCBX agent, a host LLDP agent such as lldpad), and global
 * pause is off where PFC is on. They read the DCB state host-dcb.c observed, the pause
 * host-pause.c observed, and /proc under the root. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>

#include "dcbnl.h"
#include "fileio.h"
#include "preflight.h"
#include "settings-format.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(DIR *, closedir)

/* Whether a process named lldpad runs: 1 or 0, or -errno when /proc cannot be read. */
static int lldpad_running(const char *root) {
	_cleanup_free_ char *proc = root_path(root, "/proc");
	_cleanup_(closedirp) DIR *dir = NULL;
	struct dirent *de;

	if (!proc)
		return -ENOMEM;
	dir = opendir(proc);
	if (!dir)
		return -errno;
	while ((de = readdir(dir))) {
		char path[300], comm[32];

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "%s/comm", de->d_name);
		if (read_small_at(dirfd(dir), path, comm, sizeof(comm)) >= 0 &&
		    streq(comm, "lldpad"))
			return 1;
	}
	return 0;
}

/* Who else manages DCB on n, as one sentence, or NULL: the same signs the planner reads
 * (plan-qos.c dcb_unsupported(): DCBX lld-managed, ETS willing), and an lldpad process. */
static const char *other_owner(const HostNetdev *n, int lldpad, bool *ret_seen_by_planner) {
	*ret_seen_by_planner = true;
	if (n->dcb.has_dcbx && (n->dcb.dcbx & DCB_CAP_DCBX_LLD_MANAGED))
		return "the NIC's LLDP agent manages DCBX (dcbx lld-managed)";
	if (n->dcb.has_ets && n->dcb.ets.willing)
		return "ETS is willing: an LLDP agent (lldpad) takes DCB from the peer";
	*ret_seen_by_planner = false;
	if (lldpad > 0)
		return "lldpad is running";
	return NULL;
}

static int check_owner(Preflight *p, const char *subject, const PortSettings *s,
		       const HostNetdev *n, int lldpad) {
	_cleanup_free_ char *fix = NULL;
	const char *owner;
	bool planner_sees;

	owner = other_owner(n, lldpad, &planner_sees);
	if (!owner)
		return preflight_add(
			p, "qos.owner", subject, PREFLIGHT_OK, NULL,
			"no other DCB owner on %s: DCBX %s, ETS not willing, %s", n->name,
			!n->dcb.has_dcbx ? "mode not reported" : "host-managed",
			lldpad < 0 ? "lldpad not looked for (/proc not read)" : "no lldpad");
	if (s->qos_owner == QOS_OWNER_RDMAD) {
		if (asprintf(&fix,
			     "stop the other agent on %s (lldptool set-lldp -i %s "
			     "adminStatus=disabled, or the NIC's firmware DCBX setting), or "
			     "remove qos.owner: rdmad",
			     n->name, n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "qos.owner", subject, PREFLIGHT_WARN, fix,
				     "%s on %s, and qos.owner: rdmad (%s) makes rdmad write DCB "
				     "regardless: the two will rewrite each other",
				     owner, n->name, strna(s->origin[KEY_QOS_OWNER]));
	}
	if (planner_sees) {
		if (asprintf(&fix,
			     "qos: {owner: rdmad} (rdmad then overrides the agent), or declare "
			     "the QoS in the agent (lldptool -T -i %s -V PFC ...)",
			     n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "qos.owner", subject, PREFLIGHT_WARN, fix,
				     "%s on %s: rdmad leaves its DCB alone (qos.owner: auto), so "
				     "the declared QoS is not applied",
				     owner, n->name);
	}
	if (asprintf(&fix,
		     "lldptool set-lldp -i %s adminStatus=disabled, or systemctl disable --now "
		     "lldpad",
		     n->name) < 0)
		return -ENOMEM;
	return preflight_add(p, "qos.owner", subject, PREFLIGHT_WARN, fix,
			     "%s, though %s is not willing and DCBX is not lld-managed: rdmad "
			     "writes DCB, and if lldpad manages %s they will rewrite each other",
			     owner, n->name, n->name);
}

/* The fix when the observed DCB is not the declared one: rdmad writes it, unless another
 * owner keeps it from doing so. */
static const char *dcb_fix(const PortSettings *s, const HostNetdev *n) {
	bool planner_sees;

	if (s->qos_owner != QOS_OWNER_RDMAD && other_owner(n, 0, &planner_sees) && planner_sees)
		return "qos: {owner: rdmad}, or configure the LLDP agent that owns the port";
	return "rdmactl reconcile (rdmad writes the declared DCB)";
}

static int check_pfc(Preflight *p, const char *subject, const PortSettings *s,
		     const HostNetdev *n) {
	uint8_t want = s->qos_pfc, have = n->dcb.pfc.pfc_en;
	const char *origin = strna(s->origin[KEY_QOS_PFC]);
	char w[32], h[32], x[32];

	setting_format_priorities(want, w);
	if (!n->dcb.has_pfc)
		return preflight_add(
			p, "qos.pfc", subject, PREFLIGHT_FAIL,
			"a NIC and driver with IEEE DCB (VFs have none: set it on the "
			"PF)",
			"%s declares PFC on priorities %s, but the driver of %s has no "
			"IEEE PFC (dcbnl ieee_getpfc)",
			origin, w, n->name);
	setting_format_priorities(have, h);
	if (want & ~have) {
		setting_format_priorities(want & ~have, x);
		return preflight_add(p, "qos.pfc", subject, PREFLIGHT_FAIL, dcb_fix(s, n),
				     "PFC is off on %s for priorities %s, declared lossless by %s "
				     "(PFC on: %s): RoCE traffic there is dropped under congestion",
				     n->name, x, origin, have ? h : "none");
	}
	if (have & ~want) {
		setting_format_priorities(have & ~want, x);
		return preflight_add(
			p, "qos.pfc", subject, PREFLIGHT_WARN, dcb_fix(s, n),
			"PFC is enabled on %s for priorities %s as declared, and also for %s, "
			"which %s does not declare",
			n->name, w, x, origin);
	}
	return preflight_add(p, "qos.pfc", subject, PREFLIGHT_OK, NULL,
			     "PFC is enabled on %s for priorities %s, as %s declares", n->name, w,
			     origin);
}

/* Trust as the planner reads it (plan-qos.c rule_qos_trust()): without apptrust, DSCP app
 * entries make the port trust DSCP, none leave it on PCP. */
static int check_trust(Preflight *p, const char *subject, const PortSettings *s,
		       const HostNetdev *n) {
	const char *want = qos_trust_to_string(s->qos_trust);
	unsigned entries = 0;
	QosTrust have;

	for (unsigned d = 0; d < N_DSCP; d++)
		entries += (unsigned) __builtin_popcount(n->dcb.dscp_prio[d]);
	have = entries > 0 ? QOS_TRUST_DSCP : QOS_TRUST_PCP;
	if (have == s->qos_trust)
		return preflight_add(p, "qos.trust", subject, PREFLIGHT_OK, NULL,
				     "%s trusts %s (%u DSCP app entr%s), as %s declares", n->name,
				     strna(qos_trust_to_string(have)), entries,
				     entries == 1 ? "y" : "ies", strna(s->origin[KEY_QOS_TRUST]));
	return preflight_add(p, "qos.trust", subject, PREFLIGHT_FAIL, dcb_fix(s, n),
			     "%s trusts %s (%u DSCP app entr%s), but %s declares %s: RoCE "
			     "traffic is classified to the wrong priority",
			     n->name, strna(qos_trust_to_string(have)), entries,
			     entries == 1 ? "y" : "ies", strna(s->origin[KEY_QOS_TRUST]),
			     strna(want));
}

/* Global (802.3x) pause and PFC on one port: a NIC with global pause on pauses the whole link
 * and ignores PFC (mlx5 refuses PFC while it is on; others take one or the other). Judged when
 * PFC is on, as read. */
static int check_pause(Preflight *p, const char *subject, const HostNetdev *n) {
	_cleanup_free_ char *fix = NULL;
	char pfc[32];

	if (!n->dcb.has_pfc || n->dcb.pfc.pfc_en == 0)
		return 0;
	setting_format_priorities(n->dcb.pfc.pfc_en, pfc);
	if (n->pause_observed && n->pause_error == -EOPNOTSUPP)
		return preflight_add(p, "netdev.pause", subject, PREFLIGHT_OK, NULL,
				     "PFC is on for priorities %s; %s has no global pause to "
				     "conflict with it",
				     pfc, n->name);
	if (!n->pause_observed || n->pause_error < 0) {
		if (asprintf(&fix, "ethtool -a %s", n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "netdev.pause", subject, PREFLIGHT_WARN, fix,
				     "PFC is on for priorities %s, and whether global pause is on "
				     "too on %s is not known (%s)",
				     pfc, n->name,
				     !n->pause_observed ? "not read" : strerror(-n->pause_error));
	}
	if (!n->pause.rx && !n->pause.tx)
		return preflight_add(p, "netdev.pause", subject, PREFLIGHT_OK, NULL,
				     "global pause is off on %s: PFC (priorities %s) governs",
				     n->name, pfc);
	if (asprintf(&fix,
		     "netdev: {pause: {autoneg: false, rx: false, tx: false}} in the profile, or "
		     "ethtool -A %s autoneg off rx off tx off",
		     n->name) < 0)
		return -ENOMEM;
	return preflight_add(p, "netdev.pause", subject, PREFLIGHT_WARN, fix,
			     "global pause is on on %s (rx %s, tx %s) while PFC is on for "
			     "priorities %s: the NIC then pauses the whole link and ignores PFC",
			     n->name, n->pause.rx ? "on" : "off", n->pause.tx ? "on" : "off", pfc);
}

static int declared_keys(const PortSettings *s, char **ret) {
	_cleanup_strv_free_ char **keys = NULL;
	char *j;
	int r;

	for (Key k = 0; k < _KEY_MAX; k++) {
		if (!(KEYS_QOS & KEY_BIT(k) & s->set))
			continue;
		r = strv_extend(&keys, key_to_string(k));
		if (r < 0)
			return r;
	}
	j = strv_join(keys, ", ");
	if (!j)
		return -ENOMEM;
	*ret = j;
	return 0;
}

static int check_port(Preflight *p, const PreflightInput *in, const HostDevice *d,
		      const HostPort *port, void *userdata) {
	int *lldpad = userdata;
	_cleanup_(port_settings_done) PortSettings s = { 0 };
	_cleanup_free_ char *subject = NULL, *keys = NULL;
	const HostNetdev *n;
	PortFacts f;
	int r;

	if (!in->config || port->link_layer != LINK_LAYER_ETHERNET || !port->netdev)
		return 0;
	host_port_facts(d, port, &f);
	r = config_settings_for_port(in->config, &f, &s, NULL);
	if (r < 0)
		return r;
	if (!(s.set & KEYS_QOS))
		return 0;
	subject = preflight_port_subject(d, port);
	if (!subject)
		return -ENOMEM;
	r = declared_keys(&s, &keys);
	if (r < 0)
		return r;

	n = host_netdev_find(in->host, port->netdev);
	if (!n)
		return preflight_add(p, "qos.dcb", subject, PREFLIGHT_FAIL, "see network.netdev",
				     "QoS declared (%s), but netdev %s is not there", keys,
				     port->netdev);
	if (!n->dcb_observed) {
		_cleanup_free_ char *fix = NULL;

		if (asprintf(&fix, "dcb pfc show dev %s (iproute2)", n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "qos.dcb", subject, PREFLIGHT_WARN, fix,
				     "QoS declared (%s), but the DCB state of %s was not read",
				     keys, n->name);
	}
	if (n->dcb_error < 0) {
		bool soft = streq_ptr(d->driver, "rdma_rxe") || streq_ptr(d->driver, "siw");
		_cleanup_free_ char *fix = NULL;

		if (soft && asprintf(&fix,
				     "match the qos.* keys to the hardware links only (match: "
				     "{driver: ...}), and set QoS on the NIC below %s",
				     n->name) < 0)
			return -ENOMEM;
		return preflight_add(
			p, "qos.dcb", subject, PREFLIGHT_WARN,
			soft ? fix
			: n->dcb_error == -ENODEV
				? "run in the network namespace of the netdev"
				: "a NIC and driver with dcbnl (VFs have none: set QoS on the PF)",
			"QoS declared (%s), but %s has no DCB (dcbnl: %s)%s", keys, n->name,
			strerror(-n->dcb_error),
			soft ? ": not applicable on Soft-RoCE, whose traffic is plain UDP of the "
			       "netdev below"
			     : "");
	}
	r = preflight_add(p, "qos.dcb", subject, PREFLIGHT_OK, NULL,
			  "QoS declared (%s); %s answers dcbnl (IEEE%s%s%s)", keys, n->name,
			  n->dcb.has_pfc ? " PFC" : "", n->dcb.has_ets ? " ETS" : "",
			  n->dcb.has_maxrate ? " maxrate" : "");
	if (r < 0)
		return r;
	if (*lldpad == -EAGAIN)
		*lldpad = lldpad_running(in->root);
	if (*lldpad == -ENOMEM)
		return -ENOMEM;
	r = check_owner(p, subject, &s, n, *lldpad);
	if (r < 0)
		return r;
	if (s.set & KEY_BIT(KEY_QOS_PFC)) {
		r = check_pfc(p, subject, &s, n);
		if (r < 0)
			return r;
	}
	if (s.set & KEY_BIT(KEY_QOS_TRUST)) {
		r = check_trust(p, subject, &s, n);
		if (r < 0)
			return r;
	}
	return check_pause(p, subject, n);
}

int preflight_qos(Preflight *p, const PreflightInput *in) {
	int lldpad = -EAGAIN; /* looked for once, when a port needs it */

	return preflight_each_port(p, in, check_port, &lldpad);
}
