/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: RDMA netlink reply parsers on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdmanl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char name[RDMANL_DEV_NAME_MAX], ndev[RDMANL_NDEV_NAME_MAX];
	uint32_t index, port;
	NetnsMode mode;
	void *buf;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	if (rdmanl_sys_parse(buf, size, &mode) >= 0 && (mode < 0 || mode >= _NETNS_MODE_MAX))
		abort();

	/* A name that parsed is a terminated, non-empty string that fits. */
	if (rdmanl_dev_parse(buf, size, &index, name) >= 0 &&
	    (strnlen(name, sizeof(name)) == 0 || strnlen(name, sizeof(name)) >= sizeof(name)))
		abort();
	if (rdmanl_port_parse(buf, size, &index, &port, ndev) >= 0 &&
	    (strnlen(ndev, sizeof(ndev)) == 0 || strnlen(ndev, sizeof(ndev)) >= sizeof(ndev)))
		abort();
	if (rdmanl_port_parse(buf, size, NULL, NULL, ndev) >= 0 &&
	    strnlen(ndev, sizeof(ndev)) >= sizeof(ndev))
		abort();

	{
		HwCounter *l = NULL;
		size_t n = 0;

		/* every counter parsed has a terminated, non-empty name that fits */
		if (rdmanl_stat_status_parse(buf, size, &l, &n) >= 0) {
			for (size_t i = 0; i < n; i++)
				if (!l[i].name || !l[i].name[0] ||
				    strlen(l[i].name) >= RDMANL_COUNTER_NAME_MAX ||
				    (l[i].enabled && !l[i].optional))
					abort();
			hw_counters_free(l, n);
		}
	}

	free(buf);
	return 0;
}
