/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "netlink-io.h"
#include "rtnl-vf-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

typedef struct ReadState {
	int ifindex;
	bool replied;
	uint32_t num_vf;
	SriovVf *vfs;
	size_t n;
} ReadState;

static void read_state_done(ReadState *rs) {
	free(rs->vfs);
}

static int read_reply(const struct nlmsghdr *nlh, void *userdata) {
	ReadState *rs = userdata;
	SriovVf *vfs;
	uint32_t num_vf;
	int ifindex, r;
	size_t n;

	r = rtnl_vf_parse(nlh, nlh->nlmsg_len, &ifindex, &num_vf, &vfs, &n);
	if (r < 0)
		return r;
	if (ifindex != rs->ifindex) {
		free(vfs);
		return -EBADMSG;
	}
	/* A GETLINK without a dump has one reply; were there more, the last one counts. */
	free(rs->vfs);
	rs->replied = true;
	rs->num_vf = num_vf;
	rs->vfs = vfs;
	rs->n = n;
	return 0;
}

int rtnl_vf_read(struct nl_sock *sk, int ifindex, uint32_t *ret_num_vf, SriovVf **ret,
		 size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_(read_state_done) ReadState rs = { .ifindex = ifindex };
	int r;

	r = rtnl_vf_get_new(ifindex, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, read_reply, &rs);
	if (r < 0)
		return r;
	if (!rs.replied)
		return -ENODATA;
	*ret_num_vf = rs.num_vf;
	*ret = TAKE_PTR(rs.vfs);
	*ret_n = rs.n;
	return 0;
}

int rtnl_vf_write(struct nl_sock *sk, int ifindex, const SriovVf *vf) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = rtnl_vf_set_new(ifindex, vf, &m);
	if (r < 0)
		return r;
	/* The kernel answers a SETLINK with its ACK only: the error is the answer. */
	return netlink_transact(sk, m, NULL, NULL);
}
