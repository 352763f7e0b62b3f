/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Before any traffic: is the link up, and is its GID one rdma_cm can use (RoCE v2, with an IP
 * address)? From what host_observe() read in sysfs. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "gid.h"
#include "selftest.h"

static const Gid *gid_slot(const HostPort *p, uint32_t index) {
	for (size_t i = 0; i < p->n_gids; i++)
		if (p->gids[i].index == index)
			return &p->gids[i];
	return NULL;
}

int selftest_link_check(const HostDevice *d, const HostPort *p, const HostNetdev *n,
			SelftestResult *result) {
	char hint[256], name[RDMA_DEVICE_NAME_MAX + 8];
	bool netdev_up = !n || (n->up && (!n->operstate || streq(n->operstate, "up") ||
					  streq(n->operstate, "unknown")));

	snprintf(name, sizeof(name), "%s/%" PRIu32, d->name, p->port);
	if (n && !n->up) {
		snprintf(hint, sizeof(hint), "Bring the netdev up: ip link set %s up", n->name);
		return selftest_fail(result, SELFTEST_STEP_LINK, -ENETDOWN, hint,
				     "%s is %s: its netdev %s is down", name,
				     strna(port_state_to_string(p->state)), n->name);
	}
	if (!netdev_up) {
		snprintf(hint, sizeof(hint),
			 "%s has no carrier: check the cable, the switch port, or the other end "
			 "of a veth (ip link show %s)",
			 n->name, n->name);
		return selftest_fail(result, SELFTEST_STEP_LINK, -ENETDOWN, hint,
				     "%s is %s: its netdev %s is up but its operstate is %s", name,
				     strna(port_state_to_string(p->state)), n->name, n->operstate);
	}
	if (p->state != PORT_STATE_ACTIVE) {
		snprintf(hint, sizeof(hint),
			 "Check the port: cat /sys/class/infiniband/%s/ports/%" PRIu32
			 "/{state,phys_state}; rdma link show %s/%" PRIu32,
			 d->name, p->port, d->name, p->port);
		return selftest_fail(result, SELFTEST_STEP_LINK, -ENETDOWN, hint,
				     "%s is %s, not ACTIVE", name,
				     strna(port_state_to_string(p->state)));
	}
	return 0;
}

int selftest_link_prepare(const HostDevice *d, const HostPort *p, const HostNetdev *n,
			  uint32_t gid_index, const char *gid_says, SelftestLink *ret,
			  SelftestResult *result) {
	SelftestLink l = { .port = p->port, .gid_index = gid_index };
	char hint[512], says[256];
	const Gid *g;
	int r;

	snprintf(l.name, sizeof(l.name), "%s/%" PRIu32, d->name, p->port);
	if (snprintf(l.device, sizeof(l.device), "%s", d->name) >= (int) sizeof(l.device))
		return selftest_fail(result, SELFTEST_STEP_LINK, -ENAMETOOLONG, NULL,
				     "%s: the device name is too long", d->name);
	r = selftest_link_check(d, p, n, result);
	if (r < 0)
		return r;

	if (gid_says)
		snprintf(says, sizeof(says), "`rdmactl gid %s` says: %s", l.name, gid_says);
	else
		snprintf(says, sizeof(says), "see `rdmactl gids %s`", l.name);
	g = gid_slot(p, gid_index);
	if (!g || gid_is_zero(g->raw)) {
		snprintf(hint, sizeof(hint),
			 "Use the GID rdmad publishes (leave out --gid-index); %s", says);
		return selftest_fail(result, SELFTEST_STEP_GID, -ENOENT, hint,
				     "GID index %" PRIu32 " of %s is empty", gid_index, l.name);
	}
	if (g->type != GID_TYPE_ROCE_V2) {
		snprintf(hint, sizeof(hint),
			 "rdma_cm connects over RoCE v2 GIDs (an IPv4 or IPv6 address on the "
			 "netdev); %s",
			 says);
		return selftest_fail(result, SELFTEST_STEP_GID, -EPROTOTYPE, hint,
				     "GID index %" PRIu32 " of %s is %s, not RoCE v2", gid_index,
				     l.name, strna(gid_type_to_string(g->type)));
	}
	memcpy(l.gid, g->raw, sizeof(l.gid));
	snprintf(l.netdev, sizeof(l.netdev), "%s", g->netdev[0] ? g->netdev : strempty(p->netdev));

	switch (gid_family(g->raw)) {
	case GID_FAMILY_IPV4: {
		struct sockaddr_in *in = (struct sockaddr_in *) &l.address;

		in->sin_family = AF_INET;
		memcpy(&in->sin_addr, g->raw + 12, 4);
		break;
	}
	case GID_FAMILY_LINK_LOCAL:
	case GID_FAMILY_IPV6: {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &l.address;

		in6->sin6_family = AF_INET6;
		memcpy(&in6->sin6_addr, g->raw, 16);
		if (gid_family(g->raw) == GID_FAMILY_LINK_LOCAL) {
			/* fe80:: means nothing without the interface it is on. */
			in6->sin6_scope_id = l.netdev[0] ? if_nametoindex(l.netdev) : 0;
			if (in6->sin6_scope_id == 0) {
				snprintf(hint, sizeof(hint),
					 "Pick a GID with an IPv4 or global IPv6 address; %s",
					 says);
				return selftest_fail(result, SELFTEST_STEP_GID, -ENODEV, hint,
						     "GID index %" PRIu32
						     " of %s is link-local and its netdev is "
						     "unknown",
						     gid_index, l.name);
			}
		}
		break;
	}
	default:
		return selftest_fail(result, SELFTEST_STEP_GID, -EAFNOSUPPORT, says,
				     "GID index %" PRIu32 " of %s has no IP address", gid_index,
				     l.name);
	}
	*ret = l;
	return 0;
}
