/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <linux/dcbnl.h>
#include <stdio.h>

#include "glob-util.h"
#include "profile.h"
#include "strv.h"

bool profile_matches(const Profile *p, const PortFacts *f) {
	const Match *m = &p->match;

	if (!glob_match_any(m->device, f->device) || !glob_match_any(m->driver, f->driver) ||
	    !glob_match_any(m->netdev, f->netdev) || !glob_match_any(m->pci, f->pci))
		return false;
	if (m->n_ports > 0) {
		for (size_t i = 0; i < m->n_ports; i++)
			if (m->ports[i] == f->port)
				return true;
		return false;
	}
	return true;
}

/* Copy the keys src declares over dst, recording src's name as their origin. */
static int link_settings_overlay(PortSettings *dst, const PortSettings *src, const char *origin) {
	KeySet set = src->set & KEYS_PORT;

	for (Key k = 0; k < _KEY_MAX; k++)
		if (set & KEY_BIT(k))
			dst->origin[k] = origin;
	dst->set |= set;

	if (set & KEY_BIT(KEY_ROCE_MODE))
		dst->roce_mode = src->roce_mode;
	if (set & KEY_BIT(KEY_ROCE_TOS))
		dst->roce_tos = src->roce_tos;
	if (set & KEY_BIT(KEY_NETDEV_UP))
		dst->netdev_up = src->netdev_up;
	if (set & KEY_BIT(KEY_NETDEV_MTU))
		dst->netdev_mtu = src->netdev_mtu;
	if (set & KEY_BIT(KEY_NETDEV_EXPECT_SPEED))
		dst->netdev_expect_speed = src->netdev_expect_speed;
	if (set & KEY_BIT(KEY_NETDEV_ADDRESSES)) {
		Address *a = NULL;

		if (src->n_addresses > 0) {
			a = malloc(sizeof(Address) * src->n_addresses);
			if (!a)
				return -ENOMEM;
			memcpy(a, src->addresses, sizeof(Address) * src->n_addresses);
		}
		free(dst->addresses);
		dst->addresses = a;
		dst->n_addresses = src->n_addresses;
	}
	if (set & KEY_BIT(KEY_SECURITY_ROCE_ALLOW_FROM)) {
		Address *a = NULL; /* a later profile's list whole */

		if (src->n_roce_allow_from > 0) {
			a = malloc(sizeof(Address) * src->n_roce_allow_from);
			if (!a)
				return -ENOMEM;
			memcpy(a, src->roce_allow_from, sizeof(Address) * src->n_roce_allow_from);
		}
		free(dst->roce_allow_from);
		dst->roce_allow_from = a;
		dst->n_roce_allow_from = src->n_roce_allow_from;
	}
	if (set & KEY_BIT(KEY_NETDEV_RAIL_ROUTING)) {
		dst->rail_routing = src->rail_routing;
		dst->rail_table = src->rail_table;
	}
	if (set & KEY_BIT(KEY_GIDS_REQUIRE))
		dst->gids_require = src->gids_require;
	if (set & KEY_BIT(KEY_GIDS_PUBLISH))
		dst->gids_publish = src->gids_publish; /* a later profile's choice as a whole */
	if (set & KEY_BIT(KEY_QOS_OWNER))
		dst->qos_owner = src->qos_owner;
	if (set & KEY_BIT(KEY_QOS_TRUST))
		dst->qos_trust = src->qos_trust;
	if (set & KEY_BIT(KEY_QOS_PFC))
		dst->qos_pfc = src->qos_pfc;
	if (set & KEY_BIT(KEY_QOS_DSCP_MAP))
		memcpy(dst->qos_dscp_map, src->qos_dscp_map, sizeof(dst->qos_dscp_map));
	if (set & KEY_BIT(KEY_QOS_ETS_PRIO_TC))
		memcpy(dst->ets_prio_tc, src->ets_prio_tc, sizeof(dst->ets_prio_tc));
	if (set & KEY_BIT(KEY_QOS_ETS_TC_BW))
		memcpy(dst->ets_tc_bw, src->ets_tc_bw, sizeof(dst->ets_tc_bw));
	if (set & KEY_BIT(KEY_QOS_ETS_TSA))
		memcpy(dst->ets_tsa, src->ets_tsa, sizeof(dst->ets_tsa));
	if (set & KEY_BIT(KEY_QOS_MAXRATE))
		memcpy(dst->qos_maxrate, src->qos_maxrate, sizeof(dst->qos_maxrate));
	if (set & KEY_BIT(KEY_QOS_PFC_DELAY))
		dst->qos_pfc_delay = src->qos_pfc_delay;
	if (set & KEY_BIT(KEY_QOS_BUFFER_PRIO))
		memcpy(dst->qos_buffer_prio, src->qos_buffer_prio, sizeof(dst->qos_buffer_prio));
	if (set & KEY_BIT(KEY_QOS_BUFFER_SIZE))
		memcpy(dst->qos_buffer_size, src->qos_buffer_size, sizeof(dst->qos_buffer_size));
	if (set & KEY_BIT(KEY_QOS_DCBX))
		dst->qos_dcbx = src->qos_dcbx;
	if (set & KEY_BIT(KEY_NETDEV_PAUSE_AUTONEG))
		dst->pause_autoneg = src->pause_autoneg;
	if (set & KEY_BIT(KEY_NETDEV_PAUSE_RX))
		dst->pause_rx = src->pause_rx;
	if (set & KEY_BIT(KEY_NETDEV_PAUSE_TX))
		dst->pause_tx = src->pause_tx;
	if (set & KEY_BIT(KEY_ECN_CNP_DSCP))
		dst->ecn_cnp_dscp = src->ecn_cnp_dscp;
	if (set & KEY_BIT(KEY_ECN_CNP_PRIO))
		dst->ecn_cnp_prio = src->ecn_cnp_prio;
	if (set & KEY_BIT(KEY_ECN_ROCE_NP))
		dst->ecn_roce_np = src->ecn_roce_np;
	if (set & KEY_BIT(KEY_ECN_ROCE_RP))
		dst->ecn_roce_rp = src->ecn_roce_rp;
	if (set & KEY_BIT(KEY_COUNTERS_OPTIONAL)) {
		char **l = strv_copy(src->counters_optional); /* a later profile's list whole */

		if (!l)
			return -ENOMEM;
		strv_free(dst->counters_optional);
		dst->counters_optional = l;
	}
	if (set & KEY_BIT(KEY_SRIOV_VFS))
		dst->sriov_vfs = src->sriov_vfs;
	if (set & KEY_BIT(KEY_SRIOV_AUTOPROBE))
		dst->sriov_autoprobe = src->sriov_autoprobe;
	if (set & KEY_BIT(KEY_SRIOV_ESWITCH))
		dst->sriov_eswitch = src->sriov_eswitch;
	if (set & KEY_BIT(KEY_PCI_MAX_READ_REQUEST))
		dst->pci_max_read_request = src->pci_max_read_request;
	if (set & KEY_BIT(KEY_PCI_UPSTREAM_ACS))
		dst->pci_upstream_acs = src->pci_upstream_acs;
	if (set & KEY_BIT(KEY_PROBE_INTERVAL))
		dst->probe_interval_ms = src->probe_interval_ms;
	if (set & KEY_BIT(KEY_PROBE_TIMEOUT))
		dst->probe_timeout_ms = src->probe_timeout_ms;
	if (set & KEY_BIT(KEY_PROBE_MESH))
		dst->probe_mesh = src->probe_mesh;
	if (set & KEY_BIT(KEY_PROBE_PORT))
		dst->probe_port = src->probe_port;
	if (set & KEY_BIT(KEY_PROBE_PEERS)) {
		char **l = strv_copy(src->probe_peers); /* a later profile's list whole */

		if (!l)
			return -ENOMEM;
		strv_free(dst->probe_peers);
		dst->probe_peers = l;
	}
	if (set & KEY_BIT(KEY_SRIOV_VF)) { /* the later profile's list whole */
		SriovVf *v = NULL;

		if (src->n_sriov_vf > 0) {
			v = malloc(sizeof(SriovVf) * src->n_sriov_vf);
			if (!v)
				return -ENOMEM;
			memcpy(v, src->sriov_vf, sizeof(SriovVf) * src->n_sriov_vf);
		}
		free(dst->sriov_vf);
		dst->sriov_vf = v;
		dst->n_sriov_vf = src->n_sriov_vf;
	}
	if (set & KEY_BIT(KEY_DEVLINK_RELOAD))
		dst->devlink_reload = src->devlink_reload;
	if (set & KEY_BIT(KEY_DEVLINK_PARAMS)) { /* the later profile's list whole */
		DevlinkParam *v = NULL;

		if (src->n_devlink_params > 0) {
			v = malloc(sizeof(DevlinkParam) * src->n_devlink_params);
			if (!v)
				return -ENOMEM;
			memcpy(v, src->devlink_params,
			       sizeof(DevlinkParam) * src->n_devlink_params);
		}
		free(dst->devlink_params);
		dst->devlink_params = v;
		dst->n_devlink_params = src->n_devlink_params;
	}
	if (set & KEY_BIT(KEY_RDMA_NODE_DESCRIPTION)) {
		char *d = strdup(src->node_description);

		if (!d)
			return -ENOMEM;
		free(dst->node_description);
		dst->node_description = d;
	}
	return 0;
}

