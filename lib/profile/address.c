/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <stdio.h>
#include <sys/socket.h>

#include "profile.h"

int address_from_string(const char *s, Address *ret) {
	char buf[INET6_ADDRSTRLEN + 8];
	const char *slash;
	unsigned long plen;
	Address a = { 0 };
	size_t n;
	char *end;

	slash = strchr(s, '/');
	n = slash ? (size_t) (slash - s) : strlen(s);
	if (n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = 0;
	if (inet_pton(AF_INET, buf, a.addr) == 1)
		a.family = AF_INET;
	else if (inet_pton(AF_INET6, buf, a.addr) == 1)
		a.family = AF_INET6;
	else
		return -EINVAL;
	a.prefixlen = a.family == AF_INET ? 32 : 128;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -EINVAL;
		errno = 0;
		plen = strtoul(slash + 1, &end, 10);
		if (*end || errno || plen > a.prefixlen)
			return -EINVAL;
		a.prefixlen = (uint8_t) plen;
	}
	*ret = a;
	return 0;
}

char *address_to_string(const Address *a) {
	char buf[INET6_ADDRSTRLEN], *s;

	if (!inet_ntop(a->family, a->addr, buf, sizeof(buf)))
		return NULL;
	if (asprintf(&s, "%s/%u", buf, a->prefixlen) < 0)
		return NULL;
	return s;
}

bool address_equal(const Address *a, const Address *b) {
	return a->family == b->family && a->prefixlen == b->prefixlen &&
	       memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16) == 0;
}

bool address_is_prefix(const Address *a) {
	unsigned len = a->family == AF_INET ? 4 : 16;

	for (unsigned bit = a->prefixlen; bit < len * 8; bit++)
		if (a->addr[bit / 8] & (0x80 >> (bit % 8)))
			return false;
	return true;
}
