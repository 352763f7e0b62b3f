/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RDMA netlink builders, checked on their bytes, and parsers on canned kernel replies. The
 * requests are byte for byte what iproute2's rdma(8) sends (but nlmsg_seq and nlmsg_pid, which
 * the sender fills), and the replies what Linux 6.1 answered, both captured with strace -xx in
 * the VM tier (tests/unit/apply/test-apply-kernel.c's scenario). */
#include <net/if.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include "rdmanl.h"
#include "tests.h"
#include "test-nlmsg.h"

/* A received buffer is aligned for struct nlmsghdr. */
#define _alignas_ __attribute__((aligned(8)))

/* The UAPI numbers the bytes below rely on (include/uapi/rdma/rdma_netlink.h). */
TEST(uapi) {
	CHECK_INTEQ(RDMA_NL_NLDEV, 5);
	CHECK_INTEQ(RDMA_NLDEV_CMD_GET, 1);
	CHECK_INTEQ(RDMA_NLDEV_CMD_NEWLINK, 3);
	CHECK_INTEQ(RDMA_NLDEV_CMD_DELLINK, 4);
	CHECK_INTEQ(RDMA_NLDEV_CMD_PORT_GET, 5);
	CHECK_INTEQ(RDMA_NLDEV_CMD_SYS_GET, 6);
	CHECK_INTEQ(RDMA_NLDEV_CMD_SYS_SET, 7);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_DEV_NAME, 2);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_PORT_INDEX, 3);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_NDEV_INDEX, 50);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_NDEV_NAME, 51);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_LINK_TYPE, 65);
	CHECK_INTEQ(RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 66);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_DEV_PROTOCOL, 67);
	CHECK_INTEQ(RDMANL_NDEV_NAME_MAX, IFNAMSIZ);
	CHECK_INTEQ(NETNS_MODE_EXCLUSIVE, 0);
	CHECK_INTEQ(NETNS_MODE_SHARED, 1);
}

TEST(sys_get_bytes) {
	static const uint8_t expected[] = {
		0x10, 0x00, 0x00, 0x00, /* nlmsg_len 16: a header, no payload */
		0x06, 0x14,		/* nlmsg_type (RDMA_NL_NLDEV << 10) + SYS_GET = 0x1406 */
		0x01, 0x00,		/* NLM_F_REQUEST */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
	};
	struct nl_msg *m = NULL;
	struct nlmsghdr *h;

	CHECK(rdmanl_sys_get_new(&m) == 0);
	h = nlmsg_hdr(m);
	CHECK_INTEQ(h->nlmsg_len, sizeof(expected));
	CHECK(memcmp(h, expected, sizeof(expected)) == 0);
	nlmsg_free(m);
}

