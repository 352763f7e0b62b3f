/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "rtnl-link.h"

_Static_assert(sizeof(((RtnlLink *) 0)->name) == IF_NAMESIZE, "a netdev name and its NUL");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int rtnl_link_dump_new(struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };

	m = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP);
	if (!m || nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_u32(m, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rtnl_newlink_parse(const struct nlmsghdr *nlh, size_t len, const struct nla_policy *policy,
		       struct nlattr **tb, const struct ifinfomsg **ret_ifi) {
	const struct ifinfomsg *ifi;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)) ||
	    nlh->nlmsg_type != RTM_NEWLINK)
		return -EBADMSG;
	ifi = NLMSG_DATA(nlh);
	if (ifi->ifi_index <= 0)
		return -EBADMSG;
	if (nla_parse(tb, IFLA_MAX,
		      (struct nlattr *) ((uint8_t *) NLMSG_DATA(nlh) + NLMSG_ALIGN(sizeof(*ifi))),
		      (int) (nlh->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*ifi)))), policy) < 0)
		return -EBADMSG;
	*ret_ifi = ifi;
	return 0;
}

int rtnl_link_parse(const struct nlmsghdr *nlh, size_t len, RtnlLink *ret) {
	struct nlattr *tb[IFLA_MAX + 1] = { 0 };
	const struct ifinfomsg *ifi;
	const char *name;
	size_t n;
	RtnlLink l;

	if (rtnl_newlink_parse(nlh, len, NULL, tb, &ifi) < 0)
		return -EBADMSG;
	if (!tb[IFLA_IFNAME])
		return -EBADMSG;
	name = nla_data(tb[IFLA_IFNAME]);
	n = (size_t) nla_len(tb[IFLA_IFNAME]);
	/* the kernel sends the name with its NUL (nla_put_string()) */
	if (n < 2 || n > IF_NAMESIZE || name[n - 1] != '\0' || strlen(name) != n - 1)
		return -EBADMSG;
	if (tb[IFLA_MTU] && nla_len(tb[IFLA_MTU]) != sizeof(uint32_t))
		return -EBADMSG;

	l = (RtnlLink){
		.ifindex = ifi->ifi_index,
		.mtu = tb[IFLA_MTU] ? nla_get_u32(tb[IFLA_MTU]) : 0,
		.up = ifi->ifi_flags & IFF_UP,
	};
	memcpy(l.name, name, n);
	*ret = l;
	return 0;
}
