/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>

#include "gid.h"
#include "tests.h"

TEST(parse_format) {
	static const char *const good[] = {
		"fe80:0000:0000:0000:ba59:9fff:fed4:5a10",
		"0000:0000:0000:0000:0000:ffff:c000:020a",
		"2001:0db8:0000:0000:0000:0000:0000:0010",
	};
	static const char *const bad[] = {
		"",
		"fe80:0000:00",
		"fe80:0000:0000:0000:ba59:9fff:fed4:5a1",
		"fe80:0000:0000:0000:ba59:9fff:fed4:5a10:",
		"fe80::1",
		"ge80:0000:0000:0000:ba59:9fff:fed4:5a10",
		"fe80-0000-0000-0000-ba59-9fff-fed4-5a10",
	};
	uint8_t g[16];
	char buf[GID_STRING_MAX];

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		CHECK(gid_parse(good[i], g) == 0);
		gid_format(g, buf);
		CHECK_STREQ(buf, good[i]);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(gid_parse(bad[i], g) == -EINVAL);
	CHECK(gid_parse("0000:0000:0000:0000:0000:0000:0000:0000", g) == 0);
	CHECK(gid_is_zero(g));
}

TEST(families) {
	uint8_t g[16];
	char v4[INET_ADDRSTRLEN];

	CHECK(gid_parse("0000:0000:0000:0000:0000:ffff:c000:020a", g) == 0);
	CHECK_INTEQ(gid_family(g), GID_FAMILY_IPV4);
	CHECK(gid_to_ipv4(g, v4, sizeof(v4)));
	CHECK_STREQ(v4, "192.0.2.10");
	CHECK(gid_parse("fe80:0000:0000:0000:ba59:9fff:fed4:5a10", g) == 0);
	CHECK_INTEQ(gid_family(g), GID_FAMILY_LINK_LOCAL);
	CHECK(!gid_to_ipv4(g, v4, sizeof(v4)));
	CHECK(gid_parse("2001:0db8:0000:0000:0000:0000:0000:0010", g) == 0);
	CHECK_INTEQ(gid_family(g), GID_FAMILY_IPV6);
}

TEST(requirements) {
	HostPort p = { 0 };
	Gid gids[2] = { 0 };

	gid_parse("fe80:0000:0000:0000:ba59:9fff:fed4:5a10", gids[0].raw);
	gids[0].type = GID_TYPE_ROCE_V2;
	gid_parse("0000:0000:0000:0000:0000:ffff:c000:020a", gids[1].raw);
	gids[1].type = GID_TYPE_ROCE_V1;
	p.gids = gids;
	p.n_gids = 2;

	uint32_t all = (1u << _GID_REQUIREMENT_MAX) - 1;
	uint32_t met = (1u << GID_REQUIREMENT_ROCE_V2_LINK_LOCAL) |
		       (1u << GID_REQUIREMENT_ROCE_V2_ANY) | (1u << GID_REQUIREMENT_ROCE_V1_IPV4) |
		       (1u << GID_REQUIREMENT_ROCE_V1_ANY);
	CHECK_INTEQ(gids_unmet(&p, all), all & ~met);
	CHECK_INTEQ(gids_unmet(&p, 1u << GID_REQUIREMENT_ROCE_V2_IPV4),
		    1u << GID_REQUIREMENT_ROCE_V2_IPV4);
	p.n_gids = 0;
	CHECK_INTEQ(gids_unmet(&p, met), met);
}