int config_settings_for_port(const Config *c, const PortFacts *f, PortSettings *ret,
			     char ***ret_profiles) {
	_cleanup_strv_free_ char **names = NULL;
	PortSettings s = { 0 };
	int r, n = 0;

	memset(s.qos_dscp_map, -1, sizeof(s.qos_dscp_map));
	names = calloc(1, sizeof(char *));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_profiles; i++) {
		const Profile *p = c->profiles[i];

		if (!profile_matches(p, f))
			continue;
		r = link_settings_overlay(&s, &p->settings, p->name);
		if (r >= 0 && !strv_contains(names, p->name))
			r = strv_extend(&names, p->name);
		if (r < 0) {
			port_settings_done(&s);
			return r;
		}
		n++;
	}
	*ret = s;
	if (ret_profiles)
		*ret_profiles = TAKE_PTR(names);
	return n;
}

/* " (tc-bw from B.yaml, tsa from A.yaml)" when the keys come from different profiles. */
static void origins_format(const PortSettings *s, char *buf, size_t size) {
	const char *bw = s->origin[KEY_QOS_ETS_TC_BW], *tsa = s->origin[KEY_QOS_ETS_TSA];

	if (bw && tsa && !streq(bw, tsa))
		snprintf(buf, size, " (tc-bw from %s, tsa from %s)", bw, tsa);
	else
		buf[0] = 0;
}

