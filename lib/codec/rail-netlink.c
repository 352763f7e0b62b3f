/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/fib_rules.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <sys/socket.h>

#include "rail-netlink.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static int family_len(int family) {
	switch (family) {
	case AF_INET:
		return 4;
	case AF_INET6:
		return 16;
	default:
		return -EINVAL;
	}
}

/* The header's one-byte table, as iproute2 sets it: the id itself below 256. */
static uint8_t table_byte(uint32_t table) {
	return table < 256 ? (uint8_t) table : RT_TABLE_UNSPEC;
}

int rail_rule_new(bool add, const RailRule *rule, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int len = family_len(rule->family);
	struct fib_rule_hdr frh;

	if (len < 0 || rule->src_len > len * 8 || !rail_table_valid(rule->table))
		return -EINVAL;
	m = nlmsg_alloc_simple(add ? RTM_NEWRULE : RTM_DELRULE,
			       NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0));
	if (!m)
		return -ENOMEM;
	frh = (struct fib_rule_hdr){
		.family = (uint8_t) rule->family,
		.src_len = rule->src_len,
		.table = table_byte(rule->table),
		.action = FR_ACT_TO_TBL,
	};
	if (nlmsg_append(m, &frh, sizeof(frh), NLMSG_ALIGNTO) < 0 ||
	    nla_put(m, FRA_SRC, len, rule->src) < 0 ||
	    nla_put_u32(m, FRA_PRIORITY, rule->priority) < 0 ||
	    nla_put_u32(m, FRA_TABLE, rule->table) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rail_rule_dump_new(int family, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct fib_rule_hdr frh = { .family = (uint8_t) family };

	if (family != AF_UNSPEC && family_len(family) < 0)
		return -EINVAL;
	m = nlmsg_alloc_simple(RTM_GETRULE, NLM_F_REQUEST | NLM_F_DUMP);
	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, &frh, sizeof(frh), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* Parse the attributes after a family header of hdrlen bytes into tb[0..max]. */
static int message_parse(const struct nlmsghdr *nlh, size_t len, int type, size_t hdrlen,
			 struct nlattr **tb, int max) {
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len || nlh->nlmsg_type != type ||
	    nlh->nlmsg_len < NLMSG_LENGTH(hdrlen))
		return -EBADMSG;
	if (nla_parse(tb, max,
		      (struct nlattr *) ((uint8_t *) NLMSG_DATA(nlh) + NLMSG_ALIGN(hdrlen)),
		      (int) (nlh->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(hdrlen))), NULL) < 0)
		return -EBADMSG;
	return 0;
}

static int attr_u32(const struct nlattr *a, uint32_t *ret) {
	if (nla_len(a) < (int) sizeof(uint32_t))
		return -EBADMSG;
	*ret = nla_get_u32(a);
	return 0;
}

int rail_rule_parse(const struct nlmsghdr *nlh, size_t len, RailRule *ret) {
	/* Selectors a rule of rdmad's never has. */
	static const int others[] = {
		FRA_IIFNAME,  FRA_OIFNAME,     FRA_GOTO,	FRA_L3MDEV,
		FRA_IP_PROTO, FRA_SPORT_RANGE, FRA_DPORT_RANGE, FRA_UID_RANGE
	};
	struct nlattr *tb[FRA_MAX + 1] = { 0 };
	const struct fib_rule_hdr *frh;
	RailRule r = { 0 };
	int alen;

	if (message_parse(nlh, len, RTM_NEWRULE, sizeof(*frh), tb, FRA_MAX) < 0)
		return -EBADMSG;
	frh = NLMSG_DATA(nlh);
	alen = family_len(frh->family);
	if (alen < 0 || frh->action != FR_ACT_TO_TBL || frh->src_len == 0 || frh->dst_len != 0 ||
	    frh->tos != 0 || (frh->flags & FIB_RULE_INVERT))
		return -ENODATA;
	for (size_t i = 0; i < ELEMENTSOF(others); i++)
		if (tb[others[i]])
			return -ENODATA;
	if (tb[FRA_FWMARK] && (nla_len(tb[FRA_FWMARK]) < 4 || nla_get_u32(tb[FRA_FWMARK]) != 0))
		return -ENODATA;
	if (!tb[FRA_SRC] || nla_len(tb[FRA_SRC]) != alen || frh->src_len > alen * 8)
		return -EBADMSG;
	r.family = frh->family;
	r.src_len = frh->src_len;
	memcpy(r.src, nla_data(tb[FRA_SRC]), (size_t) alen);
	r.table = frh->table;
	if (tb[FRA_TABLE] && attr_u32(tb[FRA_TABLE], &r.table) < 0)
		return -EBADMSG;
	if (tb[FRA_PRIORITY] && attr_u32(tb[FRA_PRIORITY], &r.priority) < 0)
		return -EBADMSG;
	*ret = r;
	return 0;
}

