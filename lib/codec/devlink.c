/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/limits.h>
#include <netlink/attr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devlink.h"
#include "genl.h"
#include "macro.h"

/* EswitchMode is numbered as the kernel's enum devlink_eswitch_mode: its values go on the wire. */
_Static_assert((int) ESWITCH_MODE_LEGACY == (int) DEVLINK_ESWITCH_MODE_LEGACY,
	       "legacy must be the kernel's");
_Static_assert((int) ESWITCH_MODE_SWITCHDEV == (int) DEVLINK_ESWITCH_MODE_SWITCHDEV,
	       "switchdev must be the kernel's");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

static size_t string_size(const char *s) {
	return (size_t) nla_total_size((int) strlen(s) + 1);
}

/* A devlink handle's part: what sysfs names (/sys/bus/BUS/devices/DEV), so never empty, at most
 * NAME_MAX, and never a '/', which would show that a "bus/dev" handle was not split. (The
 * limit also keeps the attribute's length within its u16.) */
static bool handle_part_valid(const char *s) {
	return s && s[0] != '\0' && strlen(s) <= NAME_MAX && !strchr(s, '/');
}

/* A devlink request of cmd on bus/dev: what iproute2's dl_opts_put() starts with for a
 * DL_OPT_HANDLE, after the genlmsghdr of the version it opened the family with. */
static int devlink_request_new(uint16_t family, uint8_t cmd, const char *bus, const char *dev,
			       size_t payload, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (!handle_part_valid(bus) || !handle_part_valid(dev))
		return -EINVAL;
	/* family ids start above the netlink control types: 0 is no family asked */
	if (family < NLMSG_MIN_TYPE)
		return -EINVAL;
	r = genl_request_new(family, cmd, DEVLINK_GENL_VERSION,
			     string_size(bus) + string_size(dev) + payload, &m);
	if (r < 0)
		return r;
	if (nla_put_string(m, DEVLINK_ATTR_BUS_NAME, bus) < 0 ||
	    nla_put_string(m, DEVLINK_ATTR_DEV_NAME, dev) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_eswitch_get_new(uint16_t family, const char *bus, const char *dev,
			    struct nl_msg **ret) {
	return devlink_request_new(family, DEVLINK_CMD_ESWITCH_GET, bus, dev, 0, ret);
}

int devlink_eswitch_set_new(uint16_t family, const char *bus, const char *dev, EswitchMode mode,
			    struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	if (mode < 0 || mode >= _ESWITCH_MODE_MAX)
		return -EINVAL;
	r = devlink_request_new(family, DEVLINK_CMD_ESWITCH_SET, bus, dev,
				(size_t) nla_total_size(sizeof(uint16_t)), &m);
	if (r < 0)
		return r;
	if (nla_put_u16(m, DEVLINK_ATTR_ESWITCH_MODE, (uint16_t) mode) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_eswitch_parse(const struct nlmsghdr *nlh, size_t len, EswitchMode *ret_mode) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_ESWITCH_MODE] = { .type = NLA_U16 },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 };
	uint16_t mode;
	int cmd;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != DEVLINK_CMD_ESWITCH_GET)
		return -EBADMSG;
	/* devlink_nl_put_handle() comes first in every devlink reply: a reply without it is not
	 * one (iproute2 refuses it too) */
	if (!tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME])
		return -EBADMSG;
	if (!tb[DEVLINK_ATTR_ESWITCH_MODE])
		return -ENODATA;
	mode = nla_get_u16(tb[DEVLINK_ATTR_ESWITCH_MODE]);
	/* well formed, from a newer kernel: not malformed, but not a mode rdmad can compare */
	if (mode >= _ESWITCH_MODE_MAX)
		return -EPROTO;
	*ret_mode = (EswitchMode) mode;
	return 0;
}

