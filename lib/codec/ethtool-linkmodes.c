/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <string.h>

#include "ethtool-linkmodes.h"
#include "genl.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* bit, Mb/s, lanes, name: every ETHTOOL_LINK_MODE_<speed>base<media>[_<duplex>]_BIT of Linux 6.1's
 * linux/ethtool.h, its lanes the digits that end the media's name (KR4: 4; T, R_FEC: 1), as the
 * kernel's __LINK_MODE_LANES_* say. */
static const struct {
	uint16_t bit;
	uint32_t speed;
	uint8_t lanes;
	const char *name;
} link_modes[] = {
	/* clang-format off */
	{   0,     10,  1, "10baseT_Half" },
	{   1,     10,  1, "10baseT_Full" },
	{   2,    100,  1, "100baseT_Half" },
	{   3,    100,  1, "100baseT_Full" },
	{   4,   1000,  1, "1000baseT_Half" },
	{   5,   1000,  1, "1000baseT_Full" },
	{  12,  10000,  1, "10000baseT_Full" },
	{  15,   2500,  1, "2500baseX_Full" },
	{  17,   1000,  1, "1000baseKX_Full" },
	{  18,  10000,  4, "10000baseKX4_Full" },
	{  19,  10000,  1, "10000baseKR_Full" },
	{  20,  10000,  1, "10000baseR_FEC" },
	{  21,  20000,  2, "20000baseMLD2_Full" },
	{  22,  20000,  2, "20000baseKR2_Full" },
	{  23,  40000,  4, "40000baseKR4_Full" },
	{  24,  40000,  4, "40000baseCR4_Full" },
	{  25,  40000,  4, "40000baseSR4_Full" },
	{  26,  40000,  4, "40000baseLR4_Full" },
	{  27,  56000,  4, "56000baseKR4_Full" },
	{  28,  56000,  4, "56000baseCR4_Full" },
	{  29,  56000,  4, "56000baseSR4_Full" },
	{  30,  56000,  4, "56000baseLR4_Full" },
	{  31,  25000,  1, "25000baseCR_Full" },
	{  32,  25000,  1, "25000baseKR_Full" },
	{  33,  25000,  1, "25000baseSR_Full" },
	{  34,  50000,  2, "50000baseCR2_Full" },
	{  35,  50000,  2, "50000baseKR2_Full" },
	{  36, 100000,  4, "100000baseKR4_Full" },
	{  37, 100000,  4, "100000baseSR4_Full" },
	{  38, 100000,  4, "100000baseCR4_Full" },
	{  39, 100000,  4, "100000baseLR4_ER4_Full" },
	{  40,  50000,  2, "50000baseSR2_Full" },
	{  41,   1000,  1, "1000baseX_Full" },
	{  42,  10000,  1, "10000baseCR_Full" },
	{  43,  10000,  1, "10000baseSR_Full" },
	{  44,  10000,  1, "10000baseLR_Full" },
	{  45,  10000,  1, "10000baseLRM_Full" },
	{  46,  10000,  1, "10000baseER_Full" },
	{  47,   2500,  1, "2500baseT_Full" },
	{  48,   5000,  1, "5000baseT_Full" },
	{  52,  50000,  1, "50000baseKR_Full" },
	{  53,  50000,  1, "50000baseSR_Full" },
	{  54,  50000,  1, "50000baseCR_Full" },
	{  55,  50000,  1, "50000baseLR_ER_FR_Full" },
	{  56,  50000,  1, "50000baseDR_Full" },
	{  57, 100000,  2, "100000baseKR2_Full" },
	{  58, 100000,  2, "100000baseSR2_Full" },
	{  59, 100000,  2, "100000baseCR2_Full" },
	{  60, 100000,  2, "100000baseLR2_ER2_FR2_Full" },
	{  61, 100000,  2, "100000baseDR2_Full" },
	{  62, 200000,  4, "200000baseKR4_Full" },
	{  63, 200000,  4, "200000baseSR4_Full" },
	{  64, 200000,  4, "200000baseLR4_ER4_FR4_Full" },
	{  65, 200000,  4, "200000baseDR4_Full" },
	{  66, 200000,  4, "200000baseCR4_Full" },
	{  67,    100,  1, "100baseT1_Full" },
	{  68,   1000,  1, "1000baseT1_Full" },
	{  69, 400000,  8, "400000baseKR8_Full" },
	{  70, 400000,  8, "400000baseSR8_Full" },
	{  71, 400000,  8, "400000baseLR8_ER8_FR8_Full" },
	{  72, 400000,  8, "400000baseDR8_Full" },
	{  73, 400000,  8, "400000baseCR8_Full" },
	{  75, 100000,  1, "100000baseKR_Full" },
	{  76, 100000,  1, "100000baseSR_Full" },
	{  77, 100000,  1, "100000baseLR_ER_FR_Full" },
	{  78, 100000,  1, "100000baseCR_Full" },
	{  79, 100000,  1, "100000baseDR_Full" },
	{  80, 200000,  2, "200000baseKR2_Full" },
	{  81, 200000,  2, "200000baseSR2_Full" },
	{  82, 200000,  2, "200000baseLR2_ER2_FR2_Full" },
	{  83, 200000,  2, "200000baseDR2_Full" },
	{  84, 200000,  2, "200000baseCR2_Full" },
	{  85, 400000,  4, "400000baseKR4_Full" },
	{  86, 400000,  4, "400000baseSR4_Full" },
	{  87, 400000,  4, "400000baseLR4_ER4_FR4_Full" },
	{  88, 400000,  4, "400000baseDR4_Full" },
	{  89, 400000,  4, "400000baseCR4_Full" },
	{  90,    100,  1, "100baseFX_Half" },
	{  91,    100,  1, "100baseFX_Full" },
	{  92,     10,  1, "10baseT1L_Full" },
	/* clang-format on */
};

