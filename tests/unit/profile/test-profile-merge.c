/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Matching (globs, lists, ports) and the key-by-key merge of matching profiles. */
#include "glob-util.h"
#include "profile.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

TEST(globs) {
	CHECK(glob_validate("mlx5_*") == 0);
	CHECK(glob_validate("mlx5_[0-3]") == 0);
	CHECK(glob_validate("[]]") == 0);
	CHECK(glob_validate("[!a]x") == 0);
	CHECK(glob_validate("a\\*") == 0);
	CHECK(glob_validate("mlx5_[0") == -GLOB_ERROR_UNTERMINATED_BRACKET);
	CHECK(glob_validate("mlx5_[") == -GLOB_ERROR_UNTERMINATED_BRACKET);
	CHECK(glob_validate("a\\") == -GLOB_ERROR_TRAILING_BACKSLASH);
	CHECK(glob_validate("") == -GLOB_ERROR_EMPTY);
	CHECK(glob_match("mlx5_*", "mlx5_12"));
	CHECK(!glob_match("mlx5_*", "mlx4_0"));
	CHECK(glob_match("0000:3b:00.*", "0000:3b:00.1"));
	CHECK(glob_match_any(NULL, NULL)); /* no constraint */
	char *l[] = { "eth*", "ens1f*np*", NULL };
	CHECK(glob_match_any(l, "ens1f0np0"));
	CHECK(!glob_match_any(l, "ib0"));
	CHECK(!glob_match_any(l, NULL)); /* a link without a netdev does not match a netdev */
}

TEST(match) {
	static const char *const texts[] = {
		"match: {device: \"mlx5_*\", port: [1, 2]}\n",
		"match: {driver: [mlx5_core, rdma_rxe], netdev: \"ens*\"}\n",
		"match: {pci: \"0000:3b:00.*\"}\n",
		"roce: {tos: 1}\n", /* no match: every link */
		NULL,
	};
	Config *c = config_from(texts);
	PortFacts mlx = { .device = "mlx5_0",
			  .driver = "mlx5_core",
			  .netdev = "ens1f0np0",
			  .pci = "0000:3b:00.0",
			  .port = 1 };
	PortFacts rxe = { .device = "rxe0", .driver = "rdma_rxe", .netdev = "veth0", .port = 1 };
	PortFacts mlx_p3 = mlx;

	mlx_p3.port = 3;
	CHECK(profile_matches(c->profiles[0], &mlx));
	CHECK(!profile_matches(c->profiles[0], &mlx_p3));
	CHECK(!profile_matches(c->profiles[0], &rxe));
	CHECK(profile_matches(c->profiles[1], &mlx));
	CHECK(!profile_matches(c->profiles[1], &rxe)); /* driver matches, netdev does not */
	CHECK(profile_matches(c->profiles[2], &mlx));
	CHECK(!profile_matches(c->profiles[2], &rxe)); /* no PCI address */
	CHECK(profile_matches(c->profiles[3], &rxe));
	config_free(c);
}

/* Later profiles override earlier ones key by key; lists are replaced whole; keys a profile
 * does not set keep the earlier value and its origin. */
TEST(merge) {
	static const char *const texts[] = {
		"roce: {mode: v2, tos: 96}\n"
		"netdev: {mtu: 9000, addresses: [192.0.2.1/24, 192.0.2.2/24]}\n"
		"qos: {pfc: [3, 4]}\n",
		"match: {device: \"rxe*\"}\nroce: {tos: 106}\n"
		"netdev: {addresses: [\"2001:db8::1/64\"]}\nqos: {pfc: []}\n",
		"match: {device: \"mlx5_*\"}\nnetdev: {mtu: 4200}\n",
		NULL,
	};
	Config *c = config_from(texts);
	PortFacts rxe = { .device = "rxe0", .driver = "rdma_rxe", .netdev = "veth0", .port = 1 };
	char **names = NULL;
	PortSettings s;

	CHECK_INTEQ(config_settings_for_port(c, &rxe, &s, &names), 2);
	CHECK_STREQ(names[0], "00-test.yaml");
	CHECK_STREQ(names[1], "10-test.yaml");
	CHECK_INTEQ(strv_length(names), 2);
	CHECK_INTEQ(s.roce_mode, ROCE_MODE_V2);
	CHECK_STREQ(s.origin[KEY_ROCE_MODE], "00-test.yaml");
	CHECK_INTEQ(s.roce_tos, 106);
	CHECK_STREQ(s.origin[KEY_ROCE_TOS], "10-test.yaml");
	CHECK_INTEQ(s.netdev_mtu, 9000);
	CHECK_INTEQ(s.n_addresses, 1); /* replaced whole */
	CHECK_INTEQ(s.qos_pfc, 0);     /* [] is a value: all off */
	CHECK(s.set & KEY_BIT(KEY_QOS_PFC));
	CHECK(!(s.set & KEY_BIT(KEY_NETDEV_UP)));
	CHECK(!(s.set & KEY_BIT(KEY_MATCH_DEVICE))); /* match keys are not settings */
	port_settings_done(&s);
	strv_free(names);
	config_free(c);
}

/* Each profile's ETS is valid, their merge is not: the merged settings say so, naming both. */
TEST(merged_validate) {
	static const char *const texts[] = {
		"qos: {ets: {tsa: [ets, strict, strict, ets, strict, strict, strict, strict],\n"
		"             tc-bw: [50, 0, 0, 50, 0, 0, 0, 0]}}\n",
		"match: {device: mlx5_1}\nqos: {ets: {tc-bw: [60, 0, 0, 20, 20, 0, 0, 0]}}\n",
		NULL,
	};
	Config *c = config_from(texts);
	PortFacts f0 = { .device = "mlx5_0", .port = 1 }, f1 = { .device = "mlx5_1", .port = 1 };
	PortSettings s = { 0 };
	char *error = NULL;

	CHECK_INTEQ(config_settings_for_port(c, &f0, &s, NULL), 1);
	CHECK_INTEQ(port_settings_validate(&s, &error), 0);
	port_settings_done(&s);
	CHECK_INTEQ(config_settings_for_port(c, &f1, &s, NULL), 2);
	CHECK_INTEQ(port_settings_validate(&s, &error), -EINVAL);
	CHECK_STREQ(error,
		    "'qos.ets.tc-bw' of the ets traffic classes (0,3) must add up to 100, got "
		    "80 (tc-bw from 10-test.yaml, tsa from 00-test.yaml)");
	free(error);
	port_settings_done(&s);
	config_free(c);
}

TESTS_MAIN(TEST_ENTRY(globs), TEST_ENTRY(match), TEST_ENTRY(merge), TEST_ENTRY(merged_validate))