int devlink_param_dump_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_request_new(family, DEVLINK_CMD_PARAM_GET, bus, dev, 0, &m);
	if (r < 0)
		return r;
	nlmsg_hdr(m)->nlmsg_flags |= NLM_F_DUMP;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_param_set_new(uint16_t family, const char *bus, const char *dev, const char *name,
			  DevlinkParamType type, DevlinkCmode cmode, const char *value,
			  struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	char canonical[DEVLINK_VALUE_MAX];
	unsigned long v;
	int r;

	if (!name || name[0] == 0 || strlen(name) >= DEVLINK_PARAM_NAME_MAX)
		return -EINVAL;
	if (cmode < 0 || cmode >= _DEVLINK_CMODE_MAX)
		return -EINVAL;
	r = devlink_value_canonical(type, NULL, value, canonical);
	if (r < 0)
		return r;
	r = devlink_request_new(
		family, DEVLINK_CMD_PARAM_SET, bus, dev,
		string_size(name) + 2 * (size_t) nla_total_size(1) + string_size(canonical), &m);
	if (r < 0)
		return r;
	/* iproute2's order: dl_opts_put() (the name, the cmode), then the type and the data */
	if (nla_put_string(m, DEVLINK_ATTR_PARAM_NAME, name) < 0 ||
	    nla_put_u8(m, DEVLINK_ATTR_PARAM_VALUE_CMODE, (uint8_t) cmode) < 0 ||
	    nla_put_u8(m, DEVLINK_ATTR_PARAM_TYPE, devlink_param_type_to_nla(type)) < 0)
		return -ENOMEM;
	v = strtoul(canonical, NULL, 10);
	switch (type) {
	case DEVLINK_PARAM_TYPE_U8:
		r = nla_put_u8(m, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint8_t) v);
		break;
	case DEVLINK_PARAM_TYPE_U16:
		r = nla_put_u16(m, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint16_t) v);
		break;
	case DEVLINK_PARAM_TYPE_U32:
		r = nla_put_u32(m, DEVLINK_ATTR_PARAM_VALUE_DATA, (uint32_t) v);
		break;
	case DEVLINK_PARAM_TYPE_STRING:
		r = nla_put_string(m, DEVLINK_ATTR_PARAM_VALUE_DATA, canonical);
		break;
	case DEVLINK_PARAM_TYPE_BOOL: /* devlink_param_value_get_from_info(): nla_get_flag() */
		r = streq(canonical, "true") ? nla_put_flag(m, DEVLINK_ATTR_PARAM_VALUE_DATA) : 0;
		break;
	default:
		return -EINVAL;
	}
	if (r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_reload_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_request_new(family, DEVLINK_CMD_RELOAD, bus, dev,
				(size_t) nla_total_size(sizeof(uint8_t)), &m);
	if (r < 0)
		return r;
	if (nla_put_u8(m, DEVLINK_ATTR_RELOAD_ACTION, DEVLINK_RELOAD_ACTION_DRIVER_REINIT) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* One DEVLINK_ATTR_PARAM_VALUE nest: its cmode and its data as text, for type. -EBADMSG for a
 * malformed one. A bool's data is a flag: absent is false (devlink_nl_param_value_fill_one()). */
static int param_value_parse(struct nlattr *nest, DevlinkParamType type, DevlinkCmode *ret_cmode,
			     char ret[static DEVLINK_VALUE_MAX]) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_PARAM_VALUE_CMODE] = { .type = NLA_U8 },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 }, *data;
	uint8_t cmode;
	int len;

	if (genl_attrs_parse(tb, DEVLINK_ATTR_MAX, nla_data(nest), nla_len(nest), policy) < 0)
		return -EBADMSG;
	if (!tb[DEVLINK_ATTR_PARAM_VALUE_CMODE])
		return -EBADMSG;
	cmode = nla_get_u8(tb[DEVLINK_ATTR_PARAM_VALUE_CMODE]);
	if (cmode >= _DEVLINK_CMODE_MAX)
		return -EPROTO;
	data = tb[DEVLINK_ATTR_PARAM_VALUE_DATA];
	len = data ? nla_len(data) : 0;
	switch (type) {
	case DEVLINK_PARAM_TYPE_U8:
		if (!data || len < 1)
			return -EBADMSG;
		snprintf(ret, DEVLINK_VALUE_MAX, "%u", nla_get_u8(data));
		break;
	case DEVLINK_PARAM_TYPE_U16:
		if (!data || len < 2)
			return -EBADMSG;
		snprintf(ret, DEVLINK_VALUE_MAX, "%u", nla_get_u16(data));
		break;
	case DEVLINK_PARAM_TYPE_U32:
		if (!data || len < 4)
			return -EBADMSG;
		snprintf(ret, DEVLINK_VALUE_MAX, "%u", nla_get_u32(data));
		break;
	case DEVLINK_PARAM_TYPE_STRING:
		if (!data || len < 1 || len > DEVLINK_PARAM_STRING_MAX ||
		    memchr(nla_data(data), 0, (size_t) len) != (char *) nla_data(data) + len - 1)
			return -EBADMSG;
		snprintf(ret, DEVLINK_VALUE_MAX, "%s", (const char *) nla_data(data));
		break;
	case DEVLINK_PARAM_TYPE_BOOL:
		snprintf(ret, DEVLINK_VALUE_MAX, "%s", data ? "true" : "false");
		break;
	default:
		return -EPROTO;
	}
	*ret_cmode = (DevlinkCmode) cmode;
	return 0;
}

