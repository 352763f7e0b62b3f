/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <string.h>

#include "devlink.h"
#include "ethtool-pause-talk.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

typedef struct FamilyLookup {
	bool want_monitor;
	bool replied;
	uint16_t id;
	uint32_t monitor;
} FamilyLookup;

static int family_reply(const struct nlmsghdr *nlh, void *userdata) {
	FamilyLookup *l = userdata;
	uint32_t monitor = 0;
	uint16_t id;
	int r;

	r = genl_family_parse(nlh, nlh->nlmsg_len, &id);
	if (r < 0)
		return r;
	if (l->want_monitor) {
		r = genl_mcast_group_parse(nlh, nlh->nlmsg_len, ETHTOOL_MCGRP_MONITOR_NAME,
					   &monitor);
		if (r < 0)
			return r;
	}
	l->replied = true;
	l->id = id;
	l->monitor = monitor;
	return 0;
}

int ethtool_family_resolve(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_monitor) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	FamilyLookup l = { .want_monitor = ret_monitor };
	int r;

	r = genl_family_get_new(ETHTOOL_GENL_NAME, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, family_reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret_family = l.id;
	if (ret_monitor)
		*ret_monitor = l.monitor;
	return 0;
}

typedef struct PauseLookup {
	bool replied;
	PauseParams params;
} PauseLookup;

static int pause_reply(const struct nlmsghdr *nlh, void *userdata) {
	PauseLookup *l = userdata;
	char ifname[IFNAMSIZ];
	PauseParams p;
	int r;

	/* the name in the reply is the netdev's own, also when the request gave an alternative
	 * name (ethnl_parse_header_dev_get() looks those up too): not compared */
	r = ethtool_pause_parse(nlh, nlh->nlmsg_len, ifname, &p);
	if (r < 0)
		return r;
	l->replied = true;
	l->params = p;
	return 0;
}

int ethtool_pause_read(struct nl_sock *sk, uint16_t family, const char *ifname, PauseParams *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	PauseLookup l = { 0 };
	int r;

	r = ethtool_pause_get_new(family, ifname, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, pause_reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret = l.params;
	return 0;
}

int ethtool_pause_write(struct nl_sock *sk, uint16_t family, const char *ifname,
			const PauseChange *c) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = ethtool_pause_set_new(family, ifname, c, &m);
	if (r < 0)
		return r;
	return netlink_transact(sk, m, NULL, NULL);
}
