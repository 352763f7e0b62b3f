/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The strict parsers of kernel values (lib/codec/sysfs-value.c), the bounded read, the excerpt and
 * the error cap. (fuzz/regressions/sysfs-value is replayed by fuzz-sysfs-value-regressions.) */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gid.h"
#include "macro.h"
#include "strv.h"
#include "sysfs-value.h"
#include "tests.h"

#define S(x) x, sizeof(x) - 1

TEST(port_state) {
	PortState s;
	PortPhysState ps;

	CHECK(sysfs_port_state_parse(S("4: ACTIVE"), &s) == 0 && s == PORT_STATE_ACTIVE);
	CHECK(sysfs_port_state_parse(S("1: DOWN"), &s) == 0 && s == PORT_STATE_DOWN);
	CHECK(sysfs_port_state_parse(S("5: ACTIVE_DEFER"), &s) == 0 &&
	      s == PORT_STATE_ACTIVE_DEFER);
	static const char *const bad[] = {
		"garbage",    "4",	    "4:",
		"4: ",	      "4:ACTIVE",   "4: DOWN",
		"04: ACTIVE", "+4: ACTIVE", "4: ACTIVE ",
		" 4: ACTIVE", "6: UNKNOWN", "-1: NOP",
		"4: active",  "4: ACTIVEX", "99999999999999999999: ACTIVE",
		"",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		CHECK(sysfs_port_state_parse(bad[i], strlen(bad[i]), &s) == -EINVAL);
	/* a NUL inside: the length says there is more than "4: ACTIVE" */
	CHECK(sysfs_port_state_parse(S("4: ACTIVE\0junk"), &s) == -EINVAL);

	CHECK(sysfs_port_phys_state_parse(S("5: LinkUp"), &ps) == 0 &&
	      ps == PORT_PHYS_STATE_LINK_UP);
	CHECK(sysfs_port_phys_state_parse(S("7: Phy Test"), &ps) == 0 &&
	      ps == PORT_PHYS_STATE_PHY_TEST);
	CHECK(sysfs_port_phys_state_parse(S("0: <unknown>"), &ps) == 0);
	CHECK(sysfs_port_phys_state_parse(S("5: LINK_UP"), &ps) == -EINVAL);
	CHECK(sysfs_port_phys_state_parse(S("8: LinkUp"), &ps) == -EINVAL);
}

TEST(gid) {
	uint8_t g[16];
	char buf[GID_STRING_MAX];

	CHECK(sysfs_gid_parse(S("fe80:0000:0000:0000:a810:7cff:fe3e:9102"), g) == 0);
	gid_format(g, buf);
	CHECK_STREQ(buf, "fe80:0000:0000:0000:a810:7cff:fe3e:9102");
	CHECK(sysfs_gid_parse(S("zzzz"), g) == -EINVAL);
	CHECK(sysfs_gid_parse(S("fe80:0000:0000:0000:a810:7cff:fe3e:9102\0"), g) == -EINVAL);
	CHECK(sysfs_gid_parse(S("fe80:0000:0000:0000:a810:7cff:fe3e:910"), g) == -EINVAL);
	CHECK(sysfs_gid_parse(S("fe80:0000:0000:0000:a810:7cff:fe3e:9102x"), g) == -EINVAL);
	CHECK(sysfs_gid_parse(S("fe80:0000:0000:0000:a810:7cff:fe3e-9102"), g) == -EINVAL);
	CHECK(sysfs_gid_parse(S("fe80::1"), g) == -EINVAL);
}

TEST(names) {
	GidType t;
	LinkLayer ll;
	RoceMode m;
	char nd[NETDEV_NAME_MAX];

	CHECK(sysfs_gid_type_parse(S("RoCE v2"), LINK_LAYER_ETHERNET, &t) == 0 &&
	      t == GID_TYPE_ROCE_V2);
	CHECK(sysfs_gid_type_parse(S("IB/RoCE v1"), LINK_LAYER_ETHERNET, &t) == 0 &&
	      t == GID_TYPE_ROCE_V1);
	CHECK(sysfs_gid_type_parse(S("IB/RoCE v1"), LINK_LAYER_INFINIBAND, &t) == 0 &&
	      t == GID_TYPE_IB);
	CHECK(sysfs_gid_type_parse(S("RoCE v9"), LINK_LAYER_ETHERNET, &t) == -EINVAL);
	CHECK(sysfs_gid_type_parse(S("RoCE v2\0"), LINK_LAYER_ETHERNET, &t) == -EINVAL);
	CHECK(sysfs_link_layer_parse(S("Ethernet"), &ll) == 0 && ll == LINK_LAYER_ETHERNET);
	CHECK(sysfs_link_layer_parse(S("ethernet"), &ll) == -EINVAL);
	CHECK(sysfs_roce_mode_parse(S("RoCE v2"), &m) == 0 && m == ROCE_MODE_V2);
	CHECK(sysfs_roce_mode_parse(S("v2"), &m) == -EINVAL);
	CHECK(sysfs_netdev_name_parse(S("veth0"), nd) == 0);
	CHECK_STREQ(nd, "veth0");
	CHECK(sysfs_netdev_name_parse(S("../../etc"), nd) == -EINVAL);
	CHECK(sysfs_netdev_name_parse(S("veth0\0x"), nd) == -EINVAL);
	CHECK(sysfs_netdev_name_parse(S("a-name-too-long-x"), nd) == -EINVAL);
	CHECK(sysfs_netdev_name_parse(S(""), nd) == -EINVAL);
}

TEST(numbers) {
	int64_t v;
	uint32_t x;

	CHECK(sysfs_int_parse(S("0"), 0, 255, &v) == 0 && v == 0);
	CHECK(sysfs_int_parse(S("255"), 0, 255, &v) == 0 && v == 255);
	CHECK(sysfs_int_parse(S("256"), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("-1"), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("-1"), -1, 255, &v) == 0 && v == -1);
	CHECK(sysfs_int_parse(S("-0"), -1, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("052"), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("15oo"), 0, UINT32_MAX, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("106\0junk"), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S(" 1"), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S(""), 0, 255, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("9223372036854775807"), 0, INT64_MAX, &v) == 0 && v == INT64_MAX);
	CHECK(sysfs_int_parse(S("9999999999999999999"), 0, INT64_MAX, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("99999999999999999999"), 0, INT64_MAX, &v) == -EINVAL);
	CHECK(sysfs_int_parse(S("4294967296"), 0, UINT32_MAX, &v) == -EINVAL);
	CHECK(sysfs_hex_parse(S("0x1003"), &x) == 0 && x == 0x1003);
	CHECK(sysfs_hex_parse(S("0x"), &x) == -EINVAL);
	CHECK(sysfs_hex_parse(S("1003"), &x) == -EINVAL);
	CHECK(sysfs_hex_parse(S("0x123456789"), &x) == -EINVAL);
}

TEST(excerpt) {
	char buf[SYSFS_EXCERPT_SIZE];
	char big[200];

	sysfs_excerpt(S("106\0junk"), false, buf);
	CHECK_STREQ(buf, "106\\x00junk");
	sysfs_excerpt(S("a\\b\033[2J\xff"), false, buf);
	CHECK_STREQ(buf, "a\\\\b\\x1b[2J\\xff");
	memset(big, 0xff, sizeof(big));
	sysfs_excerpt(big, sizeof(big), false, buf);
	CHECK_INTEQ(strlen(buf), SYSFS_EXCERPT_MAX * 4 + 3); /* the worst case fits */
	CHECK(strcmp(buf + strlen(buf) - 3, "...") == 0);
	sysfs_excerpt(S("short"), true, buf);
	CHECK_STREQ(buf, "short...");
}

TEST(read_bounded) {
	char dir[] = "/tmp/test-sysfs-value.XXXXXX", buf[SYSFS_VALUE_MAX];
	_cleanup_strv_free_ char **errors = NULL;
	_cleanup_close_ int dfd = -EBADF;
	ssize_t n;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(dfd >= 0);
	/* 100 KB: refused after SYSFS_VALUE_MAX bytes, the start kept for the message */
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/big"), "w");
	CHECK(f != NULL);
	for (int i = 0; f && i < 100 * 1024 / 40; i++)
		fputs("fe80:0000:0000:0000:a810:7cff:fe3e:9102\n", f);
	if (f)
		fclose(f);
	n = sysfs_value_read_at(dfd, "big", buf, sizeof(buf));
	CHECK_INTEQ(n, -EFBIG);
	CHECK(sysfs_error_add(&errors, "/sys/big", n, buf) == 0);
	CHECK_STREQ(errors[0], "/sys/big: unexpected content 'fe80:0000:0000:0000:a810:7cff:fe...' "
			       "(more than 63 bytes)");
	/* a NUL inside: the length says so */
	f = fopen(strcat(strcpy((char[128]){ 0 }, dir), "/nul"), "w");
	CHECK(f != NULL);
	if (f) {
		fwrite("106\0junk\n", 1, 9, f);
		fclose(f);
	}
	n = sysfs_value_read_at(dfd, "nul", buf, sizeof(buf));
	CHECK_INTEQ(n, 8);
	CHECK_INTEQ(strlen(buf), 3);
	CHECK(sysfs_error_add(&errors, "/sys/nul", n, buf) == 0);
	CHECK_STREQ(errors[1], "/sys/nul: unexpected content '106\\x00junk'");
	n = sysfs_value_read_at(dfd, "missing", buf, sizeof(buf));
	CHECK_INTEQ(n, -ENOENT);
	CHECK(sysfs_error_add(&errors, "/sys/missing", n, buf) == 0);
	CHECK_STREQ(errors[2], "/sys/missing: No such file or directory");
	/* capped: SYSFS_ERRORS_MAX, one line saying more were left out, then nothing */
	for (int i = 0; i < 100; i++)
		CHECK(sysfs_error_add(&errors, "/sys/x", 1, "x") == 0);
	CHECK_INTEQ(strv_length(errors), SYSFS_ERRORS_MAX + 1);
	(void) unlinkat(dfd, "big", 0);
	(void) unlinkat(dfd, "nul", 0);
	(void) rmdir(dir);
}

TESTS_MAIN(TEST_ENTRY(port_state), TEST_ENTRY(gid), TEST_ENTRY(names), TEST_ENTRY(numbers),
	   TEST_ENTRY(excerpt), TEST_ENTRY(read_bounded))
