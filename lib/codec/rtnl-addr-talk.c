/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "netlink-io.h"
#include "rtnl-addr-talk.h"
#include "rtnl-addr.h"

#ifndef NETLINK_GET_STRICT_CHK
#define NETLINK_GET_STRICT_CHK 12
#endif

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

typedef struct ListState {
	int ifindex;
	NetdevAddress *list;
	size_t n, n_alloc;
} ListState;

static void list_state_done(ListState *ls) {
	free(ls->list);
}

static int list_reply(const struct nlmsghdr *nlh, void *userdata) {
	ListState *ls = userdata;
	NetdevAddress a;
	int r;

	/* An address of another family, or one this parser cannot read, is not one rdmad
	 * declares: skipped, as the other addresses are still the netdev's. */
	r = rtnl_addr_parse(nlh, nlh->nlmsg_len, &a.ifindex, &a.address);
	if (r == 0 || r == -EBADMSG)
		return 0;
	if (r < 0)
		return r;
	if (ls->ifindex > 0 && a.ifindex != ls->ifindex)
		return 0; /* a kernel that does not filter */
	r = GREEDY_REALLOC(ls->list, ls->n_alloc, ls->n + 1);
	if (r < 0)
		return r;
	ls->list[ls->n++] = a;
	return 0;
}

int rtnl_addr_list(struct nl_sock *sk, int ifindex, NetdevAddress **ret, size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_(list_state_done) ListState ls = { .ifindex = ifindex };
	int one = 1, r;

	r = rtnl_addr_dump_new(AF_UNSPEC, ifindex, &m);
	if (r < 0)
		return r;
	/* Refused by a kernel before 5.0, which then answers every netdev's addresses. */
	if (ifindex > 0)
		(void) setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_GET_STRICT_CHK, &one,
				  sizeof(one));
	r = netlink_transact(sk, m, list_reply, &ls);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ls.list);
	*ret_n = ls.n;
	return 0;
}

int rtnl_addr_has(struct nl_sock *sk, int ifindex, const Address *want) {
	_cleanup_free_ NetdevAddress *list = NULL;
	size_t n = 0, size = want->family == AF_INET ? 4 : 16;
	int r;

	r = rtnl_addr_list(sk, ifindex, &list, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (list[i].address.family == want->family &&
		    list[i].address.prefixlen == want->prefixlen &&
		    memcmp(list[i].address.addr, want->addr, size) == 0)
			return 1;
	return 0;
}
