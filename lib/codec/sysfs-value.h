/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Values the kernel prints in sysfs and configfs, read bounded and parsed strictly. What does
 * not parse is an observation error on the port or netdev it belongs to (named: the file, and
 * what it held, escaped and cut short), never a guess and never a value to write back. The
 * parsers take the content with its length, so that a NUL byte inside a value is refused
 * instead of cutting it short. Pure: fuzzed by fuzz/fuzz-sysfs-value.c. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdma-types.h"

/* Large enough for every value rdmad reads (a GID is 39 bytes, "4: PortConfigurationTraining"
 * 30); a file holding more is refused after reading this much, never read whole. */
#define SYSFS_VALUE_MAX 64
/* How much of a refused value an error message quotes (escaped, then "..."). */
#define SYSFS_EXCERPT_MAX 32

/* Read path (relative to dirfd) into buf: at most size - 1 bytes are read. Returns the length
 * of the content (trailing newlines removed; it may hold NUL bytes: compare with strlen), NUL
 * terminated; -EFBIG when the file holds more (buf then holds its first size - 1 bytes, for the
 * error message); -errno when it cannot be read. */
ssize_t sysfs_value_read_at(int dirfd, const char *path, char *buf, size_t size);

/* s[0..n) as printable ASCII for a message: other bytes as \xNN, a backslash as \\, cut after
 * SYSFS_EXCERPT_MAX source bytes with "..." appended (also when truncated is set). */
#define SYSFS_EXCERPT_SIZE (SYSFS_EXCERPT_MAX * 4 + 4)
void sysfs_excerpt(const char *s, size_t n, bool truncated, char buf[SYSFS_EXCERPT_SIZE]);

/* Whether s[0..n) is a non-empty run of printable ASCII (no NUL, no control character). */
bool sysfs_text_ok(const char *s, size_t n) _pure_;

/* "4: ACTIVE": the state number and the name the kernel prints for it (ib_core sysfs.c). */
int sysfs_port_state_parse(const char *s, size_t n, PortState *ret);
/* "5: LinkUp", with the kernel's phys_state names. */
int sysfs_port_phys_state_parse(const char *s, size_t n, PortPhysState *ret);
/* "InfiniBand" or "Ethernet". */
int sysfs_link_layer_parse(const char *s, size_t n, LinkLayer *ret);
/* gids/<i>: 8 groups of 4 hex digits, as %pI6 prints it. */
int sysfs_gid_parse(const char *s, size_t n, uint8_t ret[16]);
/* gid_attrs/types/<i>: "IB/RoCE v1" (IB on an InfiniBand port, else RoCE v1) or "RoCE v2". */
int sysfs_gid_type_parse(const char *s, size_t n, LinkLayer ll, GidType *ret);
/* gid_attrs/ndevs/<i>: a netdev name (netdev_name_valid()). */
int sysfs_netdev_name_parse(const char *s, size_t n, char ret[NETDEV_NAME_MAX]);
/* configfs default_roce_mode: "IB/RoCE v1" or "RoCE v2". */
int sysfs_roce_mode_parse(const char *s, size_t n, RoceMode *ret);
/* A decimal number as the kernel prints %u/%d: digits only (a '-' first when min < 0), no
 * leading zero but "0", within min..max. */
int sysfs_int_parse(const char *s, size_t n, int64_t min, int64_t max, int64_t *ret);
/* "0x1003" (netdev flags): 0x and 1..8 hex digits. */
int sysfs_hex_parse(const char *s, size_t n, uint32_t *ret);

/* Record on errors why file could not be used: r is what sysfs_value_read_at() returned into
 * buf (of SYSFS_VALUE_MAX bytes): a negative errno ("FILE: strerror"; -EFBIG: "FILE: unexpected
 * content 'EXCERPT...' (more than 63 bytes)"), or the content's length when it did not parse
 * ("FILE: unexpected content 'EXCERPT'"). At most SYSFS_ERRORS_MAX errors are kept, then one
 * line saying that more were left out. -ENOMEM only. */
#define SYSFS_ERRORS_MAX 16
int sysfs_error_add(char ***errors, const char *file, ssize_t r, const char *buf);
