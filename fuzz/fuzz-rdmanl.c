/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: RDMA netlink reply parsers on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmanl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	NetnsMode mode;
	void *buf;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (rdmanl_sys_parse(buf, size, &mode) >= 0 && (mode < 0 || mode >= _NETNS_MODE_MAX))
		abort();
	free(buf);
	return 0;
}
