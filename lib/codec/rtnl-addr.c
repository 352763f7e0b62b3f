/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "rtnl-addr.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int rtnl_addr_dump_new(int family, int ifindex, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct ifaddrmsg ifa = { .ifa_family = (uint8_t) family, .ifa_index = (uint32_t) ifindex };

	if ((family != AF_UNSPEC && family != AF_INET && family != AF_INET6) || ifindex < 0)
		return -EINVAL;
	m = nlmsg_alloc_simple(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP);
	if (!m || nlmsg_append(m, &ifa, sizeof(ifa), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rtnl_addr_parse(const struct nlmsghdr *nlh, size_t len, int *ret_ifindex, Address *ret) {
	struct nlattr *tb[IFA_MAX + 1] = { 0 };
	const struct ifaddrmsg *ifa;
	const struct nlattr *local;
	size_t size;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)) ||
	    nlh->nlmsg_type != RTM_NEWADDR)
		return -EBADMSG;
	ifa = NLMSG_DATA(nlh);
	if (ifa->ifa_index == 0 || ifa->ifa_index > INT32_MAX)
		return -EBADMSG;
	if (ifa->ifa_family != AF_INET && ifa->ifa_family != AF_INET6)
		return 0;
	size = ifa->ifa_family == AF_INET ? 4 : 16;
	if (ifa->ifa_prefixlen > size * 8)
		return -EBADMSG;
	if (nla_parse(tb, IFA_MAX,
		      (struct nlattr *) ((uint8_t *) NLMSG_DATA(nlh) + NLMSG_ALIGN(sizeof(*ifa))),
		      (int) (nlh->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*ifa)))), NULL) < 0)
		return -EBADMSG;
	local = tb[IFA_LOCAL] ? tb[IFA_LOCAL] : tb[IFA_ADDRESS];
	if (!local || (size_t) nla_len(local) != size)
		return -EBADMSG;

	*ret_ifindex = (int) ifa->ifa_index;
	*ret = (Address){ .family = ifa->ifa_family, .prefixlen = ifa->ifa_prefixlen };
	memcpy(ret->addr, nla_data(local), size);
	return 1;
}