TEST(sys_set_netns_bytes) {
	/* `rdma system set netns exclusive` */
	static const uint8_t exclusive[] = {
		0x18, 0x00, 0x00, 0x00, /* nlmsg_len 24 */
		0x07, 0x14,		/* (RDMA_NL_NLDEV << 10) + SYS_SET = 0x1407 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x05, 0x00, 0x42, 0x00, /* nla_len 5, RDMA_NLDEV_SYS_ATTR_NETNS_MODE (66) */
		0x00, 0x00, 0x00, 0x00, /* u8 0 = exclusive, 3 bytes of padding */
	};
	uint8_t shared[sizeof(exclusive)];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK(rdmanl_sys_set_netns_new(NETNS_MODE_EXCLUSIVE, &m) == 0);
	check_bytes(m, exclusive, sizeof(exclusive));
	nlmsg_free(m);

	/* `rdma system set netns shared` */
	memcpy(shared, exclusive, sizeof(shared));
	shared[20] = 0x01;
	CHECK(rdmanl_sys_set_netns_new(NETNS_MODE_SHARED, &m) == 0);
	check_bytes(m, shared, sizeof(shared));
	nlmsg_free(m);

	CHECK(rdmanl_sys_set_netns_new(_NETNS_MODE_MAX, &untouched) == -EINVAL);
	CHECK(rdmanl_sys_set_netns_new(_NETNS_MODE_INVALID, &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(newlink_bytes) {
	/* `rdma link add rxe0 type rxe netdev veth0` */
	static const uint8_t expected[] = {
		0x30, 0x00, 0x00, 0x00, /* nlmsg_len 48 */
		0x03, 0x14,		/* (RDMA_NL_NLDEV << 10) + NEWLINK = 0x1403 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x09, 0x00, 0x02, 0x00, /* nla_len 9, RDMA_NLDEV_ATTR_DEV_NAME (2) */
		'r',  'x',  'e',  '0',	0x00, 0x00, 0x00, 0x00, /* "rxe0\0", 3 bytes of padding */
		0x08, 0x00, 0x41, 0x00, /* nla_len 8, RDMA_NLDEV_ATTR_LINK_TYPE (65) */
		'r',  'x',  'e',  0x00, /* "rxe\0" */
		0x0a, 0x00, 0x33, 0x00, /* nla_len 10, RDMA_NLDEV_ATTR_NDEV_NAME (51) */
		'v',  'e',  't',  'h',	'0',  0x00, 0x00, 0x00, /* "veth0\0", 2 bytes of padding */
	};
	struct nl_msg *m = NULL;

	CHECK(rdmanl_newlink_new("rxe0", "rxe", "veth0", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(newlink_names) {
	static const char name63[] =
		"r23456789012345678901234567890123456789012345678901234567890123";
	static const char name64[] =
		"r234567890123456789012345678901234567890123456789012345678901234";
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	/* the longest names the kernel takes whole: IB_DEVICE_NAME_MAX - 1, IFNAMSIZ - 1 */
	CHECK_INTEQ(strlen(name63), 63);
	CHECK(rdmanl_newlink_new(name63, "siw", "eth012345678901", &m) == 0);
	CHECK_INTEQ(nlmsg_hdr(m)->nlmsg_len, 16 + 68 + 8 + 20);
	nlmsg_free(m);

	/* the kernel would truncate (or refuse) these */
	CHECK(rdmanl_newlink_new(name64, "rxe", "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe", "eth0123456789012", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe0123456789012", "veth0", &untouched) == -EINVAL);
	/* a name template, a path, nothing */
	CHECK(rdmanl_newlink_new("rxe%d", "rxe", "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe/0", "rxe", "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("", "rxe", "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new(NULL, "rxe", "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", NULL, "veth0", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe", NULL, &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe", "", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe", "veth0:1", &untouched) == -EINVAL);
	CHECK(rdmanl_newlink_new("rxe0", "rxe", "veth 0", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(name_valid) {
	CHECK(rdma_device_name_valid("rxe0"));
	CHECK(rdma_device_name_valid("mlx5_0"));
	CHECK(rdma_device_name_valid("rxe.vlan-10"));
	CHECK(!rdma_device_name_valid("."));
	CHECK(!rdma_device_name_valid(".."));
	CHECK(!rdma_device_name_valid("rxe\t0"));
	CHECK(!rdma_device_name_valid("rxe\xc3\xa9"));
	CHECK(netdev_name_valid("eth0"));
	CHECK(netdev_name_valid("veth0.100"));
	CHECK(!netdev_name_valid("eth%d")); /* a template: the kernel would pick the name */
	CHECK(!rdma_device_name_valid("rxe%d"));
	CHECK(!netdev_name_valid("a:b"));
	CHECK(!netdev_name_valid("."));
	CHECK(!netdev_name_valid("a/b"));
	CHECK(!netdev_name_valid("eth0\n"));
}

TEST(dellink_bytes) {
	/* `rdma link delete rxe0`, rxe0 having index 5 */
	static const uint8_t expected[] = {
		0x18, 0x00, 0x00, 0x00, /* nlmsg_len 24 */
		0x04, 0x14,		/* (RDMA_NL_NLDEV << 10) + DELLINK = 0x1404 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x08, 0x00, 0x01, 0x00, /* nla_len 8, RDMA_NLDEV_ATTR_DEV_INDEX (1) */
		0x05, 0x00, 0x00, 0x00, /* u32 5, host order (little endian here) */
	};
	uint8_t big[sizeof(expected)];
	struct nl_msg *m = NULL;

	CHECK(rdmanl_dellink_new(5, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	memcpy(big, expected, sizeof(big));
	memcpy(big + 20, (const uint8_t[]){ 0x04, 0x03, 0x02, 0x01 }, 4);
	CHECK(rdmanl_dellink_new(0x01020304, &m) == 0);
	check_bytes(m, big, sizeof(big));
	nlmsg_free(m);
}

TEST(dev_get_dump_bytes) {
	/* the device list `rdma` reads first for every command (but that it sets NLM_F_ACK too,
	 * which the kernel ignores for a dump) */
	static const uint8_t expected[] = {
		0x10, 0x00, 0x00, 0x00, /* nlmsg_len 16: a header, no payload */
		0x01, 0x14,		/* (RDMA_NL_NLDEV << 10) + GET = 0x1401 */
		0x01, 0x03,		/* NLM_F_REQUEST | NLM_F_DUMP (0x300) */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
	};
	struct nl_msg *m = NULL;

	CHECK(rdmanl_dev_get_dump_new(&m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(port_get_bytes) {
	/* `rdma link show rxe0/1`, rxe0 having index 5 */
	static const uint8_t expected[] = {
		0x20, 0x00, 0x00, 0x00, /* nlmsg_len 32 */
		0x05, 0x14,		/* (RDMA_NL_NLDEV << 10) + PORT_GET = 0x1405 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x08, 0x00, 0x01, 0x00, /* nla_len 8, RDMA_NLDEV_ATTR_DEV_INDEX (1) */
		0x05, 0x00, 0x00, 0x00, /* u32 5 */
		0x08, 0x00, 0x03, 0x00, /* nla_len 8, RDMA_NLDEV_ATTR_PORT_INDEX (3) */
		0x01, 0x00, 0x00, 0x00, /* u32 1 */
	};
	struct nl_msg *m = NULL;

	CHECK(rdmanl_port_get_new(5, 1, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

/* One message of Linux 6.1's answer to the GET dump: rxe0 (index 5) on veth0. */
static const uint8_t dev_reply[] = {
	0x6c, 0x00, 0x00, 0x00,				/* nlmsg_len 108 */
	0x01, 0x14,					/* GET */
	0x02, 0x00,					/* NLM_F_MULTI */
	0x32, 0x3c, 0x10, 0x6b,				/* seq */
	0x2f, 0x01, 0x00, 0x00,				/* pid */
	0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, /* [16] DEV_INDEX 5 */
	0x09, 0x00, 0x02, 0x00, 'r',  'x',  'e',  '0',	/* [24] DEV_NAME "rxe0" */
	0x00, 0x00, 0x00, 0x00,				/* [32] NUL, padding */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* [36] PORT_INDEX: 1 port */
	0x0c, 0x00, 0x04, 0x00, 0x76, 0x3c, 0x22, 0x01, /* [44] CAP_FLAGS u64 */
	0x00, 0x00, 0x00, 0x00,				/* */
	0x0c, 0x00, 0x06, 0x00, 0xf5, 0x67, 0xfe, 0xfe, /* [56] NODE_GUID u64 */
	0xff, 0x50, 0xe8, 0xc4,				/* */
	0x0c, 0x00, 0x07, 0x00, 0xf5, 0x67, 0xfe, 0xfe, /* [68] SYS_IMAGE_GUID u64 */
	0xff, 0x50, 0xe8, 0xc4,				/* */
	0x05, 0x00, 0x0e, 0x00, 0x01, 0x00, 0x00, 0x00, /* [80] DEV_NODE_TYPE u8 1 (CA) */
	0x05, 0x00, 0x54, 0x00, 0x00, 0x00, 0x00, 0x00, /* [88] DEV_DIM u8 0 */
	0x09, 0x00, 0x43, 0x00, 'r',  'o',  'c',  'e',	/* [96] DEV_PROTOCOL "roce" */
	0x00, 0x00, 0x00, 0x00,				/* */
};

static int dev_parse_buf(const uint8_t *buf, size_t size, uint32_t *index, char *name) {
	return rdmanl_dev_parse((const struct nlmsghdr *) buf, size, index, name);
}

TEST(dev_parse) {
	uint8_t buf[sizeof(dev_reply)] _alignas_;
	char name[RDMANL_DEV_NAME_MAX] = "untouched";
	uint32_t index = 77;

	memcpy(buf, dev_reply, sizeof(buf));
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == 0);
	CHECK_INTEQ(index, 5);
	CHECK_STREQ(name, "rxe0");

	/* malformed: nothing is written */
	index = 77;
	strcpy(name, "untouched");

	memcpy(buf, dev_reply, sizeof(buf));
	buf[4] = 0x05; /* another command's reply */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	CHECK(dev_parse_buf(buf, sizeof(buf) - 1, &index, name) == -EBADMSG); /* truncated */
	CHECK(dev_parse_buf(buf, 12, &index, name) == -EBADMSG); /* not even a header */

	memcpy(buf, dev_reply, sizeof(buf));
	buf[26] = 0x44; /* no DEV_NAME */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	buf[18] = 0x44; /* no DEV_INDEX */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	buf[16] = 0x06; /* DEV_INDEX of 2 bytes */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	buf[24] = 0x08; /* DEV_NAME "rxe0" without its NUL */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	buf[24] = 0x05; /* DEV_NAME "" */
	buf[28] = 0x00;
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	memcpy(buf, dev_reply, sizeof(buf));
	buf[16] = 0xff; /* the first attribute runs past the message: nothing parsed */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);

	CHECK_INTEQ(index, 77);
	CHECK_STREQ(name, "untouched");
}

TEST(dev_parse_long_name) {
	/* a DEV_NAME of 64 characters (and its NUL): longer than any the kernel makes */
	uint8_t
		buf[16 + 8 + 4 + 68] _alignas_ = {
			sizeof(buf), 0x00, 0x00, 0x00, 0x01, 0x14, 0x02, 0x00,
			0,	     0,	   0,	 0,    0,    0,	   0,	 0,
			0x08,	     0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, /* DEV_INDEX 5 */
			0x45,	     0x00, 0x02, 0x00, /* nla_len 69, DEV_NAME */
		};
	char name[RDMANL_DEV_NAME_MAX];
	uint32_t index;

	memset(buf + 28, 'a', 64);
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == -EBADMSG);
	buf[28 + 63] = 0; /* 63 characters: the longest */
	CHECK(dev_parse_buf(buf, sizeof(buf), &index, name) == 0);
	CHECK_INTEQ(strlen(name), 63);
}

/* Linux 6.1's answer to PORT_GET rxe0 (5) port 1: typed GET, not PORT_GET. */
static const uint8_t port_reply[] = {
	0x50, 0x00, 0x00, 0x00,				/* nlmsg_len 80 */
	0x01, 0x14,					/* GET (nldev_port_get_doit() answers so) */
	0x00, 0x00,					/* flags */
	0x33, 0x3c, 0x10, 0x6b,				/* seq */
	0xea, 0x80, 0x21, 0x8a,				/* pid */
	0x08, 0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, /* [16] DEV_INDEX 5 */
	0x09, 0x00, 0x02, 0x00, 'r',  'x',  'e',  '0',	/* [24] DEV_NAME "rxe0" */
	0x00, 0x00, 0x00, 0x00,				/* */
	0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* [36] PORT_INDEX 1 */
	0x05, 0x00, 0x0c, 0x00, 0x04, 0x00, 0x00, 0x00, /* [44] PORT_STATE 4 (ACTIVE) */
	0x05, 0x00, 0x0d, 0x00, 0x05, 0x00, 0x00, 0x00, /* [52] PORT_PHYS_STATE 5 (LINK_UP) */
	0x08, 0x00, 0x32, 0x00, 0x03, 0x00, 0x00, 0x00, /* [60] NDEV_INDEX 3 */
	0x0a, 0x00, 0x33, 0x00, 'v',  'e',  't',  'h',	/* [68] NDEV_NAME "veth0" */
	'0',  0x00, 0x00, 0x00,				/* */
};

static int port_parse_buf(const uint8_t *buf, size_t size, uint32_t *index, uint32_t *port,
			  char *ndev) {
	return rdmanl_port_parse((const struct nlmsghdr *) buf, size, index, port, ndev);
}

TEST(port_parse) {
	uint8_t buf[sizeof(port_reply)] _alignas_;
	char ndev[RDMANL_NDEV_NAME_MAX] = "untouched";
	uint32_t index = 77, port = 77;

	memcpy(buf, port_reply, sizeof(buf));
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == 0);
	CHECK_INTEQ(index, 5);
	CHECK_INTEQ(port, 1);
	CHECK_STREQ(ndev, "veth0");

	/* a PORT_GET dump's message is typed PORT_GET; the indexes are optional */
	strcpy(ndev, "untouched");
	buf[4] = 0x05;
	CHECK(port_parse_buf(buf, sizeof(buf), NULL, NULL, ndev) == 0);
	CHECK_STREQ(ndev, "veth0");

	/* no netdev (in this network namespace) */
	strcpy(ndev, "untouched");
	memcpy(buf, port_reply, sizeof(buf));
	buf[70] = 0x44;
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == -ENODATA);

	/* malformed */
	index = port = 77;
	memcpy(buf, port_reply, sizeof(buf));
	buf[4] = 0x06; /* SYS_GET */
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == -EBADMSG);

	memcpy(buf, port_reply, sizeof(buf));
	buf[38] = 0x44; /* no PORT_INDEX */
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == -EBADMSG);

	memcpy(buf, port_reply, sizeof(buf));
	buf[18] = 0x44; /* no DEV_INDEX */
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == -EBADMSG);

	memcpy(buf, port_reply, sizeof(buf));
	buf[68] = 0x09; /* NDEV_NAME "veth0" without its NUL */
	CHECK(port_parse_buf(buf, sizeof(buf), &index, &port, ndev) == -EBADMSG);

	memcpy(buf, port_reply, sizeof(buf));
	CHECK(port_parse_buf(buf, sizeof(buf) - 4, &index, &port, ndev) == -EBADMSG);

	CHECK_INTEQ(index, 77);
	CHECK_INTEQ(port, 77);
	CHECK_STREQ(ndev, "untouched");
}

TEST(port_parse_long_ndev) {
	/* an NDEV_NAME of 16 characters: longer than IFNAMSIZ allows */
	uint8_t
		buf[16 + 8 + 8 + 24] _alignas_ = {
			sizeof(buf), 0x00, 0x00, 0x00, 0x01, 0x14, 0x00, 0x00,
			0,	     0,	   0,	 0,    0,    0,	   0,	 0,
			0x08,	     0x00, 0x01, 0x00, 0x05, 0x00, 0x00, 0x00, /* DEV_INDEX 5 */
			0x08,	     0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* PORT_INDEX 1 */
			0x15,	     0x00, 0x33, 0x00, /* nla_len 21, NDEV_NAME */
		};
	char ndev[RDMANL_NDEV_NAME_MAX];

	memset(buf + 36, 'e', 16);
	CHECK(port_parse_buf(buf, sizeof(buf), NULL, NULL, ndev) == -EBADMSG);
	buf[36 + 15] = 0; /* 15: the longest */
	CHECK(port_parse_buf(buf, sizeof(buf), NULL, NULL, ndev) == 0);
	CHECK_INTEQ(strlen(ndev), 15);
}

/* Linux 6.1's answer to SYS_GET (`rdma system show`): netns shared, copy-on-fork on, and an
 * attribute newer than these headers. */
static const uint8_t sys_reply_linux61[] = {
	0x28, 0x00, 0x00, 0x00, 0x06, 0x14, 0x00, 0x00, /* nlmsg_len 40, SYS_GET, no flags */
	0x35, 0x3c, 0x10, 0x6b, 0xc3, 0x2a, 0x0d, 0xc0, /* seq, pid */
	0x05, 0x00, 0x42, 0x00, 0x01, 0x00, 0x00, 0x00, /* NETNS_MODE (66) u8 1 = shared */
	0x05, 0x00, 0x60, 0x00, 0x00, 0x00, 0x00, 0x00, /* attribute 96 u8 0 */
	0x05, 0x00, 0x5d, 0x00, 0x01, 0x00, 0x00, 0x00, /* COPY_ON_FORK (93) u8 1 */
};

TEST(sys_parse_linux61) {
	uint8_t buf[sizeof(sys_reply_linux61)] _alignas_;
	NetnsMode mode = _NETNS_MODE_INVALID;

	memcpy(buf, sys_reply_linux61, sizeof(buf));
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) buf, sizeof(buf), &mode) == 0);
	CHECK_INTEQ(mode, NETNS_MODE_SHARED);
}

/* What the kernel sends for `rdma system show` (netns shared, plus attributes we ignore). */
static const uint8_t sys_reply[] = {
	0x2c, 0x00, 0x00, 0x00, 0x06, 0x14, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x9c,
	0x3e, 0x00, 0x00, 0x05, 0x00, 0x42, 0x00, 0x01, 0x00, 0x00, 0x00, /* NETNS_MODE (66) u8 1 =
									     shared */
	0x05, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x00, 0x00, /* PRIVILEGED_QKEY_MODE (74) u8 0 */
	0x08, 0x00, 0x54, 0x00, 0x01, 0x00, 0x00, 0x00, /* MONITOR_MODE-like u32: unknown, ignored
							 */
	0x04, 0x00, 0x00, 0x00,				/* an empty attribute of type 0 */
};

TEST(sys_parse) {
	uint8_t buf[sizeof(sys_reply)];
	NetnsMode mode = _NETNS_MODE_INVALID;

	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) sys_reply, sizeof(sys_reply), &mode) == 0);
	CHECK_INTEQ(mode, NETNS_MODE_SHARED);

	memcpy(buf, sys_reply, sizeof(buf));
	buf[20] = 0; /* exclusive */
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) buf, sizeof(buf), &mode) == 0);
	CHECK_INTEQ(mode, NETNS_MODE_EXCLUSIVE);

	buf[20] = 7; /* a mode this version does not know */
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) buf, sizeof(buf), &mode) == -EBADMSG);

	memcpy(buf, sys_reply, sizeof(buf));
	buf[18] = 0x43; /* no NETNS_MODE attribute: an old kernel */
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) buf, sizeof(buf), &mode) == -ENODATA);

	memcpy(buf, sys_reply, sizeof(buf));
	buf[4] = 0x05; /* another command's reply */
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) buf, sizeof(buf), &mode) == -EBADMSG);

	/* nlmsg_len larger than what was received */
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) sys_reply, sizeof(sys_reply) - 4, &mode) ==
	      -EBADMSG);
	CHECK(rdmanl_sys_parse((const struct nlmsghdr *) sys_reply, 8, &mode) == -EBADMSG);
}

