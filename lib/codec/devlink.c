/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/limits.h>
#include <netlink/attr.h>
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
