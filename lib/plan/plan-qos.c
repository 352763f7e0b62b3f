/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's QoS rules: each declared qos.* setting against the netdev's dcbnl IEEE state
 * (host-dcb.c reads it; apply-dcb.c writes what differs). */
#include <stdio.h>

#include "dcb-diff.h"
#include "dcbnl.h"
#include "plan-internal.h"
#include "settings-format.h"

/* QoS: dcbnl IEEE state, read per netdev by host-dcb.c. */

/* Why DCB cannot be planned on this link, or NULL. */
static const char *dcb_unsupported(const PlanPort *l, char *buf, size_t size) {
	const HostNetdev *n = l->netdev;

	if (netdev_missing(l))
		return netdev_missing(l);
	if (!n->dcb_observed)
		return "DCB was not read (dcbnl)";
	if (n->dcb_error < 0) {
		snprintf(buf, size, "no DCB (dcbnl) on %s: %s", n->name, strerror(-n->dcb_error));
		return buf;
	}
	/* An LLDP agent that negotiates DCBX rewrites what rdmad writes: say so, unless the
	 * profile says rdmad owns the port. What the kernel shows of it: the DCBX mode (the NIC's
	 * firmware agent) and the ETS willing bit (the port takes its peer's configuration, which
	 * is what lldpad sets up). */
	if (l->settings->qos_owner == QOS_OWNER_RDMAD)
		return NULL;
	/* A declared DCBX mode is what the port will have: its own action comes first. (If the
	 * driver refuses to give the port to the host, that action fails and the others find the
	 * port still lld-managed when they are applied: apply-dcb.c says so.) */
	if (l->settings->set & KEY_BIT(KEY_QOS_DCBX)) {
		if (l->settings->qos_dcbx & DCB_CAP_DCBX_LLD_MANAGED)
			return "qos.dcbx is lld-managed: the NIC's LLDP agent owns DCB; qos.owner: "
			       "rdmad overrides";
	} else if (n->dcb.has_dcbx && (n->dcb.dcbx & DCB_CAP_DCBX_LLD_MANAGED))
		return "DCBX is managed by the NIC's LLDP agent (dcbx lld-managed); "
		       "qos.owner: rdmad overrides";
	if (n->dcb.has_ets && n->dcb.ets.willing)
		return "ETS is willing: an LLDP agent (lldpad) takes DCB from the peer; "
		       "qos.owner: rdmad overrides";
	return NULL;
}

static unsigned dscp_entries(const uint8_t prio[N_DSCP]) {
	unsigned n = 0;

	for (unsigned d = 0; d < N_DSCP; d++)
		n += (unsigned) __builtin_popcount(prio[d]);
	return n;
}

/* Plan a QoS action: unsupported when DCB is, a shared netdev's conflict, or nothing when the
 * netdev already has it (or another link on it plans it). */
static int plan_qos_add(Plan *p, const PlanPort *l, Key key, const char *current,
			const char *desired, bool differs) {
	char conflict[160];

	if (netdev_conflict(l, key, conflict, sizeof(conflict)))
		return plan_port_add(p, l, PHASE_QOS, key, NULL, desired, conflict);
	if (!differs || plan_has_netdev_action(p, l, key, desired))
		return 0;
	return plan_port_add(p, l, PHASE_QOS, key, current, desired, NULL);
}

/* qos.pfc and qos.pfc-delay: the fields of one struct ieee_pfc, each its own row. The delay is
 * the headroom (in bits) the port reserves for what is in flight once it sends a pause: what
 * mlnx_qos --cable_len works out from the cable's length. */
int rule_qos_pfc(Plan *p, const PlanPort *l, Key key) {
	const struct ieee_pfc *pfc;
	char cur[32], want[32], why[160];
	const char *unsupported;

	if (key == KEY_QOS_PFC_DELAY)
		snprintf(want, sizeof(want), "delay %u", l->settings->qos_pfc_delay);
	else
		setting_format_pfc(l->settings->qos_pfc, want);
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (!unsupported && !l->netdev->dcb.has_pfc)
		unsupported = "the driver has no IEEE PFC (dcbnl ieee_getpfc)";
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	pfc = &l->netdev->dcb.pfc;
	if (key == KEY_QOS_PFC_DELAY) {
		snprintf(cur, sizeof(cur), "delay %u", pfc->delay);
		return plan_qos_add(p, l, key, cur, want, pfc->delay != l->settings->qos_pfc_delay);
	}
	setting_format_pfc(pfc->pfc_en, cur);
	return plan_qos_add(p, l, key, cur, want, pfc->pfc_en != l->settings->qos_pfc);
}

