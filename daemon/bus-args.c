/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "bus-args.h"

/* Echoed whole, an argument near the bus's message size limit made the error reply larger than
 * the limit, and dbus-daemon disconnected rdmad for sending it. */
const char *arg_quote(const char *s, char buf[static ARG_QUOTE_MAX + 4]) {
	size_t i;

	for (i = 0; s[i] && i < ARG_QUOTE_MAX; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(buf + i, s[i] ? "..." : "");
	return buf;
}

int bus_arg_gid_family(const char *s, GidFamily *ret) {
	GidFamily f = _GID_FAMILY_INVALID;

	if (*s) {
		f = gid_family_from_string(s);
		if (f < 0)
			return -EINVAL;
	}
	*ret = f;
	return 0;
}

int bus_arg_roce_version(const char *s, GidType *ret) {
	GidType t = _GID_TYPE_INVALID;

	if (*s) {
		if (streq(s, "v1"))
			t = GID_TYPE_ROCE_V1;
		else if (streq(s, "v2"))
			t = GID_TYPE_ROCE_V2;
		else
			return -EINVAL;
	}
	*ret = t;
	return 0;
}

bool bus_arg_self_test_peer_valid(const char *peer) {
	size_t n = strnlen(peer, SELF_TEST_PEER_MAX + 1);

	return n <= SELF_TEST_PEER_MAX &&
	       strspn(peer, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    ".:-_/[]") == n &&
	       peer[0] != '-';
}

bool bus_arg_self_test_limits_valid(uint32_t size, uint32_t iters, uint32_t timeout) {
	return size <= SELF_TEST_SIZE_MAX && iters <= SELF_TEST_ITERS_MAX &&
	       timeout <= SELF_TEST_TIMEOUT_MAX;
}

int link_name_resolve(PortStatus *ports, size_t n_ports, const char *name, PortStatus **ret) {
	PortStatus *found = NULL;
	char device[128];
	uint32_t port;
	size_t n = 0;

	if (!*name || streq(name, "host"))
		return -EINVAL;
	/* A netdev names a port only when exactly one port sits on it (rxe and siw can share). */
	for (size_t i = 0; i < n_ports; i++)
		if (streq_ptr(ports[i].netdev, name)) {
			found = &ports[i];
			n++;
		}
	if (n > 1)
		return -EADDRNOTAVAIL;
	if (found) {
		*ret = found;
		return 0;
	}
	if (port_name_parse(name, device, sizeof(device), &port) < 0)
		return -EINVAL;
	for (size_t i = 0; i < n_ports; i++) {
		PortStatus *s = &ports[i];

		if (!streq(s->device, device))
			continue;
		if (port == s->port) {
			*ret = s;
			return 0;
		}
		if (port == 0) {
			found = s;
			n++;
		}
	}
	if (n > 1)
		return -EADDRNOTAVAIL;
	if (!found)
		return -ENODEV;
	*ret = found;
	return 0;
}