/* The index ib_write_bw -x / NCCL_IB_GID_INDEX should get. */
TEST(preferred) {
	HostPort p = { .link_layer = LINK_LAYER_ETHERNET };
	Gid gids[6] = { 0 };
	const Gid *g = NULL;

	/* mlx5-like: link-local v1/v2 at 0/1, IPv6 global v1/v2 at 2/3, IPv4 v1/v2 at 6/7 */
	gid_parse("fe80:0000:0000:0000:ba59:9fff:fed4:5a10", gids[0].raw);
	gids[1] = gids[0];
	gid_parse("2001:0db8:0000:0000:0000:0000:0000:0010", gids[2].raw);
	gids[3] = gids[2];
	gid_parse("0000:0000:0000:0000:0000:ffff:c000:020a", gids[4].raw);
	gids[5] = gids[4];
	for (size_t i = 0; i < 6; i++)
		gids[i].type = i % 2 ? GID_TYPE_ROCE_V2 : GID_TYPE_ROCE_V1;
	gids[0].index = 0, gids[1].index = 1, gids[2].index = 2, gids[3].index = 3;
	gids[4].index = 6, gids[5].index = 7;
	p.gids = gids;
	p.n_gids = 6;

	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) == 0);
	CHECK_INTEQ(g->index, 7); /* IPv4 first, even at a higher index than the IPv6 one */
	CHECK(gid_preferred(&p, GID_TYPE_ROCE_V1, _GID_FAMILY_INVALID, &g) == 0);
	CHECK_INTEQ(g->index, 6);
	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, GID_FAMILY_IPV6, &g) == 0);
	CHECK_INTEQ(g->index, 3);
	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, GID_FAMILY_LINK_LOCAL, &g) == 0);
	CHECK_INTEQ(g->index, 1);

	p.n_gids = 4; /* no IPv4 address: global IPv6 */
	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) == 0);
	CHECK_INTEQ(g->index, 3);
	p.n_gids = 2; /* link-local only: nothing routable */
	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, _GID_FAMILY_INVALID, &g) == -ENODATA);

	p.link_layer = LINK_LAYER_INFINIBAND; /* IB: the port GID, index 0 */
	gids[0].type = GID_TYPE_IB;
	CHECK(gid_preferred(&p, _GID_TYPE_INVALID, GID_FAMILY_IPV4, &g) == 0);
	CHECK_INTEQ(g->index, 0);
}

/* gids.publish: a declared family, version and subnet; the subnet's edges. */
TEST(chosen) {
	HostPort p = { .link_layer = LINK_LAYER_ETHERNET };
	Gid gids[4] = { 0 };
	GidChoice c = GID_CHOICE_DEFAULT;
	const Gid *g = NULL;

	/* 10.1.0.5 at 1 (v1) / 2 (v2), 10.2.0.5 at 3 (v2), 2001:db8:1::5 at 5 (v2) */
	gid_parse("0000:0000:0000:0000:0000:ffff:0a01:0005", gids[0].raw);
	gids[1] = gids[0];
	gid_parse("0000:0000:0000:0000:0000:ffff:0a02:0005", gids[2].raw);
	gid_parse("2001:0db8:0001:0000:0000:0000:0000:0005", gids[3].raw);
	gids[0].type = GID_TYPE_ROCE_V1;
	gids[1].type = gids[2].type = gids[3].type = GID_TYPE_ROCE_V2;
	gids[0].index = 1, gids[1].index = 2, gids[2].index = 3, gids[3].index = 5;
	p.gids = gids;
	p.n_gids = 4;

	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 2); /* the default: the first RoCE v2 IPv4 */
	c.family = GID_FAMILY_IPV6;
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 5);
	c = GID_CHOICE_DEFAULT;
	c.subnet_family = AF_INET;
	inet_pton(AF_INET, "10.2.0.0", c.subnet);
	c.subnet_prefixlen = 16;
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 3); /* the rail's subnet, not the first IPv4 */
	c.subnet_prefixlen = 15; /* 10.2.0.0/15 holds 10.2/16 and 10.3/16, not 10.1 */
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 3);
	c.subnet_prefixlen = 14; /* 10.0.0.0/14 would, but 10.2.0.0 has host bits: still 10.2 */
	inet_pton(AF_INET, "10.0.0.0", c.subnet);
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 2);
	inet_pton(AF_INET, "10.9.0.0", c.subnet);
	c.subnet_prefixlen = 16;
	CHECK(gid_chosen(&p, &c, &g) == -ENODATA); /* no address there: nothing */
	c.type = GID_TYPE_ROCE_V1;
	inet_pton(AF_INET, "10.1.0.0", c.subnet);
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 1);
	c = GID_CHOICE_DEFAULT; /* an IPv6 subnet: the family follows */
	c.subnet_family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8:1::", c.subnet);
	c.subnet_prefixlen = 48;
	CHECK(gid_chosen(&p, &c, &g) == 0);
	CHECK_INTEQ(g->index, 5);
	c.subnet_prefixlen = 128; /* a host route: the address itself is not in ::/128 of ...:: */
	CHECK(gid_chosen(&p, &c, &g) == -ENODATA);
	CHECK(!gid_in_subnet(gids[3].raw, AF_INET, c.subnet, 0)); /* IPv6 GID, IPv4 subnet */
	CHECK(gid_in_subnet(gids[0].raw, AF_INET, c.subnet, 0));  /* 0.0.0.0/0: any IPv4 */
}

TESTS_MAIN(TEST_ENTRY(chosen), TEST_ENTRY(preferred), TEST_ENTRY(parse_format), TEST_ENTRY(families),
	   TEST_ENTRY(requirements))
