/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <netlink/attr.h>
#include <rdma/rdma_netlink.h>

#include "macro.h"
#include "rdmanl.h"

#define NLDEV_TYPE(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd)

int rdmanl_sys_get_new(struct nl_msg **ret) {
	struct nl_msg *m;

	m = nlmsg_alloc_simple(NLDEV_TYPE(RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST);
	if (!m)
		return -ENOMEM;
	*ret = m;
	return 0;
}

int rdmanl_sys_parse(const struct nlmsghdr *nlh, size_t len, NetnsMode *ret) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	uint8_t mode;

	/* Everything the kernel sent must fit in what we received. */
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return -EBADMSG;
	if (nlh->nlmsg_type != NLDEV_TYPE(RDMA_NLDEV_CMD_SYS_GET))
		return -EBADMSG;
	/* NLDEV messages carry no family header: attributes start right after nlmsghdr. */
	if (nla_parse(tb, RDMA_NLDEV_ATTR_MAX - 1, (struct nlattr *) NLMSG_DATA(nlh),
		      (int) (nlh->nlmsg_len - NLMSG_HDRLEN), policy) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -ENODATA;
	mode = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (mode >= _NETNS_MODE_MAX)
		return -EBADMSG;
	*ret = (NetnsMode) mode;
	return 0;
}
