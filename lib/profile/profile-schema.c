/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The key table of the profile language, one row per key, and the lookups on it. The value
 * parsers the rows name are profile-parse.c, profile-values.c and profile-values-qos.c. */

#include "profile-values.h"
#include "rail.h"

#define PROFILE_FIELD(f) offsetof(Profile, f)

/* The profile language, one row per key. Sections are rows without a parser. */
/* clang-format off */
static const SchemaKey schema_table[] = {
	/* path               key                      parser                  offset                                   min  max */
	{ "match",            _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "match.device",     KEY_MATCH_DEVICE,        parse_globs,            PROFILE_FIELD(match.device),             0, 0 },
	{ "match.driver",     KEY_MATCH_DRIVER,        parse_globs,            PROFILE_FIELD(match.driver),             0, 0 },
	{ "match.netdev",     KEY_MATCH_NETDEV,        parse_globs,            PROFILE_FIELD(match.netdev),             0, 0 },
	{ "match.pci",        KEY_MATCH_PCI,           parse_globs,            PROFILE_FIELD(match.pci),                0, 0 },
	{ "match.port",       KEY_MATCH_PORT,          parse_ports,            PROFILE_FIELD(match),                    1, 255 },
	{ "modules",          KEY_MODULES,             parse_modules,          PROFILE_FIELD(modules),                  0, 0 },
	{ "roce",             _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "roce.mode",        KEY_ROCE_MODE,           parse_roce_mode,        PROFILE_FIELD(settings.roce_mode),       0, 0 },
	{ "roce.tos",         KEY_ROCE_TOS,            parse_unsigned,         PROFILE_FIELD(settings.roce_tos),        0, 255 },
	{ "netdev",           _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "netdev.up",        KEY_NETDEV_UP,           parse_bool,             PROFILE_FIELD(settings.netdev_up),       0, 0 },
	{ "netdev.mtu",       KEY_NETDEV_MTU,          parse_unsigned,         PROFILE_FIELD(settings.netdev_mtu),      68, 65535 },
	{ "netdev.addresses", KEY_NETDEV_ADDRESSES,    parse_addresses,        PROFILE_FIELD(settings),                 0, 0 },
	{ "netdev.rail-routing", KEY_NETDEV_RAIL_ROUTING, parse_rail_routing,  PROFILE_FIELD(settings),                 1, RAIL_TABLE_MAX },
	{ "netdev.pause",     _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "netdev.pause.autoneg", KEY_NETDEV_PAUSE_AUTONEG, parse_bool,        PROFILE_FIELD(settings.pause_autoneg),   0, 0 },
	{ "netdev.pause.rx",  KEY_NETDEV_PAUSE_RX,     parse_bool,             PROFILE_FIELD(settings.pause_rx),        0, 0 },
	{ "netdev.pause.tx",  KEY_NETDEV_PAUSE_TX,     parse_bool,             PROFILE_FIELD(settings.pause_tx),        0, 0 },
	{ "netdev.expect-speed", KEY_NETDEV_EXPECT_SPEED, parse_unsigned,      PROFILE_FIELD(settings.netdev_expect_speed), 10, 1600000 },
	{ "gids",             _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "gids.require",     KEY_GIDS_REQUIRE,        parse_gid_requirements, PROFILE_FIELD(settings.gids_require),    0, 0 },
	{ "gids.publish",     KEY_GIDS_PUBLISH,        parse_gid_publish,      PROFILE_FIELD(settings.gids_publish),    0, 0 },
	{ "qos",              _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "qos.owner",        KEY_QOS_OWNER,           parse_qos_owner,        PROFILE_FIELD(settings.qos_owner),       0, 0 },
	{ "qos.trust",        KEY_QOS_TRUST,           parse_qos_trust,        PROFILE_FIELD(settings.qos_trust),       0, 0 },
	{ "qos.pfc",          KEY_QOS_PFC,             parse_priorities,       PROFILE_FIELD(settings.qos_pfc),         0, 0 },
	{ "qos.dscp-map",     KEY_QOS_DSCP_MAP,        parse_dscp_map,         PROFILE_FIELD(settings.qos_dscp_map),    0, 0 },
	{ "qos.ets",          _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "qos.ets.prio-tc",  KEY_QOS_ETS_PRIO_TC,     parse_u8_array,         PROFILE_FIELD(settings.ets_prio_tc),     0, N_TC - 1 },
	{ "qos.ets.tc-bw",    KEY_QOS_ETS_TC_BW,       parse_u8_array,         PROFILE_FIELD(settings.ets_tc_bw),       0, 100 },
	{ "qos.ets.tsa",      KEY_QOS_ETS_TSA,         parse_tsa_array,        PROFILE_FIELD(settings.ets_tsa),         0, 0 },
	{ "qos.maxrate",      KEY_QOS_MAXRATE,         parse_maxrate,          PROFILE_FIELD(settings.qos_maxrate),     0, 0 },
	{ "qos.pfc-delay",    KEY_QOS_PFC_DELAY,       parse_unsigned,         PROFILE_FIELD(settings.qos_pfc_delay),   0, 65535 },
	{ "qos.buffer",       _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "qos.buffer.prio-buffer", KEY_QOS_BUFFER_PRIO, parse_u8_array,       PROFILE_FIELD(settings.qos_buffer_prio), 0, N_BUFFERS - 1 },
	{ "qos.buffer.size",  KEY_QOS_BUFFER_SIZE,     parse_u32_array,        PROFILE_FIELD(settings.qos_buffer_size), 0, UINT32_MAX },
	{ "qos.dcbx",         KEY_QOS_DCBX,            parse_dcbx,             PROFILE_FIELD(settings.qos_dcbx),        0, 0 },
	{ "ecn",              _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "ecn.roce-np",      KEY_ECN_ROCE_NP,         parse_priorities,       PROFILE_FIELD(settings.ecn_roce_np),     0, 0 },
	{ "ecn.roce-rp",      KEY_ECN_ROCE_RP,         parse_priorities,       PROFILE_FIELD(settings.ecn_roce_rp),     0, 0 },
	{ "ecn.cnp-dscp",     KEY_ECN_CNP_DSCP,        parse_unsigned,         PROFILE_FIELD(settings.ecn_cnp_dscp),    0, N_DSCP - 1 },
	{ "ecn.cnp-prio",     KEY_ECN_CNP_PRIO,        parse_unsigned,         PROFILE_FIELD(settings.ecn_cnp_prio),    0, N_PRIO - 1 },
	{ "counters",         _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "counters.optional", KEY_COUNTERS_OPTIONAL,  parse_counters,         PROFILE_FIELD(settings.counters_optional), 0, 0 },
	{ "security",         _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "security.roce-allow-from", KEY_SECURITY_ROCE_ALLOW_FROM, parse_roce_allow_from, PROFILE_FIELD(settings), 0, 0 },
	{ "rdma",             _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "rdma.node-description", KEY_RDMA_NODE_DESCRIPTION, parse_node_description, PROFILE_FIELD(settings.node_description), 0, NODE_DESC_MAX },
	{ "sriov",            _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "sriov.vfs",        KEY_SRIOV_VFS,           parse_unsigned,         PROFILE_FIELD(settings.sriov_vfs),       0, 65535 },
	{ "sriov.autoprobe",  KEY_SRIOV_AUTOPROBE,     parse_bool,             PROFILE_FIELD(settings.sriov_autoprobe), 0, 0 },
	{ "sriov.eswitch",    KEY_SRIOV_ESWITCH,       parse_eswitch_mode,     PROFILE_FIELD(settings.sriov_eswitch),   0, 0 },
	{ "sriov.vf",         KEY_SRIOV_VF,            parse_sriov_vf,         PROFILE_FIELD(settings),                 0, 65534 },
	{ "pci",              _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "pci.max-read-request", KEY_PCI_MAX_READ_REQUEST, parse_max_read_request, PROFILE_FIELD(settings.pci_max_read_request), 128, 4096 },
	{ "pci.upstream-acs", KEY_PCI_UPSTREAM_ACS,    parse_pci_acs,          PROFILE_FIELD(settings.pci_upstream_acs), 0, 0 },
	{ "devlink",          _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "devlink.params",   KEY_DEVLINK_PARAMS,      parse_devlink_params,   PROFILE_FIELD(settings),                 0, 0 },
	{ "devlink.reload",   KEY_DEVLINK_RELOAD,      parse_devlink_reload,   PROFILE_FIELD(settings.devlink_reload),  0, 0 },
	{ "probe",            _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "probe.interval",   KEY_PROBE_INTERVAL,      parse_duration_ms,      PROFILE_FIELD(settings.probe_interval_ms), 10, 3600000 },
	{ "probe.timeout",    KEY_PROBE_TIMEOUT,       parse_duration_ms,      PROFILE_FIELD(settings.probe_timeout_ms), 1, 60000 },
	{ "probe.mesh",       KEY_PROBE_MESH,          parse_probe_mesh,       PROFILE_FIELD(settings.probe_mesh),      0, 0 },
	{ "probe.peers",      KEY_PROBE_PEERS,         parse_probe_peers,      PROFILE_FIELD(settings.probe_peers),     0, PROBE_PEERS_MAX },
	{ "probe.port",       KEY_PROBE_PORT,          parse_unsigned,         PROFILE_FIELD(settings.probe_port),      1, 65535 },
	{ "links",            KEY_LINKS,               parse_links,            0,                                       0, 0 },
	{ "system",           _KEY_INVALID,            NULL,                   0,                                       0, 0 },
	{ "system.netns-mode", KEY_SYSTEM_NETNS_MODE,  parse_netns_mode,       PROFILE_FIELD(netns_mode),               0, 0 },
};
/* clang-format on */

