/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the probe datagram parser (lib/codec/probe-wire.c) on arbitrary bytes, as a
 * peer that sends garbage would deliver them. A datagram the parser accepts must build back to
 * exactly the bytes it came from (so that nothing it ignored could carry meaning), and it is
 * accepted only at PROBE_WIRE_SIZE bytes; the same for version 2's settings messages, whose
 * settings must be valid, and a payload is one kind or the other, never both. The same bytes as a UD receive: the GRH parser on its
 * first PROBE_GRH_SIZE, which reads the source a reply is judged by; a GRH it takes for IPv4
 * has the IPv4 header's addresses as IPv4-mapped GIDs, one it takes for IPv6 its own. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe-wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const uint8_t *data, size_t size) {
	uint8_t back[PROBE_WIRE_SIZE];
	ProbeMessage m;
	int r;

	r = probe_wire_parse(data, size, &m);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		return;
	}
	if (size != PROBE_WIRE_SIZE || (m.kind != PROBE_REQUEST && m.kind != PROBE_REPLY))
		abort();
	probe_wire_build(&m, back);
	if (memcmp(back, data, PROBE_WIRE_SIZE) != 0)
		abort();
}

static void check_settings(const uint8_t *data, size_t size) {
	uint8_t back[PROBE_WIRE_SIZE];
	ProbeSettingsMessage m;
	ProbeMessage v1;
	int r, k;

	r = probe_wire_parse_settings(data, size, &m);
	k = probe_wire_kind(data, size);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		return;
	}
	if (size != PROBE_WIRE_SIZE || k != (int) m.kind ||
	    (m.kind != PROBE_SETTINGS_REQUEST && m.kind != PROBE_SETTINGS_REPLY) ||
	    !probe_settings_valid(&m.settings) || probe_wire_parse(data, size, &v1) == 0)
		abort();
	probe_wire_build_settings(&m, back);
	if (memcmp(back, data, PROBE_WIRE_SIZE) != 0)
		abort();
}

static void check_grh(const uint8_t *g) {
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	ProbeGrh grh;
	int r;

	r = probe_grh_parse(g, &grh);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		return;
	}
	if (memcmp(grh.sgid, g + 8, 16) == 0 && memcmp(grh.dgid, g + 24, 16) == 0 &&
	    (g[0] >> 4) == 6)
		return; /* IPv6 */
	/* IPv4: the header's version and length, its addresses mapped */
	if (g[20] != 0x45 || memcmp(grh.sgid, mapped, 12) != 0 ||
	    memcmp(grh.sgid + 12, g + 32, 4) || memcmp(grh.dgid, mapped, 12) != 0 ||
	    memcmp(grh.dgid + 12, g + 36, 4) || grh.traffic_class != g[21] || grh.flow_label != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	check_message(data, size);
	check_settings(data, size);
	if (size >= PROBE_GRH_SIZE) {
		check_grh(data);
		check_message(data + PROBE_GRH_SIZE, size - PROBE_GRH_SIZE);
		check_settings(data + PROBE_GRH_SIZE, size - PROBE_GRH_SIZE);
	}
	return 0;
}