int rail_route_new(bool add, const RailRoute *route, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int len = family_len(route->family);
	struct rtmsg rtm;

	if (len < 0 || route->dst_len > len * 8 || !rail_table_valid(route->table) ||
	    route->oif <= 0)
		return -EINVAL;
	m = nlmsg_alloc_simple(add ? RTM_NEWROUTE : RTM_DELROUTE,
			       NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_EXCL : 0));
	if (!m)
		return -ENOMEM;
	rtm = (struct rtmsg){
		.rtm_family = (uint8_t) route->family,
		.rtm_dst_len = route->dst_len,
		.rtm_table = table_byte(route->table),
		.rtm_protocol = route->protocol,
		.rtm_scope = RT_SCOPE_LINK, /* a connected route: no gateway */
		.rtm_type = RTN_UNICAST,
	};
	if (nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0 ||
	    nla_put(m, RTA_DST, len, route->dst) < 0 ||
	    (route->has_prefsrc && nla_put(m, RTA_PREFSRC, len, route->prefsrc) < 0) ||
	    nla_put_u32(m, RTA_OIF, (uint32_t) route->oif) < 0 ||
	    nla_put_u32(m, RTA_TABLE, route->table) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rail_route_dump_new(int family, uint8_t protocol, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct rtmsg rtm = { .rtm_family = (uint8_t) family, .rtm_protocol = protocol };

	if (family != AF_UNSPEC && family_len(family) < 0)
		return -EINVAL;
	m = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST | NLM_F_DUMP);
	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rail_route_parse(const struct nlmsghdr *nlh, size_t len, RailRoute *ret) {
	struct nlattr *tb[RTA_MAX + 1] = { 0 };
	const struct rtmsg *rtm;
	RailRoute r = { 0 };
	uint32_t oif;
	int alen;

	if (message_parse(nlh, len, RTM_NEWROUTE, sizeof(*rtm), tb, RTA_MAX) < 0)
		return -EBADMSG;
	rtm = NLMSG_DATA(nlh);
	alen = family_len(rtm->rtm_family);
	if (alen < 0 || rtm->rtm_type != RTN_UNICAST || !tb[RTA_OIF] || tb[RTA_MULTIPATH])
		return -ENODATA;
	if (rtm->rtm_dst_len > alen * 8 || attr_u32(tb[RTA_OIF], &oif) < 0 || oif > INT32_MAX ||
	    (rtm->rtm_dst_len > 0 && !tb[RTA_DST]) ||
	    (tb[RTA_DST] && nla_len(tb[RTA_DST]) != alen) ||
	    (tb[RTA_PREFSRC] && nla_len(tb[RTA_PREFSRC]) != alen))
		return -EBADMSG;
	r.family = rtm->rtm_family;
	r.dst_len = rtm->rtm_dst_len;
	if (tb[RTA_DST])
		memcpy(r.dst, nla_data(tb[RTA_DST]), (size_t) alen);
	if (tb[RTA_PREFSRC]) {
		memcpy(r.prefsrc, nla_data(tb[RTA_PREFSRC]), (size_t) alen);
		r.has_prefsrc = true;
	}
	r.oif = (int) oif;
	r.table = rtm->rtm_table;
	if (tb[RTA_TABLE] && attr_u32(tb[RTA_TABLE], &r.table) < 0)
		return -EBADMSG;
	r.protocol = rtm->rtm_protocol;
	*ret = r;
	return 0;
}
