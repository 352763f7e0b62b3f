/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <netlink/msg.h>
#include <sys/socket.h>

#include "dcbnl-talk.h"
#include "macro.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_cb *, nl_cb_put)

int dcbnl_socket_open(struct nl_sock **ret) {
	struct nl_sock *sk;

	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	if (nl_connect(sk, NETLINK_ROUTE) < 0) {
		nl_socket_free(sk);
		return -EIO;
	}
	*ret = sk;
	return 0;
}

typedef struct Talk {
	int (*parse)(const struct nlmsghdr *nlh, void *userdata);
	void *userdata;
	int reply; /* what parse() said of the reply; -ENODATA while none came */
	int ack;   /* the ACK's error */
	bool done; /* the ACK came */
} Talk;

static int on_valid(struct nl_msg *msg, void *arg) {
	Talk *t = arg;

	if (t->reply == -ENODATA)
		t->reply = t->parse(nlmsg_hdr(msg), t->userdata);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg) {
	Talk *t = arg;

	t->ack = 0;
	t->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg) {
	Talk *t = arg;

	t->ack = e->error < 0 ? e->error : -EIO;
	t->done = true;
	return NL_STOP;
}

/* Send m, hand the reply to parse, wait for the ACK. Returns the ACK's error, else parse()'s
 * result, -ENODATA if no reply came. A private callback set: the socket's stays as it is. */
static int talk(struct nl_sock *sk, struct nl_msg *m,
		int (*parse)(const struct nlmsghdr *nlh, void *userdata), void *userdata) {
	_cleanup_(nl_cb_putp) struct nl_cb *cb = NULL;
	Talk t = { .parse = parse, .userdata = userdata, .reply = -ENODATA };
	int r;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	if (nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &t) < 0 ||
	    nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &t) < 0 ||
	    nl_cb_err(cb, NL_CB_CUSTOM, on_error, &t) < 0)
		return -ENOMEM;
	r = nl_send_auto(sk, m);
	if (r < 0)
		return -EIO;
	while (!t.done) {
		r = nl_recvmsgs(sk, cb);
		if (r < 0 && !t.done)
			return -EIO;
	}
	return t.ack < 0 ? t.ack : t.reply;
}

typedef struct ReadState {
	const char *ifname;
	DcbState *state;
} ReadState;

static int read_reply(const struct nlmsghdr *nlh, void *userdata) {
	ReadState *rs = userdata;
	char ifname[DCBNL_IFNAME_MAX];
	int r;

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
	r = talk(sk, m, read_reply, &rs);
	if (r < 0)
		return r;
	*ret = s;
	return 0;
}

static int write_reply(const struct nlmsghdr *nlh, void *userdata) {
	int r, error = 0;

	r = dcbnl_set_reply_parse(nlh, nlh->nlmsg_len, &error);
	if (r < 0)
		return r;
	*(int *) userdata = error;
	return 0;
}

int dcbnl_ieee_write(struct nl_sock *sk, struct nl_msg *m) {
	int r, error = 0;

	r = talk(sk, m, write_reply, &error);
	if (r < 0)
		return r;
	return error;
}
