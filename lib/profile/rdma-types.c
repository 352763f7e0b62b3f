/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "rdma-types.h"

static const char *const roce_mode_table[_ROCE_MODE_MAX] = {
	[ROCE_MODE_V1] = "v1",
	[ROCE_MODE_V2] = "v2",
};
DEFINE_STRING_TABLE_LOOKUP(roce_mode, RoceMode)

static const char *const roce_mode_configfs_table[_ROCE_MODE_MAX] = {
	[ROCE_MODE_V1] = "IB/RoCE v1",
	[ROCE_MODE_V2] = "RoCE v2",
};
DEFINE_STRING_TABLE_LOOKUP(roce_mode_configfs, RoceMode)

static const char *const gid_type_table[_GID_TYPE_MAX] = {
	[GID_TYPE_IB] = "IB",
	[GID_TYPE_ROCE_V1] = "RoCE v1",
	[GID_TYPE_ROCE_V2] = "RoCE v2",
};
DEFINE_STRING_TABLE_LOOKUP(gid_type, GidType)

static const char *const gid_family_table[_GID_FAMILY_MAX] = {
	[GID_FAMILY_IPV4] = "ipv4",
	[GID_FAMILY_IPV6] = "ipv6",
	[GID_FAMILY_LINK_LOCAL] = "link-local",
};
DEFINE_STRING_TABLE_LOOKUP(gid_family, GidFamily)

static const char *const gid_requirement_table[_GID_REQUIREMENT_MAX] = {
	[GID_REQUIREMENT_ROCE_V1_IPV4] = "roce-v1-ipv4",
	[GID_REQUIREMENT_ROCE_V1_IPV6] = "roce-v1-ipv6",
	[GID_REQUIREMENT_ROCE_V1_LINK_LOCAL] = "roce-v1-link-local",
	[GID_REQUIREMENT_ROCE_V1_ANY] = "roce-v1-any",
	[GID_REQUIREMENT_ROCE_V2_IPV4] = "roce-v2-ipv4",
	[GID_REQUIREMENT_ROCE_V2_IPV6] = "roce-v2-ipv6",
	[GID_REQUIREMENT_ROCE_V2_LINK_LOCAL] = "roce-v2-link-local",
	[GID_REQUIREMENT_ROCE_V2_ANY] = "roce-v2-any",
};
DEFINE_STRING_TABLE_LOOKUP(gid_requirement, GidRequirement)

static const char *const port_state_table[_PORT_STATE_MAX] = {
	[PORT_STATE_NOP] = "NOP",	[PORT_STATE_DOWN] = "DOWN",
	[PORT_STATE_INIT] = "INIT",	[PORT_STATE_ARMED] = "ARMED",
	[PORT_STATE_ACTIVE] = "ACTIVE", [PORT_STATE_ACTIVE_DEFER] = "ACTIVE_DEFER",
};
DEFINE_STRING_TABLE_LOOKUP(port_state, PortState)

