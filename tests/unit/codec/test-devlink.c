/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink builders, checked on their bytes against the kernel's UAPI layout (linux/devlink.h,
 * linux/genetlink.h), and the parsers on answers laid out as the kernel sends them: the
 * controller's ctrl_fill_info() (net/netlink/genetlink.c) and devlink's
 * devlink_nl_eswitch_fill() (net/devlink/dev.c). The requests are what iproute2 sends:
 * family_get() in lib/mnl_utils.c (CTRL_CMD_GETFAMILY, version 1, NLM_F_REQUEST | NLM_F_ACK) and
 * cmd_dev_eswitch_show()/_set() in devlink/devlink.c (DEVLINK_GENL_VERSION, the handle's two
 * strings, then the u16 mode). Then the exchanges against the running kernel, whatever it has. */
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <linux/limits.h>
#include <netlink/msg.h>
#include <stddef.h>

#include "devlink-talk.h"
#include "macro.h"
#include "netlink-io.h"
#include "tests.h"
#include "test-nlmsg.h"

#define _alignas_ __attribute__((aligned(8)))

/* DEVLINK_ATTR_INDEX (uint), in every devlink handle since Linux 7.1. Headers before it (6.1's
 * here) end below it: an attribute the parser's table has no slot for. */
#define DEVLINK_ATTR_INDEX_71 184

/* The UAPI numbers the bytes below rely on. */
TEST(uapi) {
	CHECK_STREQ(DEVLINK_GENL_NAME, "devlink");
	CHECK_INTEQ(DEVLINK_GENL_VERSION, 1);
	CHECK_INTEQ(DEVLINK_CMD_ESWITCH_GET, 29);
	CHECK_INTEQ(DEVLINK_CMD_ESWITCH_SET, 30);
	CHECK_INTEQ(DEVLINK_ATTR_BUS_NAME, 1);
	CHECK_INTEQ(DEVLINK_ATTR_DEV_NAME, 2);
	CHECK_INTEQ(DEVLINK_ATTR_ESWITCH_MODE, 25);
	CHECK_INTEQ(DEVLINK_ATTR_ESWITCH_INLINE_MODE, 26);
	CHECK_INTEQ(DEVLINK_ATTR_ESWITCH_ENCAP_MODE, 62);
	CHECK_INTEQ(DEVLINK_ESWITCH_MODE_LEGACY, 0);
	CHECK_INTEQ(DEVLINK_ESWITCH_MODE_SWITCHDEV, 1);
	CHECK_INTEQ(ESWITCH_MODE_LEGACY, DEVLINK_ESWITCH_MODE_LEGACY);
	CHECK_INTEQ(ESWITCH_MODE_SWITCHDEV, DEVLINK_ESWITCH_MODE_SWITCHDEV);
	CHECK_INTEQ(GENL_ID_CTRL, 16);
	CHECK_INTEQ(GENL_NAMSIZ, 16);
	CHECK_INTEQ(CTRL_CMD_NEWFAMILY, 1);
	CHECK_INTEQ(CTRL_CMD_GETFAMILY, 3);
	CHECK_INTEQ(CTRL_ATTR_FAMILY_ID, 1);
	CHECK_INTEQ(CTRL_ATTR_FAMILY_NAME, 2);
	CHECK_INTEQ(CTRL_ATTR_VERSION, 3);
	CHECK_INTEQ(CTRL_ATTR_HDRSIZE, 4);
	CHECK_INTEQ(CTRL_ATTR_MAXATTR, 5);
	CHECK_INTEQ(CTRL_ATTR_OPS, 6);
	CHECK_INTEQ(CTRL_ATTR_OP_ID, 1);
	CHECK_INTEQ(CTRL_ATTR_OP_FLAGS, 2);
	/* struct genlmsghdr: u8 cmd, u8 version, u16 reserved */
	CHECK_INTEQ(sizeof(struct genlmsghdr), 4);
	CHECK_INTEQ(GENL_HDRLEN, 4);
	CHECK_INTEQ(offsetof(struct genlmsghdr, version), 1);
}

