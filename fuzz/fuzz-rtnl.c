/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parsers of the rtnetlink dumps a full observation reads a batch at a
 * time (rtnl-link.c's RTM_NEWLINK, rtnl-addr.c's RTM_NEWADDR) on arbitrary bytes. The seeds are
 * messages of a 6.18 kernel's dumps (RTM_GETLINK with RTEXT_FILTER_SKIP_STATS, RTM_GETADDR). */
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rtnl-addr.h"
#include "rtnl-link.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	RtnlLink l;
	Address a;
	int ifindex;
	void *buf;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* What parsed is what the kernel can say: an index, a name a netdev may have. */
	if (rtnl_link_parse(buf, size, &l) == 0 &&
	    (l.ifindex <= 0 || l.name[0] == '\0' || strnlen(l.name, sizeof(l.name)) >= IF_NAMESIZE))
		abort();
	if (rtnl_addr_parse(buf, size, &ifindex, &a) == 1 &&
	    (ifindex <= 0 || (a.family != AF_INET && a.family != AF_INET6) ||
	     a.prefixlen > (a.family == AF_INET ? 32 : 128)))
		abort();
	free(buf);
	return 0;
}