static const char *const port_phys_state_table[_PORT_PHYS_STATE_MAX] = {
	[PORT_PHYS_STATE_UNKNOWN] = "UNKNOWN",
	[PORT_PHYS_STATE_SLEEP] = "SLEEP",
	[PORT_PHYS_STATE_POLLING] = "POLLING",
	[PORT_PHYS_STATE_DISABLED] = "DISABLED",
	[PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] = "PORT_CONFIGURATION_TRAINING",
	[PORT_PHYS_STATE_LINK_UP] = "LINK_UP",
	[PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LINK_ERROR_RECOVERY",
	[PORT_PHYS_STATE_PHY_TEST] = "PHY_TEST",
};
DEFINE_STRING_TABLE_LOOKUP(port_phys_state, PortPhysState)

static const char *const link_layer_table[_LINK_LAYER_MAX] = {
	[LINK_LAYER_INFINIBAND] = "InfiniBand",
	[LINK_LAYER_ETHERNET] = "Ethernet",
};
DEFINE_STRING_TABLE_LOOKUP(link_layer, LinkLayer)

static const char *const qos_trust_table[_QOS_TRUST_MAX] = {
	[QOS_TRUST_PCP] = "pcp",
	[QOS_TRUST_DSCP] = "dscp",
};
DEFINE_STRING_TABLE_LOOKUP(qos_trust, QosTrust)

static const char *const qos_owner_table[_QOS_OWNER_MAX] = {
	[QOS_OWNER_AUTO] = "auto",
	[QOS_OWNER_RDMAD] = "rdmad",
};
DEFINE_STRING_TABLE_LOOKUP(qos_owner, QosOwner)

static const char *const ets_tsa_table[_ETS_TSA_MAX] = {
	[ETS_TSA_STRICT] = "strict",
	[ETS_TSA_CBS] = "cbs",
	[ETS_TSA_ETS] = "ets",
	[ETS_TSA_VENDOR] = "vendor",
};
DEFINE_STRING_TABLE_LOOKUP(ets_tsa, EtsTsa)

static const char *const netns_mode_table[_NETNS_MODE_MAX] = {
	[NETNS_MODE_EXCLUSIVE] = "exclusive",
	[NETNS_MODE_SHARED] = "shared",
};
DEFINE_STRING_TABLE_LOOKUP(netns_mode, NetnsMode)

static const char *const vf_link_state_table[_VF_LINK_STATE_MAX] = {
	[VF_LINK_STATE_AUTO] = "auto",
	[VF_LINK_STATE_ENABLE] = "enable",
	[VF_LINK_STATE_DISABLE] = "disable",
};
DEFINE_STRING_TABLE_LOOKUP(vf_link_state, VfLinkState)

static const char *const vlan_protocol_table[_VLAN_PROTOCOL_MAX] = {
	[VLAN_PROTOCOL_8021Q] = "802.1Q",
	[VLAN_PROTOCOL_8021AD] = "802.1ad",
};
DEFINE_STRING_TABLE_LOOKUP(vlan_protocol, VlanProtocol)

uint16_t vlan_protocol_to_ethertype(VlanProtocol p) {
	return p == VLAN_PROTOCOL_8021AD ? 0x88a8 : 0x8100; /* ETH_P_8021AD, ETH_P_8021Q */
}

VlanProtocol vlan_protocol_from_ethertype(uint16_t ethertype) {
	return ethertype == 0x8100   ? VLAN_PROTOCOL_8021Q
	       : ethertype == 0x88a8 ? VLAN_PROTOCOL_8021AD
				     : _VLAN_PROTOCOL_INVALID;
}

static const char *const eswitch_mode_table[_ESWITCH_MODE_MAX] = {
	[ESWITCH_MODE_LEGACY] = "legacy",
	[ESWITCH_MODE_SWITCHDEV] = "switchdev",
};
DEFINE_STRING_TABLE_LOOKUP(eswitch_mode, EswitchMode)

static const char *const probe_mesh_table[_PROBE_MESH_MAX] = {
	[PROBE_MESH_NONE] = "none",
	[PROBE_MESH_LOCAL] = "local",
};
DEFINE_STRING_TABLE_LOOKUP(probe_mesh, ProbeMesh)

static const char *const pci_acs_table[_PCI_ACS_MAX] = {
	[PCI_ACS_KEEP] = "keep",
	[PCI_ACS_OFF] = "off",
	[PCI_ACS_ON] = "on",
};
DEFINE_STRING_TABLE_LOOKUP(pci_acs, PciAcs)

static const char *const soft_device_type_table[_SOFT_DEVICE_MAX] = {
	[SOFT_DEVICE_RXE] = "rxe",
	[SOFT_DEVICE_SIW] = "siw",
};
DEFINE_STRING_TABLE_LOOKUP(soft_device_type, SoftDeviceType)

static const char *const soft_device_driver_table[_SOFT_DEVICE_MAX] = {
	[SOFT_DEVICE_RXE] = "rdma_rxe",
	[SOFT_DEVICE_SIW] = "siw",
};
DEFINE_STRING_TABLE_LOOKUP(soft_device_driver, SoftDeviceType)

static bool name_char_ok(char c) {
	/* printable ASCII but space; the kernel allows more, a profile has no need for it */
	return c > ' ' && c < 0x7f && c != '/' && c != '%';
}

static bool name_valid(const char *name, size_t max, const char *also_refused) {
	size_t n;

	if (!name)
		return false;
	n = strnlen(name, max);
	if (n == 0 || n >= max || streq(name, ".") || streq(name, ".."))
		return false;
	for (const char *p = name; *p; p++)
		if (!name_char_ok(*p) || strchr(also_refused, *p))
			return false;
	return true;
}

bool rdma_device_name_valid(const char *name) {
	return name_valid(name, RDMA_DEVICE_NAME_MAX, "");
}

bool netdev_name_valid(const char *name) {
	return name_valid(name, NETDEV_NAME_MAX, ":");
}

int port_name_parse(const char *s, char *device, size_t size, uint32_t *ret_port) {
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t) (slash - s) : strlen(s);
	unsigned long port = 0;
	char *end;

	if (n == 0 || n >= size)
		return -EINVAL;
	if (slash) {
		/* digits, the first not 0: "rxe0/01" and "rxe0/+1" are not names */
		if (slash[1] < '1' || slash[1] > '9')
			return -EINVAL;
		port = strtoul(slash + 1, &end, 10);
		if (*end || port == 0 || port > 255)
			return -EINVAL;
	}
	memcpy(device, s, n);
	device[n] = 0;
	*ret_port = (uint32_t) port;
	return 0;
}
