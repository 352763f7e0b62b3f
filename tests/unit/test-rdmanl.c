/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* RDMA netlink builders, checked on their bytes, and parsers on canned kernel replies. */
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include "rdmanl.h"
#include "tests.h"

/* The UAPI numbers the bytes below rely on (include/uapi/rdma/rdma_netlink.h). */
TEST(uapi) {
	CHECK_INTEQ(RDMA_NL_NLDEV, 5);
	CHECK_INTEQ(RDMA_NLDEV_CMD_SYS_GET, 6);
	CHECK_INTEQ(RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 66);
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

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(sys_get_bytes), TEST_ENTRY(sys_parse))
