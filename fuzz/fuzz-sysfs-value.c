/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parsers of kernel values (lib/codec/sysfs-value.c) on arbitrary bytes. Each
 * value a parser accepts must print back as exactly the bytes it came from (a NUL or anything
 * after the value would not), and every error message stays short and printable.
 * tests/unit/codec/test-sysfs-value.c replays fuzz/regressions/sysfs-value through the same checks. */
#include <ctype.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "macro.h"
#include "strv.h"
#include "sysfs-value.h"

int sysfs_value_fuzz_one(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const char *printed, const char *s, size_t n) {
	return strlen(printed) == n && memcmp(printed, s, n) == 0;
}

static bool same_nocase(const char *printed, const char *s, size_t n) {
	return strlen(printed) == n && strncasecmp(printed, s, n) == 0;
}

static bool printable(const char *s) {
	for (; *s; s++)
		if (*s < 0x20 || *s >= 0x7f)
			return false;
	return true;
}

static void check_parsers(const char *s, size_t n) {
	char buf[128], nd[NETDEV_NAME_MAX];
	PortPhysState ps;
	LinkLayer ll;
	PortState st;
	RoceMode m;
	uint8_t g[16];
	GidType t;
	int64_t v;
	uint32_t x;

	if (sysfs_port_state_parse(s, n, &st) >= 0) {
		if (st < 0 || st >= _PORT_STATE_MAX)
			abort();
		snprintf(buf, sizeof(buf), "%d: %s", (int) st, port_state_to_string(st));
		if (!same(buf, s, n))
			abort();
	}
	if (sysfs_port_phys_state_parse(s, n, &ps) >= 0 &&
	    (ps < 0 || ps >= _PORT_PHYS_STATE_MAX || !sysfs_text_ok(s, n)))
		abort();
	if (sysfs_link_layer_parse(s, n, &ll) >= 0 && !same(link_layer_to_string(ll), s, n))
		abort();
	if (sysfs_roce_mode_parse(s, n, &m) >= 0 && !same(roce_mode_configfs_to_string(m), s, n))
		abort();
	for (LinkLayer l = 0; l < _LINK_LAYER_MAX; l++)
		if (sysfs_gid_type_parse(s, n, l, &t) >= 0 && (t < 0 || t >= _GID_TYPE_MAX))
			abort();
	if (sysfs_gid_parse(s, n, g) >= 0) {
		char f[GID_STRING_MAX];

		gid_format(g, f);
		if (!same_nocase(f, s, n))
			abort();
	}
	if (sysfs_netdev_name_parse(s, n, nd) >= 0 && (!same(nd, s, n) || !netdev_name_valid(nd)))
		abort();
	if (sysfs_int_parse(s, n, 0, 255, &v) >= 0) {
		snprintf(buf, sizeof(buf), "%" PRIi64, v);
		if (v < 0 || v > 255 || !same(buf, s, n))
			abort();
	}
	if (sysfs_int_parse(s, n, INT32_MIN, INT64_MAX, &v) >= 0) {
		snprintf(buf, sizeof(buf), "%" PRIi64, v);
		if (v < INT32_MIN || !same(buf, s, n))
			abort();
	}
	if (sysfs_hex_parse(s, n, &x) >= 0 && (n < 3 || n > 10 || !sysfs_text_ok(s, n)))
		abort();
}

static void check_messages(const char *s, size_t n) {
	char excerpt[SYSFS_EXCERPT_SIZE], value[SYSFS_VALUE_MAX];
	_cleanup_strv_free_ char **errors = NULL;
	size_t k = n < sizeof(value) - 1 ? n : sizeof(value) - 1;

	sysfs_excerpt(s, n, n > SYSFS_EXCERPT_MAX, excerpt);
	if (strlen(excerpt) >= sizeof(excerpt) || !printable(excerpt))
		abort();
	/* as the observers call it: a value read whole, or cut (-EFBIG) */
	memcpy(value, s, k);
	value[k] = 0;
	if (sysfs_error_add(&errors, "/sys/x", n < sizeof(value) ? (ssize_t) n : -EFBIG, value) < 0)
		abort();
	if (!errors || strlen(errors[0]) > 200 || !printable(errors[0]))
		abort();
}

int sysfs_value_fuzz_one(const uint8_t *data, size_t size) {
	char *s = malloc(size ? size : 1); /* exactly size bytes: ASan sees any read past them */

	if (!s)
		return 0;
	memcpy(s, data, size);
	check_parsers(s, size);
	check_messages(s, size);
	free(s);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	return sysfs_value_fuzz_one(data, size);
}
