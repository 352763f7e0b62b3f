/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The link dump request, checked on its bytes against the kernel's UAPI layout
 * (linux/rtnetlink.h, linux/if_link.h), and the parser on RTM_NEWLINK messages laid out as
 * net/core/rtnetlink.c's rtnl_fill_ifinfo() sends them. The request is what `ip link show` sends
 * (iplink_get()/ipaddr_list_flush_or_save(): NLM_F_REQUEST | NLM_F_DUMP, struct ifinfomsg,
 * IFLA_EXT_MASK), with RTEXT_FILTER_SKIP_STATS rather than RTEXT_FILTER_VF. */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "macro.h"
#include "rtnl-link.h"
#include "tests.h"
#include "test-nlmsg.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

TEST(uapi) {
	CHECK_INTEQ(RTM_NEWLINK, 16);
	CHECK_INTEQ(RTM_GETLINK, 18);
	CHECK_INTEQ(IFLA_IFNAME, 3);
	CHECK_INTEQ(IFLA_MTU, 4);
	CHECK_INTEQ(IFLA_EXT_MASK, 29);
	CHECK_INTEQ(RTEXT_FILTER_SKIP_STATS, 8);
	/* struct ifinfomsg: u8 family, pad; u16 type; s32 index; u32 flags, change */
	CHECK_INTEQ(sizeof(struct ifinfomsg), 16);
	CHECK_INTEQ(offsetof(struct ifinfomsg, ifi_index), 4);
	CHECK_INTEQ(offsetof(struct ifinfomsg, ifi_flags), 8);
}

TEST(dump_request_bytes) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	static const uint8_t one[] = {
		40,	   0,	 0,  0, /* nlmsg_len */
		18,	   0,		/* RTM_GETLINK */
		0x01,	   0x03,	/* NLM_F_REQUEST | NLM_F_DUMP */
		0,	   0,	 0,  0, /* seq: the sender's */
		0,	   0,	 0,  0, /* pid */
		AF_UNSPEC, 0,	 0,  0, /* family, pad, type */
		0,	   0,	 0,  0, /* index */
		0,	   0,	 0,  0, /* flags */
		0,	   0,	 0,  0, /* change */
		8,	   0,	 29, 0, /* IFLA_EXT_MASK, u32 */
		8,	   0,	 0,  0, /* RTEXT_FILTER_SKIP_STATS */
	};

	CHECK_INTEQ(rtnl_link_dump_new(&m), 0);
	check_bytes(m, one, sizeof(one));
}

/* An RTM_NEWLINK as the kernel fills it: ifinfomsg, then the attributes the caller adds. */
static struct nl_msg *newlink(int type, int ifindex, unsigned flags) {
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC,
				 .ifi_type = 1 /* ARPHRD_ETHER */,
				 .ifi_index = ifindex,
				 .ifi_flags = flags };
	struct nl_msg *m = nlmsg_alloc_simple(type, NLM_F_MULTI);

	CHECK(m);
	CHECK_INTEQ(nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO), 0);
	return m;
}

static int parse(struct nl_msg *m, RtnlLink *ret) {
	struct nlmsghdr *h = nlmsg_hdr(m);

	return rtnl_link_parse(h, h->nlmsg_len, ret);
}

TEST(parse_link) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newlink(RTM_NEWLINK, 7, IFF_UP | IFF_BROADCAST);
	RtnlLink l = { 0 };

	/* rtnl_fill_ifinfo(): IFLA_IFNAME, IFLA_TXQLEN, IFLA_OPERSTATE, ..., IFLA_MTU, ... */
	CHECK_INTEQ(nla_put_string(m, IFLA_IFNAME, "enp65s0f0np0"), 0);
	CHECK_INTEQ(nla_put_u32(m, IFLA_TXQLEN, 1000), 0);
	CHECK_INTEQ(nla_put_u8(m, IFLA_OPERSTATE, 6), 0);
	CHECK_INTEQ(nla_put_u32(m, IFLA_MTU, 9000), 0);
	CHECK_INTEQ(nla_put_u32(m, 250, 1), 0); /* an attribute of a newer kernel */
	CHECK_INTEQ(parse(m, &l), 0);
	CHECK_INTEQ(l.ifindex, 7);
	CHECK_STREQ(l.name, "enp65s0f0np0");
	CHECK_INTEQ(l.mtu, 9000);
	CHECK(l.up);
}

