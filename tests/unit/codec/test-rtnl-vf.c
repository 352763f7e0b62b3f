/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SR-IOV VF builders, checked on their bytes against the kernel's UAPI layout (linux/if_link.h),
 * and the parser on RTM_NEWLINK replies laid out as net/core/rtnetlink.c's rtnl_fill_vf() and
 * rtnl_fill_vfinfo() send them. The requests are what iproute2 sends: `ip -d link show dev X`
 * (ipaddr_link_get(): NLM_F_REQUEST, struct ifinfomsg, IFLA_EXT_MASK) and `ip link set dev X
 * vf N ...` (iplink_parse_vf(): IFLA_VFINFO_LIST { IFLA_VF_INFO { ... } }, with ACK). */
#include <arpa/inet.h>
#include <limits.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stddef.h>

#include "macro.h"
#include "rtnl-vf.h"
#include "tests.h"
#include "test-nlmsg.h"

/* The UAPI numbers and struct layouts the bytes below rely on. */
TEST(uapi) {
	CHECK_INTEQ(RTM_NEWLINK, 16);
	CHECK_INTEQ(RTM_GETLINK, 18);
	CHECK_INTEQ(RTM_SETLINK, 19);
	CHECK_INTEQ(IFLA_NUM_VF, 21);
	CHECK_INTEQ(IFLA_VFINFO_LIST, 22);
	CHECK_INTEQ(IFLA_EXT_MASK, 29);
	CHECK_INTEQ(IFLA_VF_INFO, 1);
	CHECK_INTEQ(IFLA_VF_MAC, 1);
	CHECK_INTEQ(IFLA_VF_VLAN, 2);
	CHECK_INTEQ(IFLA_VF_TX_RATE, 3);
	CHECK_INTEQ(IFLA_VF_SPOOFCHK, 4);
	CHECK_INTEQ(IFLA_VF_LINK_STATE, 5);
	CHECK_INTEQ(IFLA_VF_RATE, 6);
	CHECK_INTEQ(IFLA_VF_RSS_QUERY_EN, 7);
	CHECK_INTEQ(IFLA_VF_STATS, 8);
	CHECK_INTEQ(IFLA_VF_TRUST, 9);
	CHECK_INTEQ(IFLA_VF_IB_NODE_GUID, 10);
	CHECK_INTEQ(IFLA_VF_IB_PORT_GUID, 11);
	CHECK_INTEQ(IFLA_VF_VLAN_LIST, 12);
	CHECK_INTEQ(IFLA_VF_BROADCAST, 13);
	CHECK_INTEQ(IFLA_VF_VLAN_INFO, 1);
	CHECK_INTEQ(MAX_VLAN_LIST_LEN, 1);
	CHECK_INTEQ(RTEXT_FILTER_VF, 1);
	CHECK_INTEQ(RTEXT_FILTER_SKIP_STATS, 8);
	CHECK_INTEQ(IFLA_VF_LINK_STATE_AUTO, 0);
	CHECK_INTEQ(IFLA_VF_LINK_STATE_ENABLE, 1);
	CHECK_INTEQ(IFLA_VF_LINK_STATE_DISABLE, 2);
	CHECK_INTEQ(ARPHRD_INFINIBAND, 32);
	/* struct ifinfomsg: family, pad, u16 type, int index, u32 flags, u32 change */
	CHECK_INTEQ(sizeof(struct ifinfomsg), 16);
	CHECK_INTEQ(offsetof(struct ifinfomsg, ifi_index), 4);
	/* every VF struct starts with the u32 vf */
	CHECK_INTEQ(sizeof(struct ifla_vf_mac), 36);
	CHECK_INTEQ(offsetof(struct ifla_vf_mac, mac), 4);
	CHECK_INTEQ(sizeof(struct ifla_vf_vlan), 12);
	CHECK_INTEQ(offsetof(struct ifla_vf_vlan, qos), 8);
	/* u32 vf, vlan, qos, __be16 vlan_proto and 2 bytes of padding */
	CHECK_INTEQ(sizeof(struct ifla_vf_vlan_info), 16);
	CHECK_INTEQ(offsetof(struct ifla_vf_vlan_info, vlan_proto), 12);
	CHECK_INTEQ(sizeof(struct ifla_vf_tx_rate), 8);
	CHECK_INTEQ(sizeof(struct ifla_vf_rate), 12);
	CHECK_INTEQ(offsetof(struct ifla_vf_rate, min_tx_rate), 4);
	CHECK_INTEQ(offsetof(struct ifla_vf_rate, max_tx_rate), 8);
	CHECK_INTEQ(sizeof(struct ifla_vf_spoofchk), 8);
	CHECK_INTEQ(sizeof(struct ifla_vf_link_state), 8);
	CHECK_INTEQ(sizeof(struct ifla_vf_trust), 8);
	/* u32 vf, 4 bytes of padding, u64 guid (on 64-bit: i386 aligns a u64 to 4, 12 bytes) */
	CHECK_INTEQ(sizeof(struct ifla_vf_guid), 16);
	CHECK_INTEQ(offsetof(struct ifla_vf_guid, guid), 8);
	CHECK_INTEQ(ETH_P_8021Q, 0x8100);
	CHECK_INTEQ(ETH_P_8021AD, 0x88a8);
}