/* qos.buffer.prio-buffer and qos.buffer.size: one struct dcbnl_buffer (`dcb buffer`), as
 * `mlnx_qos --prio2buffer --buffer_size` sets it on mlx5. */
int rule_qos_buffer(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	const struct dcbnl_buffer *b;
	char cur[128], want[128], why[160];
	const char *unsupported;

	if (key == KEY_QOS_BUFFER_PRIO)
		setting_format_u8_map("prio-buffer", s->qos_buffer_prio, want);
	else
		setting_format_buffer_size(s->qos_buffer_size, want);
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (!unsupported && !l->netdev->dcb.has_buffer)
		unsupported = "the driver has no port buffer configuration (dcbnl_getbuffer)";
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	b = &l->netdev->dcb.buffer;
	if (key == KEY_QOS_BUFFER_PRIO) {
		setting_format_u8_map("prio-buffer", b->prio2buffer, cur);
		return plan_qos_add(p, l, key, cur, want,
				    memcmp(b->prio2buffer, s->qos_buffer_prio, N_PRIO) != 0);
	}
	setting_format_buffer_size(b->buffer_size, cur);
	return plan_qos_add(p, l, key, cur, want,
			    memcmp(b->buffer_size, s->qos_buffer_size, sizeof(b->buffer_size)) !=
				    0);
}

/* qos.dcbx: who runs DCBX on the port and which version. Planned before the other qos keys:
 * with host DCBX, rdmad's own writes are not overridden by the NIC's agent. The kernel sends no
 * notification when it changes: drift is found when any other DCB change of the netdev is
 * announced (every IEEE_GET carries the mode) and at each full reconcile. */
int rule_qos_dcbx(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	_cleanup_free_ char *invalid = NULL;
	char cur[48], want[48];
	int r;

	setting_format_dcbx(s->qos_dcbx, want);
	r = port_settings_validate(s, &invalid);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		_cleanup_free_ char *reason = NULL;

		if (asprintf(&reason, "the merged settings are invalid: %s", invalid) < 0)
			return -ENOMEM;
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, reason);
	}
	if (netdev_missing(l))
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, netdev_missing(l));
	if (!l->netdev->dcb_observed)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, "DCB was not read (dcbnl)");
	if (l->netdev->dcb_error < 0 || !l->netdev->dcb.has_dcbx) {
		char why[160];

		snprintf(why, sizeof(why), "no DCBX mode (dcbnl getdcbx) on %s%s%s",
			 l->netdev->name, l->netdev->dcb_error < 0 ? ": " : "",
			 l->netdev->dcb_error < 0 ? strerror(-l->netdev->dcb_error) : "");
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, why);
	}
	setting_format_dcbx(l->netdev->dcb.dcbx, cur);
	return plan_qos_add(p, l, key, cur, want,
			    (l->netdev->dcb.dcbx & DCBX_DECLARABLE) != s->qos_dcbx);
}

int rule_qos_ets(Plan *p, const PlanPort *l, Key key) {
	const struct ieee_ets *ets = &l->netdev->dcb.ets;
	const PortSettings *s = l->settings;
	_cleanup_free_ char *invalid = NULL;
	char cur[128], want[128], why[160];
	const char *unsupported;
	uint8_t tsa[N_TC];
	bool differs;
	int r;

	for (unsigned i = 0; i < N_TC; i++)
		tsa[i] = ets_tsa_to_kernel(s->ets_tsa[i]);
	if (key == KEY_QOS_ETS_PRIO_TC)
		setting_format_u8_map("prio-tc", s->ets_prio_tc, want);
	else if (key == KEY_QOS_ETS_TC_BW)
		setting_format_u8_map("tc-bw", s->ets_tc_bw, want);
	else
		setting_format_tsa(tsa, want);
	/* Each profile's ETS may be valid and their merge not (one's tsa, another's tc-bw): a
	 * driver would refuse it, so it is not sent, and the plan says why. */
	r = port_settings_validate(s, &invalid);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		_cleanup_free_ char *reason = NULL;

		if (asprintf(&reason, "the merged settings are invalid: %s", invalid) < 0)
			return -ENOMEM;
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, reason);
	}
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (!unsupported && !l->netdev->dcb.has_ets)
		unsupported = "the driver has no IEEE ETS (dcbnl ieee_getets)";
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	if (key == KEY_QOS_ETS_PRIO_TC) {
		setting_format_u8_map("prio-tc", ets->prio_tc, cur);
		differs = memcmp(ets->prio_tc, s->ets_prio_tc, N_PRIO) != 0;
	} else if (key == KEY_QOS_ETS_TC_BW) {
		setting_format_u8_map("tc-bw", ets->tc_tx_bw, cur);
		differs = memcmp(ets->tc_tx_bw, s->ets_tc_bw, N_TC) != 0;
	} else {
		setting_format_tsa(ets->tc_tsa, cur);
		differs = memcmp(ets->tc_tsa, tsa, N_TC) != 0;
	}
	return plan_qos_add(p, l, key, cur, want, differs);
}