TEST(parse_down_and_longest_name) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newlink(RTM_NEWLINK, 12, IFF_BROADCAST);
	RtnlLink l = { 0 };

	CHECK_INTEQ(nla_put_string(m, IFLA_IFNAME, "abcdefghijklmno"), 0); /* 15: the most */
	CHECK_INTEQ(parse(m, &l), 0);
	CHECK_STREQ(l.name, "abcdefghijklmno");
	CHECK(!l.up);
	CHECK_INTEQ(l.mtu, 0); /* none said */
}

TEST(parse_refuses) {
	static const char sixteen[] = "abcdefghijklmnop", unterminated[4] = { 'e', 't', 'h', '0' },
			  inner_nul[6] = { 'e', 't', 0, 'h', '0', 0 };
	struct {
		int type, ifindex;
		const void *name;
		int name_len;
		bool mtu_short;
	} bad[] = {
		{ RTM_NEWADDR, 3, "eth0", 5, false },	    /* not a link */
		{ RTM_NEWLINK, 0, "eth0", 5, false },	    /* no index */
		{ RTM_NEWLINK, -2, "eth0", 5, false },	    /* no index */
		{ RTM_NEWLINK, 3, NULL, 0, false },	    /* no name */
		{ RTM_NEWLINK, 3, "", 1, false },	    /* an empty name */
		{ RTM_NEWLINK, 3, sixteen, 17, false },	    /* too long */
		{ RTM_NEWLINK, 3, unterminated, 4, false }, /* no NUL */
		{ RTM_NEWLINK, 3, inner_nul, 6, false },    /* a NUL inside */
		{ RTM_NEWLINK, 3, "eth0", 5, true },	    /* IFLA_MTU of 2 bytes */
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		_cleanup_(nlmsg_freep) struct nl_msg *m =
			newlink(bad[i].type, bad[i].ifindex, IFF_UP);
		RtnlLink l = { .ifindex = -1 };

		if (bad[i].name)
			CHECK_INTEQ(nla_put(m, IFLA_IFNAME, bad[i].name_len, bad[i].name), 0);
		if (bad[i].mtu_short)
			CHECK_INTEQ(nla_put_u16(m, IFLA_MTU, 1500), 0);
		if (parse(m, &l) != -EBADMSG) {
			printf("#   case %zu parsed\n", i);
			test_failed = 1;
		}
		CHECK_INTEQ(l.ifindex, -1); /* nothing written */
	}
}

TEST(parse_truncated) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = newlink(RTM_NEWLINK, 7, IFF_UP);
	struct nlmsghdr *h;
	RtnlLink l = { .ifindex = -1 };

	CHECK_INTEQ(nla_put_string(m, IFLA_IFNAME, "eth0"), 0);
	h = nlmsg_hdr(m);
	/* shorter than the message says it is */
	CHECK_INTEQ(rtnl_link_parse(h, h->nlmsg_len - 4, &l), -EBADMSG);
	/* shorter than a header */
	CHECK_INTEQ(rtnl_link_parse(h, NLMSG_HDRLEN - 1, &l), -EBADMSG);
	CHECK_INTEQ(l.ifindex, -1);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(dump_request_bytes), TEST_ENTRY(parse_link),
	   TEST_ENTRY(parse_down_and_longest_name), TEST_ENTRY(parse_refuses),
	   TEST_ENTRY(parse_truncated))