TEST(family_get_bytes) {
	/* what `devlink` sends first: the controller, asked for "devlink" */
	static const uint8_t expected[] = {
		0x20, 0x00, 0x00, 0x00, /* nlmsg_len 32 */
		0x10, 0x00,		/* GENL_ID_CTRL (16) */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x03, 0x01, 0x00, 0x00, /* genlmsghdr: CTRL_CMD_GETFAMILY, version 1, reserved */
		0x0c, 0x00, 0x02, 0x00, /* nla_len 12, CTRL_ATTR_FAMILY_NAME */
		'd',  'e',  'v',  'l',	'i', 'n', 'k', 0x00, /* "devlink\0", no padding needed */
	};
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(genl_family_get_new("devlink", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(genl_family_get_new("", &untouched) == -EINVAL);
	CHECK(genl_family_get_new(NULL, &untouched) == -EINVAL);
	CHECK(genl_family_get_new("sixteen-chars-xx", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* The fixed part of an ESWITCH_GET/SET of pci/0000:03:00.0 to family 0x1a: 48 bytes.
 * nlmsg_len and the command are filled by the caller. */
static size_t eswitch_prefix(uint8_t *buf, size_t total, uint8_t cmd) {
	static const uint8_t prefix[] = {
		0x00, 0x00, 0x00, 0x00, /* nlmsg_len */
		0x1a, 0x00,		/* the devlink family's id, as resolved */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x01, 0x00, 0x00, /* genlmsghdr: cmd, DEVLINK_GENL_VERSION (1), reserved */
		0x08, 0x00, 0x01, 0x00, /* nla_len 8, DEVLINK_ATTR_BUS_NAME */
		'p',  'c',  'i',  0x00, /* "pci\0" */
		0x11, 0x00, 0x02, 0x00, /* nla_len 17, DEVLINK_ATTR_DEV_NAME */
		'0',  '0',  '0',  '0',	':',  '0',  '3',  ':',
		'0',  '0',  '.',  '0',	0x00, 0x00, 0x00, 0x00, /* the NUL, 3 bytes of padding */
	};

	memset(buf, 0, total);
	memcpy(buf, prefix, sizeof(prefix));
	buf[0] = (uint8_t) total;
	buf[16] = cmd;
	return sizeof(prefix);
}

TEST(eswitch_get_bytes) {
	/* `devlink dev eswitch show pci/0000:03:00.0` */
	uint8_t expected[48];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	eswitch_prefix(expected, sizeof(expected), DEVLINK_CMD_ESWITCH_GET);
	CHECK(devlink_eswitch_get_new(0x1a, "pci", "0000:03:00.0", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(devlink_eswitch_get_new(0x1a, "", "0000:03:00.0", &untouched) == -EINVAL);
	CHECK(devlink_eswitch_get_new(0x1a, "pci", "", &untouched) == -EINVAL);
	CHECK(devlink_eswitch_get_new(0x1a, NULL, "0000:03:00.0", &untouched) == -EINVAL);
	CHECK(devlink_eswitch_get_new(0x1a, "pci", NULL, &untouched) == -EINVAL);
	/* a handle not split into its bus and its device */
	CHECK(devlink_eswitch_get_new(0x1a, "pci/0000:03:00.0", "x", &untouched) == -EINVAL);
	CHECK(devlink_eswitch_get_new(0x1a, "pci", "0000:03:00.0/", &untouched) == -EINVAL);
	/* no family resolved (0), or a netlink control type */
	CHECK(devlink_eswitch_get_new(0, "pci", "0000:03:00.0", &untouched) == -EINVAL);
	CHECK(devlink_eswitch_get_new(NLMSG_ERROR, "pci", "0000:03:00.0", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(eswitch_get_long_name) {
	/* netdevsim's handle, and names as long as sysfs has them (NAME_MAX): the message is
	 * sized to its names */
	char dev[NAME_MAX + 2];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(devlink_eswitch_get_new(0x1a, "netdevsim", "netdevsim1", &m) == 0);
	/* header 16, genl 4, BUS_NAME 4 + 12 ("netdevsim\0" padded), DEV_NAME 4 + 12 */
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 4 + 16 + 16);
	nlmsg_free(m);

	memset(dev, 'x', NAME_MAX);
	dev[NAME_MAX] = '\0';
	m = NULL;
	CHECK(devlink_eswitch_get_new(0x1a, dev, dev, &m) == 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 4 + 2 * (4 + 256));
	nlmsg_free(m);

	/* one more: no sysfs name, and a bigger one would overflow the u16 nla_len */
	dev[NAME_MAX] = 'x';
	dev[NAME_MAX + 1] = '\0';
	CHECK(devlink_eswitch_get_new(0x1a, "pci", dev, &untouched) == -EINVAL);
	CHECK(devlink_eswitch_set_new(0x1a, dev, "0000:03:00.0", ESWITCH_MODE_LEGACY, &untouched) ==
	      -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(eswitch_set_bytes) {
	/* `devlink dev eswitch set pci/0000:03:00.0 mode switchdev` */
	uint8_t expected[48 + 8];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;
	size_t o;

	o = eswitch_prefix(expected, sizeof(expected), DEVLINK_CMD_ESWITCH_SET);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x06, 0x00, 0x19, 0x00, /* nla_len 6, DEVLINK_ATTR_ESWITCH_MODE (25) */
		       0x01, 0x00, 0x00, 0x00, /* u16 1: switchdev; 2 bytes of padding */
	       },
	       8);
	CHECK(devlink_eswitch_set_new(0x1a, "pci", "0000:03:00.0", ESWITCH_MODE_SWITCHDEV, &m) ==
	      0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	/* and back: mode legacy, u16 0 */
	expected[o + 4] = 0x00;
	m = NULL;
	CHECK(devlink_eswitch_set_new(0x1a, "pci", "0000:03:00.0", ESWITCH_MODE_LEGACY, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	CHECK(devlink_eswitch_set_new(0x1a, "pci", "0000:03:00.0", _ESWITCH_MODE_MAX, &untouched) ==
	      -EINVAL);
	CHECK(devlink_eswitch_set_new(0x1a, "pci", "0000:03:00.0", _ESWITCH_MODE_INVALID,
				      &untouched) == -EINVAL);
	CHECK(devlink_eswitch_set_new(0x1a, "", "0000:03:00.0", ESWITCH_MODE_LEGACY, &untouched) ==
	      -EINVAL);
	CHECK(devlink_eswitch_set_new(0, "pci", "0000:03:00.0", ESWITCH_MODE_LEGACY, &untouched) ==
	      -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* The controller's answer about "devlink" as ctrl_fill_info() lays it out: NAME, ID, VERSION,
 * HDRSIZE, MAXATTR, then the OPS nest (one op here; the kernel lists them all, and the
 * multicast groups after). */
static const uint8_t family_reply[] = {
	0x58, 0x00, 0x00, 0x00,				/* nlmsg_len 88 */
	0x10, 0x00, 0x00, 0x00,				/* GENL_ID_CTRL, no flags */
	0x2a, 0x00, 0x00, 0x00,				/* seq */
	0x10, 0x20, 0x00, 0x00,				/* pid */
	0x01, 0x02, 0x00, 0x00,				/* CTRL_CMD_NEWFAMILY, nlctrl's version 2 */
	0x0c, 0x00, 0x02, 0x00,				/* nla_len 12, CTRL_ATTR_FAMILY_NAME */
	'd',  'e',  'v',  'l',	'i',  'n',  'k',  0x00, /* "devlink\0" */
	0x06, 0x00, 0x01, 0x00, 0x1a, 0x00, 0x00, 0x00, /* CTRL_ATTR_FAMILY_ID: u16 0x1a, pad */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* CTRL_ATTR_VERSION: u32 1 */
	0x08, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, /* CTRL_ATTR_HDRSIZE: u32 0 */
	0x08, 0x00, 0x05, 0x00, 0xb0, 0x00, 0x00, 0x00, /* CTRL_ATTR_MAXATTR: u32 176 */
	0x18, 0x00, 0x06, 0x00,				/* nla_len 24, CTRL_ATTR_OPS */
	0x14, 0x00, 0x01, 0x00,				/* nla_len 20, op #1 */
	0x08, 0x00, 0x01, 0x00, 0x1d, 0x00, 0x00, 0x00, /* CTRL_ATTR_OP_ID: ESWITCH_GET */
	0x08, 0x00, 0x02, 0x00, 0x0b, 0x00, 0x00, 0x00, /* CTRL_ATTR_OP_FLAGS: admin, do, pol */
};

static int family_parse_bytes(const uint8_t *bytes, size_t size, size_t len, uint16_t *id) {
	uint8_t buf[256] _alignas_;

	memcpy(buf, bytes, size);
	return genl_family_parse((const struct nlmsghdr *) buf, len, id);
}

TEST(family_parse) {
	uint8_t buf[sizeof(family_reply)];
	uint16_t id = 77;

	CHECK_INTEQ(sizeof(family_reply), 88);
	CHECK_INTEQ(
		family_parse_bytes(family_reply, sizeof(family_reply), sizeof(family_reply), &id),
		0);
	CHECK_INTEQ(id, 0x1a);

	/* truncated: nothing is written */
	id = 77;
	CHECK_INTEQ(family_parse_bytes(family_reply, sizeof(family_reply), sizeof(family_reply) - 1,
				       &id),
		    -EBADMSG);
	CHECK_INTEQ(family_parse_bytes(family_reply, sizeof(family_reply), 18, &id), -EBADMSG);
	/* nlmsg_len itself cut in the FAMILY_ID attribute (after its header) */
	memcpy(buf, family_reply, sizeof(buf));
	buf[0] = 36;
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	/* not the controller's, not its answer */
	memcpy(buf, family_reply, sizeof(buf));
	buf[4] = 0x1a;
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	memcpy(buf, family_reply, sizeof(buf));
	buf[16] = CTRL_CMD_GETFAMILY;
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	/* no id, a u8 id, an id no family can have */
	memcpy(buf, family_reply, sizeof(buf));
	buf[34] = 0x07; /* FAMILY_ID becomes CTRL_ATTR_MCAST_GROUPS */
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	memcpy(buf, family_reply, sizeof(buf));
	buf[32] = 0x05;
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	memcpy(buf, family_reply, sizeof(buf));
	buf[36] = 0x02; /* NLMSG_ERROR */
	CHECK_INTEQ(family_parse_bytes(buf, sizeof(buf), sizeof(buf), &id), -EBADMSG);
	CHECK_INTEQ(id, 77);
}

/* An ESWITCH_GET reply as devlink_nl_eswitch_fill() lays it out for an mlx5 PF in switchdev:
 * genlmsg_put() with the family's version and no flags, devlink_nl_put_handle(), then the mode
 * (u16), the inline mode and the encap mode (u8 each), every one padded to 4 bytes. */
static const uint8_t eswitch_reply[] = {
	0x48, 0x00, 0x00, 0x00,				/* nlmsg_len 72 */
	0x1a, 0x00, 0x00, 0x00,				/* the devlink family, no flags */
	0x2a, 0x00, 0x00, 0x00,				/* seq */
	0x10, 0x20, 0x00, 0x00,				/* pid */
	0x1d, 0x01, 0x00, 0x00,				/* DEVLINK_CMD_ESWITCH_GET, version 1 */
	0x08, 0x00, 0x01, 0x00, 'p',  'c',  'i',  0x00, /* DEVLINK_ATTR_BUS_NAME "pci" */
	0x11, 0x00, 0x02, 0x00,				/* nla_len 17, DEVLINK_ATTR_DEV_NAME */
	'0',  '0',  '0',  '0',	':',  '0',  '3',  ':',
	'0',  '0',  '.',  '0',	0x00, 0x00, 0x00, 0x00, /* the NUL, padding */
	0x06, 0x00, 0x19, 0x00, 0x01, 0x00, 0x00, 0x00, /* ESWITCH_MODE: u16 1, switchdev */
	0x05, 0x00, 0x1a, 0x00, 0x01, 0x00, 0x00, 0x00, /* ESWITCH_INLINE_MODE: u8 1, link */
	0x05, 0x00, 0x3e, 0x00, 0x01, 0x00, 0x00, 0x00, /* ESWITCH_ENCAP_MODE: u8 1, basic */
};

#define MODE_OFFSET 48 /* of the ESWITCH_MODE attribute in eswitch_reply */

static int eswitch_parse_bytes(const uint8_t *bytes, size_t size, size_t len, EswitchMode *mode) {
	uint8_t buf[256] _alignas_;

	memcpy(buf, bytes, size);
	return devlink_eswitch_parse((const struct nlmsghdr *) buf, len, mode);
}

TEST(eswitch_parse) {
	EswitchMode mode = _ESWITCH_MODE_INVALID;
	uint8_t buf[sizeof(eswitch_reply)];

	CHECK_INTEQ(sizeof(eswitch_reply), 72);
	CHECK_INTEQ(eswitch_parse_bytes(eswitch_reply, sizeof(eswitch_reply), sizeof(eswitch_reply),
					&mode),
		    0);
	CHECK_INTEQ(mode, ESWITCH_MODE_SWITCHDEV);

	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[MODE_OFFSET + 4] = 0x00;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), 0);
	CHECK_INTEQ(mode, ESWITCH_MODE_LEGACY);

	/* netdevsim has no inline or encap mode ops: the reply ends after the mode, whose
	 * padding a sender may leave out of nlmsg_len */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[0] = MODE_OFFSET + 8;
	mode = _ESWITCH_MODE_INVALID;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), MODE_OFFSET + 8, &mode), 0);
	CHECK_INTEQ(mode, ESWITCH_MODE_SWITCHDEV);
	buf[0] = MODE_OFFSET + 6;
	mode = _ESWITCH_MODE_INVALID;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), MODE_OFFSET + 6, &mode), 0);
	CHECK_INTEQ(mode, ESWITCH_MODE_SWITCHDEV);
}

/* Linux 7.1's handle adds DEVLINK_ATTR_INDEX (a uint: u32 while it fits) after the names; the
 * parser skips it, as it skips the inline and encap modes it does not ask for. */
TEST(eswitch_parse_unknown_attribute) {
	uint8_t buf[sizeof(eswitch_reply) + 16];
	EswitchMode mode = _ESWITCH_MODE_INVALID;

	memcpy(buf, eswitch_reply, MODE_OFFSET);
	memcpy(buf + MODE_OFFSET,
	       (const uint8_t[]){
		       0x08, 0x00, DEVLINK_ATTR_INDEX_71, 0x00, /* nla_len 8, DEVLINK_ATTR_INDEX */
		       0x03, 0x00, 0x00, 0x00,			/* u32 3 */
		       0x08, 0x00, 0x6e, 0x00, 0xff, 0xff, 0xff,
		       0xff, /* attribute 110: not asked for */
	       },
	       16);
	memcpy(buf + MODE_OFFSET + 16, eswitch_reply + MODE_OFFSET,
	       sizeof(eswitch_reply) - MODE_OFFSET);
	buf[0] = sizeof(buf);
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), 0);
	CHECK_INTEQ(mode, ESWITCH_MODE_SWITCHDEV);
}

TEST(eswitch_parse_no_mode) {
	/* a driver without eswitch_mode_get: the kernel replies with the handle alone */
	EswitchMode mode = _ESWITCH_MODE_INVALID;
	uint8_t buf[sizeof(eswitch_reply)];

	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[0] = MODE_OFFSET;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), MODE_OFFSET, &mode), -ENODATA);
	/* inline and encap modes, no mode */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[MODE_OFFSET + 2] = 0x1b; /* the mode's attribute becomes one not asked for (27) */
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -ENODATA);
	CHECK_INTEQ(mode, _ESWITCH_MODE_INVALID);
}

