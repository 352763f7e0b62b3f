/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/limits.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <string.h>

#include "devlink-health.h"
#include "genl.h"
#include "macro.h"

static const char *const health_state_table[_HEALTH_STATE_MAX] = {
	[HEALTH_STATE_HEALTHY] = "healthy",
	[HEALTH_STATE_ERROR] = "error",
};
DEFINE_STRING_TABLE_LOOKUP(health_state, HealthState)

/* HealthState is the u8 on the wire: the kernel's enum devlink_health_reporter_state (in
 * include/net/devlink.h, not the UAPI), HEALTHY 0 and ERROR 1. */

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static size_t string_size(const char *s) {
	return (size_t) nla_total_size((int) strlen(s) + 1);
}

/* As devlink.c's: what sysfs names, never empty, never a '/'. */
static bool handle_part_valid(const char *s) {
	return s && s[0] != '\0' && strlen(s) <= NAME_MAX && !strchr(s, '/');
}

/* A dump of cmd over every device: the genlmsghdr alone (iproute2's dump requests carry no
 * handle), NLM_F_REQUEST | NLM_F_DUMP. */
static int dump_new(uint16_t family, uint8_t cmd, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (family < NLMSG_MIN_TYPE)
		return -EINVAL;
	r = genl_request_new(family, cmd, DEVLINK_GENL_VERSION, 0, &m);
	if (r < 0)
		return r;
	nlmsg_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_health_dump_new(uint16_t family, struct nl_msg **ret) {
	return dump_new(family, DEVLINK_CMD_HEALTH_REPORTER_GET, ret);
}

int devlink_info_dump_new(uint16_t family, struct nl_msg **ret) {
	return dump_new(family, DEVLINK_CMD_INFO_GET, ret);
}

int devlink_health_set_new(uint16_t family, const char *bus, const char *dev, const char *name,
			   const HealthReporterChange *c, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	size_t payload;
	int r;

	if (!handle_part_valid(bus) || !handle_part_valid(dev) || !name || !name[0] ||
	    strlen(name) >= DEVLINK_NAME_MAX || !c ||
	    (!c->set_grace_period && !c->set_auto_recover))
		return -EINVAL;
	if (family < NLMSG_MIN_TYPE)
		return -EINVAL;
	payload = string_size(bus) + string_size(dev) + string_size(name) +
		  (size_t) nla_total_size(sizeof(uint64_t)) + (size_t) nla_total_size(1);
	r = genl_request_new(family, DEVLINK_CMD_HEALTH_REPORTER_SET, DEVLINK_GENL_VERSION, payload,
			     &m);
	if (r < 0)
		return r;
	/* iproute2's dl_opts_put(): the handle, the reporter's name, then the period and the
	 * flag, each only when given */
	if (nla_put_string(m, DEVLINK_ATTR_BUS_NAME, bus) < 0 ||
	    nla_put_string(m, DEVLINK_ATTR_DEV_NAME, dev) < 0 ||
	    nla_put_string(m, DEVLINK_ATTR_HEALTH_REPORTER_NAME, name) < 0)
		return -ENOMEM;
	if (c->set_grace_period &&
	    nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, c->grace_period_ms) < 0)
		return -ENOMEM;
	if (c->set_auto_recover &&
	    nla_put_u8(m, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, c->auto_recover) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* A string attribute the policy checked (NLA_STRING: its last byte is the NUL, or it is
 * shorter than its payload) copied into buf; false when empty or too long. */
static bool string_copy(const struct nlattr *a, char *buf, size_t size) {
	size_t n = strnlen(nla_data(a), (size_t) nla_len(a));

	if (n == 0 || n >= size)
		return false;
	memcpy(buf, nla_data(a), n);
	buf[n] = '\0';
	return true;
}

/* "bus/dev" from devlink_nl_put_handle(), which opens every devlink message. */
static int handle_parse(struct nlattr **tb, char *buf, size_t size) {
	char bus[DEVLINK_HANDLE_MAX], dev[DEVLINK_HANDLE_MAX];

	if (!tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME] ||
	    !string_copy(tb[DEVLINK_ATTR_BUS_NAME], bus, sizeof(bus)) ||
	    !string_copy(tb[DEVLINK_ATTR_DEV_NAME], dev, sizeof(dev)) || strchr(bus, '/') ||
	    strchr(dev, '/'))
		return -EBADMSG;
	if ((size_t) snprintf(buf, size, "%s/%s", bus, dev) >= size)
		return -EBADMSG;
	return 0;
}

int devlink_health_parse(const struct nlmsghdr *nlh, size_t len, HealthReporter *ret) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_PORT_INDEX] = { .type = NLA_U32 },
		[DEVLINK_ATTR_HEALTH_REPORTER] = { .type = NLA_NESTED },
	};
	static struct nla_policy inner[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_HEALTH_REPORTER_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_HEALTH_REPORTER_STATE] = { .type = NLA_U8 },
		[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] = { .type = NLA_U64 },
		[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT] = { .type = NLA_U64 },
		[DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD] = { .type = NLA_U64 },
		[DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER] = { .type = NLA_U8 },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 }, *rt[DEVLINK_ATTR_MAX + 1] = { 0 };
	HealthReporter h = { 0 };
	struct nlattr *nest;
	uint8_t state;
	int cmd, r;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != DEVLINK_CMD_HEALTH_REPORTER_GET && cmd != DEVLINK_CMD_HEALTH_REPORTER_RECOVER)
		return -EBADMSG;
	r = handle_parse(tb, h.device, sizeof(h.device));
	if (r < 0)
		return r;
	if (tb[DEVLINK_ATTR_PORT_INDEX]) {
		h.has_port = true;
		h.port = nla_get_u32(tb[DEVLINK_ATTR_PORT_INDEX]);
	}
	nest = tb[DEVLINK_ATTR_HEALTH_REPORTER];
	if (!nest)
		return -EBADMSG;
	r = genl_attrs_parse(rt, DEVLINK_ATTR_MAX, nla_data(nest), nla_len(nest), inner);
	if (r < 0)
		return r;
	if (!rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME] || !rt[DEVLINK_ATTR_HEALTH_REPORTER_STATE] ||
	    !rt[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT] ||
	    !rt[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT] ||
	    !string_copy(rt[DEVLINK_ATTR_HEALTH_REPORTER_NAME], h.name, sizeof(h.name)))
		return -EBADMSG;
	h.errors = nla_get_u64(rt[DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT]);
	h.recoveries = nla_get_u64(rt[DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT]);
	/* the kernel puts both or neither: both when the driver has a recover op */
	if (rt[DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD] &&
	    rt[DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER]) {
		h.has_recover = true;
		h.grace_period_ms = nla_get_u64(rt[DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD]);
		h.auto_recover = nla_get_u8(rt[DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER]) != 0;
	}
	state = nla_get_u8(rt[DEVLINK_ATTR_HEALTH_REPORTER_STATE]);
	if (state >= _HEALTH_STATE_MAX)
		return -EPROTO;
	h.state = (HealthState) state;
	*ret = h;
	return 0;
}

