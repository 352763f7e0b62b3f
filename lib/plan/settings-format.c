/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dcbnl.h"
#include "firewall.h"
#include "rail.h"
#include "settings-format.h"
#include "strv.h"

/* probe.interval, probe.timeout: as declared, "1s" rather than "1000ms" */
static void setting_format_duration_ms(unsigned ms, FILE *f) {
	if (ms > 0 && ms % 1000 == 0)
		fprintf(f, "%us", ms / 1000);
	else
		fprintf(f, "%ums", ms);
}

void setting_format_priorities(uint8_t mask, char buf[32]) {
	char *p = buf;

	*p++ = '[';
	for (unsigned i = 0; i < N_PRIO; i++)
		if (mask & (1u << i))
			p += sprintf(p, "%s%u", p > buf + 1 ? "," : "", i);
	*p++ = ']';
	*p = 0;
}

/* "pfc-enabled 3,4", "pfc-enabled none" */
void setting_format_pfc(uint8_t mask, char buf[32]) {
	char *p = buf + sprintf(buf, "pfc-enabled ");

	if (mask == 0) {
		strcpy(p, "none");
		return;
	}
	for (unsigned i = 0; i < N_PRIO; i++)
		if (mask & (1u << i))
			p += sprintf(p, "%s%u", p[-1] == ' ' ? "" : ",", i);
}

/* "prio-tc 0:0 1:0 2:0 3:3 ...", as dcb-ets(8) shows it. */
void setting_format_u8_map(const char *name, const uint8_t v[8], char buf[64]) {
	char *p = buf + sprintf(buf, "%s", name);

	for (unsigned i = 0; i < 8; i++)
		p += sprintf(p, " %u:%u", i, v[i]);
}

/* "buffer-size 0:130944 1:0 ...": bytes per buffer. */
void setting_format_buffer_size(const uint32_t v[N_BUFFERS], char buf[128]) {
	char *p = buf + sprintf(buf, "buffer-size");

	for (unsigned i = 0; i < N_BUFFERS; i++)
		p += sprintf(p, " %u:%" PRIu32, i, v[i]);
}

/* "host ieee", as `dcb dcbx show` words the DCB_CAP_DCBX_* bits; "none" for no bit. */
void setting_format_dcbx(uint8_t bits, char buf[48]) {
	static const struct {
		uint8_t bit;
		const char *word;
	} words[] = {
		{ DCB_CAP_DCBX_HOST, "host" },	   { DCB_CAP_DCBX_LLD_MANAGED, "lld-managed" },
		{ DCB_CAP_DCBX_VER_CEE, "cee" },   { DCB_CAP_DCBX_VER_IEEE, "ieee" },
		{ DCB_CAP_DCBX_STATIC, "static" },
	};
	char *p = buf;

	*p = 0;
	for (size_t i = 0; i < ELEMENTSOF(words); i++)
		if (bits & words[i].bit)
			p += sprintf(p, "%s%s", p > buf ? " " : "", words[i].word);
	if (p == buf)
		strcpy(buf, "none");
}

void setting_format_tsa(const uint8_t kernel_tsa[N_TC], char buf[128]) {
	char *p = buf + sprintf(buf, "tc-tsa");

	for (unsigned i = 0; i < N_TC; i++) {
		EtsTsa t = ets_tsa_from_kernel(kernel_tsa[i]);

		if (t < 0)
			p += sprintf(p, " %u:%u", i, kernel_tsa[i]);
		else
			p += sprintf(p, " %u:%s", i, ets_tsa_to_string(t));
	}
}

/* "25Gbit", "2500Mbit" */
static void format_rate(uint64_t kbit, char *buf, size_t size) {
	static const char *const units[] = { "kbit", "Mbit", "Gbit", "Tbit" };
	unsigned u = 0;

	while (u + 1 < ELEMENTSOF(units) && kbit % 1000 == 0) {
		kbit /= 1000;
		u++;
	}
	snprintf(buf, size, "%llu%s", (unsigned long long) kbit, units[u]);
}

