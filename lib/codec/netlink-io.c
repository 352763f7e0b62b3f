/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "macro.h"
#include "netlink-io.h"

int netlink_open(int protocol, struct nl_sock **ret) {
	struct timeval tv = { .tv_sec = NETLINK_TIMEOUT_SEC };
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	r = nl_connect(sk, protocol);
	if (r < 0) {
		nl_socket_free(sk);
		return r == -NLE_PROTO_MISMATCH ? -EPROTONOSUPPORT : -EIO;
	}
	/* The kernel's reason with its errors (a driver's refusal of a devlink reload, say):
	 * best effort, a kernel before 4.12 has none to give. */
	(void) setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK, &(int){ 1 },
			  sizeof(int));
	/* Size each read to the message waiting (a dump reply can be larger than a page). */
	nl_socket_enable_msg_peek(sk);
	if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0) {
		r = -errno;
		nl_socket_free(sk);
		return r;
	}
	*ret = sk;
	return 0;
}

int netlink_exchange_begin(struct nl_sock *sk, struct nl_msg *m, NetlinkExchange *ret) {
	struct nlmsghdr *req = nlmsg_hdr(m);
	int r;

	/* nl_send(), not nl_send_auto(): the request goes out with exactly the flags its builder
	 * gave it (libnl's auto-ACK would add NLM_F_ACK to a dump). The kernel fills the port. */
	req->nlmsg_seq = nl_socket_use_seq(sk);
	r = nl_send(sk, m);
	if (r < 0)
		return r == -NLE_NOMEM ? -ENOMEM : -EIO;
	*ret = (NetlinkExchange){
		.seq = req->nlmsg_seq,
		.dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP,
		.ack = req->nlmsg_flags & NLM_F_ACK,
	};
	return 0;
}

int netlink_exchange_read(struct nl_sock *sk, NetlinkExchange *x, netlink_reply_t fn,
			  void *userdata) {
	_cleanup_free_ unsigned char *buf = NULL;
	struct sockaddr_nl peer = { 0 };
	struct nlmsghdr *h;
	int n, r;

	n = nl_recv(sk, &peer, &buf, NULL);
	if (n == -NLE_AGAIN)
		return -ETIMEDOUT;
	if (n == -NLE_NOMEM)
		return -ENOMEM;
	if (n <= 0)
		return -EIO;
	if (peer.nl_pid != 0) /* only the kernel answers requests */
		return 0;

	for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
		if (h->nlmsg_seq != x->seq || h->nlmsg_type == NLMSG_NOOP)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR) {
			int e; /* struct nlmsgerr's error: all we need of it */

			if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
				return -EBADMSG;
			memcpy(&e, nlmsg_data(h), sizeof(e));
			if (e > 0)
				return -EBADMSG;
			netlink_extack_parse(h, x->extack);
			return e < 0 ? e : x->result < 0 ? x->result : 1;
		}
		if (h->nlmsg_type == NLMSG_DONE) {
			int e = 0;

			if (!x->dump)
				continue;
			/* a dump that failed on the way says why after NLMSG_DONE */
			if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
				memcpy(&e, nlmsg_data(h), sizeof(e));
			return e < 0 ? e : x->result < 0 ? x->result : 1;
		}
		if (h->nlmsg_type == NLMSG_OVERRUN)
			return -EIO;
		if (fn && x->result >= 0) {
			r = fn(h, userdata);
			if (r < 0)
				x->result = r;
		}
		if (!x->dump && !x->ack)
			return x->result < 0 ? x->result : 1;
	}
	return 0;
}

void netlink_extack_parse(const struct nlmsghdr *h, char buf[static NETLINK_EXTACK_MAX]) {
	const struct nlmsgerr *e;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { 0 };
	size_t off;

	buf[0] = 0;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS) || h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return;
	e = nlmsg_data(h);
	/* the request comes back whole unless capped (NETLINK_CAP_ACK), or the ACK of a success */
	off = sizeof(*e);
	if (!(h->nlmsg_flags & NLM_F_CAPPED) && e->error != 0) {
		if (e->msg.nlmsg_len < sizeof(struct nlmsghdr))
			return;
		off += NLMSG_ALIGN(e->msg.nlmsg_len) - sizeof(struct nlmsghdr);
	}
	if (NLMSG_LENGTH(off) > h->nlmsg_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *) ((char *) nlmsg_data(h) + off),
		      (int) (h->nlmsg_len - NLMSG_LENGTH(off)), NULL) < 0)
		return;
	if (!tb[NLMSGERR_ATTR_MSG] || nla_len(tb[NLMSGERR_ATTR_MSG]) <= 0)
		return;
	/* a string with its NUL, though take no NUL on trust */
	snprintf(buf, NETLINK_EXTACK_MAX, "%.*s", nla_len(tb[NLMSGERR_ATTR_MSG]),
		 (const char *) nla_data(tb[NLMSGERR_ATTR_MSG]));
}

int netlink_transact_extack(struct nl_sock *sk, struct nl_msg *m, netlink_reply_t fn,
			    void *userdata, char ret_extack[static NETLINK_EXTACK_MAX]) {
	NetlinkExchange x = { 0 };
	int r;

	r = netlink_exchange_begin(sk, m, &x);
	while (r == 0)
		r = netlink_exchange_read(sk, &x, fn, userdata);
	snprintf(ret_extack, NETLINK_EXTACK_MAX, "%s", x.extack);
	return r < 0 ? r : 0;
}

int netlink_transact(struct nl_sock *sk, struct nl_msg *m, netlink_reply_t fn, void *userdata) {
	char extack[NETLINK_EXTACK_MAX];

	return netlink_transact_extack(sk, m, fn, userdata, extack);
}
