/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad-probe's datagram on its bytes: the layout in probe-wire.h, a round trip, and every
 * way a stranger's datagram is refused; who sent one, from the GRH a UD receive gets first. */
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

/* RoCE v2 over IPv4, as rxe and mlx5 deliver it: 20 bytes of zeros, then the IPv4 header (its
 * checksum right) from 192.0.2.2 to 192.0.2.1, ToS 0x68. */
static void grh_ipv4(uint8_t g[PROBE_GRH_SIZE]) {
	static const uint8_t ip[20] = { 0x45, 0x68, 0x00, 0x4c, 0x12, 0x34, 0x40, 0x00, 0x40, 0x11,
					0x00, 0x00, 192,  0,	2,    2,    192,  0,	2,    1 };
	uint32_t sum = 0;

	memset(g, 0, PROBE_GRH_SIZE);
	memcpy(g + 20, ip, sizeof(ip));
	for (size_t i = 0; i < 20; i += 2)
		sum += (uint32_t) (g[20 + i] << 8 | g[20 + i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	g[30] = (uint8_t) (~sum >> 8);
	g[31] = (uint8_t) ~sum;
}

TEST(grh_ipv4) {
	const uint8_t sgid[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 2 },
		      dgid[16] = { [10] = 0xff, [11] = 0xff, 192, 0, 2, 1 };
	uint8_t g[PROBE_GRH_SIZE];
	ProbeGrh out;

	grh_ipv4(g);
	CHECK_INTEQ(probe_grh_parse(g, &out), 0);
	CHECK(memcmp(out.sgid, sgid, 16) == 0 && memcmp(out.dgid, dgid, 16) == 0);
	CHECK_INTEQ(out.traffic_class, 0x68);
	CHECK_INTEQ(out.flow_label, 0);
	/* whatever the first 20 bytes hold, even an IPv6 version nibble: a valid IPv4 header wins
	 * (libibverbs' rule: its checksum tells it apart) */
	memset(g, 0x60, 20);
	CHECK_INTEQ(probe_grh_parse(g, &out), 0);
	CHECK(memcmp(out.sgid, sgid, 16) == 0);
	/* an IPv4 header whose checksum does not hold, after no IPv6 version: neither */
	grh_ipv4(g);
	g[20 + 15] = 3; /* another source address, the checksum as it was */
	CHECK_INTEQ(probe_grh_parse(g, &out), -EBADMSG);
	memset(g, 0, sizeof(g));
	CHECK_INTEQ(probe_grh_parse(g, &out), -EBADMSG);
}

TEST(grh_ipv6) {
	uint8_t g[PROBE_GRH_SIZE] = { 0x61, 0x23, 0x45, 0x67 }; /* version 6, class 0x12, flow */
	ProbeGrh out = { .traffic_class = 1 };

	for (int i = 0; i < 16; i++) {
		g[8 + i] = (uint8_t) (0xa0 + i);
		g[24 + i] = (uint8_t) (0xb0 + i);
	}
	CHECK_INTEQ(probe_grh_parse(g, &out), 0);
	CHECK_INTEQ(out.traffic_class, 0x12);
	CHECK_INTEQ(out.flow_label, 0x34567);
	CHECK(out.sgid[0] == 0xa0 && out.sgid[15] == 0xaf && out.dgid[0] == 0xb0 &&
	      out.dgid[15] == 0xbf);
	/* another version: refused, *ret untouched */
	g[0] = 0x51;
	out.traffic_class = 7;
	CHECK_INTEQ(probe_grh_parse(g, &out), -EBADMSG);
	CHECK_INTEQ(out.traffic_class, 7);
}

/* Version 2's settings exchange: its bytes, and a prober of version 1 refusing it. */
TEST(settings_bytes) {
	const ProbeSettingsMessage m = {
		.kind = PROBE_SETTINGS_REQUEST,
		.sender = 0x01020304,
		.path = 7,
		.seq = 0x0a0b0c0d,
		.settings = { .known = PROBE_KNOWN_ALL,
			      .netdev_mtu = 9000,
			      .roce_mtu = 4096,
			      .roce_mode = 2,
			      .tos = 106,
			      .trust = PROBE_TRUST_DSCP,
			      .priority = 3,
			      .pfc = 0x08,
			      .ecn = 0x08,
			      .cnp_dscp = 48,
			      .cnp_priority = 6 },
	};
	const uint8_t want[PROBE_WIRE_SIZE] = {
		'R',  'D',  'P',  'R',	2,    3,    0x03, 0xff, /* magic, version 2, kind, known */
		0x01, 0x02, 0x03, 0x04, 0,    0,    0,	  7,	/* sender, path */
		0x23, 0x28, 0x10, 0x00, 2,    106,  2,	  3,	/* 9000, 4096, v2, ToS, dscp, 3 */
		0x08, 0x08, 48,	  6,	0x0a, 0x0b, 0x0c, 0x0d, /* PFC, ECN, CNP, seq */
	};
	uint8_t buf[PROBE_WIRE_SIZE];
	ProbeSettingsMessage back;
	ProbeMessage v1;

	probe_wire_build_settings(&m, buf);
	CHECK(memcmp(buf, want, sizeof(want)) == 0);
	CHECK_INTEQ(probe_wire_kind(buf, sizeof(buf)), PROBE_SETTINGS_REQUEST);
	CHECK_INTEQ(probe_wire_parse_settings(buf, sizeof(buf), &back), 0);
	CHECK(back.kind == m.kind && back.sender == m.sender && back.path == 7 &&
	      back.seq == m.seq && memcmp(&back.settings, &m.settings, sizeof(m.settings)) == 0);
	/* the same size as a probe: version 1's parser refuses it, as a stranger's */
	CHECK_INTEQ(probe_wire_parse(buf, sizeof(buf), &v1), -EBADMSG);
	/* and a probe is not settings */
	probe_wire_build(&(ProbeMessage){ .kind = PROBE_REQUEST, .seq = 1 }, buf);
	CHECK_INTEQ(probe_wire_kind(buf, sizeof(buf)), PROBE_REQUEST);
	CHECK_INTEQ(probe_wire_parse_settings(buf, sizeof(buf), &back), -EBADMSG);
}

TEST(settings_refused) {
	ProbeSettingsMessage m = { .kind = PROBE_SETTINGS_REPLY,
				   .settings = { .known = PROBE_KNOWN_ROCE_MTU, .roce_mtu = 1024 } },
			     out = { .seq = 42 };
	uint8_t buf[PROBE_WIRE_SIZE], bad[PROBE_WIRE_SIZE];
	/* [offset, value]: out of range where known, or nonzero where not */
	static const uint8_t wrong[][2] = {
		{ 6, 0x04 },  /* a known bit past PROBE_KNOWN_ALL */
		{ 16, 0x01 }, /* netdev MTU, unknown, nonzero */
		{ 19, 0x01 }, /* RoCE MTU 1025 */
		{ 20, 2 },    /* RoCE mode, unknown */
		{ 22, 1 },    /* trust, unknown */
	};

	probe_wire_build_settings(&m, buf);
	CHECK_INTEQ(probe_wire_parse_settings(buf, sizeof(buf), &out), 0);
	CHECK(out.settings.known == PROBE_KNOWN_ROCE_MTU && out.settings.roce_mtu == 1024);
	out.seq = 42;
	CHECK_INTEQ(probe_wire_parse_settings(buf, sizeof(buf) - 1, &out), -EBADMSG);
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		memcpy(bad, buf, sizeof(bad));
		bad[wrong[i][0]] = wrong[i][1];
		CHECK_INTEQ(probe_wire_parse_settings(bad, sizeof(bad), &out), -EBADMSG);
	}
	/* known and out of range */
	m.settings = (ProbeLinkSettings){ .known = PROBE_KNOWN_ALL, .netdev_mtu = 1500,
					  .roce_mtu = 1024, .roce_mode = 2, .trust = 2 };
	CHECK(probe_settings_valid(&m.settings));
	m.settings.priority = 8;
	CHECK(!probe_settings_valid(&m.settings));
	m.settings.priority = 0;
	m.settings.cnp_dscp = 64;
	CHECK(!probe_settings_valid(&m.settings));
	m.settings.cnp_dscp = 0;
	m.settings.roce_mode = 3;
	CHECK(!probe_settings_valid(&m.settings));
	m.settings.roce_mode = 1;
	m.settings.netdev_mtu = 67;
	CHECK(!probe_settings_valid(&m.settings));
	/* version 2 with a probe's kind, version 1 with a settings kind */
	memcpy(bad, buf, sizeof(bad));
	bad[5] = PROBE_REQUEST;
	CHECK_INTEQ(probe_wire_kind(bad, sizeof(bad)), -EBADMSG);
	bad[4] = PROBE_WIRE_VERSION;
	bad[5] = PROBE_SETTINGS_REPLY;
	CHECK_INTEQ(probe_wire_kind(bad, sizeof(bad)), -EBADMSG);
	CHECK(out.seq == 42); /* untouched on failure */
}

TESTS_MAIN(TEST_ENTRY(bytes), TEST_ENTRY(refused), TEST_ENTRY(grh_ipv4), TEST_ENTRY(grh_ipv6),
	   TEST_ENTRY(settings_bytes), TEST_ENTRY(settings_refused))
