/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The address dump request, checked on its bytes against the kernel's UAPI layout
 * (linux/if_addr.h), and the parser on RTM_NEWADDR messages laid out as net/ipv4/devinet.c's
 * inet_fill_ifaddr() and net/ipv6/addrconf.c's inet6_fill_ifaddr() send them. The request is
 * what `ip addr show dev X` sends (ipaddr_list_flush_or_save(): NLM_F_REQUEST | NLM_F_DUMP,
 * struct ifaddrmsg with the family and, under strict checking, the index). */
#include <arpa/inet.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "rtnl-addr.h"
#include "tests.h"
#include "test-nlmsg.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

TEST(uapi) {
	CHECK_INTEQ(RTM_NEWADDR, 20);
	CHECK_INTEQ(RTM_GETADDR, 22);
	CHECK_INTEQ(IFA_ADDRESS, 1);
	CHECK_INTEQ(IFA_LOCAL, 2);
	CHECK_INTEQ(IFA_LABEL, 3);
	CHECK_INTEQ(IFA_CACHEINFO, 6);
	CHECK_INTEQ(IFA_FLAGS, 8);
	/* struct ifaddrmsg: u8 family, prefixlen, flags, scope; u32 index */
	CHECK_INTEQ(sizeof(struct ifaddrmsg), 8);
	CHECK_INTEQ(offsetof(struct ifaddrmsg, ifa_index), 4);
}

TEST(dump_request_bytes) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	static const uint8_t one[] = {
		24,	   0,	 0, 0, /* nlmsg_len */
		22,	   0,	       /* RTM_GETADDR */
		0x01,	   0x03,       /* NLM_F_REQUEST | NLM_F_DUMP */
		0,	   0,	 0, 0, /* seq: the sender's */
		0,	   0,	 0, 0, /* pid */
		AF_UNSPEC, 0, /* family, prefix length (0: strict checking refuses others) */
		0,	   0, /* flags, scope */
		7,	   0,	 0, 0, /* ifa_index */
	};

	CHECK_INTEQ(rtnl_addr_dump_new(AF_UNSPEC, 7, &m), 0);
	check_bytes(m, one, sizeof(one));
	nlmsg_free(TAKE_PTR(m));

	CHECK_INTEQ(rtnl_addr_dump_new(AF_INET6, 0, &m), 0);
	CHECK_INTEQ(((struct ifaddrmsg *) nlmsg_data(nlmsg_hdr(m)))->ifa_family, AF_INET6);
	CHECK_INTEQ(((struct ifaddrmsg *) nlmsg_data(nlmsg_hdr(m)))->ifa_index, 0);
	nlmsg_free(TAKE_PTR(m));

	CHECK_INTEQ(rtnl_addr_dump_new(AF_PACKET, 1, &m), -EINVAL);
	CHECK_INTEQ(rtnl_addr_dump_new(AF_INET, -1, &m), -EINVAL);
	CHECK(!m);
}

/* An RTM_NEWADDR as the kernel fills it: ifaddrmsg, then the attributes given. */
static struct nl_msg *newaddr(int type, int family, int prefixlen, int ifindex) {
	struct ifaddrmsg ifa = { .ifa_family = (uint8_t) family,
				 .ifa_prefixlen = (uint8_t) prefixlen,
				 .ifa_scope = RT_SCOPE_UNIVERSE,
				 .ifa_index = (uint32_t) ifindex };
	struct nl_msg *m = nlmsg_alloc_simple(type, NLM_F_MULTI);

	CHECK(m);
	CHECK_INTEQ(nlmsg_append(m, &ifa, sizeof(ifa), NLMSG_ALIGNTO), 0);
	return m;
}

static int parse(struct nl_msg *m, int *ret_ifindex, Address *ret) {
	struct nlmsghdr *h = nlmsg_hdr(m);

	return rtnl_addr_parse(h, h->nlmsg_len, ret_ifindex, ret);
}

TEST(parse_ipv4_local_not_peer) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newaddr(RTM_NEWADDR, AF_INET, 24, 3);
	uint8_t local[4] = { 192, 0, 2, 10 }, peer[4] = { 192, 0, 2, 99 };
	struct ifa_cacheinfo ci = { 0 };
	Address a = { 0 };
	int ifindex = 0;

	/* inet_fill_ifaddr(): IFA_ADDRESS (the peer, on a point-to-point address), IFA_LOCAL,
	 * IFA_LABEL, IFA_FLAGS, IFA_CACHEINFO */
	CHECK_INTEQ(nla_put(m, IFA_ADDRESS, 4, peer), 0);
	CHECK_INTEQ(nla_put(m, IFA_LOCAL, 4, local), 0);
	CHECK_INTEQ(nla_put_string(m, IFA_LABEL, "eth0"), 0);
	CHECK_INTEQ(nla_put_u32(m, IFA_FLAGS, IFA_F_PERMANENT), 0);
	CHECK_INTEQ(nla_put(m, IFA_CACHEINFO, sizeof(ci), &ci), 0);
	CHECK_INTEQ(nla_put_u32(m, 200, 1), 0); /* an attribute of a newer kernel */
	CHECK_INTEQ(parse(m, &ifindex, &a), 1);
	CHECK_INTEQ(ifindex, 3);
	CHECK_INTEQ(a.family, AF_INET);
	CHECK_INTEQ(a.prefixlen, 24);
	CHECK(memcmp(a.addr, local, 4) == 0);
}

