/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small enums shared by the profile language, the host model and the planner. Each has a
 * string table (rdma-types.c) and a round-trip test. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "string-table.h"

typedef enum RoceMode {
	ROCE_MODE_V1,
	ROCE_MODE_V2,
	_ROCE_MODE_MAX,
	_ROCE_MODE_INVALID = -EINVAL,
} RoceMode;
/* "v1" / "v2": the profile spelling. */
DECLARE_STRING_TABLE_LOOKUP(roce_mode, RoceMode)
/* "IB/RoCE v1" / "RoCE v2": what configfs default_roce_mode reads and accepts. */
DECLARE_STRING_TABLE_LOOKUP(roce_mode_configfs, RoceMode)

typedef enum GidType {
	GID_TYPE_IB,
	GID_TYPE_ROCE_V1,
	GID_TYPE_ROCE_V2,
	_GID_TYPE_MAX,
	_GID_TYPE_INVALID = -EINVAL,
} GidType;
DECLARE_STRING_TABLE_LOOKUP(gid_type, GidType)

/* What a GID is derived from: the four families gids.require talks about. */
typedef enum GidFamily {
	GID_FAMILY_IPV4,
	GID_FAMILY_IPV6,       /* global (non link-local) IPv6 */
	GID_FAMILY_LINK_LOCAL, /* fe80::/64 */
	_GID_FAMILY_MAX,
	_GID_FAMILY_INVALID = -EINVAL,
} GidFamily;
DECLARE_STRING_TABLE_LOOKUP(gid_family, GidFamily)

/* Which GID a link publishes for jobs (gids.publish; gid.h's gid_chosen()): a RoCE version, an
 * address family, and optionally a subnet the GID's address must be in. */
typedef struct GidChoice {
	GidType type;	  /* _GID_TYPE_INVALID: RoCE v2 */
	GidFamily family; /* _GID_FAMILY_INVALID: IPv4, else global IPv6 */
	int subnet_family; /* AF_INET, AF_INET6, or 0: no subnet */
	uint8_t subnet[16];
	uint8_t subnet_prefixlen;
} GidChoice;
#define GID_CHOICE_DEFAULT \
	((GidChoice) { .type = _GID_TYPE_INVALID, .family = _GID_FAMILY_INVALID })

/* gids.require entries: roce-v1|roce-v2 x ipv4|ipv6|link-local|any. */
typedef enum GidRequirement {
	GID_REQUIREMENT_ROCE_V1_IPV4,
	GID_REQUIREMENT_ROCE_V1_IPV6,
	GID_REQUIREMENT_ROCE_V1_LINK_LOCAL,
	GID_REQUIREMENT_ROCE_V1_ANY,
	GID_REQUIREMENT_ROCE_V2_IPV4,
	GID_REQUIREMENT_ROCE_V2_IPV6,
	GID_REQUIREMENT_ROCE_V2_LINK_LOCAL,
	GID_REQUIREMENT_ROCE_V2_ANY,
	_GID_REQUIREMENT_MAX,
	_GID_REQUIREMENT_INVALID = -EINVAL,
} GidRequirement;
DECLARE_STRING_TABLE_LOOKUP(gid_requirement, GidRequirement)

/* IB port states, numbered as in sysfs "4: ACTIVE" and as rdma(8) names them. */
typedef enum PortState {
	PORT_STATE_NOP,
	PORT_STATE_DOWN,
	PORT_STATE_INIT,
	PORT_STATE_ARMED,
	PORT_STATE_ACTIVE,
	PORT_STATE_ACTIVE_DEFER,
	_PORT_STATE_MAX,
	_PORT_STATE_INVALID = -EINVAL,
} PortState;
DECLARE_STRING_TABLE_LOOKUP(port_state, PortState)

typedef enum PortPhysState {
	PORT_PHYS_STATE_UNKNOWN, /* 0 is not defined by the IB spec */
	PORT_PHYS_STATE_SLEEP,
	PORT_PHYS_STATE_POLLING,
	PORT_PHYS_STATE_DISABLED,
	PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING,
	PORT_PHYS_STATE_LINK_UP,
	PORT_PHYS_STATE_LINK_ERROR_RECOVERY,
	PORT_PHYS_STATE_PHY_TEST,
	_PORT_PHYS_STATE_MAX,
	_PORT_PHYS_STATE_INVALID = -EINVAL,
} PortPhysState;
DECLARE_STRING_TABLE_LOOKUP(port_phys_state, PortPhysState)

typedef enum LinkLayer {
	LINK_LAYER_INFINIBAND,
	LINK_LAYER_ETHERNET,
	_LINK_LAYER_MAX,
	_LINK_LAYER_INVALID = -EINVAL,
} LinkLayer;
DECLARE_STRING_TABLE_LOOKUP(link_layer, LinkLayer)

typedef enum QosTrust {
	QOS_TRUST_PCP,
	QOS_TRUST_DSCP,
	_QOS_TRUST_MAX,
	_QOS_TRUST_INVALID = -EINVAL,
} QosTrust;
DECLARE_STRING_TABLE_LOOKUP(qos_trust, QosTrust)

/* qos.owner: "auto" (the default) leaves a port alone that an LLDP/DCBX agent manages (the
 * firmware's, or a host agent such as lldpad with the willing bit set) and says so; "rdmad"
 * writes the declared values regardless. */
typedef enum QosOwner {
	QOS_OWNER_AUTO,
	QOS_OWNER_RDMAD,
	_QOS_OWNER_MAX,
	_QOS_OWNER_INVALID = -EINVAL,
} QosOwner;
DECLARE_STRING_TABLE_LOOKUP(qos_owner, QosOwner)