static int handle_copy(struct nlattr *bus, struct nlattr *dev, char ret_bus[static 64],
		       char ret_dev[static 64]) {
	if (!bus || !dev || nla_len(bus) < 2 || nla_len(dev) < 2 || nla_len(bus) > 64 ||
	    nla_len(dev) > 64)
		return -EBADMSG;
	snprintf(ret_bus, 64, "%.*s", nla_len(bus) - 1, (const char *) nla_data(bus));
	snprintf(ret_dev, 64, "%.*s", nla_len(dev) - 1, (const char *) nla_data(dev));
	return 0;
}

int devlink_message_handle(const struct nlmsghdr *nlh, size_t len, char ret_bus[static 64],
			   char ret_dev[static 64], uint8_t *ret_cmd) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 };
	char bus[64], dev[64];
	int cmd;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (handle_copy(tb[DEVLINK_ATTR_BUS_NAME], tb[DEVLINK_ATTR_DEV_NAME], bus, dev) < 0)
		return -EBADMSG;
	memcpy(ret_bus, bus, sizeof(bus));
	memcpy(ret_dev, dev, sizeof(dev));
	*ret_cmd = (uint8_t) cmd;
	return 0;
}

int devlink_param_parse(const struct nlmsghdr *nlh, size_t len, DevlinkParamInfo *ret) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_PORT_INDEX] = { .type = NLA_U32 },
		[DEVLINK_ATTR_PARAM] = { .type = NLA_NESTED },
	};
	static struct nla_policy param_policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_PARAM_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_PARAM_TYPE] = { .type = NLA_U8 },
		[DEVLINK_ATTR_PARAM_VALUES_LIST] = { .type = NLA_NESTED },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 }, *pb[DEVLINK_ATTR_MAX + 1] = { 0 };
	struct nlattr *list, *v;
	DevlinkParamInfo info = { 0 };
	int cmd, rem, r;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != DEVLINK_CMD_PARAM_GET && cmd != DEVLINK_CMD_PARAM_NEW)
		return -EBADMSG;
	if (handle_copy(tb[DEVLINK_ATTR_BUS_NAME], tb[DEVLINK_ATTR_DEV_NAME], info.bus, info.dev) <
	    0)
		return -EBADMSG;
	if (!tb[DEVLINK_ATTR_PARAM])
		return -EBADMSG;
	if (genl_attrs_parse(pb, DEVLINK_ATTR_MAX, nla_data(tb[DEVLINK_ATTR_PARAM]),
			     nla_len(tb[DEVLINK_ATTR_PARAM]), param_policy) < 0)
		return -EBADMSG;
	if (!pb[DEVLINK_ATTR_PARAM_NAME] || !pb[DEVLINK_ATTR_PARAM_TYPE] ||
	    !pb[DEVLINK_ATTR_PARAM_VALUES_LIST])
		return -EBADMSG;
	if (nla_len(pb[DEVLINK_ATTR_PARAM_NAME]) < 2 ||
	    nla_len(pb[DEVLINK_ATTR_PARAM_NAME]) > DEVLINK_PARAM_NAME_MAX)
		return -EBADMSG;
	snprintf(info.name, sizeof(info.name), "%.*s", nla_len(pb[DEVLINK_ATTR_PARAM_NAME]) - 1,
		 (const char *) nla_data(pb[DEVLINK_ATTR_PARAM_NAME]));
	if (info.name[0] == 0) /* NUL first: no name */
		return -EBADMSG;
	info.type = devlink_param_type_from_nla(nla_get_u8(pb[DEVLINK_ATTR_PARAM_TYPE]));
	if (info.type < 0)
		return -EPROTO;
	list = pb[DEVLINK_ATTR_PARAM_VALUES_LIST];
	nla_for_each_nested(v, list, rem) {
		char text[DEVLINK_VALUE_MAX];
		DevlinkCmode cmode;

		if (nla_type(v) != DEVLINK_ATTR_PARAM_VALUE)
			continue;
		r = param_value_parse(v, info.type, &cmode, text);
		if (r < 0)
			return r;
		info.cmodes |= (uint8_t) (1u << cmode);
		memcpy(info.values[cmode], text, sizeof(text));
	}
	if (rem != 0)
		return -EBADMSG;
	/* a port's parameter, well formed but not the device's */
	if (tb[DEVLINK_ATTR_PORT_INDEX])
		return -EAGAIN;
	*ret = info;
	return 0;
}