TEST(parse_ipv6_address) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newaddr(RTM_NEWADDR, AF_INET6, 64, 9);
	uint8_t addr[16];
	Address a = { 0 };
	int ifindex = 0;

	CHECK_INTEQ(inet_pton(AF_INET6, "fd00::10", addr), 1);
	/* inet6_fill_ifaddr() without a peer: IFA_ADDRESS only */
	CHECK_INTEQ(nla_put(m, IFA_ADDRESS, 16, addr), 0);
	CHECK_INTEQ(nla_put_u32(m, IFA_FLAGS, IFA_F_NODAD), 0);
	CHECK_INTEQ(parse(m, &ifindex, &a), 1);
	CHECK_INTEQ(ifindex, 9);
	CHECK_INTEQ(a.family, AF_INET6);
	CHECK_INTEQ(a.prefixlen, 64);
	CHECK(memcmp(a.addr, addr, 16) == 0);
}

TEST(parse_other_family_is_not_an_address) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newaddr(RTM_NEWADDR, 45 /* AF_MCTP */, 0, 2);
	Address a = { .family = -1 };
	int ifindex = -1;

	CHECK_INTEQ(nla_put_u8(m, IFA_LOCAL, 8), 0);
	CHECK_INTEQ(parse(m, &ifindex, &a), 0);
	CHECK_INTEQ(ifindex, -1);
	CHECK_INTEQ(a.family, -1);
}

TEST(parse_refuses) {
	uint8_t four[4] = { 10, 0, 0, 1 }, sixteen[16] = { 0xfd };
	Address a = { .family = -1 };
	int ifindex = -1;
	struct {
		int type, family, prefixlen, ifindex, attr;
		const void *data;
		int len;
	} bad[] = {
		{ RTM_NEWLINK, AF_INET, 24, 1, IFA_LOCAL, four, 4 },	     /* not an address */
		{ RTM_NEWADDR, AF_INET, 24, 0, IFA_LOCAL, four, 4 },	     /* no netdev */
		{ RTM_NEWADDR, AF_INET, 33, 1, IFA_LOCAL, four, 4 },	     /* prefix beyond 32 */
		{ RTM_NEWADDR, AF_INET6, 129, 1, IFA_ADDRESS, sixteen, 16 }, /* beyond 128 */
		{ RTM_NEWADDR, AF_INET, 24, 1, IFA_LOCAL, sixteen, 16 },     /* IPv4 of 16 bytes */
		{ RTM_NEWADDR, AF_INET6, 64, 1, IFA_ADDRESS, four, 4 },	     /* IPv6 of 4 bytes */
		{ RTM_NEWADDR, AF_INET, 24, 1, IFA_LABEL, "x", 2 },	     /* no address at all */
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		_cleanup_(nlmsg_freep) struct nl_msg *m =
			newaddr(bad[i].type, bad[i].family, bad[i].prefixlen, bad[i].ifindex);

		CHECK_INTEQ(nla_put(m, bad[i].attr, bad[i].len, bad[i].data), 0);
		CHECK_INTEQ(parse(m, &ifindex, &a), -EBADMSG);
	}
	CHECK_INTEQ(ifindex, -1);
	CHECK_INTEQ(a.family, -1);
}

TEST(parse_truncated) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newaddr(RTM_NEWADDR, AF_INET, 24, 1);
	uint8_t four[4] = { 10, 0, 0, 1 };
	struct nlmsghdr *h;
	Address a;
	int ifindex;

	CHECK_INTEQ(nla_put(m, IFA_LOCAL, 4, four), 0);
	h = nlmsg_hdr(m);
	/* a buffer shorter than the message says, and a message shorter than its header */
	CHECK_INTEQ(rtnl_addr_parse(h, h->nlmsg_len - 1, &ifindex, &a), -EBADMSG);
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)) - 1;
	CHECK_INTEQ(rtnl_addr_parse(h, 64, &ifindex, &a), -EBADMSG);
	/* an attribute cut short */
	h->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg)) + 6;
	CHECK_INTEQ(rtnl_addr_parse(h, 64, &ifindex, &a), -EBADMSG);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(dump_request_bytes), TEST_ENTRY(parse_ipv4_local_not_peer),
	   TEST_ENTRY(parse_ipv6_address), TEST_ENTRY(parse_other_family_is_not_an_address),
	   TEST_ENTRY(parse_refuses), TEST_ENTRY(parse_truncated))
