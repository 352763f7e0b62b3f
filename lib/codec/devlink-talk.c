/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <stdlib.h>
#include <string.h>

#include "devlink-talk.h"
#include "macro.h"
#include "netlink-io.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

typedef struct FamilyLookup {
	bool replied, want_group;
	uint16_t id;
	uint32_t group;
} FamilyLookup;

static int family_reply(const struct nlmsghdr *nlh, void *userdata) {
	FamilyLookup *l = userdata;
	uint16_t id;
	int r;

	r = genl_family_parse(nlh, nlh->nlmsg_len, &id);
	if (r < 0)
		return r;
	if (l->want_group) {
		r = genl_mcast_group_parse(nlh, nlh->nlmsg_len, DEVLINK_GENL_MCGRP_CONFIG_NAME,
					   &l->group);
		if (r < 0)
			return r;
	}
	l->replied = true;
	l->id = id;
	return 0;
}

int devlink_family_resolve(struct nl_sock *sk, uint16_t *ret_family) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	FamilyLookup l = { 0 };
	int r;

	r = genl_family_get_new(DEVLINK_GENL_NAME, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, family_reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret_family = l.id;
	return 0;
}

int devlink_config_group_resolve(struct nl_sock *sk, uint16_t *ret_family, uint32_t *ret_group) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	FamilyLookup l = { .want_group = true };
	int r;

	r = genl_family_get_new(DEVLINK_GENL_NAME, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, family_reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret_family = l.id;
	*ret_group = l.group;
	return 0;
}

typedef struct EswitchLookup {
	bool replied;
	EswitchMode mode;
} EswitchLookup;

static int eswitch_reply(const struct nlmsghdr *nlh, void *userdata) {
	EswitchLookup *l = userdata;
	EswitchMode mode;
	int r;

	r = devlink_eswitch_parse(nlh, nlh->nlmsg_len, &mode);
	/* devlink_nl_eswitch_fill() leaves the mode out when the driver has no eswitch_mode_get:
	 * the same answer as a driver whose eswitch_mode_get refuses, to the caller */
	if (r == -ENODATA)
		return -EOPNOTSUPP;
	if (r < 0)
		return r;
	l->replied = true;
	l->mode = mode;
	return 0;
}

int devlink_eswitch_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			 EswitchMode *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	EswitchLookup l = { 0 };
	int r;

	r = devlink_eswitch_get_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, eswitch_reply, &l);
	if (r < 0)
		return r;
	if (!l.replied)
		return -ENODATA;
	*ret = l.mode;
	return 0;
}

int devlink_eswitch_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			  EswitchMode mode) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_eswitch_set_new(family, bus, dev, mode, &m);
	if (r < 0)
		return r;
	return netlink_transact(sk, m, NULL, NULL);
}

typedef struct ParamLookup {
	const char *bus, *dev;
	DevlinkParamInfo *params;
	size_t n, n_alloc;
} ParamLookup;

static int param_reply(const struct nlmsghdr *nlh, void *userdata) {
	ParamLookup *l = userdata;
	DevlinkParamInfo info;
	int r;

	r = devlink_param_parse(nlh, nlh->nlmsg_len, &info);
	if (r == -EAGAIN) /* a port's */
		return 0;
	if (r < 0)
		return r;
	if (!streq(info.bus, l->bus) || !streq(info.dev, l->dev))
		return 0;
	if (l->n == l->n_alloc) {
		size_t n = l->n_alloc ? l->n_alloc * 2 : 8;
		DevlinkParamInfo *p = reallocarray(l->params, n, sizeof(DevlinkParamInfo));

		if (!p)
			return -ENOMEM;
		l->params = p;
		l->n_alloc = n;
	}
	l->params[l->n++] = info;
	return 0;
}

static int param_info_compare(const void *a, const void *b) {
	return strcmp(((const DevlinkParamInfo *) a)->name, ((const DevlinkParamInfo *) b)->name);
}

int devlink_params_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			DevlinkParamInfo **ret, size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	ParamLookup l = { .bus = bus, .dev = dev };
	int r;

	r = devlink_param_dump_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, param_reply, &l);
	if (r < 0) {
		free(l.params);
		return r;
	}
	if (l.n > 1)
		qsort(l.params, l.n, sizeof(DevlinkParamInfo), param_info_compare);
	*ret = l.params;
	*ret_n = l.n;
	return 0;
}

typedef struct PortLookup {
	const char *bus, *dev;
	DevlinkPortInfo *ports;
	size_t n, n_alloc;
} PortLookup;

static int port_reply(const struct nlmsghdr *nlh, void *userdata) {
	PortLookup *l = userdata;
	DevlinkPortInfo info;
	int r;

	r = devlink_port_parse(nlh, nlh->nlmsg_len, &info);
	if (r < 0)
		return r;
	if (!streq(info.bus, l->bus) || !streq(info.dev, l->dev))
		return 0;
	if (l->n == l->n_alloc) {
		size_t n = l->n_alloc ? l->n_alloc * 2 : 4;
		DevlinkPortInfo *p = reallocarray(l->ports, n, sizeof(DevlinkPortInfo));

		if (!p)
			return -ENOMEM;
		l->ports = p;
		l->n_alloc = n;
	}
	l->ports[l->n++] = info;
	return 0;
}

static int port_info_compare(const void *a, const void *b) {
	uint32_t x = ((const DevlinkPortInfo *) a)->index, y = ((const DevlinkPortInfo *) b)->index;

	return x < y ? -1 : x > y;
}

int devlink_ports_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
		       DevlinkPortInfo **ret, size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	PortLookup l = { .bus = bus, .dev = dev };
	int r;

	r = devlink_port_dump_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, port_reply, &l);
	if (r < 0) {
		free(l.ports);
		return r;
	}
	if (l.n > 1)
		qsort(l.ports, l.n, sizeof(DevlinkPortInfo), port_info_compare);
	*ret = l.ports;
	*ret_n = l.n;
	return 0;
}

int devlink_param_write(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			const char *name, DevlinkParamType type, DevlinkCmode cmode,
			const char *value, char extack[static NETLINK_EXTACK_MAX]) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	extack[0] = 0;
	r = devlink_param_set_new(family, bus, dev, name, type, cmode, value, &m);
	if (r < 0)
		return r;
	return netlink_transact_extack(sk, m, NULL, NULL, extack);
}

int devlink_reload(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
		   char extack[static NETLINK_EXTACK_MAX]) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	extack[0] = 0;
	r = devlink_reload_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	return netlink_transact_extack(sk, m, NULL, NULL, extack);
}
