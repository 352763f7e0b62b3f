/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <string.h>

#include "genl.h"
#include "macro.h"

/* The controller's own version (the kernel's genl_ctrl family is version 2; iproute2 and libnl
 * send 1, and the controller does not look at it). */
#define GENL_CTRL_VERSION 1

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int genl_request_new(uint16_t type, uint8_t cmd, uint8_t version, size_t payload,
		     struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct genlmsghdr g = { .cmd = cmd, .version = version };

	m = nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN + payload);
	if (!m || !nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, NLM_F_REQUEST | NLM_F_ACK))
		return -ENOMEM;
	if (nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

static size_t string_size(const char *s) {
	return (size_t) nla_total_size((int) strlen(s) + 1);
}

int genl_family_get_new(const char *name, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (!name || name[0] == '\0' || strlen(name) >= GENL_NAMSIZ)
		return -EINVAL;
	r = genl_request_new(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, GENL_CTRL_VERSION, string_size(name),
			     &m);
	if (r < 0)
		return r;
	if (nla_put_string(m, CTRL_ATTR_FAMILY_NAME, name) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int genl_attrs_parse(struct nlattr **tb, int maxtype, struct nlattr *head, int len,
		     struct nla_policy *policy) {
	struct nlattr *a;
	int rem;

	if (nla_parse(tb, maxtype, head, len, policy) < 0)
		return -EBADMSG;
	for (a = head, rem = len; nla_ok(a, rem);)
		a = nla_next(a, &rem);
	if (rem > 0)
		return -EBADMSG;
	return 0;
}

int genl_message_parse(const struct nlmsghdr *nlh, size_t len, int maxtype,
		       struct nla_policy *policy, struct nlattr **tb) {
	const struct genlmsghdr *g;
	int r;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) || nlh->nlmsg_type < NLMSG_MIN_TYPE)
		return -EBADMSG;
	g = NLMSG_DATA(nlh);
	r = genl_attrs_parse(tb, maxtype,
			     (struct nlattr *) ((uint8_t *) NLMSG_DATA(nlh) + GENL_HDRLEN),
			     (int) (nlh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), policy);
	if (r < 0)
		return r;
	return g->cmd;
}

int genl_family_parse(const struct nlmsghdr *nlh, size_t len, uint16_t *ret_id) {
	static struct nla_policy policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_FAMILY_ID] = { .type = NLA_U16 },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1] = { 0 };
	uint16_t id;
	int cmd;

	cmd = genl_message_parse(nlh, len, CTRL_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	/* ctrl_getfamily() answers with the NEWFAMILY command */
	if (nlh->nlmsg_type != GENL_ID_CTRL || cmd != CTRL_CMD_NEWFAMILY)
		return -EBADMSG;
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return -EBADMSG;
	id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	/* an id below the first a family gets would be a netlink control message's type */
	if (id < NLMSG_MIN_TYPE)
		return -EBADMSG;
	*ret_id = id;
	return 0;
}

int genl_mcast_group_parse(const struct nlmsghdr *nlh, size_t len, const char *group,
			   uint32_t *ret_id) {
	static struct nla_policy policy[CTRL_ATTR_MAX + 1] = {
		[CTRL_ATTR_MCAST_GROUPS] = { .type = NLA_NESTED },
	};
	static struct nla_policy group_policy[CTRL_ATTR_MCAST_GRP_MAX + 1] = {
		[CTRL_ATTR_MCAST_GRP_NAME] = { .type = NLA_STRING, .maxlen = GENL_NAMSIZ },
		[CTRL_ATTR_MCAST_GRP_ID] = { .type = NLA_U32 },
	};
	struct nlattr *tb[CTRL_ATTR_MAX + 1] = { 0 }, *groups, *g;
	bool found = false;
	uint32_t id = 0;
	int cmd, rem;

	if (!group || group[0] == '\0' || strlen(group) >= GENL_NAMSIZ)
		return -EINVAL;
	cmd = genl_message_parse(nlh, len, CTRL_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	/* ctrl_getfamily() answers with the NEWFAMILY command */
	if (nlh->nlmsg_type != GENL_ID_CTRL || cmd != CTRL_CMD_NEWFAMILY)
		return -EBADMSG;
	/* ctrl_fill_info() leaves the nest out for a family without groups */
	groups = tb[CTRL_ATTR_MCAST_GROUPS];
	if (!groups)
		return -ENOENT;
	/* one nest per group, typed by its index + 1 (the type is not looked at); all of them
	 * well formed, the one asked for or not */
	for (g = nla_data(groups), rem = nla_len(groups); nla_ok(g, rem); g = nla_next(g, &rem)) {
		struct nlattr *gtb[CTRL_ATTR_MCAST_GRP_MAX + 1] = { 0 };
		int r;

		r = genl_attrs_parse(gtb, CTRL_ATTR_MCAST_GRP_MAX, nla_data(g), nla_len(g),
				     group_policy);
		if (r < 0)
			return r;
		if (!gtb[CTRL_ATTR_MCAST_GRP_NAME] || !gtb[CTRL_ATTR_MCAST_GRP_ID])
			return -EBADMSG;
		/* 0 is no group: NETLINK_ADD_MEMBERSHIP refuses it */
		if (nla_get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]) == 0)
			return -EBADMSG;
		if (!found && streq(nla_data(gtb[CTRL_ATTR_MCAST_GRP_NAME]), group)) {
			found = true;
			id = nla_get_u32(gtb[CTRL_ATTR_MCAST_GRP_ID]);
		}
	}
	if (rem > 0)
		return -EBADMSG;
	if (!found)
		return -ENOENT;
	*ret_id = id;
	return 0;
}
