/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The SR-IOV virtual functions of a PF netdev, as rtnetlink shows and sets them (`ip link show
 * dev PF`, `ip link set dev PF vf N ...`): message builders that do no I/O (nlmsg_seq and
 * nlmsg_pid left 0 for the sender), and the parser of the kernel's answer. The I/O is in
 * rtnl-vf-talk.c; the reference is net/core/rtnetlink.c (rtnl_fill_vf(), rtnl_fill_vfinfo(),
 * do_setlink(), do_setvfinfo()) and iproute2's ip/ipaddress.c and ip/iplink.c.
 *
 * What the kernel does that a caller must know:
 * - Only a GETLINK that asks for RTEXT_FILTER_VF gets IFLA_NUM_VF and IFLA_VFINFO_LIST. The
 *   RTM_NEWLINK multicast that follows a change (a VF setting included) never carries them:
 *   it tells that the PF changed, and the VFs must be read again.
 * - IFLA_NUM_VF is there for any netdev with a parent device (0 when SR-IOV is off); the list
 *   only when the driver has ndo_get_vf_config, and it leaves out each VF the driver fails to
 *   report.
 * - Every reported VF carries every field: a driver fills what it knows and the rest reads as
 *   0 (MAC 00:00:00:00:00:00, no VLAN, no rate limit, link state auto). Spoof checking and
 *   trust read -1 where the driver says nothing: those are left out of .set here. mlx5's IPoIB
 *   VFs report only the link state, with spoof checking, trust and the VLAN protocol as 0; and
 *   their GUIDs as rdmad (or anyone) last set them through this interface, 0 before that, not
 *   what the device uses.
 * - IFLA_VFINFO_LIST's length is 16 bits and the kernel does not check it: past 64 KiB it
 *   wraps (196 bytes a VF, 236 with GUIDs: about 330 Ethernet or 270 InfiniBand VFs; 100 more
 *   each with the counters, which rtnl_vf_get_new() asks the kernel to leave out). The reply
 *   is then refused (-EBADMSG) or, when the cut falls between two VFs, reads as fewer VFs than
 *   IFLA_NUM_VF says.
 * - A SETLINK applies the attributes of one IFLA_VF_INFO in do_setvfinfo()'s order (MAC, VLAN,
 *   rate, spoof check, link state, trust, node GUID, port GUID) and stops at the first the
 *   driver refuses, keeping those before it: read back after a failure. A driver without the
 *   op answers -EOPNOTSUPP; a VF index the driver does not have is (usually) -EINVAL.
 * - GUIDs are host-order u64s, passed to the driver unchanged (mlx5 writes them big-endian to
 *   the device); the first byte `ip link` shows is the most significant: it prints and parses
 *   00:11:22:33:44:55:66:77 as 0x0011223344556677. The kernel sets them only on an
 *   ARPHRD_INFINIBAND netdev (-EOPNOTSUPP on others), and returns after the node GUID:
 *   rtnl_vf_set_new() puts the port GUID in an IFLA_VF_INFO of its own when both are set. */

#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

/* RTM_GETLINK of one netdev (NLM_F_REQUEST, no dump), with IFLA_EXT_MASK RTEXT_FILTER_VF |
 * RTEXT_FILTER_SKIP_STATS, as `ip -d link show dev X` sends it: the VFs without their
 * counters (a smaller reply, and room for more VFs). -EINVAL for ifindex <= 0. */
int rtnl_vf_get_new(int ifindex, struct nl_msg **ret);

/* RTM_SETLINK (NLM_F_REQUEST | NLM_F_ACK) of the fields of vf->set on VF vf->index of the PF
 * ifindex, in one IFLA_VFINFO_LIST { IFLA_VF_INFO { ... } } (two IFLA_VF_INFO when both GUIDs
 * are set, see above). Some fields are one setting in the kernel, and are sent whole:
 * - VF_VLAN, VF_QOS, VF_VLAN_PROTO: any of them sends vlan, qos and vlan_proto as they are in
 *   vf (IFLA_VF_VLAN_LIST, ndo_set_vf_vlan()); the caller fills those not declared, from the
 *   live value or as "none" (vlan 0, qos 0, vlan_proto 0 = 802.1Q).
 * - VF_MAX_RATE, VF_MIN_RATE: IFLA_VF_RATE sets both; both bits are required, the caller
 *   filling the one not declared from the live value (0 is "no limit", not "unchanged").
 * -EINVAL for ifindex <= 0, an empty set, a bit outside _VF_FIELD_MAX, a VF index >= INT_MAX,
 * one rate bit without the other, and for values every driver refuses, which the kernel would
 * refuse only after applying the fields before them: a max_rate below min_rate, a VLAN above
 * 4095, a QoS above 7, a vlan_proto other than 802.1Q or 802.1ad, a link state that is not
 * the kernel's. */
int rtnl_vf_set_new(int ifindex, const SriovVf *vf, struct nl_msg **ret);

/* An RTM_NEWLINK (a GETLINK reply or a multicast): the netdev's ifindex, IFLA_NUM_VF (0 when
 * absent: no VFs known, as in every multicast) and the VFs of IFLA_VFINFO_LIST, sorted by
 * index, with .set naming the fields the kernel reported (.line and .column 0). The MAC is
 * the first 6 bytes of IFLA_VF_MAC, and left out on an InfiniBand PF (ifi_type
 * ARPHRD_INFINIBAND), where IPoIB reports its own 20-byte address there; a vlan_proto of 0
 * (mlx5's IPoIB) reads as 802.1Q. *ret_vfs is NULL when *ret_n is 0; the caller frees it. Unknown
 * attributes are skipped (a newer kernel adds some). -EBADMSG if the message is not an RTM_NEWLINK,
 * is malformed, carries a struct shorter than the kernel's, a VLAN or QoS out of range, or an
 * IFLA_VF_INFO whose structs do not name one VF, or names a VF twice; -ENOMEM. Nothing is written
 * on an error. */
int rtnl_vf_parse(const struct nlmsghdr *nlh, size_t len, int *ret_ifindex, uint32_t *ret_num_vf,
		  SriovVf **ret_vfs, size_t *ret_n);