TEST(get_bytes) {
	/* `ip -d link show dev X`, X being ifindex 7 */
	static const uint8_t expected[] = {
		0x28, 0x00, 0x00, 0x00, /* nlmsg_len 40 */
		0x12, 0x00,		/* RTM_GETLINK (18) */
		0x01, 0x00,		/* NLM_F_REQUEST */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00,		/* struct ifinfomsg: AF_UNSPEC, pad */
		0x00, 0x00,		/* ifi_type */
		0x07, 0x00, 0x00, 0x00, /* ifi_index 7 */
		0x00, 0x00, 0x00, 0x00, /* ifi_flags */
		0x00, 0x00, 0x00, 0x00, /* ifi_change */
		0x08, 0x00, 0x1d, 0x00, /* nla_len 8, IFLA_EXT_MASK (29) */
		0x09, 0x00, 0x00, 0x00, /* RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS */
	};
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(rtnl_vf_get_new(7, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(rtnl_vf_get_new(0, &untouched) == -EINVAL);
	CHECK(rtnl_vf_get_new(-3, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(set_all_bytes) {
	/* `ip link set dev X vf 2 mac 02:00:00:00:00:2a vlan 100 qos 3 proto 802.1ad
	 * min_tx_rate 1000 max_tx_rate 10000 spoofchk on state enable trust on`, X ifindex 7 */
	static const uint8_t expected[] = {
		0x9c, 0x00, 0x00, 0x00, /* nlmsg_len 156 */
		0x13, 0x00,		/* RTM_SETLINK (19) */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00, 0x00, 0x00, /* struct ifinfomsg: AF_UNSPEC, pad, ifi_type */
		0x07, 0x00, 0x00, 0x00, /* ifi_index 7 */
		0x00, 0x00, 0x00, 0x00, /* ifi_flags */
		0x00, 0x00, 0x00, 0x00, /* ifi_change */
		0x7c, 0x00, 0x16, 0x80, /* nla_len 124, IFLA_VFINFO_LIST (22) | NLA_F_NESTED */
		0x78, 0x00, 0x01, 0x80, /* nla_len 120, IFLA_VF_INFO | NLA_F_NESTED */
		0x28, 0x00, 0x01, 0x00, /* nla_len 40, IFLA_VF_MAC: struct ifla_vf_mac */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x2a, /* mac, then 26 zero bytes of mac[32] */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x18, 0x00, 0x0c, 0x80, /* nla_len 24, IFLA_VF_VLAN_LIST
								   (12) | NLA_F_NESTED */
		0x14, 0x00, 0x01, 0x00, /* nla_len 20, IFLA_VF_VLAN_INFO: ifla_vf_vlan_info */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0x64, 0x00, 0x00, 0x00, /* vlan 100 */
		0x03, 0x00, 0x00, 0x00, /* qos 3 */
		0x88, 0xa8, 0x00, 0x00, /* vlan_proto 802.1ad, network order; padding */
		0x10, 0x00, 0x06, 0x00, /* nla_len 16, IFLA_VF_RATE (6): struct ifla_vf_rate */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0xe8, 0x03, 0x00, 0x00, /* min_tx_rate 1000 */
		0x10, 0x27, 0x00, 0x00, /* max_tx_rate 10000 */
		0x0c, 0x00, 0x04, 0x00, /* nla_len 12, IFLA_VF_SPOOFCHK (4) */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0x01, 0x00, 0x00, 0x00, /* setting on */
		0x0c, 0x00, 0x05, 0x00, /* nla_len 12, IFLA_VF_LINK_STATE (5) */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0x01, 0x00, 0x00, 0x00, /* IFLA_VF_LINK_STATE_ENABLE */
		0x0c, 0x00, 0x09, 0x00, /* nla_len 12, IFLA_VF_TRUST (9) */
		0x02, 0x00, 0x00, 0x00, /* vf 2 */
		0x01, 0x00, 0x00, 0x00, /* setting on */
	};
	const SriovVf vf = {
		.index = 2,
		.set = VF_BIT(VF_MAC) | VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO) |
		       VF_BIT(VF_TRUST) | VF_BIT(VF_SPOOF_CHECK) | VF_BIT(VF_LINK_STATE) |
		       VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE),
		.mac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x2a },
		.vlan = 100,
		.qos = 3,
		.vlan_proto = ETH_P_8021AD,
		.trust = true,
		.spoof_check = true,
		.link_state = VF_LINK_STATE_ENABLE,
		.max_rate = 10000,
		.min_rate = 1000,
		.node_guid = 0x1111, /* not in .set: not sent */
	};
	struct nl_msg *m = NULL;

	CHECK(rtnl_vf_set_new(7, &vf, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(set_vlan_bytes) {
	/* `ip link set dev X vf 0 vlan 10`: qos 0 and the protocol 802.1Q go with it */
	static const uint8_t expected[] = {
		0x40, 0x00, 0x00, 0x00, /* nlmsg_len 64 */
		0x13, 0x00, 0x05, 0x00, /* RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00, 0x00, 0x00, /* struct ifinfomsg: AF_UNSPEC, pad, ifi_type */
		0x03, 0x00, 0x00, 0x00, /* ifi_index 3 */
		0x00, 0x00, 0x00, 0x00, /* ifi_flags */
		0x00, 0x00, 0x00, 0x00, /* ifi_change */
		0x20, 0x00, 0x16, 0x80, /* nla_len 32, IFLA_VFINFO_LIST | NLA_F_NESTED */
		0x1c, 0x00, 0x01, 0x80, /* nla_len 28, IFLA_VF_INFO | NLA_F_NESTED */
		0x18, 0x00, 0x0c, 0x80, /* nla_len 24, IFLA_VF_VLAN_LIST | NLA_F_NESTED */
		0x14, 0x00, 0x01, 0x00, /* nla_len 20, IFLA_VF_VLAN_INFO */
		0x00, 0x00, 0x00, 0x00, /* vf 0 */
		0x0a, 0x00, 0x00, 0x00, /* vlan 10 */
		0x00, 0x00, 0x00, 0x00, /* qos 0 */
		0x81, 0x00, 0x00, 0x00, /* vlan_proto 0 in SriovVf: 802.1Q; padding */
	};
	const SriovVf vf = { .index = 0, .set = VF_BIT(VF_VLAN), .vlan = 10 };
	struct nl_msg *m = NULL;

	CHECK(rtnl_vf_set_new(3, &vf, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(set_guids_bytes) {
	/* `ip link set dev ib0 vf 0 node_guid 00:11:22:33:44:55:66:77 port_guid
	 * 00:11:22:33:44:55:66:78`: do_setvfinfo() returns after the node GUID, so the port GUID
	 * has an IFLA_VF_INFO of its own. */
	static const uint8_t expected[] = {
		0x54, 0x00, 0x00, 0x00, /* nlmsg_len 84 */
		0x13, 0x00, 0x05, 0x00, /* RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00, 0x00, 0x00, /* struct ifinfomsg: AF_UNSPEC, pad, ifi_type */
		0x05, 0x00, 0x00, 0x00, /* ifi_index 5 */
		0x00, 0x00, 0x00, 0x00, /* ifi_flags */
		0x00, 0x00, 0x00, 0x00, /* ifi_change */
		0x34, 0x00, 0x16, 0x80, /* nla_len 52, IFLA_VFINFO_LIST | NLA_F_NESTED */
		0x18, 0x00, 0x01, 0x80, /* nla_len 24, IFLA_VF_INFO | NLA_F_NESTED */
		0x14, 0x00, 0x0a, 0x00, /* nla_len 20, IFLA_VF_IB_NODE_GUID (10): ifla_vf_guid */
		0x00, 0x00, 0x00, 0x00, /* vf 0 */
		0x00, 0x00, 0x00, 0x00, /* padding */
		0x77, 0x66, 0x55, 0x44,
		0x33, 0x22, 0x11, 0x00, /* guid: a host-order u64 (little endian) */
		0x18, 0x00, 0x01, 0x80, /* nla_len 24, IFLA_VF_INFO | NLA_F_NESTED */
		0x14, 0x00, 0x0b, 0x00, /* nla_len 20, IFLA_VF_IB_PORT_GUID (11) */
		0x00, 0x00, 0x00, 0x00, /* vf 0 */
		0x00, 0x00, 0x00, 0x00, /* padding */
		0x78, 0x66, 0x55, 0x44,
		0x33, 0x22, 0x11, 0x00, /* guid */
	};
	/* the port GUID alone rides in the one IFLA_VF_INFO */
	static const uint8_t expected_port[] = {
		0x3c, 0x00, 0x00, 0x00, /* nlmsg_len 60 */
		0x13, 0x00, 0x05, 0x00, /* RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x00, 0x00, 0x00, /* struct ifinfomsg: AF_UNSPEC, pad, ifi_type */
		0x05, 0x00, 0x00, 0x00, /* ifi_index 5 */
		0x00, 0x00, 0x00, 0x00, /* ifi_flags */
		0x00, 0x00, 0x00, 0x00, /* ifi_change */
		0x1c, 0x00, 0x16, 0x80, /* nla_len 28, IFLA_VFINFO_LIST | NLA_F_NESTED */
		0x18, 0x00, 0x01, 0x80, /* nla_len 24, IFLA_VF_INFO | NLA_F_NESTED */
		0x14, 0x00, 0x0b, 0x00, /* nla_len 20, IFLA_VF_IB_PORT_GUID (11) */
		0x00, 0x00, 0x00, 0x00, /* vf 0 */
		0x00, 0x00, 0x00, 0x00, /* padding */
		0x78, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00, /* guid */
	};
	SriovVf vf = {
		.index = 0,
		.set = VF_BIT(VF_NODE_GUID) | VF_BIT(VF_PORT_GUID),
		.node_guid = UINT64_C(0x0011223344556677),
		.port_guid = UINT64_C(0x0011223344556678),
	};
	struct nl_msg *m = NULL;

	CHECK(rtnl_vf_set_new(5, &vf, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	vf.set = VF_BIT(VF_PORT_GUID);
	m = NULL;
	CHECK(rtnl_vf_set_new(5, &vf, &m) == 0);
	check_bytes(m, expected_port, sizeof(expected_port));
	nlmsg_free(m);
}

TEST(set_invalid) {
	struct nl_msg *untouched = (struct nl_msg *) 0x1;
	const SriovVf good = { .index = 1, .set = VF_BIT(VF_TRUST), .trust = true };
	SriovVf vf;

	CHECK(rtnl_vf_set_new(0, &good, &untouched) == -EINVAL);
	CHECK(rtnl_vf_set_new(-1, &good, &untouched) == -EINVAL);
	CHECK(rtnl_vf_set_new(2, NULL, &untouched) == -EINVAL);

	vf = good;
	vf.set = 0; /* nothing to set */
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf.set = VF_BIT(_VF_FIELD_MAX);
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);

	vf = good;
	vf.index = INT_MAX; /* do_setvfinfo()'s limit */
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);

	/* a rate alone would set the other to 0 */
	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_MAX_RATE), .max_rate = 100 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_MIN_RATE), .min_rate = 100 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	/* a max below the min: rtnl_set_vf_rate() refuses it */
	vf = (SriovVf){ .index = 1,
			.set = VF_BIT(VF_MIN_RATE) | VF_BIT(VF_MAX_RATE),
			.min_rate = 100,
			.max_rate = 50 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);

	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_VLAN), .vlan = 4096 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_QOS), .qos = 8 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_VLAN_PROTO), .vlan_proto = 0x0800 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf = (SriovVf){ .index = 1, .set = VF_BIT(VF_LINK_STATE), .link_state = 3 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	vf.link_state = _VF_LINK_STATE_INVALID;
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);

	/* no limit (0) is fine whatever the min */
	vf = (SriovVf){ .index = 1,
			.set = VF_BIT(VF_MIN_RATE) | VF_BIT(VF_MAX_RATE),
			.min_rate = 100 };
	CHECK(rtnl_vf_set_new(2, &vf, &untouched) == 0);
	nlmsg_free(untouched);
}

/* One VF as a driver's ndo_get_vf_config() fills struct ifla_vf_info. */
typedef struct KernelVf {
	uint32_t vf;
	uint8_t mac[20];
	uint32_t vlan, qos;
	uint16_t vlan_proto; /* host order; 0 as mlx5's IPoIB leaves it */
	uint32_t min_tx_rate, max_tx_rate;
	uint32_t spoofchk, linkstate, trust; /* -1: not reported */
	bool guids;			     /* the driver has ndo_get_vf_guid */
	uint64_t node_guid, port_guid;
	bool stats; /* the request did not ask RTEXT_FILTER_SKIP_STATS */
} KernelVf;

/* libnl marks a nest it starts with NLA_F_NESTED; the kernel's nla_nest_start_noflag() does
 * not. */
static void nest_end(struct nl_msg *m, struct nlattr *nest) {
	nla_nest_end(m, nest);
	nest->nla_type &= (uint16_t) ~NLA_F_NESTED;
}

/* One IFLA_VF_INFO in rtnl_fill_vfinfo()'s order. */
static void put_kernel_vf(struct nl_msg *m, const KernelVf *k) {
	struct ifla_vf_mac mac = { .vf = k->vf };
	struct ifla_vf_broadcast bcast = { .broadcast = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };
	struct ifla_vf_vlan vlan = { .vf = k->vf, .vlan = k->vlan, .qos = k->qos };
	struct ifla_vf_rate rate = { k->vf, k->min_tx_rate, k->max_tx_rate };
	struct ifla_vf_tx_rate tx_rate = { k->vf, k->max_tx_rate };
	struct ifla_vf_spoofchk spoofchk = { k->vf, k->spoofchk };
	struct ifla_vf_link_state link_state = { k->vf, k->linkstate };
	struct ifla_vf_rss_query_en rss = { k->vf, UINT32_MAX };
	struct ifla_vf_trust trust = { k->vf, k->trust };
	struct ifla_vf_vlan_info vlan_info;
	struct ifla_vf_guid node, port;
	struct nlattr *vf, *list, *stats;

	memcpy(mac.mac, k->mac, sizeof(k->mac));
	memset(&vlan_info, 0, sizeof(vlan_info));
	vlan_info.vf = k->vf;
	vlan_info.vlan = k->vlan;
	vlan_info.qos = k->qos;
	vlan_info.vlan_proto = htons(k->vlan_proto);
	memset(&node, 0, sizeof(node));
	memset(&port, 0, sizeof(port));
	node.vf = port.vf = k->vf;
	node.guid = k->node_guid;
	port.guid = k->port_guid;

	vf = nla_nest_start(m, IFLA_VF_INFO);
	CHECK(nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac) == 0);
	CHECK(nla_put(m, IFLA_VF_BROADCAST, sizeof(bcast), &bcast) == 0);
	CHECK(nla_put(m, IFLA_VF_VLAN, sizeof(vlan), &vlan) == 0);
	CHECK(nla_put(m, IFLA_VF_RATE, sizeof(rate), &rate) == 0);
	CHECK(nla_put(m, IFLA_VF_TX_RATE, sizeof(tx_rate), &tx_rate) == 0);
	CHECK(nla_put(m, IFLA_VF_SPOOFCHK, sizeof(spoofchk), &spoofchk) == 0);
	CHECK(nla_put(m, IFLA_VF_LINK_STATE, sizeof(link_state), &link_state) == 0);
	CHECK(nla_put(m, IFLA_VF_RSS_QUERY_EN, sizeof(rss), &rss) == 0);
	CHECK(nla_put(m, IFLA_VF_TRUST, sizeof(trust), &trust) == 0);
	if (k->guids) {
		CHECK(nla_put(m, IFLA_VF_IB_NODE_GUID, sizeof(node), &node) == 0);
		CHECK(nla_put(m, IFLA_VF_IB_PORT_GUID, sizeof(port), &port) == 0);
	}
	list = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	CHECK(nla_put(m, IFLA_VF_VLAN_INFO, sizeof(vlan_info), &vlan_info) == 0);
	nest_end(m, list);
	if (k->stats) {
		stats = nla_nest_start(m, IFLA_VF_STATS);
		for (int i = IFLA_VF_STATS_RX_PACKETS; i <= IFLA_VF_STATS_TX_DROPPED; i++)
			if (i != IFLA_VF_STATS_PAD)
				CHECK(nla_put_u64(m, i, 1000 + (uint64_t) i) == 0);
		nest_end(m, stats);
	}
	nest_end(m, vf);
}

/* An RTM_NEWLINK as rtnl_fill_ifinfo() lays it out: ifinfomsg, IFLA_IFNAME, ..., IFLA_NUM_VF
 * and IFLA_VFINFO_LIST (when num_vf >= 0), then more (IFLA_QDISC). */
static struct nl_msg *reply_new(uint16_t ifi_type, int num_vf, const KernelVf *vfs, size_t n) {
	struct ifinfomsg ifi = { .ifi_type = ifi_type, .ifi_index = 4, .ifi_flags = 0x1003 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *list;

	CHECK(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0);
	CHECK(nla_put_string(m, IFLA_IFNAME, ifi_type == ARPHRD_INFINIBAND ? "ib0" : "eth0") == 0);
	CHECK(nla_put_u32(m, IFLA_MTU, 1500) == 0);
	if (num_vf >= 0) {
		CHECK(nla_put_u32(m, IFLA_NUM_VF, (uint32_t) num_vf) == 0);
		list = nla_nest_start(m, IFLA_VFINFO_LIST);
		for (size_t i = 0; i < n; i++)
			put_kernel_vf(m, &vfs[i]);
		nest_end(m, list);
	}
	CHECK(nla_put_string(m, IFLA_QDISC, "mq") == 0);
	return m;
}

static int parse_msg(struct nl_msg *m, int *ifindex, uint32_t *num_vf, SriovVf **vfs, size_t *n) {
	return rtnl_vf_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, ifindex, num_vf, vfs, n);
}

/* The outputs before a call that must leave them alone. */
#define UNTOUCHED_VFS ((SriovVf *) 0x1)
static void untouched_reset(int *ifindex, uint32_t *num_vf, SriovVf **vfs, size_t *n) {
	*ifindex = -7;
	*num_vf = 77;
	*vfs = UNTOUCHED_VFS;
	*n = 77;
}
static bool untouched(int ifindex, uint32_t num_vf, SriovVf *vfs, size_t n) {
	return ifindex == -7 && num_vf == 77 && vfs == UNTOUCHED_VFS && n == 77;
}

/* Two VFs of an Ethernet PF (mlx5-like), listed 1 then 0: VF 1 configured, VF 0 with a driver
 * that reports neither spoof checking nor trust (-1), and counters. */
static const KernelVf eth_vfs[] = {
	{
		.vf = 1,
		.mac = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 },
		.vlan = 100,
		.qos = 5,
		.vlan_proto = ETH_P_8021AD,
		.min_tx_rate = 1000,
		.max_tx_rate = 25000,
		.spoofchk = 1,
		.linkstate = IFLA_VF_LINK_STATE_DISABLE,
		.trust = 0,
	},
	{
		.vf = 0,
		.mac = { 0 },
		.vlan_proto = ETH_P_8021Q, /* rtnl_fill_vfinfo()'s preset */
		.spoofchk = UINT32_MAX,
		.linkstate = IFLA_VF_LINK_STATE_AUTO,
		.trust = UINT32_MAX,
		.stats = true,
	},
};

TEST(parse_two_vfs_sorted) {
	struct nl_msg *m = reply_new(ARPHRD_ETHER, 2, eth_vfs, ELEMENTSOF(eth_vfs));
	SriovVf *vfs = NULL;
	uint32_t num_vf = 0;
	int ifindex = 0;
	size_t n = 0;

	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(ifindex, 4);
	CHECK_INTEQ(num_vf, 2);
	CHECK_INTEQ(n, 2);
	if (n == 2) {
		/* sorted by index */
		CHECK_INTEQ(vfs[0].index, 0);
		CHECK_INTEQ(vfs[1].index, 1);

		/* VF 0: -1 for spoof checking and trust, so neither bit */
		CHECK_INTEQ(vfs[0].set, VF_BIT(VF_MAC) | VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) |
						VF_BIT(VF_VLAN_PROTO) | VF_BIT(VF_LINK_STATE) |
						VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
		CHECK(memcmp(vfs[0].mac, (const uint8_t[6]){ 0 }, 6) == 0);
		CHECK_INTEQ(vfs[0].vlan, 0);
		CHECK_INTEQ(vfs[0].vlan_proto, ETH_P_8021Q);
		CHECK_INTEQ(vfs[0].link_state, VF_LINK_STATE_AUTO);
		CHECK_INTEQ(vfs[0].max_rate, 0);

		/* VF 1: everything, but the GUIDs this driver does not have */
		CHECK_INTEQ(vfs[1].set, VF_BIT(VF_MAC) | VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) |
						VF_BIT(VF_VLAN_PROTO) | VF_BIT(VF_TRUST) |
						VF_BIT(VF_SPOOF_CHECK) | VF_BIT(VF_LINK_STATE) |
						VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE));
		CHECK(memcmp(vfs[1].mac, (const uint8_t[6]){ 0x02, 0, 0, 0, 0, 0x01 }, 6) == 0);
		CHECK_INTEQ(vfs[1].vlan, 100);
		CHECK_INTEQ(vfs[1].qos, 5);
		CHECK_INTEQ(vfs[1].vlan_proto, ETH_P_8021AD);
		CHECK_INTEQ(vfs[1].min_rate, 1000);
		CHECK_INTEQ(vfs[1].max_rate, 25000);
		CHECK(vfs[1].spoof_check);
		CHECK(!vfs[1].trust);
		CHECK_INTEQ(vfs[1].link_state, VF_LINK_STATE_DISABLE);
		CHECK_INTEQ(vfs[1].line, 0);
	}
	free(vfs);
	nlmsg_free(m);
}

