/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink ports: the PORT_GET dump's bytes, as `devlink port show netdevsim/netdevsim1` sends
 * it (the handle as the dump's selector), and the parser on replies laid out as the kernel's
 * devlink_nl_port_fill() (net/devlink/port.c; net/core/devlink.c in 6.1) lays them: the handle,
 * PORT_INDEX, PORT_TYPE, PORT_NETDEV_IFINDEX and PORT_NETDEV_NAME when the netdev is in the
 * devlink instance's network namespace, then the port's attributes (PORT_SPLITTABLE,
 * PORT_FLAVOUR, PORT_NUMBER, ...), which rdmad skips. */
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "devlink.h"
#include "macro.h"
#include "tests.h"
#include "test-nlmsg.h"

TEST(uapi) {
	CHECK_INTEQ(DEVLINK_CMD_NEW, 3);
	CHECK_INTEQ(DEVLINK_CMD_PORT_GET, 5);
	CHECK_INTEQ(DEVLINK_CMD_PORT_NEW, 7);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_INDEX, 3);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_TYPE, 4);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_NETDEV_IFINDEX, 6);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_NETDEV_NAME, 7);
	CHECK_INTEQ(DEVLINK_PORT_TYPE_ETH, 2);
}

TEST(port_dump_bytes) {
	static const uint8_t expected[] = {
		0x34, 0x00, 0x00, 0x00, /* nlmsg_len 52 */
		0x1a, 0x00,		/* the devlink family's id, as resolved */
		0x05, 0x03,		/* NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x05, 0x01, 0x00, 0x00, /* genlmsghdr: PORT_GET, DEVLINK_GENL_VERSION (1) */
		0x0e, 0x00, 0x01, 0x00, /* nla_len 14, DEVLINK_ATTR_BUS_NAME */
		'n',  'e',  't',  'd',	'e', 'v', 's', 'i', 'm', 0x00, 0x00, 0x00, /* + 2 pad */
		0x0f, 0x00, 0x02, 0x00, /* nla_len 15, DEVLINK_ATTR_DEV_NAME */
		'n',  'e',  't',  'd',	'e', 'v', 's', 'i', 'm', '1',  0x00, 0x00, /* + 1 pad */
	};
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(devlink_port_dump_new(0x1a, "netdevsim", "netdevsim1", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	CHECK(devlink_port_dump_new(0, "netdevsim", "netdevsim1", &untouched) == -EINVAL);
	CHECK(devlink_port_dump_new(0x1a, "netdevsim", "a/b", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* netdevsim1's port index, as devlink_nl_port_fill() fills it for cmd; netdev NULL: none
 * named (in another network namespace) */
static struct nl_msg *port_reply(uint8_t cmd, uint32_t index, uint16_t type, const char *netdev) {
	struct nl_msg *m = nlmsg_alloc();
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };

	CHECK(m);
	CHECK(nlmsg_put(m, 0, 0, 0x1a, 0, NLM_F_MULTI));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	nla_put_string(m, DEVLINK_ATTR_BUS_NAME, "netdevsim");
	nla_put_string(m, DEVLINK_ATTR_DEV_NAME, "netdevsim1");
	nla_put_u32(m, DEVLINK_ATTR_PORT_INDEX, index);
	nla_put_u16(m, DEVLINK_ATTR_PORT_TYPE, type);
	if (netdev) {
		nla_put_u32(m, DEVLINK_ATTR_PORT_NETDEV_IFINDEX, 7);
		nla_put_string(m, DEVLINK_ATTR_PORT_NETDEV_NAME, netdev);
	}
	nla_put_u8(m, DEVLINK_ATTR_PORT_SPLITTABLE, 0);
	nla_put_u16(m, DEVLINK_ATTR_PORT_FLAVOUR, DEVLINK_PORT_FLAVOUR_PHYSICAL);
	nla_put_u32(m, DEVLINK_ATTR_PORT_NUMBER, index + 1);
	return m;
}

TEST(port_parse) {
	DevlinkPortInfo info = { 0 };
	struct nl_msg *m;

	/* a dump's reply before Linux 6.9 (DEVLINK_CMD_NEW): port 0, eth1 here */
	m = port_reply(DEVLINK_CMD_NEW, 0, DEVLINK_PORT_TYPE_ETH, "eth1");
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), 0);
	CHECK_STREQ(info.bus, "netdevsim");
	CHECK_STREQ(info.dev, "netdevsim1");
	CHECK_INTEQ(info.index, 0);
	CHECK_INTEQ(info.type, DEVLINK_PORT_TYPE_ETH);
	CHECK(info.has_netdev);
	CHECK_INTEQ(info.ifindex, 7);
	CHECK_STREQ(info.netdev, "eth1");
	nlmsg_free(m);

	/* since 6.9 (PORT_NEW): port 1, its netdev in a pod's namespace: none named */
	m = port_reply(DEVLINK_CMD_PORT_NEW, 1, DEVLINK_PORT_TYPE_ETH, NULL);
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), 0);
	CHECK_INTEQ(info.index, 1);
	CHECK_INTEQ(info.type, DEVLINK_PORT_TYPE_ETH);
	CHECK(!info.has_netdev);
	CHECK_STREQ(info.netdev, "");
	nlmsg_free(m);

	/* a name longer than a netdev's: malformed, nothing written */
	info.index = 9;
	m = port_reply(DEVLINK_CMD_PORT_NEW, 1, DEVLINK_PORT_TYPE_ETH, "abcdefghijklmnopq");
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	CHECK_INTEQ(info.index, 9);
	nlmsg_free(m);

	/* another command's reply */
	m = port_reply(DEVLINK_CMD_PARAM_GET, 1, DEVLINK_PORT_TYPE_ETH, "eth1");
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	nlmsg_free(m);
}

TEST(port_parse_partial) {
	struct genlmsghdr g = { .cmd = DEVLINK_CMD_PORT_NEW, .version = 1 };
	DevlinkPortInfo info;
	struct nl_msg *m;

	/* an ifindex without a name: the kernel puts both */
	m = nlmsg_alloc();
	CHECK(nlmsg_put(m, 0, 0, 0x1a, 0, 0));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	nla_put_string(m, DEVLINK_ATTR_BUS_NAME, "pci");
	nla_put_string(m, DEVLINK_ATTR_DEV_NAME, "0000:03:00.0");
	nla_put_u32(m, DEVLINK_ATTR_PORT_INDEX, 65535);
	nla_put_u16(m, DEVLINK_ATTR_PORT_TYPE, DEVLINK_PORT_TYPE_ETH);
	nla_put_u32(m, DEVLINK_ATTR_PORT_NETDEV_IFINDEX, 4);
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	nlmsg_free(m);

	/* no index: not a port */
	m = nlmsg_alloc();
	CHECK(nlmsg_put(m, 0, 0, 0x1a, 0, 0));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	nla_put_string(m, DEVLINK_ATTR_BUS_NAME, "pci");
	nla_put_string(m, DEVLINK_ATTR_DEV_NAME, "0000:03:00.0");
	CHECK_INTEQ(devlink_port_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	nlmsg_free(m);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(port_dump_bytes), TEST_ENTRY(port_parse),
	   TEST_ENTRY(port_parse_partial))
