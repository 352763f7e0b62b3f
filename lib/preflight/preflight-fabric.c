/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fabric checks: does the switch port agree with this host (issue 44)? The switch's side
 * is what it advertises in LLDP (IEEE 802.1Qaz ETS, PFC and Application Priority TLVs, the
 * 802.3 maximum frame size), as the local lldpd heard it (host-lldp.c, lldp-neighbor.h); the
 * host's is what it does now (fabric-host.h); fabric_compare_switch() judges. Rows for the
 * Ethernet ports whose profiles declare qos.* and for those with an LLDP neighbour:
 *   fabric.switch        who the neighbour is and what it advertises, or why there is none
 *                        (no lldpd, no liblldpctl, the NIC's firmware agent consumes LLDP);
 *   fabric.<setting>     one per disagreement: pfc, app-priority, max-frame (fail: RoCE
 *                        drops or stalls), ets, cnp-priority (warn: slower, not broken).
 * Why lldpd and not a socket of rdmad's own, and what a firmware agent changes:
 * docs/fabric-lldp.md. */
#include <stdio.h>
#include <string.h>

#include "fabric-host.h"
#include "preflight.h"
#include "strv.h"

static PreflightStatus mismatch_status(const char *setting) {
	return streq(setting, "ets") || streq(setting, "cnp-priority") ? PREFLIGHT_WARN
								       : PREFLIGHT_FAIL;
}

static const char *mismatch_fix(const char *setting) {
	if (streq(setting, "pfc"))
		return "make PFC agree: qos.pfc in the profile, or the switch port's PFC "
		       "(its lossless priorities)";
	if (streq(setting, "app-priority"))
		return "make the RoCE DSCP map to the same priority on both: qos.dscp-map (and "
		       "roce.tos) in the profile, or the switch's DSCP-to-priority map";
	if (streq(setting, "cnp-priority"))
		return "map the CNP DSCP to the same priority on the switch as on the NIC "
		       "(ecn/roce_np/cnp_dscp, cnp_802p_prio)";
	if (streq(setting, "ets"))
		return "qos.ets.tc-bw in the profile, or the switch's ETS bandwidth of the RoCE "
		       "traffic class";
	if (streq(setting, "max-frame"))
		return "netdev.mtu at most the switch's maximum frame size less 18, or a larger "
		       "MTU on the switch port";
	return NULL;
}

static int check_neighbor(Preflight *p, const char *subject, const HostPort *port,
			  const HostNetdev *n, const LldpNeighbor *nb) {
	_cleanup_free_ char *who = NULL, *what = NULL, *errors = NULL;
	FabricMismatch m[FABRIC_MISMATCHES_MAX];
	FabricHost host;
	size_t k;
	int r;

	fabric_host_observed(port, n, &host);
	r = fabric_switch_name(nb, &who);
	if (r < 0)
		return r;
	if (nb->tlv_errors) {
		errors = strv_join(nb->tlv_errors, "; ");
		if (!errors)
			return -ENOMEM;
	}
	if (!fabric_switch_has_dcb(nb)) {
		return preflight_add(
			p, "fabric.switch", subject, PREFLIGHT_WARN,
			"enable DCBX (IEEE 802.1Qaz TLVs: ETS, PFC, Application Priority) in the "
			"switch port's LLDP",
			"%s on %s advertises no DCB configuration in LLDP (no 802.1Qaz ETS, PFC "
			"or Application Priority TLV, no maximum frame size)%s%s: nothing to "
			"compare with the host",
			who, n->name, errors ? "; unusable: " : "", strempty(errors));
	}
	r = fabric_switch_describe(nb, &host, &what);
	if (r < 0)
		return r;
	k = fabric_compare_switch(&host, &nb->dcb, m);
	r = preflight_add(p, "fabric.switch", subject, errors ? PREFLIGHT_WARN : PREFLIGHT_OK,
			  errors ? "see the switch port's DCBX configuration" : NULL,
			  "%s on %s advertises %s; %zu disagreement%s with the host%s%s", who,
			  n->name, what, k, k == 1 ? "" : "s", errors ? "; unusable: " : "",
			  strempty(errors));
	if (r < 0)
		return r;
	for (size_t i = 0; i < k; i++) {
		_cleanup_free_ char *check = NULL;

		if (asprintf(&check, "fabric.%s", m[i].setting) < 0)
			return -ENOMEM;
		r = preflight_add(p, check, subject, mismatch_status(m[i].setting),
				  mismatch_fix(m[i].setting), "%s has %s; %s has %s", n->name,
				  m[i].local, who, m[i].other);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The NIC's firmware runs the LLDP/DCBX agent (dcbnl getdcbx: DCB_CAP_DCBX_LLD_MANAGED; mlx5
 * in firmware DCBX mode, ice with its fw-lldp-agent private flag on, i40e): it takes the
 * switch's LLDP for itself. The fix by driver. */
static const char *firmware_fix(const HostNetdev *n) {
	if (streq_ptr(n->driver, "ice") || streq_ptr(n->driver, "i40e"))
		return "ethtool --set-priv-flags NETDEV fw-lldp-agent off (ice; i40e: "
		       "disable-fw-lldp on): the frames then reach lldpd, and DCB is the host's to "
		       "set (qos.* in the profile)";
	if (streq_ptr(n->driver, "mlx5_core"))
		return "dcb dcbx set dev NETDEV host (mlx5: firmware DCBX off), or compare on the "
		       "switch (show lldp neighbors there)";
	return "turn the NIC's firmware LLDP/DCBX agent off, or compare on the switch";
}

static int check_no_neighbor(Preflight *p, const char *subject, const HostNetdev *n) {
	const HostLldp *l = n->lldp;
	_cleanup_free_ char *fix = NULL;
	bool firmware = n->dcb_observed && n->dcb_error == 0 && n->dcb.has_dcbx &&
			(n->dcb.dcbx & DCB_CAP_DCBX_LLD_MANAGED);

	switch (l->error) {
	case 0:
		if (firmware) {
			if (asprintf(&fix, "%s", firmware_fix(n)) < 0)
				return -ENOMEM;
			return preflight_add(
				p, "fabric.switch", subject, PREFLIGHT_WARN, fix,
				"lldpd hears no LLDP neighbour on %s, and the NIC's firmware runs "
				"the LLDP/DCBX agent (dcbx lld-managed): the firmware consumes the "
				"switch's LLDP, so the host cannot see the switch port's DCB "
				"configuration to compare",
				n->name);
		}
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN,
				     "enable LLDP, with DCBX (IEEE 802.1Qaz TLVs), on the switch "
				     "port; lldpcli show neighbors",
				     "lldpd hears no LLDP neighbour on %s: the switch port's DCB "
				     "configuration is not known to compare with the host",
				     n->name);
	case -EOPNOTSUPP:
	case -ELIBBAD:
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN,
				     "apt install lldpd (it ships liblldpctl.so.4); systemctl "
				     "enable --now lldpd",
				     "lldpd's liblldpctl not installed (%s): the switch port's "
				     "LLDP is not compared with %s",
				     strna(l->message), n->name);
	case -ECONNREFUSED:
	case -ENOENT:
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN,
				     "apt install lldpd; systemctl enable --now lldpd",
				     "lldpd is not running (%s): the switch port's LLDP is not "
				     "compared with %s",
				     strna(l->message), n->name);
	case -EACCES:
	case -EPERM:
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN,
				     "run as root, or as a member of group _lldpd",
				     "not allowed to ask lldpd (%s): the switch port's LLDP is not "
				     "compared with %s",
				     strna(l->message), n->name);
	case -ENODEV:
		if (asprintf(&fix,
			     "add %s to lldpd's interfaces (lldpcli configure system interface "
			     "pattern, or lldpd -I)",
			     n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN, fix,
				     "lldpd runs but does not listen on %s: the switch port's LLDP "
				     "is not compared with the host",
				     n->name);
	default:
		return preflight_add(p, "fabric.switch", subject, PREFLIGHT_WARN,
				     "lldpcli show neighbors; journalctl -u lldpd",
				     "lldpd did not answer about %s (%s%s%s)", n->name,
				     strerror(-l->error), l->message ? ": " : "",
				     strempty(l->message));
	}
}