int rule_qos_maxrate(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	char cur[256], want[256], why[160];
	const char *unsupported;
	uint64_t have[N_TC];

	setting_format_maxrate(s->qos_maxrate, want);
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (!unsupported && !l->netdev->dcb.has_maxrate)
		unsupported = "the driver has no IEEE maxrate (dcbnl ieee_getmaxrate)";
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	for (unsigned i = 0; i < N_TC; i++)
		have[i] = l->netdev->dcb.maxrate.tc_maxrate[i];
	setting_format_maxrate(have, cur);
	return plan_qos_add(p, l, key, cur, want, memcmp(have, s->qos_maxrate, sizeof(have)) != 0);
}

/* qos.dscp-map is the whole DSCP app table: entries it lists are added, other DSCP entries
 * removed (IEEE_DEL). Other selectors are left alone. */
int rule_qos_dscp_map(Plan *p, const PlanPort *l, Key key) {
	_cleanup_free_ char *cur = NULL, *want = NULL;
	uint8_t table[N_DSCP];
	char why[160];
	const char *unsupported;

	setting_dscp_map_table(l->settings->qos_dscp_map, table);
	want = setting_format_dscp_prio(table);
	if (!want)
		return -ENOMEM;
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	cur = setting_format_dscp_prio(l->netdev->dcb.dscp_prio);
	if (!cur)
		return -ENOMEM;
	return plan_qos_add(p, l, key, cur, want,
			    memcmp(table, l->netdev->dcb.dscp_prio, sizeof(table)) != 0);
}

/* Without apptrust (Linux < 6.2, and mlx5 on any kernel) the trust state follows the DSCP app
 * table: any DSCP entry switches mlx5 to DSCP trust (as mlnx_qos --trust dscp does), none
 * leaves it on PCP. dscp installs the default map (dscp >> 3) where there are no DSCP entries
 * at all; a declared qos.dscp-map is the table instead, and plans itself. pcp removes every
 * DSCP entry. */
int rule_qos_trust(Plan *p, const PlanPort *l, Key key) {
	const PortSettings *s = l->settings;
	bool has_map = s->set & KEY_BIT(KEY_QOS_DSCP_MAP), map_empty = true;
	char cur[64], why[160];
	const char *want, *unsupported;
	unsigned n;

	for (unsigned d = 0; d < N_DSCP; d++)
		if (s->qos_dscp_map[d] >= 0)
			map_empty = false;
	want = setting_format_trust(s);
	if (has_map && (s->qos_trust == QOS_TRUST_DSCP) == map_empty)
		return plan_port_add(
			p, l, PHASE_QOS, key, NULL, want,
			s->qos_trust == QOS_TRUST_DSCP
				? "qos.dscp-map is empty: DSCP trust needs DSCP app "
				  "entries (no apptrust)"
				: "qos.dscp-map adds DSCP app entries, which switch the "
				  "port to DSCP trust (no apptrust)");
	unsupported = dcb_unsupported(l, why, sizeof(why));
	if (unsupported)
		return plan_port_add(p, l, PHASE_QOS, key, NULL, want, unsupported);
	if (has_map)
		return 0; /* qos.dscp-map's action writes the table */
	n = dscp_entries(l->netdev->dcb.dscp_prio);
	if (n == 0)
		snprintf(cur, sizeof(cur), "pcp (no DSCP app entries)");
	else
		snprintf(cur, sizeof(cur), "dscp (%u DSCP app entries)", n);
	return plan_qos_add(p, l, key, cur, want, (n > 0) != (s->qos_trust == QOS_TRUST_DSCP));
}