/* IEEE 802.1Qaz transmission selection algorithms, named as dcb-ets(8) names them. */
typedef enum EtsTsa {
	ETS_TSA_STRICT,
	ETS_TSA_CBS,
	ETS_TSA_ETS,
	ETS_TSA_VENDOR,
	_ETS_TSA_MAX,
	_ETS_TSA_INVALID = -EINVAL,
} EtsTsa;
DECLARE_STRING_TABLE_LOOKUP(ets_tsa, EtsTsa)

typedef enum NetnsMode {
	NETNS_MODE_EXCLUSIVE, /* RDMA_NLDEV_SYS_ATTR_NETNS_MODE 0 */
	NETNS_MODE_SHARED,    /* 1, the kernel default */
	_NETNS_MODE_MAX,
	_NETNS_MODE_INVALID = -EINVAL,
} NetnsMode;
DECLARE_STRING_TABLE_LOOKUP(netns_mode, NetnsMode)

/* sriov.vf's link-state: the kernel's IFLA_VF_LINK_STATE_* numbers. */
typedef enum VfLinkState {
	VF_LINK_STATE_AUTO = 0, /* IFLA_VF_LINK_STATE_AUTO */
	VF_LINK_STATE_ENABLE = 1,
	VF_LINK_STATE_DISABLE = 2,
	_VF_LINK_STATE_MAX,
	_VF_LINK_STATE_INVALID = -EINVAL,
} VfLinkState;
DECLARE_STRING_TABLE_LOOKUP(vf_link_state, VfLinkState)

/* sriov.vf's vlan-protocol. */
typedef enum VlanProtocol {
	VLAN_PROTOCOL_8021Q,
	VLAN_PROTOCOL_8021AD,
	_VLAN_PROTOCOL_MAX,
	_VLAN_PROTOCOL_INVALID = -EINVAL,
} VlanProtocol;
DECLARE_STRING_TABLE_LOOKUP(vlan_protocol, VlanProtocol)
/* ETH_P_8021Q or ETH_P_8021AD, and back (_VLAN_PROTOCOL_INVALID for another number) */
uint16_t vlan_protocol_to_ethertype(VlanProtocol p) _const_;
VlanProtocol vlan_protocol_from_ethertype(uint16_t ethertype) _const_;

/* sriov.eswitch: the kernel's DEVLINK_ESWITCH_MODE_* numbers. */
typedef enum EswitchMode {
	ESWITCH_MODE_LEGACY = 0, /* DEVLINK_ESWITCH_MODE_LEGACY */
	ESWITCH_MODE_SWITCHDEV = 1,
	_ESWITCH_MODE_MAX,
	_ESWITCH_MODE_INVALID = -EINVAL,
} EswitchMode;
DECLARE_STRING_TABLE_LOOKUP(eswitch_mode, EswitchMode)

/* probe.mesh: whether a probed link also probes the host's other probed links (Hostmesh) */
typedef enum ProbeMesh {
	PROBE_MESH_NONE,
	PROBE_MESH_LOCAL,
	_PROBE_MESH_MAX,
	_PROBE_MESH_INVALID = -EINVAL,
} ProbeMesh;
DECLARE_STRING_TABLE_LOOKUP(probe_mesh, ProbeMesh)

/* pci.upstream-acs: keep leaves ACS alone, off clears the P2P redirect bits on the routes to
 * the function's peers, on sets again the bits rdmad cleared (acs-record.h) */
typedef enum PciAcs {
	PCI_ACS_KEEP,
	PCI_ACS_OFF,
	PCI_ACS_ON,
	_PCI_ACS_MAX,
	_PCI_ACS_INVALID = -EINVAL,
} PciAcs;
DECLARE_STRING_TABLE_LOOKUP(pci_acs, PciAcs)

/* Software RDMA link types that `links:` can create; also the driver name they report. */
typedef enum SoftDeviceType {
	SOFT_DEVICE_RXE,
	SOFT_DEVICE_SIW,
	_SOFT_DEVICE_MAX,
	_SOFT_DEVICE_INVALID = -EINVAL,
} SoftDeviceType;
DECLARE_STRING_TABLE_LOOKUP(soft_device_type, SoftDeviceType)
/* "rdma_rxe" / "siw": the module, and the driver name profiles match on. */
DECLARE_STRING_TABLE_LOOKUP(soft_device_driver, SoftDeviceType)

/* The kernel's limits, with the terminating NUL: IB_DEVICE_NAME_MAX (include/rdma/ib_verbs.h)
 * and IFNAMSIZ. */
#define RDMA_DEVICE_NAME_MAX 64
#define NETDEV_NAME_MAX	     16

/* One validator for names that profiles declare and the backends send (`rdmactl check` accepts
 * exactly what apply can carry out). An RDMA device name the kernel takes for a new device:
 * 1..63 printable ASCII characters, none of them a space, '/' or '%' (a kernel name template),
 * not "." or "..". */
bool rdma_device_name_valid(const char *name) _pure_;
/* A netdev name as the kernel's dev_valid_name() takes it, and not a template: 1..15 printable
 * ASCII characters, none of them a space, '/', ':' or '%', not "." or "..". Also used for link
 * types ("rxe", "siw"). */
bool netdev_name_valid(const char *name) _pure_;

/* A link name as users give it: "DEV/PORT" (port 1..255), or "DEV" (*ret_port 0: any port).
 * device gets the DEV part; -EINVAL for anything else, or a DEV that does not fit. */
int port_name_parse(const char *s, char *device, size_t size, uint32_t *ret_port);