static int check_port(Preflight *p, const PreflightInput *in, const HostDevice *d,
		      const HostPort *port, void *userdata) {
	_cleanup_(port_settings_done) PortSettings s = { 0 };
	_cleanup_free_ char *subject = NULL;
	const LldpNeighbor *nb;
	const HostNetdev *n;
	PortFacts f;
	int r;

	if (port->link_layer != LINK_LAYER_ETHERNET || !port->netdev)
		return 0;
	n = host_netdev_find(in->host, port->netdev);
	if (!n || !n->lldp)
		return 0; /* not asked: another root */
	nb = fabric_switch_neighbor(n);
	if (!nb) {
		/* nothing heard: a row only where lossless RoCE is declared */
		if (!in->config)
			return 0;
		host_port_facts(d, port, &f);
		r = config_settings_for_port(in->config, &f, &s, NULL);
		if (r < 0)
			return r;
		if (!(s.set & KEYS_QOS))
			return 0;
	}
	subject = preflight_port_subject(d, port);
	if (!subject)
		return -ENOMEM;
	return nb ? check_neighbor(p, subject, port, n, nb) : check_no_neighbor(p, subject, n);
}

int preflight_fabric(Preflight *p, const PreflightInput *in) {
	return preflight_each_port(p, in, check_port, NULL);
}