/* A round trip: what the parser reads, the builder writes back as the kernel takes it. */
TEST(parse_then_set) {
	struct nl_msg *m = reply_new(ARPHRD_ETHER, 2, eth_vfs, ELEMENTSOF(eth_vfs)), *s = NULL;
	SriovVf *vfs = NULL;
	uint32_t num_vf;
	int ifindex;
	size_t n = 0;

	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK(n == 2);
	if (n == 2) {
		const uint8_t *b;

		CHECK(rtnl_vf_set_new(ifindex, &vfs[1], &s) == 0);
		/* laid out as in set_all_bytes */
		CHECK_INTEQ(nlmsg_hdr(s)->nlmsg_len, 156);
		b = (const uint8_t *) nlmsg_hdr(s);
		CHECK_INTEQ(b[20], 4);				 /* ifi_index */
		CHECK_INTEQ(b[44], 1);				 /* IFLA_VF_MAC's vf */
		CHECK(memcmp(b + 48, eth_vfs[0].mac, 6) == 0);	 /* mac */
		CHECK_INTEQ(b[92], 100);			 /* vlan */
		CHECK_INTEQ(b[96], 5);				 /* qos */
		CHECK(b[100] == 0x88 && b[101] == 0xa8);	 /* 802.1ad */
		CHECK(b[112] == 0xe8 && b[113] == 0x03);	 /* min_tx_rate 1000 */
		CHECK(b[116] == 0xa8 && b[117] == 0x61);	 /* max_tx_rate 25000 */
		CHECK_INTEQ(b[128], 1);				 /* spoof checking on */
		CHECK_INTEQ(b[140], IFLA_VF_LINK_STATE_DISABLE); /* link state */
		CHECK_INTEQ(b[152], 0);				 /* trust off */
		nlmsg_free(s);
	}
	free(vfs);
	nlmsg_free(m);
}

