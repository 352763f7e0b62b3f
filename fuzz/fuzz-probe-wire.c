/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the probe datagram parser (lib/codec/probe-wire.c) on arbitrary bytes, as a
 * peer that sends garbage would deliver them. A datagram the parser accepts must build back to
 * exactly the bytes it came from (so that nothing it ignored could carry meaning), and it is
 * accepted only at PROBE_WIRE_SIZE bytes. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	uint8_t back[PROBE_WIRE_SIZE];
	ProbeMessage m;
	int r;

	r = probe_wire_parse(data, size, &m);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		return 0;
	}
	if (size != PROBE_WIRE_SIZE || (m.kind != PROBE_REQUEST && m.kind != PROBE_REPLY))
		abort();
	probe_wire_build(&m, back);
	if (memcmp(back, data, PROBE_WIRE_SIZE) != 0)
		abort();
	return 0;
}
