/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The netlink transport against the running kernel's NETLINK_ROUTE (no privilege needed): a
 * dump read whole, the ACK's error, answers to an older request skipped, the payload error of a
 * dcbnl reply, and a request the kernel never answers ending at the receive timeout instead of
 * blocking for ever. */
#include <linux/rtnetlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include "dcbnl-talk.h"
#include "netlink-io.h"
#include "tests.h"

static int count_reply(const struct nlmsghdr *nlh, void *userdata) {
	if (nlh->nlmsg_type == RTM_NEWLINK)
		(*(int *) userdata)++;
	return 0;
}

static struct nl_msg *getlink_dump(void) {
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_msg *m = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_DUMP);

	CHECK(m && nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) == 0);
	return m;
}

TEST(open_sets_timeout) {
	struct nl_sock *sk = NULL;
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	CHECK(getsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, &len) == 0);
	CHECK_INTEQ(tv.tv_sec, NETLINK_TIMEOUT_SEC);
	nl_socket_free(sk);
}

TEST(dump_and_stale_answers) {
	struct nl_sock *sk = NULL;
	struct nl_msg *m;
	int n1 = 0, n2 = 0;

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	m = getlink_dump();
	CHECK_INTEQ(netlink_transact(sk, m, count_reply, &n1), 0);
	CHECK(n1 >= 1); /* lo at least */
	nlmsg_free(m);

	/* A request sent and never read (lo's link, with an ACK): its reply and ACK are on the
	 * socket when the next request goes out, and must not be taken for that one's. */
	m = nlmsg_alloc_simple(RTM_GETLINK, NLM_F_REQUEST | NLM_F_ACK);
	CHECK(nlmsg_append(m, &(struct ifinfomsg){ .ifi_family = AF_UNSPEC, .ifi_index = 1 },
			   sizeof(struct ifinfomsg), NLMSG_ALIGNTO) == 0);
	nlmsg_hdr(m)->nlmsg_seq = nl_socket_use_seq(sk);
	CHECK(nl_send(sk, m) >= 0);
	nlmsg_free(m);
	m = getlink_dump();
	CHECK_INTEQ(netlink_transact(sk, m, count_reply, &n2), 0);
	CHECK_INTEQ(n2, n1);
	nlmsg_free(m);
	nl_socket_free(sk);
}

TEST(ack_and_payload_errors) {
	struct nl_sock *sk = NULL;
	DcbState s;

	CHECK_INTEQ(dcbnl_socket_open(&sk), 0);
	/* lo has no dcbnl ops: the kernel says so in the ACK. */
	CHECK_INTEQ(dcbnl_ieee_read(sk, "lo", &s), -EOPNOTSUPP);
	CHECK_INTEQ(dcbnl_ieee_read(sk, "nosuchdev0", &s), -ENODEV);
	nl_socket_free(sk);
}

/* A request the kernel does not answer (NLMSG_NOOP without NLM_F_ACK is dropped silently)
 * ends with -ETIMEDOUT after the socket's timeout; shortened here to 200 ms. */
TEST(no_answer_times_out) {
	struct timeval tv = { .tv_usec = 200 * 1000 };
	struct timespec t0, t1;
	struct nl_sock *sk = NULL;
	struct nl_msg *m;
	long ms;

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	CHECK(setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) == 0);
	m = nlmsg_alloc_simple(NLMSG_NOOP, NLM_F_REQUEST);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_INTEQ(netlink_transact(sk, m, NULL, NULL), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(ms >= 150);
	nlmsg_free(m);
	nl_socket_free(sk);
}

TESTS_MAIN(TEST_ENTRY(open_sets_timeout), TEST_ENTRY(dump_and_stale_answers),
	   TEST_ENTRY(ack_and_payload_errors), TEST_ENTRY(no_answer_times_out))