/* A PF whose driver has ndo_get_vf_config, with SR-IOV off: IFLA_NUM_VF 0 and an empty list.
 * A multicast RTM_NEWLINK (no RTEXT_FILTER_VF), or a netdev without a parent: neither. */
TEST(parse_no_vfs) {
	struct nl_msg *m = reply_new(ARPHRD_ETHER, 0, NULL, 0);
	SriovVf *vfs = UNTOUCHED_VFS;
	uint32_t num_vf = 77;
	int ifindex = 0;
	size_t n = 77;

	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(ifindex, 4);
	CHECK_INTEQ(num_vf, 0);
	CHECK(!vfs);
	CHECK_INTEQ(n, 0);
	nlmsg_free(m);

	m = reply_new(ARPHRD_ETHER, -1, NULL, 0);
	num_vf = 77;
	vfs = UNTOUCHED_VFS;
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(num_vf, 0);
	CHECK(!vfs);
	CHECK_INTEQ(n, 0);
	nlmsg_free(m);

	/* VFs enabled, but the driver failed to report them: left out of the list */
	m = reply_new(ARPHRD_ETHER, 8, NULL, 0);
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(num_vf, 8);
	CHECK_INTEQ(n, 0);
	nlmsg_free(m);
}

/* mlx5's IPoIB: ipoib_get_vf_config() copies the PF's 20-byte address as the MAC, and
 * mlx5_ib_get_vf_config() wipes the kernel's presets (spoof checking, trust and the VLAN
 * protocol read 0); the GUIDs are there. */
