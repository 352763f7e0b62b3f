/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad-probe's datagram on its bytes: the layout in probe-wire.h, a round trip, and every
 * way a stranger's datagram is refused. */
#include <errno.h>
#include <string.h>

#include "probe-wire.h"
#include "tests.h"

TEST(bytes) {
	const ProbeMessage m = { .kind = PROBE_REQUEST,
				 .sender = 0x01020304,
				 .path = 7,
				 .seq = 0x1122334455667788ULL,
				 .sent_ns = 1000000000ULL };
	const uint8_t want[PROBE_WIRE_SIZE] = {
		'R',  'D',  'P',  'R',	1,    1,    0,	  0,	/* magic, version, kind */
		0x01, 0x02, 0x03, 0x04, 0,    0,    0,	  7,	/* sender, path */
		0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, /* seq */
		0,    0,    0,	  0,	0x3b, 0x9a, 0xca, 0x00, /* 1 s */
	};
	uint8_t buf[PROBE_WIRE_SIZE];
	ProbeMessage back;

	probe_wire_build(&m, buf);
	CHECK(memcmp(buf, want, sizeof(want)) == 0);
	CHECK_INTEQ(probe_wire_parse(buf, sizeof(buf), &back), 0);
	CHECK(back.kind == PROBE_REQUEST && back.sender == m.sender && back.path == 7 &&
	      back.seq == m.seq && back.sent_ns == m.sent_ns);
	/* the reply: the same bytes but the kind */
	back.kind = PROBE_REPLY;
	probe_wire_build(&back, buf);
	CHECK_INTEQ(buf[5], 2);
	buf[5] = 1;
	CHECK(memcmp(buf, want, sizeof(want)) == 0);
}

TEST(refused) {
	const ProbeMessage m = { .kind = PROBE_REPLY, .seq = 1 };
	uint8_t buf[PROBE_WIRE_SIZE + 1], bad[PROBE_WIRE_SIZE];
	ProbeMessage out = { .seq = 42 };

	probe_wire_build(&m, buf);
	CHECK_INTEQ(probe_wire_parse(buf, PROBE_WIRE_SIZE - 1, &out), -EBADMSG);
	CHECK_INTEQ(probe_wire_parse(buf, PROBE_WIRE_SIZE + 1, &out), -EBADMSG);
	CHECK_INTEQ(probe_wire_parse(buf, 0, &out), -EBADMSG);
	/* each byte of the header changed: magic (0-3), version (4), kind (5), reserved (6, 7) */
	for (size_t i = 0; i < 8; i++) {
		memcpy(bad, buf, sizeof(bad));
		bad[i] ^= 0x40;
		CHECK_INTEQ(probe_wire_parse(bad, sizeof(bad), &out), -EBADMSG);
	}
	memcpy(bad, buf, sizeof(bad));
	bad[5] = 0;
	CHECK_INTEQ(probe_wire_parse(bad, sizeof(bad), &out), -EBADMSG);
	bad[5] = 3;
	CHECK_INTEQ(probe_wire_parse(bad, sizeof(bad), &out), -EBADMSG);
	CHECK(out.seq == 42); /* untouched on failure */
	CHECK_INTEQ(probe_wire_parse(buf, PROBE_WIRE_SIZE, &out), 0);
	CHECK(out.kind == PROBE_REPLY && out.seq == 1);
}

TESTS_MAIN(TEST_ENTRY(bytes), TEST_ENTRY(refused))
