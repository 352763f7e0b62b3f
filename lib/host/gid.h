/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "host.h"

/* "fe80:0000:0000:0000:ba59:9fff:fed4:5a10", as sysfs prints it. Strict: 8 groups of 4 hex
 * digits. Returns -EINVAL for anything else (a truncated file, garbage). */
int gid_parse(const char *s, uint8_t ret[16]);
#define GID_STRING_MAX 40
void gid_format(const uint8_t gid[16], char buf[GID_STRING_MAX]);
bool gid_is_zero(const uint8_t gid[16]) _pure_;
/* ::ffff:a.b.c.d: writes the IPv4 address (INET_ADDRSTRLEN) and returns true. */
bool gid_to_ipv4(const uint8_t gid[16], char *buf, size_t size);
GidFamily gid_family(const uint8_t gid[16]) _pure_;
bool gid_satisfies(const Gid *g, GidRequirement req) _pure_;
/* Which of the requirements are unmet by the port's table (bit per GidRequirement). */
uint32_t gids_unmet(const HostPort *p, uint32_t required) _pure_;

/* The GID a RoCE application (NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX, ib_write_bw -x) should use on
 * a port: the lowest index of the given type and family. type _GID_TYPE_INVALID means RoCE v2;
 * family _GID_FAMILY_INVALID means "preferred": IPv4 when there is one, else global IPv6 (never
 * link-local unless asked: it does not route). On an InfiniBand port, the first IB GID.
 * -ENODATA when there is none. */
int gid_preferred(const HostPort *p, GidType type, GidFamily family, const Gid **ret);
/* The same for a declared choice (gids.publish): with a subnet, only a GID whose address is in
 * it (the family is the subnet's). */
int gid_chosen(const HostPort *p, const GidChoice *c, const Gid **ret);
/* "RoCE v2 IPv4 or global IPv6", "RoCE v1 ipv6 in 2001:db8::/64": what c asks for, in words. */
#define GID_CHOICE_STRING_MAX 96
void gid_choice_describe(const GidChoice *c, char buf[GID_CHOICE_STRING_MAX]);
/* Whether the GID's address is in the subnet (AF_INET: its IPv4-mapped address). */
bool gid_in_subnet(const uint8_t gid[16], int family, const uint8_t subnet[16],
		   uint8_t prefixlen) _pure_;