TEST(parse_infiniband) {
	const KernelVf ib = {
		.vf = 3,
		.mac = { 0x00, 0x00, 0x10, 0x49, 0xfe, 0x80, 0,	   0,	 0,    0,
			 0,    0,    0x0c, 0x42, 0xa1, 0x03, 0x00, 0x6c, 0x7a, 0x14 },
		.linkstate = IFLA_VF_LINK_STATE_ENABLE,
		.guids = true,
		.node_guid = UINT64_C(0x0011223344556677),
		.port_guid = UINT64_C(0x0011223344556678),
	};
	struct nl_msg *m = reply_new(ARPHRD_INFINIBAND, 4, &ib, 1);
	SriovVf *vfs = NULL;
	uint32_t num_vf;
	int ifindex;
	size_t n = 0;

	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(num_vf, 4);
	CHECK_INTEQ(n, 1);
	if (n == 1) {
		CHECK_INTEQ(vfs[0].index, 3);
		CHECK(!(vfs[0].set & VF_BIT(VF_MAC)));
		CHECK(vfs[0].set & VF_BIT(VF_NODE_GUID) && vfs[0].set & VF_BIT(VF_PORT_GUID));
		CHECK(vfs[0].node_guid == UINT64_C(0x0011223344556677));
		CHECK(vfs[0].port_guid == UINT64_C(0x0011223344556678));
		CHECK_INTEQ(vfs[0].vlan_proto, ETH_P_8021Q);
		CHECK_INTEQ(vfs[0].link_state, VF_LINK_STATE_ENABLE);
	}
	free(vfs);
	nlmsg_free(m);
}

