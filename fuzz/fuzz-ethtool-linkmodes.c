/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the ethtool link modes parser (ethtool-linkmodes.h) on arbitrary bytes. */
#include <net/if.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ethtool-linkmodes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char name[IFNAMSIZ];
	LinkModes l;
	void *buf;

	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/* what parsed names a netdev, and its fastest mode is one of the table's */
	if (ethtool_linkmodes_parse(buf, size, name, &l) >= 0 &&
	    (!name[0] || strnlen(name, sizeof(name)) >= sizeof(name) ||
	     (l.n_supported > 0) != (l.max_speed > 0) ||
	     strnlen(l.max_mode, sizeof(l.max_mode)) >= sizeof(l.max_mode)))
		abort();
	free(buf);
	return 0;
}