/* "tc-maxrate 3:25Gbit 6:100Mbit": the classes with a limit; "tc-maxrate unlimited" */
void setting_format_maxrate(const uint64_t v[N_TC], char buf[256]) {
	char *p = buf + sprintf(buf, "tc-maxrate");

	for (unsigned i = 0; i < N_TC; i++) {
		char rate[32];

		if (v[i] == 0)
			continue;
		format_rate(v[i], rate, sizeof(rate));
		p += sprintf(p, " %u:%s", i, rate);
	}
	if (p == buf + strlen("tc-maxrate"))
		strcpy(p, " unlimited");
}

/* "dscp-prio 26:3 48:6", as dcb-app(8) shows it; several priorities of one DSCP each listed. */
char *setting_format_dscp_prio(const uint8_t prio[N_DSCP]) {
	char *buf = malloc(16 + N_DSCP * N_PRIO * 6), *p;

	if (!buf)
		return NULL;
	p = buf + sprintf(buf, "dscp-prio");
	for (unsigned d = 0; d < N_DSCP; d++)
		for (unsigned i = 0; i < N_PRIO; i++)
			if (prio[d] & (1u << i))
				p += sprintf(p, " %u:%u", d, i);
	if (p == buf + strlen("dscp-prio"))
		strcpy(p, " none");
	return buf;
}

/* The declared map as the app table would hold it. */
void setting_dscp_map_table(const int8_t map[N_DSCP], uint8_t ret[N_DSCP]) {
	for (unsigned d = 0; d < N_DSCP; d++)
		ret[d] = map[d] >= 0 ? (uint8_t) (1u << map[d]) : 0;
}

const char *setting_format_trust(const PortSettings *s) {
	if (s->qos_trust != QOS_TRUST_DSCP)
		return "pcp (no DSCP app entries, no apptrust)";
	if (s->set & KEY_BIT(KEY_QOS_DSCP_MAP))
		return "dscp (DSCP app entries of qos.dscp-map)";
	return "dscp (DSCP app entries dscp>>3, no apptrust)";
}

char *setting_format_counters(char *const *names) {
	size_t len = 1;
	char *s;

	if (!names || !names[0])
		return strdup("none");
	for (char *const *n = names; *n; n++)
		len += strlen(*n) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (char *const *n = names; *n; n++) {
		if (n != names)
			strcat(s, ",");
		strcat(s, *n);
	}
	return s;
}

/* A declared value as text: for status rows of settings that are converged (no plan action
 * carries their desired value). */
