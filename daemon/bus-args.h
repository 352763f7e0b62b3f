/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the daemon accepts as method arguments, as pure functions (no bus, no manager): the
 * vtables' handlers call them, fuzz/fuzz-bus-args.c feeds them arbitrary strings. A caller's
 * string is never trusted: not its length, not its bytes. */

#include <stdbool.h>
#include <stdint.h>

#include "port-status.h"
#include "rdma-types.h"

/* A caller's string as an error message may quote it: at most ARG_QUOTE_MAX bytes, printable
 * ASCII only ('?' for the rest), "..." when cut. */
#define ARG_QUOTE_MAX 64
const char *arg_quote(const char *s, char buf[static ARG_QUOTE_MAX + 4]);

/* ResolveGid()'s family: "" (IPv4, else IPv6: _GID_FAMILY_INVALID), "ipv4", "ipv6",
 * "link-local"; -EINVAL for anything else. */
int bus_arg_gid_family(const char *s, GidFamily *ret);
/* ResolveGid()'s RoCE version: "" (v2: _GID_TYPE_INVALID), "v1", "v2"; -EINVAL else. */
int bus_arg_roce_version(const char *s, GidType *ret);

/* SelfTest()'s limits (0: the default) and its peer: "" (the link's own loopback), a link name
 * or HOST[:PORT], which goes on rdmactl's command line: letters, digits and ".:-_/[]" only, at
 * most SELF_TEST_PEER_MAX bytes, not starting with '-'. */
#define SELF_TEST_SIZE_MAX    (64U << 20)
#define SELF_TEST_ITERS_MAX   1000000U
#define SELF_TEST_TIMEOUT_MAX 300U
#define SELF_TEST_PEER_MAX    255
/* The timeout is rdmactl's --timeout, the longest wait for progress; the whole test, which goes
 * on while it progresses, ends within this (--deadline), and the caller is answered. */
#define SELF_TEST_DEADLINE 300U
bool bus_arg_self_test_peer_valid(const char *peer) _pure_;
bool bus_arg_self_test_limits_valid(uint32_t size, uint32_t iters, uint32_t timeout) _const_;

/* The link a caller names among ports[0..n): "DEV/PORT", "DEV" when it has one port, or the
 * netdev of exactly one port. -EINVAL: not a link name at all ("", "host", no such form);
 * -ENODEV: no such link; -EADDRNOTAVAIL: it names several. */
int link_name_resolve(PortStatus *ports, size_t n, const char *name, PortStatus **ret);
