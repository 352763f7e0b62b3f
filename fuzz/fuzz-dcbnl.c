/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the dcbnl parsers (IEEE_GET replies, RTNLGRP_DCB messages, SET/DEL answers)
 * on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dcbnl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char ifname[DCBNL_IFNAME_MAX];
	DcbState s;
	void *buf;
	int error;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* A name that parsed is a terminated, non-empty string that fits; what a message lacks
	 * reads as zero; a driver's error is 0 or a negative errno. */
	if (dcbnl_ieee_parse(buf, size, ifname, &s) >= 0 &&
	    (strnlen(ifname, sizeof(ifname)) == 0 ||
	     strnlen(ifname, sizeof(ifname)) >= sizeof(ifname) || !(s.has_ets || !s.ets.willing)))
		abort();
	if (dcbnl_set_reply_parse(buf, size, &error) >= 0 && (error > 0 || error < -128))
		abort();
	if (dcbnl_ifname_parse(buf, size, ifname) >= 0 &&
	    (strnlen(ifname, sizeof(ifname)) == 0 ||
	     strnlen(ifname, sizeof(ifname)) >= sizeof(ifname)))
		abort();

	free(buf);
	return 0;
}