static int format_value(FILE *f, const PortSettings *s, Key key) {
	_cleanup_free_ char *dscp = NULL;
	uint8_t table[N_DSCP], tsa[N_TC];
	char buf[256];
	bool first = true;

	switch (key) {
	case KEY_ROCE_MODE:
		fputs(roce_mode_to_string(s->roce_mode), f);
		break;
	case KEY_ROCE_TOS:
		fprintf(f, "%u", s->roce_tos);
		break;
	case KEY_NETDEV_UP:
		fputs(s->netdev_up ? "up" : "down", f);
		break;
	case KEY_NETDEV_MTU:
		fprintf(f, "%u", s->netdev_mtu);
		break;
	case KEY_NETDEV_EXPECT_SPEED:
		fprintf(f, "%u Mb/s", s->netdev_expect_speed);
		break;
	case KEY_NETDEV_ADDRESSES:
		for (size_t i = 0; i < s->n_addresses; i++) {
			_cleanup_free_ char *a = address_to_string(&s->addresses[i]);

			if (!a)
				return -ENOMEM;
			fprintf(f, "%s%s", i > 0 ? " " : "", a);
		}
		break;
	case KEY_NETDEV_RAIL_ROUTING:
		if (!s->rail_routing)
			fputs("false", f);
		else if (s->rail_table == 0)
			fprintf(f, "true (table %" PRIu32 " + ifindex)", RAIL_TABLE_BASE);
		else
			fprintf(f, "table %" PRIu32, s->rail_table);
		break;
	case KEY_GIDS_REQUIRE:
		for (GidRequirement g = 0; g < _GID_REQUIREMENT_MAX; g++)
			if (s->gids_require & (1u << g)) {
				fprintf(f, "%s%s", first ? "" : ",", gid_requirement_to_string(g));
				first = false;
			}
		break;
	case KEY_GIDS_PUBLISH: {
		const GidChoice *c = &s->gids_publish;
		char net[INET6_ADDRSTRLEN] = "";

		/* the profile's own words: "roce v2, family ipv4, subnet 192.0.2.0/24" */
		fprintf(f, "roce %s, family %s", c->type == GID_TYPE_ROCE_V1 ? "v1" : "v2",
			c->family >= 0 ? gid_family_to_string(c->family) : "ipv4 else ipv6");
		if (c->subnet_family && inet_ntop(c->subnet_family, c->subnet, net, sizeof(net)))
			fprintf(f, ", subnet %s/%u", net, c->subnet_prefixlen);
		break;
	}
	case KEY_QOS_TRUST:
		fputs(setting_format_trust(s), f);
		break;
	case KEY_QOS_OWNER:
		fputs(qos_owner_to_string(s->qos_owner), f);
		break;
	case KEY_QOS_PFC:
		setting_format_pfc(s->qos_pfc, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_DSCP_MAP:
		setting_dscp_map_table(s->qos_dscp_map, table);
		dscp = setting_format_dscp_prio(table);
		if (!dscp)
			return -ENOMEM;
		fputs(dscp, f);
		break;
	case KEY_QOS_ETS_PRIO_TC:
		setting_format_u8_map("prio-tc", s->ets_prio_tc, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_ETS_TC_BW:
		setting_format_u8_map("tc-bw", s->ets_tc_bw, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_ETS_TSA:
		for (unsigned i = 0; i < N_TC; i++)
			tsa[i] = ets_tsa_to_kernel(s->ets_tsa[i]);
		setting_format_tsa(tsa, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_MAXRATE:
		setting_format_maxrate(s->qos_maxrate, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_PFC_DELAY:
		fprintf(f, "delay %u", s->qos_pfc_delay);
		break;
	case KEY_QOS_BUFFER_PRIO:
		setting_format_u8_map("prio-buffer", s->qos_buffer_prio, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_BUFFER_SIZE:
		setting_format_buffer_size(s->qos_buffer_size, buf);
		fputs(buf, f);
		break;
	case KEY_QOS_DCBX:
		setting_format_dcbx(s->qos_dcbx, buf);
		fputs(buf, f);
		break;
	case KEY_NETDEV_PAUSE_AUTONEG:
		fputs(s->pause_autoneg ? "on" : "off", f);
		break;
	case KEY_NETDEV_PAUSE_RX:
		fputs(s->pause_rx ? "on" : "off", f);
		break;
	case KEY_NETDEV_PAUSE_TX:
		fputs(s->pause_tx ? "on" : "off", f);
		break;
	case KEY_ECN_CNP_DSCP:
		fprintf(f, "%u", s->ecn_cnp_dscp);
		break;
	case KEY_ECN_CNP_PRIO:
		fprintf(f, "%u", s->ecn_cnp_prio);
		break;
	case KEY_ECN_ROCE_NP:
		setting_format_priorities(s->ecn_roce_np, buf);
		fputs(buf, f);
		break;
	case KEY_ECN_ROCE_RP:
		setting_format_priorities(s->ecn_roce_rp, buf);
		fputs(buf, f);
		break;
	case KEY_RDMA_NODE_DESCRIPTION:
		fputs(s->node_description, f);
		break;
	case KEY_SRIOV_VFS:
		fprintf(f, "%u", s->sriov_vfs);
		break;
	case KEY_SRIOV_AUTOPROBE:
		fputs(s->sriov_autoprobe ? "true" : "false", f);
		break;
	case KEY_SRIOV_ESWITCH:
		fputs(eswitch_mode_to_string(s->sriov_eswitch), f);
		break;
	case KEY_PCI_MAX_READ_REQUEST:
		fprintf(f, "%u", s->pci_max_read_request);
		break;
	case KEY_PCI_UPSTREAM_ACS:
		fputs(pci_acs_to_string(s->pci_upstream_acs), f);
		break;
	case KEY_DEVLINK_PARAMS:
		for (size_t i = 0; i < s->n_devlink_params; i++)
			fprintf(f, "%s%s=%s (%s)", i ? ", " : "", s->devlink_params[i].name,
				s->devlink_params[i].value,
				devlink_cmode_to_string(s->devlink_params[i].cmode));
		break;
	case KEY_DEVLINK_RELOAD:
		fputs(devlink_reload_to_string(s->devlink_reload), f);
		break;
	case KEY_SRIOV_VF: {
		_cleanup_free_ char *c = setting_format_vfs(s->sriov_vf, s->n_sriov_vf);

		if (!c)
			return -ENOMEM;
		fputs(c, f);
		break;
	}
	case KEY_COUNTERS_OPTIONAL: {
		_cleanup_free_ char *c = setting_format_counters(s->counters_optional);

		if (!c)
			return -ENOMEM;
		fputs(c, f);
		break;
	}
	case KEY_PROBE_INTERVAL:
		setting_format_duration_ms(s->probe_interval_ms, f);
		break;
	case KEY_PROBE_TIMEOUT:
		setting_format_duration_ms(s->probe_timeout_ms, f);
		break;
	case KEY_PROBE_MESH:
		fputs(probe_mesh_to_string(s->probe_mesh), f);
		break;
	case KEY_PROBE_PEERS:
		if (!s->probe_peers || !s->probe_peers[0])
			fputs("none", f);
		STRV_FOREACH (p, s->probe_peers)
			fprintf(f, "%s%s", p == s->probe_peers ? "" : " ", *p);
		break;
	case KEY_PROBE_PORT:
		fprintf(f, "%u", s->probe_port);
		break;
	case KEY_SECURITY_ROCE_ALLOW_FROM: {
		_cleanup_free_ char *c =
			firewall_allow_format(s->roce_allow_from, s->n_roce_allow_from);

		if (!c)
			return -ENOMEM;
		fputs(c, f);
		break;
	}
	default:
		fputs("(declared)", f);
	}
	return 0;
}

static void vf_format_to(FILE *f, const SriovVf *vf, uint32_t mask) {
	const char *sep = "";

#define FIELD(bit, name, ...)                    \
	if (mask & VF_BIT(bit)) {                \
		fputs(sep, f);                   \
		if (vf->set & VF_BIT(bit))       \
			fprintf(f, __VA_ARGS__); \
		else                             \
			fputs(name " ?", f);     \
		sep = ", ";                      \
	}
	fprintf(f, "vf %u ", vf->index);
	FIELD(VF_MAC, "mac", "mac %02x:%02x:%02x:%02x:%02x:%02x", vf->mac[0], vf->mac[1],
	      vf->mac[2], vf->mac[3], vf->mac[4], vf->mac[5]);
	FIELD(VF_VLAN, "vlan", "vlan %u", vf->vlan);
	FIELD(VF_QOS, "qos", "qos %u", vf->qos);
	FIELD(VF_VLAN_PROTO, "vlan protocol", "vlan protocol %s",
	      vf->vlan_proto == 0x88a8 ? "802.1ad" : "802.1Q");
	FIELD(VF_SPOOF_CHECK, "spoof checking", "spoof checking %s",
	      vf->spoof_check ? "on" : "off");
	FIELD(VF_LINK_STATE, "link-state", "link-state %s",
	      vf_link_state_to_string(vf->link_state) ? vf_link_state_to_string(vf->link_state)
						      : "unknown");
	FIELD(VF_TRUST, "trust", "trust %s", vf->trust ? "on" : "off");
	FIELD(VF_MAX_RATE, "max_tx_rate", "max_tx_rate %uMbps", vf->max_rate);
	FIELD(VF_MIN_RATE, "min_tx_rate", "min_tx_rate %uMbps", vf->min_rate);
	FIELD(VF_NODE_GUID, "node guid", "node guid %016" PRIx64, vf->node_guid);
	FIELD(VF_PORT_GUID, "port guid", "port guid %016" PRIx64, vf->port_guid);
#undef FIELD
}

/* n VFs, "; " between them, each with the fields in mask (0: each its own set); "none" for 0. */
static char *vfs_format(const SriovVf *vfs, size_t n, uint32_t mask) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	if (n == 0)
		fputs("none", f);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			fputs("; ", f);
		vf_format_to(f, &vfs[i], mask ? mask : vfs[i].set);
	}
	if (fclose(f) != 0)
		return NULL;
	return TAKE_PTR(buf);
}

char *setting_format_vf(const SriovVf *vf, uint32_t mask) {
	return vfs_format(vf, 1, mask);
}

char *setting_format_vfs(const SriovVf *vfs, size_t n) {
	return vfs_format(vfs, n, 0);
}

int port_setting_format(const PortSettings *s, Key key, char **ret) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	r = format_value(f, s, key);
	if (fclose(f) != 0 || r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}

/* "pfc-enabled none" / "pfc-enabled 3,5" -> "[]" / "[3, 5]" */
static int pfc_to_profile(const char *s, FILE *f) {
	if (strncmp(s, "pfc-enabled ", strlen("pfc-enabled ")) != 0)
		return -EINVAL;
	s += strlen("pfc-enabled ");
	if (streq(s, "none")) {
		fputs("[]", f);
		return 0;
	}
	fputc('[', f);
	for (bool first = true; *s; first = false) {
		char *end;
		unsigned long p = strtoul(s, &end, 10);

		if (end == s || p >= N_PRIO || (*end && *end != ','))
			return -EINVAL;
		fprintf(f, "%s%lu", first ? "" : ", ", p);
		s = *end ? end + 1 : end;
	}
	fputc(']', f);
	return 0;
}

/* "dscp-prio none" / "dscp-prio 24:3 26:3" -> "{}" / "{24: 3, 26: 3}"; a DSCP twice (the app
 * table can hold two priorities for one DSCP, a profile's map cannot) is -EOPNOTSUPP */
static int dscp_prio_to_profile(const char *s, FILE *f) {
	bool seen[N_DSCP] = { false };

	if (strncmp(s, "dscp-prio ", strlen("dscp-prio ")) != 0)
		return -EINVAL;
	s += strlen("dscp-prio ");
	if (streq(s, "none")) {
		fputs("{}", f);
		return 0;
	}
	fputc('{', f);
	for (bool first = true; *s; first = false) {
		unsigned long d, p;
		char *end;

		d = strtoul(s, &end, 10);
		if (end == s || *end != ':' || d >= N_DSCP)
			return -EINVAL;
		s = end + 1;
		p = strtoul(s, &end, 10);
		if (end == s || p >= N_PRIO || (*end && *end != ' '))
			return -EINVAL;
		if (seen[d])
			return -EOPNOTSUPP;
		seen[d] = true;
		fprintf(f, "%s%lu: %lu", first ? "" : ", ", d, p);
		s = *end ? end + 1 : end;
	}
	fputc('}', f);
	return 0;
}

int setting_current_to_profile(Key key, const char *current, char **ret) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r, ok;

	if (!current)
		return -EINVAL;
	switch (key) {
	case KEY_ROCE_MODE:
	case KEY_ROCE_TOS:
	case KEY_NETDEV_MTU:
		buf = strdup(current);
		if (!buf)
			return -ENOMEM;
		*ret = TAKE_PTR(buf);
		return 0;
	case KEY_NETDEV_UP:
		buf = strdup(streq(current, "up") ? "true" : "false");
		if (!buf)
			return -ENOMEM;
		*ret = TAKE_PTR(buf);
		return 0;
	case KEY_QOS_PFC:
	case KEY_QOS_DSCP_MAP:
		break;
	default:
		return -EOPNOTSUPP;
	}
	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	r = key == KEY_QOS_PFC ? pfc_to_profile(current, f) : dscp_prio_to_profile(current, f);
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok)
		return -ENOMEM;
	if (r < 0)
		return r;
	*ret = TAKE_PTR(buf);
	return 0;
}
