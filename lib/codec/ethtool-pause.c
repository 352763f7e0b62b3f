/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <string.h>

#include "ethtool-pause.h"
#include "genl.h"
#include "macro.h"
#include "rdma-types.h"

_Static_assert(NETDEV_NAME_MAX == IFNAMSIZ, "NETDEV_NAME_MAX must be IFNAMSIZ");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* An ethtool request of cmd on ifname, sized to hold payload more bytes of attributes: the
 * struct genlmsghdr, then what ethtool's ethnl_fill_req() puts first, the header nest with the
 * netdev's name (and no flags). */
static int request_new(uint16_t family, uint8_t cmd, const char *ifname, size_t payload,
		       struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *header;
	int r;

	/* family ids start above the netlink control types: 0 is no family asked */
	if (family < GENL_MIN_ID || !netdev_name_valid(ifname))
		return -EINVAL;
	r = genl_request_new(family, cmd, ETHTOOL_GENL_VERSION,
			     (size_t) nla_total_size(0) +
				     (size_t) nla_total_size((int) strlen(ifname) + 1) + payload,
			     &m);
	if (r < 0)
		return r;
	/* libnl sets NLA_F_NESTED, which the kernel's strict validation of ethtool's policies
	 * requires of the header */
	header = nla_nest_start(m, ETHTOOL_A_PAUSE_HEADER);
	if (!header || nla_put_string(m, ETHTOOL_A_HEADER_DEV_NAME, ifname) < 0 ||
	    nla_nest_end(m, header) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int ethtool_pause_get_new(uint16_t family, const char *ifname, struct nl_msg **ret) {
	return request_new(family, ETHTOOL_MSG_PAUSE_GET, ifname, 0, ret);
}

static bool change_value_valid(int8_t v) {
	return v >= -1 && v <= 1;
}

int ethtool_pause_set_new(uint16_t family, const char *ifname, const PauseChange *c,
			  struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	const struct {
		int type;
		int8_t value;
	} fields[] = {
		{ ETHTOOL_A_PAUSE_AUTONEG, c ? c->autoneg : -1 },
		{ ETHTOOL_A_PAUSE_RX, c ? c->rx : -1 },
		{ ETHTOOL_A_PAUSE_TX, c ? c->tx : -1 },
	};
	size_t n = 0;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(fields); i++) {
		if (!change_value_valid(fields[i].value))
			return -EINVAL;
		n += fields[i].value >= 0;
	}
	/* the kernel ACKs an empty SET with 0: a caller sending one has lost track */
	if (n == 0)
		return -EINVAL;
	r = request_new(family, ETHTOOL_MSG_PAUSE_SET, ifname,
			n * (size_t) nla_total_size(sizeof(uint8_t)), &m);
	if (r < 0)
		return r;
	for (size_t i = 0; i < ELEMENTSOF(fields); i++)
		if (fields[i].value >= 0 &&
		    nla_put_u8(m, fields[i].type, (uint8_t) fields[i].value) < 0)
			return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* A u8 the kernel sends as !!value. */
static int attr_bool(const struct nlattr *a, bool *ret) {
	uint8_t v;

	if (!a)
		return -EBADMSG;
	v = nla_get_u8(a);
	if (v > 1)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int ethtool_pause_parse(const struct nlmsghdr *nlh, size_t len, char ret_ifname[static IFNAMSIZ],
			PauseParams *ret) {
	/* The u8s are exactly that (nla_put_u8()); the statistics nest is not looked into. */
	static struct nla_policy policy[ETHTOOL_A_PAUSE_MAX + 1] = {
		[ETHTOOL_A_PAUSE_HEADER] = { .type = NLA_NESTED },
		[ETHTOOL_A_PAUSE_AUTONEG] = { .type = NLA_U8, .maxlen = 1 },
		[ETHTOOL_A_PAUSE_RX] = { .type = NLA_U8, .maxlen = 1 },
		[ETHTOOL_A_PAUSE_TX] = { .type = NLA_U8, .maxlen = 1 },
	};
	static struct nla_policy header_policy[ETHTOOL_A_HEADER_MAX + 1] = {
		[ETHTOOL_A_HEADER_DEV_INDEX] = { .type = NLA_U32 },
		[ETHTOOL_A_HEADER_DEV_NAME] = { .type = NLA_STRING, .maxlen = IFNAMSIZ },
	};
	struct nlattr *tb[ETHTOOL_A_PAUSE_MAX + 1] = { 0 }, *htb[ETHTOOL_A_HEADER_MAX + 1] = { 0 };
	PauseParams p = { 0 };
	const char *name;
	size_t n;
	int cmd, r;

	cmd = genl_message_parse(nlh, len, ETHTOOL_A_PAUSE_MAX, policy, tb);
	if (cmd < 0)
		return cmd;
	if (cmd != ETHTOOL_MSG_PAUSE_GET_REPLY && cmd != ETHTOOL_MSG_PAUSE_NTF)
		return -EBADMSG;
	/* ethnl_fill_reply_header() comes first in every reply and notification about a netdev */
	if (!tb[ETHTOOL_A_PAUSE_HEADER])
		return -EBADMSG;
	r = genl_attrs_parse(htb, ETHTOOL_A_HEADER_MAX, nla_data(tb[ETHTOOL_A_PAUSE_HEADER]),
			     nla_len(tb[ETHTOOL_A_PAUSE_HEADER]), header_policy);
	if (r < 0)
		return r;
	if (!htb[ETHTOOL_A_HEADER_DEV_NAME])
		return -EBADMSG;
	/* NUL-terminated (the policy), as nla_put_string() sends dev->name: nothing after it */
	name = nla_data(htb[ETHTOOL_A_HEADER_DEV_NAME]);
	n = strlen(name);
	if (n == 0 || n + 1 != (size_t) nla_len(htb[ETHTOOL_A_HEADER_DEV_NAME]))
		return -EBADMSG;
	r = attr_bool(tb[ETHTOOL_A_PAUSE_AUTONEG], &p.autoneg);
	if (r < 0)
		return r;
	r = attr_bool(tb[ETHTOOL_A_PAUSE_RX], &p.rx);
	if (r < 0)
		return r;
	r = attr_bool(tb[ETHTOOL_A_PAUSE_TX], &p.tx);
	if (r < 0)
		return r;
	memcpy(ret_ifname, name, n + 1);
	*ret = p;
	return 0;
}