/* qos.owner: rdmad means rdmad writes the port's DCB as its host agent; a DCBX mode that hands
 * the port to the NIC's own agent contradicts it (the firmware would overwrite every write). */
int port_settings_validate_dcbx(const PortSettings *s, char **ret_error) {
	const char *dcbx = s->origin[KEY_QOS_DCBX], *owner = s->origin[KEY_QOS_OWNER];
	char from[160] = "";

	if (!(s->set & KEY_BIT(KEY_QOS_DCBX)) || !(s->set & KEY_BIT(KEY_QOS_OWNER)) ||
	    s->qos_owner != QOS_OWNER_RDMAD || !(s->qos_dcbx & DCB_CAP_DCBX_LLD_MANAGED))
		return 0;
	if (dcbx && owner && !streq(dcbx, owner))
		snprintf(from, sizeof(from), " (qos.dcbx from %s, qos.owner from %s)", dcbx, owner);
	if (asprintf(ret_error,
		     "'qos.dcbx' lld-managed hands DCB to the NIC's own agent, but 'qos.owner: "
		     "rdmad' has rdmad write it as the host's: declare qos.dcbx [host, ...] or "
		     "qos.owner auto%s",
		     from) < 0)
		return -ENOMEM;
	return -EINVAL;
}

int port_settings_validate_ets(const PortSettings *s, char **ret_error) {
	unsigned sum = 0, n_ets = 0;
	char tcs[32] = "", from[160];

	if (!(s->set & KEY_BIT(KEY_QOS_ETS_TC_BW)))
		return 0;
	if (!(s->set & KEY_BIT(KEY_QOS_ETS_TSA))) {
		/* Which classes are ets is not known here: all of them must add up. */
		for (size_t i = 0; i < N_TC; i++)
			sum += s->ets_tc_bw[i];
		if (sum == 100)
			return 0;
		if (asprintf(ret_error, "'qos.ets.tc-bw' must add up to 100, got %u", sum) < 0)
			return -ENOMEM;
		return -EINVAL;
	}
	/* As the drivers check it (mlx5e_dbcnl_validate_ets()): the bandwidth of the ets
	 * classes adds up to 100; strict classes take what they need. */
	for (size_t i = 0; i < N_TC; i++)
		if (s->ets_tsa[i] == ETS_TSA_ETS) {
			sum += s->ets_tc_bw[i];
			snprintf(tcs + strlen(tcs), sizeof(tcs) - strlen(tcs), "%s%zu",
				 n_ets++ ? "," : "", i);
		}
	if (n_ets == 0 || sum == 100)
		return 0;
	origins_format(s, from, sizeof(from));
	if (asprintf(ret_error,
		     "'qos.ets.tc-bw' of the ets traffic classes (%s) must add up to 100, got %u%s",
		     tcs, sum, from) < 0)
		return -ENOMEM;
	return -EINVAL;
}

int port_settings_validate(const PortSettings *s, char **ret_error) {
	int r;

	r = port_settings_validate_dcbx(s, ret_error);
	if (r < 0)
		return r;
	return port_settings_validate_ets(s, ret_error);
}

bool config_declares(const Config *c, Key key) {
	return config_declares_any(c, KEY_BIT(key));
}

bool config_declares_any(const Config *c, KeySet keys) {
	for (size_t i = 0; c && i < c->n_profiles; i++)
		if (c->profiles[i]->settings.set & keys)
			return true;
	return false;
}
