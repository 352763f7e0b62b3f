/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <inttypes.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <sys/socket.h>

#include "rail.h"

static const char *const rail_sysctl_table[_RAIL_SYSCTL_MAX] = {
	[RAIL_SYSCTL_ARP_IGNORE] = "arp_ignore",
	[RAIL_SYSCTL_ARP_ANNOUNCE] = "arp_announce",
	[RAIL_SYSCTL_RP_FILTER] = "rp_filter",
};
DEFINE_STRING_TABLE_LOOKUP(rail_sysctl, RailSysctl)

int rail_sysctl_desired(RailSysctl s) {
	switch (s) {
	case RAIL_SYSCTL_ARP_IGNORE:
		return 1;
	case RAIL_SYSCTL_ARP_ANNOUNCE:
	case RAIL_SYSCTL_RP_FILTER:
		return 2;
	default:
		return -EINVAL;
	}
}

bool rail_table_valid(uint64_t table) {
	return table >= 1 && table <= RAIL_TABLE_MAX && table != RT_TABLE_DEFAULT &&
	       table != RT_TABLE_MAIN && table != RT_TABLE_LOCAL;
}

uint32_t rail_table_auto(int ifindex) {
	if (ifindex <= 0) /* an ifindex is a positive int: the sum stays below 2^32-2 */
		return 0;
	return RAIL_TABLE_BASE + (uint32_t) ifindex;
}

static size_t family_len(int family) {
	return family == AF_INET ? 4 : 16;
}

bool rail_rule_equal(const RailRule *a, const RailRule *b) {
	return a->family == b->family && a->src_len == b->src_len && a->table == b->table &&
	       a->priority == b->priority && memcmp(a->src, b->src, family_len(a->family)) == 0;
}

bool rail_route_equal(const RailRoute *a, const RailRoute *b) {
	return a->family == b->family && a->dst_len == b->dst_len && a->table == b->table &&
	       a->oif == b->oif && a->protocol == b->protocol && a->has_prefsrc == b->has_prefsrc &&
	       memcmp(a->dst, b->dst, family_len(a->family)) == 0 &&
	       (!a->has_prefsrc || memcmp(a->prefsrc, b->prefsrc, family_len(a->family)) == 0);
}

char *rail_rule_to_string(const RailRule *r) {
	char buf[INET6_ADDRSTRLEN], *s;
	int n;

	if (!inet_ntop(r->family, r->src, buf, sizeof(buf)))
		return NULL;
	if (r->src_len == family_len(r->family) * 8)
		n = asprintf(&s, "from %s lookup %" PRIu32, buf, r->table);
	else
		n = asprintf(&s, "from %s/%u lookup %" PRIu32, buf, r->src_len, r->table);
	return n < 0 ? NULL : s;
}

char *rail_route_to_string(const RailRoute *r, const char *netdev) {
	char dst[INET6_ADDRSTRLEN], src[INET6_ADDRSTRLEN] = "", dev[32], *s;

	if (!inet_ntop(r->family, r->dst, dst, sizeof(dst)) ||
	    (r->has_prefsrc && !inet_ntop(r->family, r->prefsrc, src, sizeof(src))))
		return NULL;
	if (netdev)
		snprintf(dev, sizeof(dev), "%s", netdev);
	else
		snprintf(dev, sizeof(dev), "if%d", r->oif);
	if (asprintf(&s, "%s/%u dev %s%s%s table %" PRIu32, dst, r->dst_len, dev,
		     r->has_prefsrc ? " src " : "", src, r->table) < 0)
		return NULL;
	return s;
}
