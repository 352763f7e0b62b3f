/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "profile.h"
#include "strv.h"

static const char *const key_table[_KEY_MAX] = {
	[KEY_MATCH_DEVICE] = "match.device",
	[KEY_MATCH_DRIVER] = "match.driver",
	[KEY_MATCH_NETDEV] = "match.netdev",
	[KEY_MATCH_PCI] = "match.pci",
	[KEY_MATCH_PORT] = "match.port",
	[KEY_MODULES] = "modules",
	[KEY_ROCE_MODE] = "roce.mode",
	[KEY_ROCE_TOS] = "roce.tos",
	[KEY_NETDEV_UP] = "netdev.up",
	[KEY_NETDEV_MTU] = "netdev.mtu",
	[KEY_NETDEV_ADDRESSES] = "netdev.addresses",
	[KEY_NETDEV_RAIL_ROUTING] = "netdev.rail-routing",
	[KEY_NETDEV_PAUSE_AUTONEG] = "netdev.pause.autoneg",
	[KEY_NETDEV_PAUSE_RX] = "netdev.pause.rx",
	[KEY_NETDEV_PAUSE_TX] = "netdev.pause.tx",
	[KEY_NETDEV_EXPECT_SPEED] = "netdev.expect-speed",
	[KEY_GIDS_REQUIRE] = "gids.require",
	[KEY_GIDS_PUBLISH] = "gids.publish",
	[KEY_QOS_OWNER] = "qos.owner",
	[KEY_QOS_TRUST] = "qos.trust",
	[KEY_QOS_PFC] = "qos.pfc",
	[KEY_QOS_DSCP_MAP] = "qos.dscp-map",
	[KEY_QOS_ETS_PRIO_TC] = "qos.ets.prio-tc",
	[KEY_QOS_ETS_TC_BW] = "qos.ets.tc-bw",
	[KEY_QOS_ETS_TSA] = "qos.ets.tsa",
	[KEY_QOS_MAXRATE] = "qos.maxrate",
	[KEY_QOS_PFC_DELAY] = "qos.pfc-delay",
	[KEY_QOS_BUFFER_PRIO] = "qos.buffer.prio-buffer",
	[KEY_QOS_BUFFER_SIZE] = "qos.buffer.size",
	[KEY_QOS_DCBX] = "qos.dcbx",
	[KEY_ECN_ROCE_NP] = "ecn.roce-np",
	[KEY_ECN_ROCE_RP] = "ecn.roce-rp",
	[KEY_ECN_CNP_DSCP] = "ecn.cnp-dscp",
	[KEY_ECN_CNP_PRIO] = "ecn.cnp-prio",
	[KEY_COUNTERS_OPTIONAL] = "counters.optional",
	[KEY_SECURITY_ROCE_ALLOW_FROM] = "security.roce-allow-from",
	[KEY_RDMA_NODE_DESCRIPTION] = "rdma.node-description",
	[KEY_SRIOV_VFS] = "sriov.vfs",
	[KEY_SRIOV_AUTOPROBE] = "sriov.autoprobe",
	[KEY_SRIOV_ESWITCH] = "sriov.eswitch",
	[KEY_SRIOV_VF] = "sriov.vf",
	[KEY_PCI_MAX_READ_REQUEST] = "pci.max-read-request",
	[KEY_PCI_UPSTREAM_ACS] = "pci.upstream-acs",
	[KEY_DEVLINK_PARAMS] = "devlink.params",
	[KEY_DEVLINK_RELOAD] = "devlink.reload",
	[KEY_PROBE_INTERVAL] = "probe.interval",
	[KEY_PROBE_TIMEOUT] = "probe.timeout",
	[KEY_PROBE_MESH] = "probe.mesh",
	[KEY_PROBE_PEERS] = "probe.peers",
	[KEY_PROBE_PORT] = "probe.port",
	[KEY_LINKS] = "links",
	[KEY_SYSTEM_NETNS_MODE] = "system.netns-mode",
};
DEFINE_STRING_TABLE_LOOKUP(key, Key)

void soft_devices_free(SoftDevice *l, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].netdev);
	}
	free(l);
}

void port_settings_done(PortSettings *s) {
	free(s->addresses);
	free(s->roce_allow_from);
	strv_free(s->counters_optional);
	free(s->node_description);
	free(s->sriov_vf);
	free(s->devlink_params);
	strv_free(s->probe_peers);
	*s = (PortSettings){ 0 };
}

Profile *profile_free(Profile *p) {
	if (!p)
		return NULL;
	free(p->file);
	free(p->name);
	strv_free(p->match.device);
	strv_free(p->match.driver);
	strv_free(p->match.netdev);
	strv_free(p->match.pci);
	free(p->match.ports);
	strv_free(p->modules);
	soft_devices_free(p->soft_devices, p->n_soft_devices);
	port_settings_done(&p->settings);
	free(p);
	return NULL;
}

Config *config_free(Config *c) {
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_profiles; i++)
		profile_free(c->profiles[i]);
	free(c->profiles);
	strv_free(c->files);
	free(c);
	return NULL;
}
