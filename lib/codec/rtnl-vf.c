/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "macro.h"
#include "rtnl-link.h"
#include "rtnl-vf.h"

/* VfLinkState is sent and read as the kernel's number. */
_Static_assert((int) VF_LINK_STATE_AUTO == (int) IFLA_VF_LINK_STATE_AUTO, "VF_LINK_STATE_AUTO");
_Static_assert((int) VF_LINK_STATE_ENABLE == (int) IFLA_VF_LINK_STATE_ENABLE,
	       "VF_LINK_STATE_ENABLE");
_Static_assert((int) VF_LINK_STATE_DISABLE == (int) IFLA_VF_LINK_STATE_DISABLE,
	       "VF_LINK_STATE_DISABLE");
_Static_assert(_VF_FIELD_MAX < 32, "SriovVf.set is a u32");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

#define VF_FIELDS_ALL  ((UINT32_C(1) << _VF_FIELD_MAX) - 1)
#define VF_FIELDS_VLAN (VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO))
#define VF_FIELDS_RATE (VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE))
#define VF_VLAN_ID_MAX 4095
#define VF_QOS_MAX     7

/* A request about one netdev: its struct ifinfomsg names it by index and changes no flag. */
static int link_request_new(int type, int flags, int ifindex, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex };

	if (ifindex <= 0)
		return -EINVAL;
	m = nlmsg_alloc_simple(type, flags);
	if (!m || nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rtnl_vf_get_new(int ifindex, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = link_request_new(RTM_GETLINK, NLM_F_REQUEST, ifindex, &m);
	if (r < 0)
		return r;
	/* Without RTEXT_FILTER_VF the kernel leaves the VFs out; the per-VF counters are not
	 * read, and take a third of each VF's room in a list whose length is 16 bits. */
	if (nla_put_u32(m, IFLA_EXT_MASK, RTEXT_FILTER_VF | RTEXT_FILTER_SKIP_STATS) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

static int vf_set_valid(const SriovVf *vf) {
	uint32_t set = vf->set;

	if (set == 0 || (set & ~VF_FIELDS_ALL) || vf->index >= INT_MAX)
		return -EINVAL;
	if (set & VF_FIELDS_VLAN) {
		if (vf->vlan > VF_VLAN_ID_MAX || vf->qos > VF_QOS_MAX)
			return -EINVAL;
		if (vf->vlan_proto != 0 && vf->vlan_proto != ETH_P_8021Q &&
		    vf->vlan_proto != ETH_P_8021AD)
			return -EINVAL;
	}
	/* IFLA_VF_RATE sets both: the one not declared would be set to 0 (no limit). */
	if ((set & VF_FIELDS_RATE) && (set & VF_FIELDS_RATE) != VF_FIELDS_RATE)
		return -EINVAL;
	if ((set & VF_FIELDS_RATE) && vf->max_rate != 0 && vf->max_rate < vf->min_rate)
		return -EINVAL;
	if ((set & VF_BIT(VF_LINK_STATE)) &&
	    (vf->link_state < 0 || vf->link_state >= _VF_LINK_STATE_MAX))
		return -EINVAL;
	return 0;
}

static int put_vlan_list(struct nl_msg *m, const SriovVf *vf) {
	struct ifla_vf_vlan_info info;
	struct nlattr *list;

	memset(&info, 0, sizeof(info)); /* its 2 bytes of tail padding are sent */
	info.vf = vf->index;
	info.vlan = vf->vlan;
	info.qos = vf->qos;
	info.vlan_proto = htons(vf->vlan_proto != 0 ? vf->vlan_proto : ETH_P_8021Q);

	/* IFLA_VF_VLAN_LIST, not IFLA_VF_VLAN: the only one that carries the protocol (the kernel
	 * takes one entry, MAX_VLAN_LIST_LEN). */
	list = nla_nest_start(m, IFLA_VF_VLAN_LIST);
	if (!list || nla_put(m, IFLA_VF_VLAN_INFO, sizeof(info), &info) < 0 ||
	    nla_nest_end(m, list) < 0)
		return -ENOMEM;
	return 0;
}

static int put_guid(struct nl_msg *m, int type, uint32_t index, uint64_t guid) {
	struct ifla_vf_guid g;

	memset(&g, 0, sizeof(g)); /* the padding after vf is sent */
	g.vf = index;
	g.guid = guid; /* host order: the kernel hands the u64 to the driver as it is */
	return nla_put(m, type, sizeof(g), &g) < 0 ? -ENOMEM : 0;
}

/* The attributes of one IFLA_VF_INFO, in do_setvfinfo()'s order, up to the node GUID: the
 * kernel returns once it has set that, so the port GUID is put by the caller. */
static int put_vf_info(struct nl_msg *m, const SriovVf *vf) {
	uint32_t set = vf->set;
	int r;

	if (set & VF_BIT(VF_MAC)) {
		struct ifla_vf_mac mac = { .vf = vf->index };

		memcpy(mac.mac, vf->mac, sizeof(vf->mac)); /* the rest of the 32 bytes stays 0 */
		if (nla_put(m, IFLA_VF_MAC, sizeof(mac), &mac) < 0)
			return -ENOMEM;
	}
	if (set & VF_FIELDS_VLAN) {
		r = put_vlan_list(m, vf);
		if (r < 0)
			return r;
	}
	if (set & VF_FIELDS_RATE) {
		struct ifla_vf_rate rate = {
			.vf = vf->index,
			.min_tx_rate = vf->min_rate,
			.max_tx_rate = vf->max_rate,
		};

		if (nla_put(m, IFLA_VF_RATE, sizeof(rate), &rate) < 0)
			return -ENOMEM;
	}
	if (set & VF_BIT(VF_SPOOF_CHECK)) {
		struct ifla_vf_spoofchk s = { .vf = vf->index, .setting = vf->spoof_check };

		if (nla_put(m, IFLA_VF_SPOOFCHK, sizeof(s), &s) < 0)
			return -ENOMEM;
	}
	if (set & VF_BIT(VF_LINK_STATE)) {
		struct ifla_vf_link_state l = {
			.vf = vf->index,
			.link_state = (uint32_t) vf->link_state,
		};

		if (nla_put(m, IFLA_VF_LINK_STATE, sizeof(l), &l) < 0)
			return -ENOMEM;
	}
	if (set & VF_BIT(VF_TRUST)) {
		struct ifla_vf_trust t = { .vf = vf->index, .setting = vf->trust };

		if (nla_put(m, IFLA_VF_TRUST, sizeof(t), &t) < 0)
			return -ENOMEM;
	}
	if (set & VF_BIT(VF_NODE_GUID))
		return put_guid(m, IFLA_VF_IB_NODE_GUID, vf->index, vf->node_guid);
	return 0;
}

int rtnl_vf_set_new(int ifindex, const SriovVf *vf, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *list, *info;
	int r;

	if (!vf)
		return -EINVAL;
	r = vf_set_valid(vf);
	if (r < 0)
		return r;
	r = link_request_new(RTM_SETLINK, NLM_F_REQUEST | NLM_F_ACK, ifindex, &m);
	if (r < 0)
		return r;

	list = nla_nest_start(m, IFLA_VFINFO_LIST);
	if (!list)
		return -ENOMEM;
	info = nla_nest_start(m, IFLA_VF_INFO);
	if (!info)
		return -ENOMEM;
	r = put_vf_info(m, vf);
	if (r < 0)
		return r;
	if (vf->set & VF_BIT(VF_PORT_GUID)) {
		/* After a node GUID, do_setvfinfo() would never reach it: a VF_INFO of its own,
		 * which do_setlink() applies next. Alone, it can share the first (an empty
		 * IFLA_VF_INFO is -EINVAL). */
		if (vf->set & VF_BIT(VF_NODE_GUID)) {
			if (nla_nest_end(m, info) < 0)
				return -ENOMEM;
			info = nla_nest_start(m, IFLA_VF_INFO);
			if (!info)
				return -ENOMEM;
		}
		r = put_guid(m, IFLA_VF_IB_PORT_GUID, vf->index, vf->port_guid);
		if (r < 0)
			return r;
	}
	if (nla_nest_end(m, info) < 0 || nla_nest_end(m, list) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* Every struct of an IFLA_VF_INFO starts with the VF's index (a u32): they must name one VF. */
static int take_index(const struct nlattr *a, bool *have, uint32_t *index) {
	uint32_t i;

	memcpy(&i, nla_data(a), sizeof(i));
	if (*have && i != *index)
		return -EBADMSG;
	*have = true;
	*index = i;
	return 0;
}

static int take_vlan(SriovVf *vf, uint32_t vlan, uint32_t qos) {
	if (vlan > VF_VLAN_ID_MAX || qos > VF_QOS_MAX)
		return -EBADMSG;
	vf->vlan = (uint16_t) vlan;
	vf->qos = (uint8_t) qos;
	vf->set |= VF_BIT(VF_VLAN) | VF_BIT(VF_QOS);
	return 0;
}

/* IFLA_VF_VLAN_LIST: the kernel sends one IFLA_VF_VLAN_INFO, the VLAN with its protocol. */
static int vlan_list_parse(struct nlattr *list, bool *have, uint32_t *index, SriovVf *vf) {
	struct ifla_vf_vlan_info info;
	struct nlattr *a;
	uint16_t proto;
	int rem, r;

	nla_for_each_nested(a, list, rem) {
		if (nla_type(a) != IFLA_VF_VLAN_INFO)
			continue;
		if (nla_len(a) < (int) sizeof(info))
			return -EBADMSG;
		r = take_index(a, have, index);
		if (r < 0)
			return r;
		memcpy(&info, nla_data(a), sizeof(info));
		r = take_vlan(vf, info.vlan, info.qos);
		if (r < 0)
			return r;
		/* rtnl_fill_vfinfo() presets 802.1Q; mlx5's IPoIB wipes it to 0. */
		proto = ntohs(info.vlan_proto);
		vf->vlan_proto = proto != 0 ? proto : ETH_P_8021Q;
		vf->set |= VF_BIT(VF_VLAN_PROTO);
		return 0;
	}
	return 0;
}

/* One IFLA_VF_INFO as rtnl_fill_vfinfo() lays it out. */
static int vf_info_parse(struct nlattr *info, bool infiniband, SriovVf *ret) {
	/* The kernel's structs are fixed; shorter is not them. */
	static struct nla_policy policy[IFLA_VF_MAX + 1] = {
		[IFLA_VF_MAC] = { .minlen = sizeof(struct ifla_vf_mac) },
		[IFLA_VF_VLAN] = { .minlen = sizeof(struct ifla_vf_vlan) },
		[IFLA_VF_TX_RATE] = { .minlen = sizeof(struct ifla_vf_tx_rate) },
		[IFLA_VF_SPOOFCHK] = { .minlen = sizeof(struct ifla_vf_spoofchk) },
		[IFLA_VF_LINK_STATE] = { .minlen = sizeof(struct ifla_vf_link_state) },
		[IFLA_VF_RATE] = { .minlen = sizeof(struct ifla_vf_rate) },
		[IFLA_VF_TRUST] = { .minlen = sizeof(struct ifla_vf_trust) },
		[IFLA_VF_IB_NODE_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
		[IFLA_VF_IB_PORT_GUID] = { .minlen = sizeof(struct ifla_vf_guid) },
		[IFLA_VF_VLAN_LIST] = { .type = NLA_NESTED },
	};
	/* the attributes whose struct names the VF */
	static const int indexed[] = {
		IFLA_VF_MAC,	  IFLA_VF_VLAN,		IFLA_VF_TX_RATE,
		IFLA_VF_SPOOFCHK, IFLA_VF_LINK_STATE,	IFLA_VF_RATE,
		IFLA_VF_TRUST,	  IFLA_VF_IB_NODE_GUID, IFLA_VF_IB_PORT_GUID,
	};
	struct nlattr *tb[IFLA_VF_MAX + 1] = { 0 };
	bool have_index = false;
	uint32_t index = 0;
	SriovVf vf = { 0 };
	int r;

	if (nla_parse_nested(tb, IFLA_VF_MAX, info, policy) < 0)
		return -EBADMSG;
	for (size_t i = 0; i < ELEMENTSOF(indexed); i++)
		if (tb[indexed[i]]) {
			r = take_index(tb[indexed[i]], &have_index, &index);
			if (r < 0)
				return r;
		}

	if (tb[IFLA_VF_MAC] && !infiniband) {
		struct ifla_vf_mac mac;

		memcpy(&mac, nla_data(tb[IFLA_VF_MAC]), sizeof(mac));
		memcpy(vf.mac, mac.mac, sizeof(vf.mac));
		vf.set |= VF_BIT(VF_MAC);
	}
	if (tb[IFLA_VF_VLAN]) {
		struct ifla_vf_vlan vlan;

		memcpy(&vlan, nla_data(tb[IFLA_VF_VLAN]), sizeof(vlan));
		r = take_vlan(&vf, vlan.vlan, vlan.qos);
		if (r < 0)
			return r;
	}
	if (tb[IFLA_VF_VLAN_LIST]) {
		r = vlan_list_parse(tb[IFLA_VF_VLAN_LIST], &have_index, &index, &vf);
		if (r < 0)
			return r;
	}
	if (tb[IFLA_VF_RATE]) {
		struct ifla_vf_rate rate;

		memcpy(&rate, nla_data(tb[IFLA_VF_RATE]), sizeof(rate));
		vf.min_rate = rate.min_tx_rate;
		vf.max_rate = rate.max_tx_rate;
		vf.set |= VF_FIELDS_RATE;
	} else if (tb[IFLA_VF_TX_RATE]) {
		/* A kernel before IFLA_VF_RATE (3.16): the max only. */
		struct ifla_vf_tx_rate rate;

		memcpy(&rate, nla_data(tb[IFLA_VF_TX_RATE]), sizeof(rate));
		vf.max_rate = rate.rate;
		vf.set |= VF_BIT(VF_MAX_RATE);
	}
	if (tb[IFLA_VF_SPOOFCHK]) {
		struct ifla_vf_spoofchk s;

		memcpy(&s, nla_data(tb[IFLA_VF_SPOOFCHK]), sizeof(s));
		/* -1: the kernel's preset, the driver did not say */
		if (s.setting != UINT32_MAX) {
			vf.spoof_check = s.setting != 0;
			vf.set |= VF_BIT(VF_SPOOF_CHECK);
		}
	}
	if (tb[IFLA_VF_LINK_STATE]) {
		struct ifla_vf_link_state l;

		memcpy(&l, nla_data(tb[IFLA_VF_LINK_STATE]), sizeof(l));
		/* a state a newer kernel adds is not one rdmad can declare: left out */
		if (l.link_state < _VF_LINK_STATE_MAX) {
			vf.link_state = (VfLinkState) l.link_state;
			vf.set |= VF_BIT(VF_LINK_STATE);
		}
	}
	if (tb[IFLA_VF_TRUST]) {
		struct ifla_vf_trust t;

		memcpy(&t, nla_data(tb[IFLA_VF_TRUST]), sizeof(t));
		if (t.setting != UINT32_MAX) {
			vf.trust = t.setting != 0;
			vf.set |= VF_BIT(VF_TRUST);
		}
	}
	if (tb[IFLA_VF_IB_NODE_GUID]) {
		struct ifla_vf_guid g;

		memcpy(&g, nla_data(tb[IFLA_VF_IB_NODE_GUID]), sizeof(g));
		vf.node_guid = g.guid;
		vf.set |= VF_BIT(VF_NODE_GUID);
	}
	if (tb[IFLA_VF_IB_PORT_GUID]) {
		struct ifla_vf_guid g;

		memcpy(&g, nla_data(tb[IFLA_VF_IB_PORT_GUID]), sizeof(g));
		vf.port_guid = g.guid;
		vf.set |= VF_BIT(VF_PORT_GUID);
	}

	if (!have_index)
		return -EBADMSG;
	vf.index = index;
	*ret = vf;
	return 0;
}

static int vf_compare(const void *a, const void *b) {
	const SriovVf *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int rtnl_vf_parse(const struct nlmsghdr *nlh, size_t len, int *ret_ifindex, uint32_t *ret_num_vf,
		  SriovVf **ret_vfs, size_t *ret_n) {
	static struct nla_policy policy[IFLA_MAX + 1] = {
		[IFLA_NUM_VF] = { .type = NLA_U32 },
		[IFLA_VFINFO_LIST] = { .type = NLA_NESTED }, /* empty on a PF with no VFs */
	};
	struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	_cleanup_free_ SriovVf *vfs = NULL;
	const struct ifinfomsg *ifi;
	size_t n = 0, n_alloc = 0;
	uint32_t num_vf = 0;
	int r;

	if (rtnl_newlink_parse(nlh, len, policy, tb, &ifi) < 0)
		return -EBADMSG;

	if (tb[IFLA_NUM_VF])
		num_vf = nla_get_u32(tb[IFLA_NUM_VF]);
	if (tb[IFLA_VFINFO_LIST]) {
		struct nlattr *a;
		int rem;

		nla_for_each_nested(a, tb[IFLA_VFINFO_LIST], rem) {
			if (nla_type(a) != IFLA_VF_INFO)
				continue;
			r = GREEDY_REALLOC(vfs, n_alloc, n + 1);
			if (r < 0)
				return r;
			r = vf_info_parse(a, ifi->ifi_type == ARPHRD_INFINIBAND, &vfs[n]);
			if (r < 0)
				return r;
			n++;
		}
		/* Bytes left that hold no whole attribute: a list cut short, or one past 64 KiB
		 * whose 16-bit length wrapped. */
		if (rem > 0)
			return -EBADMSG;
	}

	if (n > 1)
		qsort(vfs, n, sizeof(*vfs), vf_compare);
	for (size_t i = 1; i < n; i++)
		if (vfs[i].index == vfs[i - 1].index)
			return -EBADMSG;

	*ret_ifindex = ifi->ifi_index;
	*ret_num_vf = num_vf;
	*ret_vfs = TAKE_PTR(vfs);
	*ret_n = n;
	return 0;
}
