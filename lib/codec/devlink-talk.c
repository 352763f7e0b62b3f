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

/* A dump's replies collected into a growing array (devlink_dump_read()). */
typedef struct DumpCollect {
	uint8_t *items;
	size_t n, n_alloc, size, skipped;
	bool skip_bad;
	devlink_dump_parse_t parse;
	void *userdata;
} DumpCollect;

static int dump_collect_reply(const struct nlmsghdr *nlh, void *userdata) {
	DumpCollect *c = userdata;
	int r;

	if (c->n == c->n_alloc) {
		size_t n = c->n_alloc ? c->n_alloc * 2 : 8;
		uint8_t *p = reallocarray(c->items, n, c->size);

		if (!p)
			return -ENOMEM;
		c->items = p;
		c->n_alloc = n;
	}
	r = c->parse(nlh, c->items + c->n * c->size, c->userdata);
	if (r < 0 && c->skip_bad) {
		c->skipped++; /* one device's odd reply does not hide the others' */
		return 0;
	}
	if (r < 0)
		return r;
	if (r == 0)
		c->n++;
	return 0;
}

int devlink_dump_read(struct nl_sock *sk, struct nl_msg *m, size_t size, devlink_dump_parse_t parse,
		      void *userdata, bool skip_bad, void **ret, size_t *ret_n, size_t *ret_skipped) {
	DumpCollect c = {
		.size = size, .skip_bad = skip_bad, .parse = parse, .userdata = userdata
	};
	int r;

	r = netlink_transact(sk, m, dump_collect_reply, &c);
	if (r < 0 || c.n == 0) {
		free(c.items);
		c.items = NULL;
	}
	if (r < 0)
		return r;
	*ret = c.items;
	*ret_n = c.n;
	if (ret_skipped)
		*ret_skipped = c.skipped;
	return 0;
}

typedef struct DeviceFilter {
	const char *bus, *dev;
} DeviceFilter;

/* a parameter of the asked device: 0; a port's parameter or another device's: 1 */
static int param_keep(const struct nlmsghdr *nlh, void *elem, void *userdata) {
	const DeviceFilter *f = userdata;
	DevlinkParamInfo *info = elem;
	int r;

	r = devlink_param_parse(nlh, nlh->nlmsg_len, info);
	if (r == -EAGAIN) /* a port's */
		return 1;
	if (r < 0)
		return r;
	return streq(info->bus, f->bus) && streq(info->dev, f->dev) ? 0 : 1;
}

static int param_info_compare(const void *a, const void *b) {
	return strcmp(((const DevlinkParamInfo *) a)->name, ((const DevlinkParamInfo *) b)->name);
}

int devlink_params_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
			DevlinkParamInfo **ret, size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DeviceFilter f = { .bus = bus, .dev = dev };
	int r;

	r = devlink_param_dump_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	r = devlink_dump_read(sk, m, sizeof(DevlinkParamInfo), param_keep, &f, false, (void **) ret,
			      ret_n, NULL);
	if (r >= 0 && *ret_n > 1)
		qsort(*ret, *ret_n, sizeof(DevlinkParamInfo), param_info_compare);
	return r;
}

/* a port of the asked device: 0; another device's: 1 */
static int port_keep(const struct nlmsghdr *nlh, void *elem, void *userdata) {
	const DeviceFilter *f = userdata;
	DevlinkPortInfo *info = elem;
	int r;

	r = devlink_port_parse(nlh, nlh->nlmsg_len, info);
	if (r < 0)
		return r;
	return streq(info->bus, f->bus) && streq(info->dev, f->dev) ? 0 : 1;
}

static int port_info_compare(const void *a, const void *b) {
	uint32_t x = ((const DevlinkPortInfo *) a)->index, y = ((const DevlinkPortInfo *) b)->index;

	return x < y ? -1 : x > y;
}

int devlink_ports_read(struct nl_sock *sk, uint16_t family, const char *bus, const char *dev,
		       DevlinkPortInfo **ret, size_t *ret_n) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DeviceFilter f = { .bus = bus, .dev = dev };
	int r;

	r = devlink_port_dump_new(family, bus, dev, &m);
	if (r < 0)
		return r;
	r = devlink_dump_read(sk, m, sizeof(DevlinkPortInfo), port_keep, &f, false, (void **) ret,
			      ret_n, NULL);
	if (r >= 0 && *ret_n > 1)
		qsort(*ret, *ret_n, sizeof(DevlinkPortInfo), port_info_compare);
	return r;
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
