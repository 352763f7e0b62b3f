/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>

#include "macro.h"
#include "netlink-io.h"
#include "rdmanl-talk.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

int rdmanl_socket_open(struct nl_sock **ret) {
	return netlink_open(NETLINK_RDMA, ret);
}

typedef struct SysLookup {
	int r;
	NetnsMode mode;
} SysLookup;

static int sys_reply(const struct nlmsghdr *nlh, void *userdata) {
	SysLookup *s = userdata;

	s->r = rdmanl_sys_parse(nlh, nlh->nlmsg_len, &s->mode);
	return 0;
}

int rdmanl_netns_mode_read(struct nl_sock *sk, NetnsMode *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	SysLookup s = { .r = -EBADMSG };
	int r;

	r = rdmanl_sys_get_new(&m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, sys_reply, &s);
	if (r < 0)
		return r;
	if (s.r < 0)
		return s.r;
	*ret = s.mode;
	return 0;
}

typedef struct DevLookup {
	const char *name;
	bool found;
	uint32_t index;
} DevLookup;

static int dev_lookup_reply(const struct nlmsghdr *nlh, void *userdata) {
	char name[RDMANL_DEV_NAME_MAX];
	DevLookup *l = userdata;
	uint32_t index;

	/* A reply we cannot read is not the device we look for. */
	if (rdmanl_dev_parse(nlh, nlh->nlmsg_len, &index, name) < 0 || !streq(name, l->name))
		return 0;
	l->found = true;
	l->index = index;
	return 0;
}

int rdmanl_dev_find(struct nl_sock *sk, const char *name, uint32_t *ret_index) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DevLookup l = { .name = name };
	int r;

	r = rdmanl_dev_get_dump_new(&m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, dev_lookup_reply, &l);
	if (r < 0)
		return r;
	if (!l.found)
		return 0;
	*ret_index = l.index;
	return 1;
}

int rdmanl_newlink(struct nl_sock *sk, const char *name, const char *type, const char *ndev) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = rdmanl_newlink_new(name, type, ndev, &m);
	if (r < 0)
		return r;
	return netlink_transact(sk, m, NULL, NULL);
}

typedef struct PortLookup {
	int r;
	char ndev[RDMANL_NDEV_NAME_MAX];
} PortLookup;

static int port_reply(const struct nlmsghdr *nlh, void *userdata) {
	PortLookup *p = userdata;

	p->r = rdmanl_port_parse(nlh, nlh->nlmsg_len, NULL, NULL, p->ndev);
	return 0;
}

int rdmanl_port_netdev(struct nl_sock *sk, uint32_t index, uint32_t port,
		       char ret[static RDMANL_NDEV_NAME_MAX]) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	PortLookup p = { .r = -EBADMSG };
	int r;

	r = rdmanl_port_get_new(index, port, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, port_reply, &p);
	if (r < 0)
		return r;
	if (p.r < 0)
		return p.r;
	memcpy(ret, p.ndev, strlen(p.ndev) + 1);
	return 0;
}

typedef struct StatusLookup {
	int r;
	HwCounter *counters;
	size_t n;
} StatusLookup;

static int status_reply(const struct nlmsghdr *nlh, void *userdata) {
	StatusLookup *s = userdata;

	hw_counters_free(s->counters, s->n);
	s->counters = NULL;
	s->n = 0;
	s->r = rdmanl_stat_status_parse(nlh, nlh->nlmsg_len, &s->counters, &s->n);
	return 0;
}

int rdmanl_hw_counters_read(struct nl_sock *sk, uint32_t index, uint32_t port, HwCounter **ret,
			    size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	StatusLookup s = { .r = -EBADMSG };
	int r;

	r = rdmanl_stat_status_get_new(index, port, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, status_reply, &s);
	if (r >= 0)
		r = s.r;
	if (r < 0) {
		hw_counters_free(s.counters, s.n);
		return r;
	}
	*ret = s.counters;
	*ret_n = s.n;
	return 0;
}