/* ---- optional counters (`rdma statistic ... optional-counters`) ---------------------------- */

TEST(stat_uapi) {
	CHECK_INTEQ(RDMA_NLDEV_CMD_STAT_SET, 16);
	CHECK_INTEQ(RDMA_NLDEV_CMD_STAT_GET_STATUS, 24);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS, 80);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY, 81);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 82);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, 94);
	CHECK_INTEQ(RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC, 95);
}

TEST(stat_status_get_bytes) {
	/* `rdma statistic mode supported link mlx5_0/1`, mlx5_0 having index 2 */
	static const uint8_t expected[] = {
		0x20, 0x00, 0x00, 0x00, /* nlmsg_len 32 */
		0x18, 0x14,		/* (RDMA_NL_NLDEV << 10) + STAT_GET_STATUS (24) = 0x1418 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x08, 0x00, 0x01, 0x00, /* DEV_INDEX */
		0x02, 0x00, 0x00, 0x00, /* u32 2 */
		0x08, 0x00, 0x03, 0x00, /* PORT_INDEX */
		0x01, 0x00, 0x00, 0x00, /* u32 1 */
	};
	struct nl_msg *m = NULL;

	CHECK(rdmanl_stat_status_get_new(2, 1, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(stat_set_optional_bytes) {
	/* `rdma statistic set link mlx5_0/1 optional-counters cc_rx_ce_pkts,np_cnp_sent` with
	 * those at indices 40 and 41; the same bytes as iproute2's but for NLA_F_NESTED on the
	 * table, which libnl sets and the kernel masks (nla_for_each_nested, nla_type()) */
	static const uint8_t expected[] = {
		0x34, 0x00, 0x00, 0x00, /* nlmsg_len 52 */
		0x10, 0x14,		/* (RDMA_NL_NLDEV << 10) + STAT_SET (16) = 0x1410 */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x08, 0x00, 0x01, 0x00, /* DEV_INDEX */
		0x02, 0x00, 0x00, 0x00, /* u32 2 */
		0x08, 0x00, 0x03, 0x00, /* PORT_INDEX */
		0x01, 0x00, 0x00, 0x00, /* u32 1 */
		0x14, 0x00, 0x50, 0x80, /* nla_len 20, STAT_HWCOUNTERS (80) | NLA_F_NESTED */
		0x08, 0x00, 0x5e, 0x00, /* STAT_HWCOUNTER_INDEX (94) */
		0x28, 0x00, 0x00, 0x00, /* u32 40 */
		0x08, 0x00, 0x5e, 0x00, /* STAT_HWCOUNTER_INDEX */
		0x29, 0x00, 0x00, 0x00, /* u32 41 */
	};
	/* `rdma statistic unset link mlx5_0/1 optional-counters`: an empty table */
	static const uint8_t none[] = {
		0x24, 0x00, 0x00, 0x00, 0x10, 0x14, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00,
		0x08, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x50, 0x80,
	};
	const uint32_t indices[] = { 40, 41 };
	struct nl_msg *m = NULL;

	CHECK(rdmanl_stat_set_optional_new(2, 1, indices, 2, &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	m = NULL;
	CHECK(rdmanl_stat_set_optional_new(2, 1, NULL, 0, &m) == 0);
	check_bytes(m, none, sizeof(none));
	nlmsg_free(m);
}

/* A STAT_GET_STATUS reply as nldev_stat_get_counter_status_doit() builds it, for a port with
 * one counter that is always on and two optional ones, the first enabled: the kernel gives
 * STAT_HWCOUNTER_DYNAMIC (enabled or not) to optional counters only. */
static const uint8_t status_reply[] = {
	0x94, 0x00, 0x00, 0x00, 0x18, 0x14, 0x00, 0x00, /* [0] len 148, STAT_GET_STATUS */
	0x32, 0x3c, 0x10, 0x6b, 0x2f, 0x01, 0x00, 0x00, /* [8] seq, pid */
	0x08, 0x00, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, /* [16] DEV_INDEX 2 */
	0x0b, 0x00, 0x02, 0x00, 'm',  'l',  'x',  '5',	/* [24] DEV_NAME "mlx5_0" */
	'_',  '0',  0x00, 0x00, 0x08, 0x00, 0x03, 0x00, /* [32]          PORT_INDEX */
	0x01, 0x00, 0x00, 0x00, 0x68, 0x00, 0x50, 0x80, /* [40] 1;       STAT_HWCOUNTERS, 104 */
	0x18, 0x00, 0x51, 0x80, 0x0c, 0x00, 0x52, 0x00, /* [48] ENTRY 24: NAME */
	'r',  'x',  '_',  'i',	'c',  'r',  'c',  0x00, /* [56] "rx_icrc" */
	0x08, 0x00, 0x5e, 0x00, 0x00, 0x00, 0x00, 0x00, /* [64] INDEX 0 */
	0x28, 0x00, 0x51, 0x80, 0x12, 0x00, 0x52, 0x00, /* [72] ENTRY 40: NAME */
	'c',  'c',  '_',  'r',	'x',  '_',  'c',  'e',	/* [80] "cc_rx_ce_pkts" */
	'_',  'p',  'k',  't',	's',  0x00, 0x00, 0x00, /* [88] */
	0x08, 0x00, 0x5e, 0x00, 0x28, 0x00, 0x00, 0x00, /* [96] INDEX 40 */
	0x05, 0x00, 0x5f, 0x00, 0x01, 0x00, 0x00, 0x00, /* [104] DYNAMIC 1: enabled */
	0x24, 0x00, 0x51, 0x80, 0x10, 0x00, 0x52, 0x00, /* [112] ENTRY 36: NAME */
	'n',  'p',  '_',  'c',	'n',  'p',  '_',  's',	/* [120] "np_cnp_sent" */
	'e',  'n',  't',  0x00, 0x08, 0x00, 0x5e, 0x00, /* [128]         INDEX */
	0x29, 0x00, 0x00, 0x00, 0x05, 0x00, 0x5f, 0x00, /* [136] 41;     DYNAMIC */
	0x00, 0x00, 0x00, 0x00,				/* [144] 0: disabled */
};

static int status_parse_buf(const uint8_t *buf, size_t size, HwCounter **l, size_t *n) {
	return rdmanl_stat_status_parse((const struct nlmsghdr *) buf, size, l, n);
}

TEST(stat_status_parse) {
	uint8_t buf[sizeof(status_reply)] _alignas_;
	HwCounter *l = NULL;
	size_t n = 0;

	memcpy(buf, status_reply, sizeof(buf));
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == 0);
	CHECK_INTEQ(n, 3);
	if (n == 3) {
		CHECK_STREQ(l[0].name, "rx_icrc");
		CHECK_INTEQ(l[0].index, 0);
		CHECK(!l[0].optional && !l[0].enabled);
		CHECK_STREQ(l[1].name, "cc_rx_ce_pkts");
		CHECK_INTEQ(l[1].index, 40);
		CHECK(l[1].optional && l[1].enabled);
		CHECK_STREQ(l[2].name, "np_cnp_sent");
		CHECK_INTEQ(l[2].index, 41);
		CHECK(l[2].optional && !l[2].enabled);
	}
	hw_counters_free(l, n);

	/* malformed: nothing returned */
	l = NULL;
	n = 99;
	memcpy(buf, status_reply, sizeof(buf));
	buf[4] = 0x10; /* a STAT_SET reply */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	CHECK(status_parse_buf(status_reply, sizeof(buf) - 1, &l, &n) == -EBADMSG); /* truncated */
	memcpy(buf, status_reply, sizeof(buf));
	buf[46] = 0x44; /* no STAT_HWCOUNTERS */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	memcpy(buf, status_reply, sizeof(buf));
	buf[98] = 0x44; /* an entry without INDEX */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	memcpy(buf, status_reply, sizeof(buf));
	buf[54] = 0x44; /* an entry without NAME */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	memcpy(buf, status_reply, sizeof(buf));
	buf[50] = 0x44; /* something else than an ENTRY in the table */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	memcpy(buf, status_reply, sizeof(buf));
	buf[63] = 'x'; /* NAME without its NUL */
	CHECK(status_parse_buf(buf, sizeof(buf), &l, &n) == -EBADMSG);
	CHECK(l == NULL);
	CHECK_INTEQ(n, 99);

	/* rxe: hw counters, none optional; and a port with an empty table */
	memcpy(buf, status_reply, sizeof(buf));
	buf[44] = 0x1c; /* STAT_HWCOUNTERS of 28: the first entry only */
	buf[0] = 44 + 28;
	CHECK(status_parse_buf(buf, 44 + 28, &l, &n) == 0);
	CHECK_INTEQ(n, 1);
	CHECK(n == 1 && !l[0].optional);
	hw_counters_free(l, n);
	buf[44] = 0x04;
	buf[0] = 44 + 4;
	CHECK(status_parse_buf(buf, 44 + 4, &l, &n) == 0);
	CHECK_INTEQ(n, 0);
	hw_counters_free(l, n);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(sys_get_bytes), TEST_ENTRY(sys_set_netns_bytes),
	   TEST_ENTRY(newlink_bytes), TEST_ENTRY(newlink_names), TEST_ENTRY(name_valid),
	   TEST_ENTRY(dellink_bytes), TEST_ENTRY(dev_get_dump_bytes), TEST_ENTRY(port_get_bytes),
	   TEST_ENTRY(dev_parse), TEST_ENTRY(dev_parse_long_name), TEST_ENTRY(port_parse),
	   TEST_ENTRY(port_parse_long_ndev), TEST_ENTRY(sys_parse_linux61), TEST_ENTRY(sys_parse),
	   TEST_ENTRY(stat_uapi), TEST_ENTRY(stat_status_get_bytes),
	   TEST_ENTRY(stat_set_optional_bytes), TEST_ENTRY(stat_status_parse))
