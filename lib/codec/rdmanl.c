/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <stdlib.h>
#include <string.h>
#include <rdma/rdma_netlink.h>

#include "macro.h"
#include "rdmanl.h"

#define NLDEV_TYPE(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd)

_Static_assert(RDMANL_NDEV_NAME_MAX == IFNAMSIZ, "RDMANL_NDEV_NAME_MAX must be IFNAMSIZ");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* A request with no attributes yet. */
static int request_new(int cmd, int flags, struct nl_msg **ret) {
	struct nl_msg *m;

	m = nlmsg_alloc_simple(NLDEV_TYPE(cmd), flags);
	if (!m)
		return -ENOMEM;
	*ret = m;
	return 0;
}

/* Check the header of a received message and parse its attributes into tb (which has
 * RDMA_NLDEV_ATTR_MAX slots). */
static int reply_parse(const struct nlmsghdr *nlh, size_t len, int cmd, int alt_cmd,
		       struct nla_policy *policy, struct nlattr **tb) {
	/* Everything the kernel sent must fit in what we received. */
	if (len < NLMSG_HDRLEN || nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > len)
		return -EBADMSG;
	if (nlh->nlmsg_type != NLDEV_TYPE(cmd) && nlh->nlmsg_type != NLDEV_TYPE(alt_cmd))
		return -EBADMSG;
	/* NLDEV messages carry no family header: attributes start right after nlmsghdr. */
	if (nla_parse(tb, RDMA_NLDEV_ATTR_MAX - 1, (struct nlattr *) NLMSG_DATA(nlh),
		      (int) (nlh->nlmsg_len - NLMSG_HDRLEN), policy) < 0)
		return -EBADMSG;
	return 0;
}

/* Copy a NUL-terminated string attribute of 1..size-1 characters. */
static int attr_string(const struct nlattr *a, char *buf, size_t size) {
	const char *s = nla_data(a);
	size_t n = (size_t) nla_len(a), l;

	if (n == 0)
		return -EBADMSG;
	l = strnlen(s, n);
	if (l == n || l == 0 || l >= size)
		return -EBADMSG;
	memcpy(buf, s, l + 1);
	return 0;
}

int rdmanl_sys_get_new(struct nl_msg **ret) {
	return request_new(RDMA_NLDEV_CMD_SYS_GET, NLM_F_REQUEST, ret);
}

int rdmanl_sys_parse(const struct nlmsghdr *nlh, size_t len, NetnsMode *ret) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] = { .type = NLA_U8 },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	uint8_t mode;

	if (reply_parse(nlh, len, RDMA_NLDEV_CMD_SYS_GET, RDMA_NLDEV_CMD_SYS_GET, policy, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE])
		return -ENODATA;
	mode = nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]);
	if (mode >= _NETNS_MODE_MAX)
		return -EBADMSG;
	*ret = (NetnsMode) mode;
	return 0;
}