/* Linux < 3.16 sends IFLA_VF_TX_RATE, not IFLA_VF_RATE: the max only. A newer kernel's
 * attributes are skipped, in the VF and around it. */
TEST(parse_old_and_new_kernels) {
	struct ifinfomsg ifi = { .ifi_index = 9 };
	struct ifla_vf_tx_rate tx = { .vf = 0, .rate = 300 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	struct nlattr *list, *vf;
	SriovVf *vfs = NULL;
	uint32_t num_vf;
	int ifindex;
	size_t n = 0;

	nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	nla_put_u32(m, IFLA_NUM_VF, 1);
	nla_put(m, 200, 4, "abc"); /* a newer kernel's IFLA_ */
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf = nla_nest_start(m, IFLA_VF_INFO);
	nla_put(m, IFLA_VF_TX_RATE, sizeof(tx), &tx);
	nla_put(m, 42, 8, "1234567"); /* a newer kernel's IFLA_VF_ */
	nest_end(m, vf);
	nla_put(m, 2, 4, "xyz"); /* not an IFLA_VF_INFO */
	nest_end(m, list);

	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
	CHECK_INTEQ(ifindex, 9);
	CHECK_INTEQ(n, 1);
	if (n == 1) {
		CHECK_INTEQ(vfs[0].set, VF_BIT(VF_MAX_RATE));
		CHECK_INTEQ(vfs[0].max_rate, 300);
	}
	free(vfs);
	nlmsg_free(m);
}

/* An IFLA_VF_INFO holding one struct shorter than the kernel's. */
static struct nl_msg *short_struct_new(int type, size_t size) {
	struct ifinfomsg ifi = { .ifi_index = 4 };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
	uint8_t zero[64] = { 0 };
	struct nlattr *list, *vf, *vlan_list = NULL;

	nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	vf = nla_nest_start(m, IFLA_VF_INFO);
	if (type == IFLA_VF_VLAN_LIST) {
		vlan_list = nla_nest_start(m, IFLA_VF_VLAN_LIST);
		type = IFLA_VF_VLAN_INFO;
	}
	nla_put(m, type, (int) size, zero);
	if (vlan_list)
		nest_end(m, vlan_list);
	nest_end(m, vf);
	nest_end(m, list);
	return m;
}

TEST(parse_truncated) {
	static const struct {
		int type;
		size_t size, kernel_size;
	} cases[] = {
		{ IFLA_VF_MAC, 35, sizeof(struct ifla_vf_mac) },
		{ IFLA_VF_VLAN, 8, sizeof(struct ifla_vf_vlan) },
		{ IFLA_VF_RATE, 8, sizeof(struct ifla_vf_rate) },
		{ IFLA_VF_TX_RATE, 4, sizeof(struct ifla_vf_tx_rate) },
		{ IFLA_VF_SPOOFCHK, 4, sizeof(struct ifla_vf_spoofchk) },
		{ IFLA_VF_LINK_STATE, 4, sizeof(struct ifla_vf_link_state) },
		{ IFLA_VF_TRUST, 4, sizeof(struct ifla_vf_trust) },
		/* an i386 kernel's (a u64 aligned to 4): not this one's */
		{ IFLA_VF_IB_NODE_GUID, 12, sizeof(struct ifla_vf_guid) },
		{ IFLA_VF_IB_PORT_GUID, 8, sizeof(struct ifla_vf_guid) },
		/* the IFLA_VF_VLAN_INFO without its padding */
		{ IFLA_VF_VLAN_LIST, 14, sizeof(struct ifla_vf_vlan_info) },
	};
	struct nl_msg *m;
	SriovVf *vfs;
	uint32_t num_vf;
	int ifindex;
	size_t n;

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		m = short_struct_new(cases[i].type, cases[i].size);
		untouched_reset(&ifindex, &num_vf, &vfs, &n);
		CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
		CHECK(untouched(ifindex, num_vf, vfs, n));
		nlmsg_free(m);

		/* the kernel's size parses */
		m = short_struct_new(cases[i].type, cases[i].kernel_size);
		CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == 0);
		CHECK_INTEQ(n, 1);
		free(vfs);
		nlmsg_free(m);
	}

	/* the message itself cut short */
	m = reply_new(ARPHRD_ETHER, 2, eth_vfs, ELEMENTSOF(eth_vfs));
	untouched_reset(&ifindex, &num_vf, &vfs, &n);
	CHECK(rtnl_vf_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len - 1, &ifindex, &num_vf, &vfs,
			    &n) == -EBADMSG);
	CHECK(rtnl_vf_parse(nlmsg_hdr(m), 12, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	CHECK(untouched(ifindex, num_vf, vfs, n));
	nlmsg_free(m);
}

TEST(parse_malformed) {
	struct nl_msg *m;
	struct nlattr *list = NULL;
	struct nlmsghdr *h;
	SriovVf *vfs;
	uint32_t num_vf;
	int ifindex;
	size_t n;
	KernelVf two[2];

	/* the same VF twice */
	two[0] = eth_vfs[0];
	two[1] = eth_vfs[0];
	m = reply_new(ARPHRD_ETHER, 2, two, 2);
	untouched_reset(&ifindex, &num_vf, &vfs, &n);
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	CHECK(untouched(ifindex, num_vf, vfs, n));
	nlmsg_free(m);

	/* a VLAN out of 802.1Q's range */
	two[0].vlan = 4096;
	m = reply_new(ARPHRD_ETHER, 1, two, 1);
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	nlmsg_free(m);
	two[0] = eth_vfs[0];
	two[0].qos = 8;
	m = reply_new(ARPHRD_ETHER, 1, two, 1);
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	CHECK(untouched(ifindex, num_vf, vfs, n));
	nlmsg_free(m);

	/* structs of one IFLA_VF_INFO naming two VFs */
	{
		struct ifinfomsg ifi = { .ifi_index = 4 };
		struct ifla_vf_trust t = { .vf = 1, .setting = 1 };
		struct ifla_vf_spoofchk s = { .vf = 2, .setting = 1 };
		struct nlattr *vf;

		m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
		nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
		list = nla_nest_start(m, IFLA_VFINFO_LIST);
		vf = nla_nest_start(m, IFLA_VF_INFO);
		nla_put(m, IFLA_VF_TRUST, sizeof(t), &t);
		nla_put(m, IFLA_VF_SPOOFCHK, sizeof(s), &s);
		nest_end(m, vf);
		nest_end(m, list);
		CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
		nlmsg_free(m);

		/* or none at all */
		m = nlmsg_alloc_simple(RTM_NEWLINK, 0);
		nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO);
		list = nla_nest_start(m, IFLA_VFINFO_LIST);
		vf = nla_nest_start(m, IFLA_VF_INFO);
		nla_put(m, IFLA_VF_RSS_QUERY_EN, sizeof(t), &t);
		nest_end(m, vf);
		nest_end(m, list);
		CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
		CHECK(untouched(ifindex, num_vf, vfs, n));
		nlmsg_free(m);
	}

	/* IFLA_VFINFO_LIST past 64 KiB: its 16-bit length wraps (here, to 100 bytes short) */
	m = reply_new(ARPHRD_ETHER, 2, eth_vfs, ELEMENTSOF(eth_vfs));
	h = nlmsg_hdr(m);
	for (struct nlattr *a = (struct nlattr *) ((uint8_t *) NLMSG_DATA(h) +
						   NLMSG_ALIGN(sizeof(struct ifinfomsg)));
	     (uint8_t *) a < (uint8_t *) h + h->nlmsg_len;
	     a = (struct nlattr *) ((uint8_t *) a + NLA_ALIGN(a->nla_len)))
		if (nla_type(a) == IFLA_VFINFO_LIST)
			list = a;
	CHECK(list && list->nla_len > 200);
	if (list)
		list->nla_len = (uint16_t) (list->nla_len - 100);
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	CHECK(untouched(ifindex, num_vf, vfs, n));

	/* not an RTM_NEWLINK, or about no netdev */
	h->nlmsg_type = RTM_DELLINK;
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	h->nlmsg_type = RTM_NEWLINK;
	((struct ifinfomsg *) NLMSG_DATA(h))->ifi_index = 0;
	CHECK(parse_msg(m, &ifindex, &num_vf, &vfs, &n) == -EBADMSG);
	CHECK(untouched(ifindex, num_vf, vfs, n));
	nlmsg_free(m);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(get_bytes), TEST_ENTRY(set_all_bytes),
	   TEST_ENTRY(set_vlan_bytes), TEST_ENTRY(set_guids_bytes), TEST_ENTRY(set_invalid),
	   TEST_ENTRY(parse_two_vfs_sorted), TEST_ENTRY(parse_then_set), TEST_ENTRY(parse_no_vfs),
	   TEST_ENTRY(parse_infiniband), TEST_ENTRY(parse_old_and_new_kernels),
	   TEST_ENTRY(parse_truncated), TEST_ENTRY(parse_malformed))
