/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The one netlink request/reply transport every family uses (RDMA netlink, dcbnl, and the
 * rtnetlink sockets libnl-route drives): a socket that never blocks longer than
 * NETLINK_TIMEOUT_SEC, and one exchange that sends a request built elsewhere (the builders in
 * rdmanl.c and dcbnl.c do no I/O) and reads the kernel's answers to it, checking the sequence
 * number, up to its last word. */

#include <linux/netlink.h>
#include <stdbool.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

/* The kernel answers these requests synchronously; a stuck socket must not stall the daemon
 * (well below the unit's WatchdogSec=30s). */
#define NETLINK_TIMEOUT_SEC 5

/* A socket of protocol (NETLINK_ROUTE, NETLINK_RDMA) with a receive timeout, reading big dump
 * replies whole. -EPROTONOSUPPORT when the kernel has no such protocol (NETLINK_RDMA without
 * ib_core), -EIO when it cannot connect. */
int netlink_open(int protocol, struct nl_sock **ret);

/* Called with each reply to the request (not the ACK, not NLMSG_DONE). What it returns < 0 is
 * the exchange's result, once the kernel's last word has been read. */
typedef int (*netlink_reply_t)(const struct nlmsghdr *nlh, void *userdata);

/* Send m as it was built (no flags added) with the socket's next sequence number, and read the
 * answers to it: every reply goes to fn (if any), up to the NLMSG_ERROR of a request with
 * NLM_F_ACK, the NLMSG_DONE of a dump, or the one reply of a request with neither. Answers to
 * other sequence numbers, and messages from anyone but the kernel, are skipped; nothing of this
 * exchange is left on the socket. libnl's own requests (rtnl_link_get_kernel(), rtnl_addr_add())
 * check their answers' sequence numbers against a count of libnl's that this does not advance:
 * after a netlink_transact(), send them on another socket. Returns 0, the kernel's error from the
 * ACK (or after a failed dump's NLMSG_DONE), fn's first error, -ETIMEDOUT, -EIO, -EBADMSG or
 * -ENOMEM. */
int netlink_transact(struct nl_sock *sk, struct nl_msg *m, netlink_reply_t fn, void *userdata);

/* The kernel's extended ACK message (NLMSGERR_ATTR_MSG: "User forbid the reload for testing
 * purposes"), as long as NETLINK_EXTACK_MAX with its NUL. */
#define NETLINK_EXTACK_MAX 256
/* netlink_transact(), and the message the kernel put in its ACK (an error's reason, or a
 * warning on success) in ret_extack, "" if none. netlink_open() asks for extended ACKs
 * (NETLINK_EXT_ACK, since Linux 4.12). */
int netlink_transact_extack(struct nl_sock *sk, struct nl_msg *m, netlink_reply_t fn,
			    void *userdata, char ret_extack[static NETLINK_EXTACK_MAX]);
/* The extended ACK message of an NLMSG_ERROR message h (NLM_F_ACK_TLVS), into buf; "" if it
 * carries none. Pure: for netlink-io.c and its tests. */
void netlink_extack_parse(const struct nlmsghdr *h, char buf[static NETLINK_EXTACK_MAX]);

/* netlink_transact() in parts, for a caller that reads a long dump a batch at a time between
 * other work: begin sends the request; each read takes one datagram of answers (a dump's
 * batch: what the kernel put in one message buffer) and gives its replies to fn. A read returns
 * 0 while more is to come, 1 once the kernel's last word is read, or what netlink_transact()
 * returns on failure. A caller that gives up before 1 closes the socket: the rest of the
 * exchange is still on it. */
typedef struct NetlinkExchange {
	uint32_t seq;
	bool dump, ack;
	int result;			 /* fn's first error */
	char extack[NETLINK_EXTACK_MAX]; /* the ACK's message, "" if none */
} NetlinkExchange;
int netlink_exchange_begin(struct nl_sock *sk, struct nl_msg *m, NetlinkExchange *ret);
int netlink_exchange_read(struct nl_sock *sk, NetlinkExchange *x, netlink_reply_t fn,
			  void *userdata);