int devlink_device_parse(const struct nlmsghdr *nlh, size_t len,
			 char ret_device[static DEVLINK_HANDLE_MAX]) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 };
	char device[DEVLINK_HANDLE_MAX];
	int cmd, r;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != DEVLINK_CMD_NEW && cmd != DEVLINK_CMD_DEL)
		return -EBADMSG;
	r = handle_parse(tb, device, sizeof(device));
	if (r < 0)
		return r;
	memcpy(ret_device, device, sizeof(device));
	return cmd;
}

/* Which running version is the firmware's: lower is preferred; -1 for none. */
static int fw_rank(const char *name) {
	if (streq(name, "fw.version"))
		return 0;
	if (streq(name, "fw"))
		return 1;
	if (streq(name, "fw.mgmt"))
		return 2;
	if (strncmp(name, "fw.", 3) == 0 && !streq(name, "fw.psid"))
		return 3;
	return -1;
}

/* One version nest (DEVLINK_ATTR_INFO_VERSION_NAME and _VALUE). */
static int version_parse(const struct nlattr *nest, char *name, char *value) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_INFO_VERSION_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_INFO_VERSION_VALUE] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 };
	int r;

	r = genl_attrs_parse(tb, DEVLINK_ATTR_MAX, nla_data(nest), nla_len(nest), policy);
	if (r < 0)
		return r;
	if (!tb[DEVLINK_ATTR_INFO_VERSION_NAME] || !tb[DEVLINK_ATTR_INFO_VERSION_VALUE] ||
	    !string_copy(tb[DEVLINK_ATTR_INFO_VERSION_NAME], name, DEVLINK_NAME_MAX))
		return -EBADMSG;
	/* a value may be empty; a longer one than rdmad keeps is cut, never refused */
	snprintf(value, DEVLINK_NAME_MAX, "%.*s",
		 (int) strnlen(nla_data(tb[DEVLINK_ATTR_INFO_VERSION_VALUE]),
			       (size_t) nla_len(tb[DEVLINK_ATTR_INFO_VERSION_VALUE])),
		 (const char *) nla_data(tb[DEVLINK_ATTR_INFO_VERSION_VALUE]));
	return 0;
}

