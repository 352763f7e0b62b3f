/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: devlink's health reporter and info parsers (devlink-health.h) on arbitrary
 * bytes: what a dump replies and what the "config" group multicasts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devlink-health.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	HealthReporter h;
	DevlinkInfo i;
	void *buf;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* What parsed is terminated, named, and a state with a name. */
	if (devlink_health_parse(buf, size, &h) >= 0 &&
	    (strnlen(h.device, sizeof(h.device)) >= sizeof(h.device) || !h.name[0] ||
	     strnlen(h.name, sizeof(h.name)) >= sizeof(h.name) || !health_state_to_string(h.state)))
		abort();
	if (devlink_info_parse(buf, size, &i) >= 0 &&
	    (!strchr(i.device, '/') || strnlen(i.running, sizeof(i.running)) >= sizeof(i.running) ||
	     strnlen(i.stored, sizeof(i.stored)) >= sizeof(i.stored) ||
	     strnlen(i.psid, sizeof(i.psid)) >= sizeof(i.psid)))
		abort();
	{
		char device[DEVLINK_HANDLE_MAX];

		if (devlink_device_parse(buf, size, device) >= 0 && !strchr(device, '/'))
			abort();
	}
	free(buf);
	return 0;
}