int rdmanl_sys_set_netns_new(NetnsMode mode, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (mode < 0 || mode >= _NETNS_MODE_MAX)
		return -EINVAL;
	r = request_new(RDMA_NLDEV_CMD_SYS_SET, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	/* the kernel's value: 0 exclusive, 1 shared (NetnsMode is numbered to match) */
	if (nla_put_u8(m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, (uint8_t) mode) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rdmanl_newlink_new(const char *name, const char *type, const char *ndev, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (!rdma_device_name_valid(name) || !netdev_name_valid(type) || !netdev_name_valid(ndev))
		return -EINVAL;
	r = request_new(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	/* the order iproute2's `rdma link add` uses */
	if (nla_put_string(m, RDMA_NLDEV_ATTR_DEV_NAME, name) < 0 ||
	    nla_put_string(m, RDMA_NLDEV_ATTR_LINK_TYPE, type) < 0 ||
	    nla_put_string(m, RDMA_NLDEV_ATTR_NDEV_NAME, ndev) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rdmanl_dellink_new(uint32_t dev_index, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = request_new(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	if (nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rdmanl_dev_get_dump_new(struct nl_msg **ret) {
	return request_new(RDMA_NLDEV_CMD_GET, NLM_F_REQUEST | NLM_F_DUMP, ret);
}

int rdmanl_dev_parse(const struct nlmsghdr *nlh, size_t len, uint32_t *ret_index,
		     char ret_name[static RDMANL_DEV_NAME_MAX]) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_DEV_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	char name[RDMANL_DEV_NAME_MAX];

	if (reply_parse(nlh, len, RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_GET, policy, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return -EBADMSG;
	if (attr_string(tb[RDMA_NLDEV_ATTR_DEV_NAME], name, sizeof(name)) < 0)
		return -EBADMSG;
	*ret_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	memcpy(ret_name, name, strlen(name) + 1);
	return 0;
}

int rdmanl_port_get_new(uint32_t dev_index, uint32_t port, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = request_new(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	if (nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0 ||
	    nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, port) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int rdmanl_port_parse(const struct nlmsghdr *nlh, size_t len, uint32_t *ret_index,
		      uint32_t *ret_port, char ret_ndev[static RDMANL_NDEV_NAME_MAX]) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_NDEV_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	char ndev[RDMANL_NDEV_NAME_MAX];

	/* nldev_port_get_doit() answers with the GET command; the PORT_GET dump with its own */
	if (reply_parse(nlh, len, RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_PORT_GET, policy, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_NDEV_NAME])
		return -ENODATA;
	if (attr_string(tb[RDMA_NLDEV_ATTR_NDEV_NAME], ndev, sizeof(ndev)) < 0)
		return -EBADMSG;
	if (ret_index)
		*ret_index = nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	if (ret_port)
		*ret_port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	memcpy(ret_ndev, ndev, strlen(ndev) + 1);
	return 0;
}

void hw_counters_free(HwCounter *l, size_t n) {
	for (size_t i = 0; l && i < n; i++)
		free(l[i].name);
	free(l);
}

int rdmanl_stat_status_get_new(uint32_t dev_index, uint32_t port, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = request_new(RDMA_NLDEV_CMD_STAT_GET_STATUS, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	if (nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0 ||
	    nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, port) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* One RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY of a STAT_GET_STATUS reply. */
static int hw_counter_parse(struct nlattr *entry, HwCounter *ret) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { .type = NLA_STRING },
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = { .type = NLA_U8 },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	char name[RDMANL_COUNTER_NAME_MAX];
	char *s;

	if (nla_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY ||
	    nla_parse_nested(tb, RDMA_NLDEV_ATTR_MAX - 1, entry, policy) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
	    !tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX])
		return -EBADMSG;
	if (attr_string(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME], name, sizeof(name)) < 0)
		return -EBADMSG;
	s = strdup(name);
	if (!s)
		return -ENOMEM;
	*ret = (HwCounter){
		.name = s,
		.index = nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX]),
		/* the kernel puts DYNAMIC on optional counters only: 1 enabled, 0 not */
		.optional = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] != NULL,
		.enabled = tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] &&
			   nla_get_u8(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC]) != 0,
	};
	return 0;
}

int rdmanl_stat_status_parse(const struct nlmsghdr *nlh, size_t len, HwCounter **ret,
			     size_t *ret_n) {
	static struct nla_policy policy[RDMA_NLDEV_ATTR_MAX] = {
		[RDMA_NLDEV_ATTR_DEV_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_PORT_INDEX] = { .type = NLA_U32 },
		[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS] = { .type = NLA_NESTED },
	};
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX] = { 0 };
	HwCounter *l = NULL;
	struct nlattr *entry;
	size_t n = 0;
	int rem, r;

	if (reply_parse(nlh, len, RDMA_NLDEV_CMD_STAT_GET_STATUS, RDMA_NLDEV_CMD_STAT_GET_STATUS,
			policy, tb) < 0)
		return -EBADMSG;
	if (!tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS])
		return -EBADMSG;
	nla_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], rem) {
		HwCounter *p = realloc(l, sizeof(HwCounter) * (n + 1));

		if (!p) {
			hw_counters_free(l, n);
			return -ENOMEM;
		}
		l = p;
		r = hw_counter_parse(entry, &l[n]);
		if (r < 0) {
			hw_counters_free(l, n);
			return r;
		}
		n++;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

int rdmanl_stat_set_optional_new(uint32_t dev_index, uint32_t port, const uint32_t *indices,
				 size_t n, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *table;
	int r;

	r = request_new(RDMA_NLDEV_CMD_STAT_SET, NLM_F_REQUEST | NLM_F_ACK, &m);
	if (r < 0)
		return r;
	/* the order iproute2's `rdma statistic set link ... optional-counters` uses */
	if (nla_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index) < 0 ||
	    nla_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, port) < 0)
		return -ENOMEM;
	/* An empty table disables them all; libnl's nla_nest_end() would drop it, and the kernel
	 * refuses a STAT_SET with neither a table nor a mode: put it as an empty attribute. */
	if (n == 0) {
		if (nla_put(m, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS | NLA_F_NESTED, 0, NULL) < 0)
			return -ENOMEM;
		*ret = TAKE_PTR(m);
		return 0;
	}
	table = nla_nest_start(m, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (nla_put_u32(m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, indices[i]) < 0)
			return -ENOMEM;
	if (nla_nest_end(m, table) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}
