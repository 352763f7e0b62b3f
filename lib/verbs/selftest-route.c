/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which netdev the kernel sends to an address by, from a given source address (what
 * `ip route get DST from SRC` asks): rdma_cm takes the same route, and RoCE needs it to leave
 * by the link's own netdev. Two links of one host are the classic trap: the peer's address is
 * local, its route goes via lo, and RoCE packets to it never leave by the link's netdev. */
#include <errno.h>
#include <inttypes.h>
#include <linux/rtnetlink.h>
#include <netinet/in.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <stdio.h>
#include <string.h>

#include "netlink-io.h"
#include "selftest-internal.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

static int route_reply(const struct nlmsghdr *nlh, void *userdata) {
	struct nlattr *tb[RTA_MAX + 1];
	int *oif = userdata;

	if (nlh->nlmsg_type != RTM_NEWROUTE || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
		return -EBADMSG;
	if (nlmsg_parse((struct nlmsghdr *) nlh, sizeof(struct rtmsg), tb, RTA_MAX, NULL) < 0)
		return -EBADMSG;
	if (!tb[RTA_OIF] || nla_len(tb[RTA_OIF]) < (int) sizeof(uint32_t))
		return -ENOENT;
	*oif = (int) nla_get_u32(tb[RTA_OIF]);
	return 0;
}

static int address_bytes(const struct sockaddr *sa, const void **ret, size_t *ret_len) {
	switch (sa->sa_family) {
	case AF_INET:
		*ret = &((const struct sockaddr_in *) sa)->sin_addr;
		*ret_len = 4;
		return 0;
	case AF_INET6:
		*ret = &((const struct sockaddr_in6 *) sa)->sin6_addr;
		*ret_len = 16;
		return 0;
	default:
		return -EAFNOSUPPORT;
	}
}

int selftest_route_oif(const struct sockaddr *src, const struct sockaddr *dst, int *ret_ifindex) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	const void *s, *d;
	size_t s_len, d_len;
	int oif = 0, r;

	if (src->sa_family != dst->sa_family)
		return -EAFNOSUPPORT;
	r = address_bytes(src, &s, &s_len);
	if (r < 0)
		return r;
	r = address_bytes(dst, &d, &d_len);
	if (r < 0)
		return r;

	struct rtmsg rtm = {
		.rtm_family = (unsigned char) dst->sa_family,
		.rtm_dst_len = (unsigned char) (d_len * 8),
		.rtm_src_len = (unsigned char) (s_len * 8),
	};

	m = nlmsg_alloc_simple(RTM_GETROUTE, NLM_F_REQUEST);
	if (!m)
		return -ENOMEM;
	if (nlmsg_append(m, &rtm, sizeof(rtm), NLMSG_ALIGNTO) < 0 ||
	    nla_put(m, RTA_DST, (int) d_len, d) < 0 || nla_put(m, RTA_SRC, (int) s_len, s) < 0)
		return -ENOMEM;
	/* A link-local destination is only defined on its interface. */
	if (dst->sa_family == AF_INET6 && ((const struct sockaddr_in6 *) dst)->sin6_scope_id &&
	    nla_put_u32(m, RTA_OIF, ((const struct sockaddr_in6 *) dst)->sin6_scope_id) < 0)
		return -ENOMEM;
	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, route_reply, &oif);
	if (r < 0)
		return r;
	if (oif <= 0)
		return -ENOENT;
	*ret_ifindex = oif;
	return 0;
}

static char *route_hint(const SelftestLink *from, const SelftestLink *to, char *buf, size_t size) {
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	bool v6 = from->address.ss_family == AF_INET6;

	sockaddr_format((const struct sockaddr *) &from->address, a, sizeof(a));
	sockaddr_format((const struct sockaddr *) &to->address, b, sizeof(b));
	if (v6)
		snprintf(buf, size,
			 "Route each address over the wire with policy routing: "
			 "ip -6 rule add pref 10 iif %s lookup local; "
			 "ip -6 rule add pref 11 iif %s lookup local; "
			 "ip -6 route add %s/128 dev %s src %s table 100; "
			 "ip -6 route add %s/128 dev %s src %s table 100; "
			 "ip -6 rule add pref 20 lookup 100; ip -6 rule add pref 100 lookup local; "
			 "ip -6 rule del pref 0 (rdmactl(1), selftest)",
			 from->netdev, to->netdev, b, from->netdev, a, a, to->netdev, b);
	else
		snprintf(buf, size,
			 "Route each address over the wire with policy routing: "
			 "sysctl -w net.ipv4.conf.all.accept_local=1 "
			 "net.ipv4.conf.%s.accept_local=1 net.ipv4.conf.%s.accept_local=1 "
			 "net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.%s.rp_filter=0 "
			 "net.ipv4.conf.%s.rp_filter=0; "
			 "ip rule add pref 10 iif %s lookup local; "
			 "ip rule add pref 11 iif %s lookup local; "
			 "ip route add %s/32 dev %s src %s table 100; "
			 "ip route add %s/32 dev %s src %s table 100; "
			 "ip rule add pref 20 lookup 100; ip rule add pref 100 lookup local; "
			 "ip rule del pref 0 (rdmactl(1), selftest)",
			 from->netdev, to->netdev, from->netdev, to->netdev, from->netdev,
			 to->netdev, b, from->netdev, a, a, to->netdev, b);
	return buf;
}

/* The kernel must send from one link's address to the other's by that link's netdev. */
int selftest_route_check(SelftestResult *res, const SelftestLink *from, const struct sockaddr *dst,
			 const SelftestLink *to) {
	char a[INET6_ADDRSTRLEN + 8], b[INET6_ADDRSTRLEN + 8], via[IF_NAMESIZE] = "?", hint[1024];
	struct sockaddr_storage host = { 0 };
	unsigned want;
	int oif, r;

	if (!from->netdev[0])
		return 0;
	want = if_nametoindex(from->netdev);
	/* The address alone: the commands of the hints take no port. */
	memcpy(&host, dst,
	       dst->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					  : sizeof(struct sockaddr_in));
	sockaddr_set_port(&host, 0);
	sockaddr_format((const struct sockaddr *) &from->address, a, sizeof(a));
	sockaddr_format((const struct sockaddr *) &host, b, sizeof(b));
	r = selftest_route_oif((const struct sockaddr *) &from->address, dst, &oif);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return selftest_fail(res, SELFTEST_STEP_ROUTE, r,
				     "Check the routes: ip route get PEER from the GID's address",
				     "no route to %s from %s: %s", b, a, strerror(-r));
	if (want == 0 || (unsigned) oif == want)
		return 0;
	if (!if_indextoname((unsigned) oif, via))
		snprintf(via, sizeof(via), "ifindex %d", oif);
	if (to)
		return selftest_fail(
			res, SELFTEST_STEP_ROUTE, -EXDEV, route_hint(from, to, hint, sizeof(hint)),
			"from %s (%s) the kernel routes %s via %s, not %s: the peer's address is "
			"local to this host, so RoCE packets to it would never leave by %s and "
			"the connection would not get through",
			a, from->name, b, via, from->netdev, from->netdev);
	snprintf(hint, sizeof(hint),
		 "rdma_cm sends by the kernel's route: add one by %s (ip route add %s dev %s src "
		 "%s), or test from the link whose netdev reaches it (ip route get %s)",
		 from->netdev, b, from->netdev, a, b);
	return selftest_fail(res, SELFTEST_STEP_ROUTE, -EXDEV, hint,
			     "from %s (%s) the kernel routes %s via %s, not %s", a, from->name, b,
			     via, from->netdev);
}
