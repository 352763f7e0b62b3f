/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/msg.h>

#include "dcbnl-talk.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int dcbnl_socket_open(struct nl_sock **ret) {
	return netlink_open(NETLINK_ROUTE, ret);
}

typedef struct ReadState {
	const char *ifname;
	DcbState *state;
	bool replied;
} ReadState;

static int read_reply(const struct nlmsghdr *nlh, void *userdata) {
	ReadState *rs = userdata;
	char ifname[DCBNL_IFNAME_MAX];
	int r;

	rs->replied = true;
	r = dcbnl_ieee_parse(nlh, nlh->nlmsg_len, ifname, rs->state);
	if (r < 0)
		return r;
	return streq(ifname, rs->ifname) ? 0 : -EBADMSG;
}

int dcbnl_ieee_read(struct nl_sock *sk, const char *ifname, DcbState *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DcbState s = { 0 };
	ReadState rs = { .ifname = ifname, .state = &s };
	int r;

	r = dcbnl_ieee_get_new(ifname, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, read_reply, &rs);
	if (r < 0)
		return r;
	if (!rs.replied)
		return -ENODATA;
	*ret = s;
	return 0;
}

/* The driver's error, from the reply; -ENODATA until one came. */
static int write_reply(const struct nlmsghdr *nlh, void *userdata) {
	int r, error = 0;

	r = dcbnl_set_reply_parse(nlh, nlh->nlmsg_len, &error);
	if (r < 0)
		return r;
	*(int *) userdata = error;
	return 0;
}

int dcbnl_ieee_write(struct nl_sock *sk, struct nl_msg *m) {
	int r, error = -ENODATA;

	r = netlink_transact(sk, m, write_reply, &error);
	if (r < 0)
		return r;
	return error;
}
