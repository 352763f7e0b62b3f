/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Netlink message builders are tested on their bytes (test-rdmanl.c, test-dcbnl.c). Include
 * after tests.h. */

#include <netlink/msg.h>
#include <stdint.h>
#include <stdio.h>

/* The message's bytes are exactly `expected`. */
static void check_bytes(struct nl_msg *m, const uint8_t *expected, size_t size) {
	struct nlmsghdr *h = nlmsg_hdr(m);

	CHECK_INTEQ(h->nlmsg_len, size);
	if (h->nlmsg_len != size)
		return;
	for (size_t i = 0; i < size; i++)
		if (((const uint8_t *) h)[i] != expected[i]) {
			printf("#   byte %zu: got 0x%02x, expected 0x%02x\n", i,
			       ((const uint8_t *) h)[i], expected[i]);
			test_failed = 1;
		}
}