TEST(eswitch_parse_unknown_mode) {
	/* DEVLINK_ESWITCH_MODE_SWITCHDEV_INACTIVE (2, Linux 6.19): a newer kernel's mode, well
	 * formed; rdmad has no name for it */
	EswitchMode mode = _ESWITCH_MODE_INVALID;
	uint8_t buf[sizeof(eswitch_reply)];

	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[MODE_OFFSET + 4] = 0x02;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EPROTO);
	buf[MODE_OFFSET + 4] = 0x00;
	buf[MODE_OFFSET + 5] = 0x01; /* 256 */
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EPROTO);
	CHECK_INTEQ(mode, _ESWITCH_MODE_INVALID);
}

TEST(eswitch_parse_malformed) {
	EswitchMode mode = _ESWITCH_MODE_INVALID;
	uint8_t buf[sizeof(eswitch_reply)];

	/* truncated: what was received is shorter than nlmsg_len, or than a header */
	CHECK_INTEQ(eswitch_parse_bytes(eswitch_reply, sizeof(eswitch_reply),
					sizeof(eswitch_reply) - 1, &mode),
		    -EBADMSG);
	CHECK_INTEQ(eswitch_parse_bytes(eswitch_reply, sizeof(eswitch_reply), 12, &mode), -EBADMSG);
	/* nlmsg_len without the genlmsghdr */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[0] = 18;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	/* nlmsg_len cut in the mode attribute, after its header: nla_parse() alone would stop
	 * there and find no mode */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[0] = MODE_OFFSET + 4;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), MODE_OFFSET + 4, &mode), -EBADMSG);
	/* ... in the last attribute's header */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[0] = sizeof(buf) - 6;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf) - 6, &mode), -EBADMSG);
	/* an attribute longer than the message */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[MODE_OFFSET + 16] = 0x40;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	/* a u8 mode: not the kernel's u16 */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[MODE_OFFSET] = 0x05;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	/* another command's reply (DEVLINK_CMD_NEW), a netlink control message (NLMSG_ERROR) */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[16] = DEVLINK_CMD_NEW;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[4] = NLMSG_ERROR;
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	/* no handle, or a name without its NUL */
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[22] = 0x03; /* BUS_NAME becomes DEVLINK_ATTR_PORT_INDEX */
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	memcpy(buf, eswitch_reply, sizeof(buf));
	buf[27] = 'x';
	CHECK_INTEQ(eswitch_parse_bytes(buf, sizeof(buf), sizeof(buf), &mode), -EBADMSG);
	CHECK_INTEQ(mode, _ESWITCH_MODE_INVALID);
}