int devlink_info_parse(const struct nlmsghdr *nlh, size_t len, DevlinkInfo *ret) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_INFO_DRIVER_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 };
	const struct genlmsghdr *g;
	DevlinkInfo info = { 0 };
	struct nlattr *a;
	int cmd, rem, r, best = -1;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != DEVLINK_CMD_INFO_GET)
		return -EBADMSG;
	r = handle_parse(tb, info.device, sizeof(info.device));
	if (r < 0)
		return r;
	if (tb[DEVLINK_ATTR_INFO_DRIVER_NAME])
		(void) string_copy(tb[DEVLINK_ATTR_INFO_DRIVER_NAME], info.driver,
				   sizeof(info.driver));
	/* the versions repeat their attribute type: walk them, nla_parse() keeps the last */
	g = nlmsg_data(nlh);
	/* first the running versions, to choose the firmware's name; then the rest */
	for (int pass = 0; pass < 2; pass++)
		nla_for_each_attr(a, (struct nlattr *) ((const uint8_t *) g + GENL_HDRLEN),
				  (int) nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, rem) {
			char name[DEVLINK_NAME_MAX], value[DEVLINK_NAME_MAX];
			int type = nla_type(a);

			if (type != DEVLINK_ATTR_INFO_VERSION_FIXED &&
			    type != DEVLINK_ATTR_INFO_VERSION_RUNNING &&
			    type != DEVLINK_ATTR_INFO_VERSION_STORED)
				continue;
			r = version_parse(a, name, value);
			if (r < 0)
				return r;
			if (pass == 0 && type == DEVLINK_ATTR_INFO_VERSION_RUNNING) {
				int rank = fw_rank(name);

				if (rank >= 0 && (best < 0 || rank < best)) {
					best = rank;
					snprintf(info.fw_name, sizeof(info.fw_name), "%s", name);
					snprintf(info.running, sizeof(info.running), "%s", value);
				}
			} else if (pass == 1 && type == DEVLINK_ATTR_INFO_VERSION_FIXED &&
				   streq(name, "fw.psid"))
				snprintf(info.psid, sizeof(info.psid), "%s", value);
			else if (pass == 1 && type == DEVLINK_ATTR_INFO_VERSION_STORED &&
				 info.fw_name[0] && streq(name, info.fw_name))
				snprintf(info.stored, sizeof(info.stored), "%s", value);
		}
	*ret = info;
	return 0;
}
