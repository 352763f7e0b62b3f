/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Small helpers the preflight check files share. */

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "preflight.h"

static inline bool address_link_local(const Address *a) {
	return a->family == AF_INET6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80;
}

static inline bool prefix_equal(const uint8_t *a, const uint8_t *b, unsigned len) {
	unsigned bytes = len / 8, bits = len % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t) (0xff << (8 - bits))) == 0;
}

/* "192.0.2.1", without the prefix length. */
static inline const char *address_ntop(const Address *a, char *buf, size_t size) {
	if (!inet_ntop(a->family, a->addr, buf, size))
		snprintf(buf, size, "?");
	return buf;
}

/* The network.send-errors row of a port whose driver counts send errors (rxe):
 * preflight-sends.c. */
int preflight_send_errors(Preflight *p, const PreflightInput *in, const HostDevice *d,
			  const HostPort *port, const char *subject);

/* network.link-speed and network.ib-link of a port (preflight-link-speed.c). */
int preflight_link_speed(Preflight *p, const PreflightInput *in, const HostDevice *d,
			 const HostPort *port, const char *subject);

/* The multi-rail rows, with the routing read on the real root (preflight-multirail.c). */
int preflight_rails(Preflight *p, const PreflightInput *in);
