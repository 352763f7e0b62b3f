/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <stdlib.h>

#include "devlink-health-talk.h"
#include "genl.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* A growing array of what a dump's replies parse into. */
typedef struct Collect {
	void *items;
	size_t n, size;
	size_t skipped;
	int (*parse)(const struct nlmsghdr *nlh, size_t len, void *ret);
} Collect;

static int collect_reply(const struct nlmsghdr *nlh, void *userdata) {
	Collect *c = userdata;
	uint8_t *l;
	int r;

	l = realloc(c->items, (c->n + 1) * c->size);
	if (!l)
		return -ENOMEM;
	c->items = l;
	r = c->parse(nlh, nlh->nlmsg_len, l + c->n * c->size);
	if (r < 0) {
		/* one device's odd reply does not hide the others' */
		c->skipped++;
		return 0;
	}
	c->n++;
	return 0;
}

static int health_parse(const struct nlmsghdr *nlh, size_t len, void *ret) {
	return devlink_health_parse(nlh, len, ret);
}

static int info_parse(const struct nlmsghdr *nlh, size_t len, void *ret) {
	return devlink_info_parse(nlh, len, ret);
}

static int dump_read(struct nl_sock *sk, struct nl_msg *m, Collect *c, void **ret, size_t *ret_n,
		     size_t *ret_skipped) {
	int r;

	r = netlink_transact(sk, m, collect_reply, c);
	if (r < 0) {
		free(c->items);
		return r;
	}
	if (c->n == 0) {
		free(c->items);
		c->items = NULL;
	}
	*ret = c->items;
	*ret_n = c->n;
	if (ret_skipped)
		*ret_skipped = c->skipped;
	return 0;
}

int devlink_health_read_all(struct nl_sock *sk, uint16_t family, HealthReporter **ret,
			    size_t *ret_n, size_t *ret_skipped) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	Collect c = { .size = sizeof(HealthReporter), .parse = health_parse };
	int r;

	r = devlink_health_dump_new(family, &m);
	if (r < 0)
		return r;
	return dump_read(sk, m, &c, (void **) ret, ret_n, ret_skipped);
}

int devlink_info_read_all(struct nl_sock *sk, uint16_t family, DevlinkInfo **ret, size_t *ret_n,
			  size_t *ret_skipped) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	Collect c = { .size = sizeof(DevlinkInfo), .parse = info_parse };
	int r;

	r = devlink_info_dump_new(family, &m);
	if (r < 0)
		return r;
	return dump_read(sk, m, &c, (void **) ret, ret_n, ret_skipped);
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