/* The exchanges against the running kernel, without privilege and whatever it has: a kernel
 * without devlink (CONFIG_NET_DEVLINK off) knows no such family; one with it refuses a device
 * that does not exist, or a caller without CAP_NET_ADMIN (ESWITCH_GET and _SET are
 * GENL_ADMIN_PERM), before any driver is asked. */
TEST(live) {
	struct nl_sock *sk = NULL;
	EswitchMode mode = _ESWITCH_MODE_INVALID;
	uint16_t family = 0;
	int r;

	CHECK_INTEQ(netlink_open(NETLINK_GENERIC, &sk), 0);
	r = devlink_family_resolve(sk, &family);
	printf("# devlink family: %d (%s), id %u\n", r, r < 0 ? strerror(-r) : "ok", family);
	CHECK(r == 0 || r == -ENOENT);
	if (r == 0) {
		CHECK(family >= GENL_MIN_ID);
		r = devlink_eswitch_read(sk, family, "rdmad-test", "none0", &mode);
		CHECK(r == -ENODEV || r == -EPERM);
		r = devlink_eswitch_write(sk, family, "rdmad-test", "none0",
					  ESWITCH_MODE_SWITCHDEV);
		CHECK(r == -ENODEV || r == -EPERM);
	} else
		family = 0x1a; /* refused before it is used */
	/* refused before anything is sent: the socket stays usable */
	CHECK_INTEQ(devlink_eswitch_read(sk, family, "", "none0", &mode), -EINVAL);
	CHECK_INTEQ(devlink_eswitch_write(sk, family, "pci", "x", _ESWITCH_MODE_MAX), -EINVAL);
	CHECK_INTEQ(mode, _ESWITCH_MODE_INVALID);
	r = devlink_family_resolve(sk, &family);
	CHECK(r == 0 || r == -ENOENT);
	nl_socket_free(sk);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(family_get_bytes), TEST_ENTRY(eswitch_get_bytes),
	   TEST_ENTRY(eswitch_get_long_name), TEST_ENTRY(eswitch_set_bytes),
	   TEST_ENTRY(family_parse), TEST_ENTRY(eswitch_parse),
	   TEST_ENTRY(eswitch_parse_unknown_attribute), TEST_ENTRY(eswitch_parse_no_mode),
	   TEST_ENTRY(eswitch_parse_unknown_mode), TEST_ENTRY(eswitch_parse_malformed),
	   TEST_ENTRY(live))
