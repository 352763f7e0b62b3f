/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: what rdmad accepts as D-Bus method arguments (daemon/bus-args.c), without a
 * bus: link names (GetLink, ResolveGid, SelfTest, rdmactl's LINK), ResolveGid()'s family and
 * RoCE version, SelfTest()'s peer and limits, and the quoting of a caller's string in an error.
 * A bus string has no NUL: the input is cut at the first one; the first 12 bytes are also the
 * SelfTest() limits. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bus-args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The ports a name is resolved against: two sharing a netdev, a device with two ports. */
static PortStatus ports[] = {
	{ .name = (char *) "ib0/1", .device = (char *) "ib0", .port = 1 },
	{ .name = (char *) "ib0/2", .device = (char *) "ib0", .port = 2 },
	{ .name = (char *) "mlx5_0/1",
	  .device = (char *) "mlx5_0",
	  .port = 1,
	  .netdev = (char *) "ens1f0np0" },
	{ .name = (char *) "rxe0/1",
	  .device = (char *) "rxe0",
	  .port = 1,
	  .netdev = (char *) "veth0" },
	{ .name = (char *) "siw0/1",
	  .device = (char *) "siw0",
	  .port = 1,
	  .netdev = (char *) "veth0" },
	{ .name = (char *) "host/1",
	  .device = (char *) "host",
	  .port = 1,
	  .netdev = (char *) "host" },
};

static void check_link_name(const char *s) {
	PortStatus *p;
	int r;

	r = link_name_resolve(ports, ELEMENTSOF(ports), s, &p);
	if (r != 0 && r != -EINVAL && r != -ENODEV && r != -EADDRNOTAVAIL)
		abort();
	if (r < 0)
		return;
	if (p < ports || p >= ports + ELEMENTSOF(ports))
		abort();
	/* found by what it is called: its netdev, its device (one port), or DEV/PORT exactly */
	if (!streq_ptr(p->netdev, s) && !streq(p->name, s) &&
	    !(streq(p->device, s) && !streq(s, "ib0")))
		abort();
	if (streq(s, "host") || streq(s, "veth0") || streq(s, "ib0"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	char q[ARG_QUOTE_MAX + 4];
	uint32_t limits[3] = { 0 };
	GidFamily f;
	GidType t;
	char *s;

	s = strndup((const char *) data, size);
	if (!s)
		return 0;

	arg_quote(s, q);
	if (strlen(q) > ARG_QUOTE_MAX + 3 || (strlen(s) <= ARG_QUOTE_MAX && strlen(q) != strlen(s)))
		abort();
	for (const char *c = q; *c; c++)
		if (*c < 0x20 || *c >= 0x7f)
			abort();

	if (bus_arg_gid_family(s, &f) >= 0 &&
	    (*s ? f < 0 || f >= _GID_FAMILY_MAX || !streq(gid_family_to_string(f), s)
		: f != _GID_FAMILY_INVALID))
		abort();
	if (bus_arg_roce_version(s, &t) >= 0 && !streq(s, "") && !streq(s, "v1") && !streq(s, "v2"))
		abort();
	if (bus_arg_self_test_peer_valid(s)) {
		if (strlen(s) > SELF_TEST_PEER_MAX || s[0] == '-')
			abort();
		for (const char *c = s; *c; c++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				    ".:-_/[]",
				    *c))
				abort();
	}
	memcpy(limits, data, size < sizeof(limits) ? size : sizeof(limits));
	if (bus_arg_self_test_limits_valid(limits[0], limits[1], limits[2]) !=
	    (limits[0] <= SELF_TEST_SIZE_MAX && limits[1] <= SELF_TEST_ITERS_MAX &&
	     limits[2] <= SELF_TEST_TIMEOUT_MAX))
		abort();
	check_link_name(s);

	free(s);
	return 0;
}