int devlink_port_dump_new(uint16_t family, const char *bus, const char *dev, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = devlink_request_new(family, DEVLINK_CMD_PORT_GET, bus, dev, 0, &m);
	if (r < 0)
		return r;
	nlmsg_hdr(m)->nlmsg_flags |= NLM_F_DUMP;
	*ret = TAKE_PTR(m);
	return 0;
}

int devlink_port_parse(const struct nlmsghdr *nlh, size_t len, DevlinkPortInfo *ret) {
	static struct nla_policy policy[DEVLINK_ATTR_MAX + 1] = {
		[DEVLINK_ATTR_BUS_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_DEV_NAME] = { .type = NLA_STRING },
		[DEVLINK_ATTR_PORT_INDEX] = { .type = NLA_U32 },
		[DEVLINK_ATTR_PORT_TYPE] = { .type = NLA_U16 },
		[DEVLINK_ATTR_PORT_NETDEV_IFINDEX] = { .type = NLA_U32 },
		[DEVLINK_ATTR_PORT_NETDEV_NAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1] = { 0 }, *name;
	DevlinkPortInfo info = { 0 };
	int cmd;

	cmd = genl_message_parse(nlh, len, DEVLINK_ATTR_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	/* a dump's replies said DEVLINK_CMD_NEW until Linux 6.9 (a copy-and-paste slip, fixed
	 * by "devlink: fix port dump cmd type") */
	if (cmd != DEVLINK_CMD_PORT_GET && cmd != DEVLINK_CMD_PORT_NEW && cmd != DEVLINK_CMD_NEW)
		return -EBADMSG;
	if (handle_copy(tb[DEVLINK_ATTR_BUS_NAME], tb[DEVLINK_ATTR_DEV_NAME], info.bus, info.dev) <
	    0)
		return -EBADMSG;
	if (!tb[DEVLINK_ATTR_PORT_INDEX])
		return -EBADMSG;
	info.index = nla_get_u32(tb[DEVLINK_ATTR_PORT_INDEX]);
	if (tb[DEVLINK_ATTR_PORT_TYPE])
		info.type = nla_get_u16(tb[DEVLINK_ATTR_PORT_TYPE]);
	/* the kernel puts both or neither */
	name = tb[DEVLINK_ATTR_PORT_NETDEV_NAME];
	if (!!name != !!tb[DEVLINK_ATTR_PORT_NETDEV_IFINDEX])
		return -EBADMSG;
	if (name) {
		if (nla_len(name) < 2 || nla_len(name) > IFNAMSIZ ||
		    memchr(nla_data(name), 0, (size_t) nla_len(name)) !=
			    (char *) nla_data(name) + nla_len(name) - 1)
			return -EBADMSG;
		memcpy(info.netdev, nla_data(name), (size_t) nla_len(name));
		info.ifindex = nla_get_u32(tb[DEVLINK_ATTR_PORT_NETDEV_IFINDEX]);
		info.has_netdev = true;
	}
	*ret = info;
	return 0;
}