int link_mode_lookup(unsigned bit, uint32_t *ret_speed, uint32_t *ret_lanes,
		     const char **ret_name) {
	for (size_t i = 0; i < ELEMENTSOF(link_modes); i++)
		if (link_modes[i].bit == bit) {
			*ret_speed = link_modes[i].speed;
			*ret_lanes = link_modes[i].lanes;
			*ret_name = link_modes[i].name;
			return 0;
		}
	return -ENOENT;
}

int ethtool_linkmodes_get_new(uint16_t family, const char *ifname, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *header;
	int r;

	if (family < GENL_MIN_ID || !ifname || !ifname[0] || strlen(ifname) >= IFNAMSIZ ||
	    strchr(ifname, '/'))
		return -EINVAL;
	r = genl_request_new(family, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_GENL_VERSION,
			     (size_t) nla_total_size(0) +
				     (size_t) nla_total_size((int) strlen(ifname) + 1) +
				     (size_t) nla_total_size(sizeof(uint32_t)),
			     &m);
	if (r < 0)
		return r;
	/* the header nested (NLA_F_NESTED, as libnl sets it: the kernel's strict policy wants
	 * it), the name, then the flags: compact bitsets, a value and a mask of u32 words */
	header = nla_nest_start(m, ETHTOOL_A_LINKMODES_HEADER);
	if (!header || nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
	    nla_put_u32(m, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_COMPACT_BITSETS) < 0 ||
	    nla_nest_end(m, header) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* The supported modes of a compact OURS bitset (ethnl_put_bitset32(): SIZE, VALUE the
 * advertised modes, MASK the supported ones) into l. */
static int ours_parse(const struct nlattr *nest, LinkModes *l) {
	static struct nla_policy policy[ETHTOOL_A_BITSET_MAX + 1] = {
		[ETHTOOL_A_BITSET_NOMASK] = { .type = NLA_FLAG },
		[ETHTOOL_A_BITSET_SIZE] = { .type = NLA_U32 },
		[ETHTOOL_A_BITSET_BITS] = { .type = NLA_NESTED },
	};
	struct nlattr *tb[ETHTOOL_A_BITSET_MAX + 1] = { 0 };
	const uint8_t *mask;
	uint32_t nbits;
	int r;

	r = genl_attrs_parse(tb, ETHTOOL_A_BITSET_MAX, nla_data(nest), nla_len(nest), policy);
	if (r < 0)
		return r;
	if (tb[ETHTOOL_A_BITSET_BITS])
		return -EPROTO; /* the verbose form, a nest per bit: not what was asked */
	if (!tb[ETHTOOL_A_BITSET_SIZE] || tb[ETHTOOL_A_BITSET_NOMASK] || !tb[ETHTOOL_A_BITSET_MASK])
		return -EBADMSG;
	nbits = nla_get_u32(tb[ETHTOOL_A_BITSET_SIZE]);
	/* u32 words, as many as the bits need (and no more than a netlink attribute holds) */
	if (nbits > 4096 || (size_t) nla_len(tb[ETHTOOL_A_BITSET_MASK]) < (nbits + 31) / 32 * 4)
		return -EBADMSG;
	mask = nla_data(tb[ETHTOOL_A_BITSET_MASK]);
	for (uint32_t bit = 0; bit < nbits; bit++) {
		uint32_t word, speed, lanes;
		const char *name;

		memcpy(&word, mask + bit / 32 * 4, sizeof(word));
		if (!(word & (UINT32_C(1) << (bit % 32))) ||
		    link_mode_lookup(bit, &speed, &lanes, &name) < 0)
			continue;
		l->n_supported++;
		if (speed > l->max_speed || (speed == l->max_speed && lanes < l->max_lanes)) {
			l->max_speed = speed;
			l->max_lanes = lanes;
			snprintf(l->max_mode, sizeof(l->max_mode), "%s", name);
		}
	}
	return 0;
}

int ethtool_linkmodes_parse(const struct nlmsghdr *nlh, size_t len,
			    char ret_ifname[static IFNAMSIZ], LinkModes *ret) {
	static struct nla_policy policy[ETHTOOL_A_LINKMODES_MAX + 1] = {
		[ETHTOOL_A_LINKMODES_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_LINKMODES_OURS] = { .type = NLA_NESTED },
		[ETHTOOL_A_LINKMODES_SPEED] = { .type = NLA_U32 },
		[ETHTOOL_A_LINKMODES_LANES] = { .type = NLA_U32 },
	};
	static struct nla_policy header_policy[ETHTOOL_A_HEADER_MAX + 1] = {
		[ETHTOOL_A_HEADER_DEV_INDEX] = { .type = NLA_U32 },
		[ETHTOOL_A_HEADER_DEV_NAME] = { .type = NLA_STRING, .maxlen = IFNAMSIZ },
	};
	struct nlattr *tb[ETHTOOL_A_LINKMODES_MAX + 1] = { 0 },
						    *htb[ETHTOOL_A_HEADER_MAX + 1] = { 0 };
	LinkModes l = { 0 };
	const char *name;
	size_t n;
	int cmd, r;

	cmd = genl_message_parse(nlh, len, ETHTOOL_A_LINKMODES_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != ETHTOOL_MSG_LINKMODES_GET_REPLY && cmd != ETHTOOL_MSG_LINKMODES_NTF)
		return -EBADMSG;
	if (!tb[ETHTOOL_A_LINKMODES_HEADER])
		return -EBADMSG;
	r = genl_attrs_parse(htb, ETHTOOL_A_HEADER_MAX, nla_data(tb[ETHTOOL_A_LINKMODES_HEADER]),
			     nla_len(tb[ETHTOOL_A_LINKMODES_HEADER]), header_policy);
	if (r < 0)
		return r;
	if (!htb[ETHTOOL_A_HEADER_DEV_NAME])
		return -EBADMSG;
	name = nla_data(htb[ETHTOOL_A_HEADER_DEV_NAME]);
	n = strlen(name);
	if (n == 0 || n + 1 != (size_t) nla_len(htb[ETHTOOL_A_HEADER_DEV_NAME]))
		return -EBADMSG;
	if (tb[ETHTOOL_A_LINKMODES_OURS]) {
		r = ours_parse(tb[ETHTOOL_A_LINKMODES_OURS], &l);
		if (r < 0)
			return r;
	}
	/* SPEED_UNKNOWN (-1) without a link */
	if (tb[ETHTOOL_A_LINKMODES_SPEED] &&
	    nla_get_u32(tb[ETHTOOL_A_LINKMODES_SPEED]) != (uint32_t) SPEED_UNKNOWN)
		l.speed = nla_get_u32(tb[ETHTOOL_A_LINKMODES_SPEED]);
	if (tb[ETHTOOL_A_LINKMODES_LANES])
		l.lanes = nla_get_u32(tb[ETHTOOL_A_LINKMODES_LANES]);
	memcpy(ret_ifname, name, n + 1);
	*ret = l;
	return 0;
}

typedef struct Lookup {
	bool replied;
	LinkModes modes;
} Lookup;

static int reply(const struct nlmsghdr *nlh, void *userdata) {
	Lookup *l = userdata;
	char name[IFNAMSIZ];
	int r;

	r = ethtool_linkmodes_parse(nlh, nlh->nlmsg_len, name, &l->modes);
	if (r < 0)
		return r;
	l->replied = true;
	return 0;
}

int ethtool_linkmodes_read(struct nl_sock *sk, uint16_t family, const char *ifname,
			   LinkModes *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	Lookup l = { 0 };
	int r;

	r = ethtool_linkmodes_get_new(family, ifname, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret = l.modes;
	return 0;
}
