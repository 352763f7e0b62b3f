/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rtnl_addr_list() and rtnl_addr_has() against this machine's kernel, in a network namespace of
 * their own with two veth netdevs (this machine has no dummy driver): one netdev's dump holds its
 * addresses and no other's (the kernel filters under NETLINK_GET_STRICT_CHK, or rtnl-addr-talk.c
 * does). Needs root. */
#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "netlink-io.h"
#include "rtnl-addr-talk.h"
#include "tests.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

static Address addr(const char *s) {
	Address a = { 0 };

	CHECK_INTEQ(address_from_string(s, &a), 0);
	return a;
}

static int d0, d1;

TEST(one_netdev_only) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_free_ NetdevAddress *list = NULL;
	Address v4 = addr("192.0.2.1/24"), v6 = addr("fd00::1/64");
	size_t n = 0;

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	CHECK_INTEQ(rtnl_addr_list(sk, d0, &list, &n), 0);
	CHECK_INTEQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		CHECK_INTEQ(list[i].ifindex, d0);
		CHECK(memcmp(&list[i].address, list[i].address.family == AF_INET ? &v4 : &v6,
			     sizeof(Address)) == 0);
	}
}

TEST(every_netdev) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_free_ NetdevAddress *list = NULL;
	size_t n = 0, on_d0 = 0, on_d1 = 0;

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	CHECK_INTEQ(rtnl_addr_list(sk, 0, &list, &n), 0);
	for (size_t i = 0; i < n; i++) {
		on_d0 += list[i].ifindex == d0;
		on_d1 += list[i].ifindex == d1;
	}
	CHECK_INTEQ(on_d0, 2);
	CHECK_INTEQ(on_d1, 1);
}

TEST(has) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	Address a = addr("198.51.100.1/24"), b = addr("198.51.100.1/25");

	CHECK_INTEQ(netlink_open(NETLINK_ROUTE, &sk), 0);
	/* the same socket, asked again and again: each dump read whole */
	CHECK_INTEQ(rtnl_addr_has(sk, d1, &a), 1);
	CHECK_INTEQ(rtnl_addr_has(sk, d0, &a), 0);
	CHECK_INTEQ(rtnl_addr_has(sk, d1, &b), 0); /* another prefix length */
	CHECK_INTEQ(rtnl_addr_has(sk, d1, &a), 1);
}

int test_failed;
int main(void) {
	static const TestCase t[] = { TEST_ENTRY(one_netdev_only), TEST_ENTRY(every_netdev),
				      TEST_ENTRY(has) };

	if (unshare(CLONE_NEWNET) < 0 ||
	    system("ip link add d0 type veth peer name p0 && "
		   "ip link add d1 type veth peer name p1 && "
		   "ip addr add 192.0.2.1/24 dev d0 && ip addr add fd00::1/64 dev d0 nodad && "
		   "ip addr add 198.51.100.1/24 dev d1") != 0) {
		printf("Bail out! cannot make the veth netdevs (root, iproute2)\n");
		return EXIT_FAILURE;
	}
	d0 = (int) if_nametoindex("d0");
	d1 = (int) if_nametoindex("d1");
	return tests_run(t, ELEMENTSOF(t));
}
