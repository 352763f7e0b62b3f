/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <stdlib.h>

#include "devlink-health-talk.h"
#include "genl.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static int health_parse(const struct nlmsghdr *nlh, void *elem, void *userdata) {
	int r = devlink_health_parse(nlh, nlh->nlmsg_len, elem);
	return r < 0 ? r : 0;
}

static int info_parse(const struct nlmsghdr *nlh, void *elem, void *userdata) {
	int r = devlink_info_parse(nlh, nlh->nlmsg_len, elem);
	return r < 0 ? r : 0;
}

int devlink_health_read_all(struct nl_sock *sk, uint16_t family, HealthReporter **ret,
			    size_t *ret_n, size_t *ret_skipped) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_health_dump_new(family, &m);
	if (r < 0)
		return r;
	return devlink_dump_read(sk, m, sizeof(HealthReporter), health_parse, NULL, true,
				 (void **) ret, ret_n, ret_skipped);
}

int devlink_info_read_all(struct nl_sock *sk, uint16_t family, DevlinkInfo **ret, size_t *ret_n,
			  size_t *ret_skipped) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_info_dump_new(family, &m);
	if (r < 0)
		return r;
	return devlink_dump_read(sk, m, sizeof(DevlinkInfo), info_parse, NULL, true, (void **) ret,
				 ret_n, ret_skipped);
}

int devlink_health_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			 const char *name, const HealthReporterChange *c) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_health_set_new(family, bus, dev, name, c, &m);
	if (r < 0)
		return r;
	return netlink_transact(sk, m, NULL, NULL);
}
