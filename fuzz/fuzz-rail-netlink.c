/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the rail routing parsers (ip rules and routes of a dump) on arbitrary
 * bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rail-netlink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	RailRule rule;
	RailRoute route;
	void *buf;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* What parsed is a rule or route of a known family whose prefix fits the address. */
	if (rail_rule_parse(buf, size, &rule) >= 0 &&
	    ((rule.family != AF_INET && rule.family != AF_INET6) ||
	     rule.src_len > (rule.family == AF_INET ? 32 : 128)))
		abort();
	if (rail_route_parse(buf, size, &route) >= 0 &&
	    ((route.family != AF_INET && route.family != AF_INET6) ||
	     route.dst_len > (route.family == AF_INET ? 32 : 128) || route.oif < 0))
		abort();

	free(buf);
	return 0;
}