const SchemaKey *schema_find(const char *path) {
	for (size_t i = 0; i < ELEMENTSOF(schema_table); i++)
		if (streq(schema_table[i].path, path))
			return &schema_table[i];
	return NULL;
}

const SchemaKey *schema_keys(size_t *ret_n) {
	*ret_n = ELEMENTSOF(schema_table);
	return schema_table;
}

static size_t edit_distance(const char *a, const char *b) {
	size_t la = strlen(a), lb = strlen(b), prev[64], cur[64];

	if (la >= 63 || lb >= 63)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(size_t) * (lb + 1));
	}
	return prev[lb];
}

const char *schema_suggest(const char *parent, const char *name) {
	size_t plen = parent ? strlen(parent) : 0, best = SIZE_MAX;
	const char *found = NULL;

	for (size_t i = 0; i < ELEMENTSOF(schema_table); i++) {
		const char *path = schema_table[i].path, *leaf;
		size_t d;

		if (parent) {
			if (strncmp(path, parent, plen) != 0 || path[plen] != '.')
				continue;
			leaf = path + plen + 1;
		} else
			leaf = path;
		if (strchr(leaf, '.'))
			continue;
		d = edit_distance(name, leaf);
		/* Close enough: a typo or two, not a different word. */
		if (d < best && d <= (strlen(leaf) <= 3 ? 1 : 2)) {
			best = d;
			found = leaf;
		}
	}
	return found;
}
