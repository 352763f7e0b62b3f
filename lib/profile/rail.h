/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Per-rail source routing (netdev.rail-routing): what rdmad owns and how it recognises it.
 *
 * A netdev that declares it gets a routing table of its own holding the connected route of
 * each of its subnets (via the netdev, with the address as source), an ip rule "from ADDRESS
 * lookup TABLE" for each of its addresses, and the IPv4 sysctls multi-rail RoCE needs. rdmad
 * tells its own from anybody else's without guessing:
 *   - rules: priority RAIL_RULE_PRIORITY, looking up a table rdmad manages for a netdev (the
 *     one its profile gives, or one recorded in the state directory). rdmad never adds or
 *     removes a rule at another priority.
 *   - routes: protocol RAIL_ROUTE_PROTOCOL (`ip route` shows "proto 211"), in such a table.
 *     Routes an administrator adds to the table (a default route, say) are left alone.
 *   - sysctls: the value before rdmad first changed one is kept in the record
 *     (rail-record.c) and put back when no profile declares rail-routing any more.
 * "rail-routing: true" picks the table RAIL_TABLE_BASE + the netdev's ifindex: deterministic,
 * distinct per netdev, and never one of the reserved tables (253 default, 254 main, 255
 * local). */

#include <stdbool.h>
#include <stdint.h>

#include "macro.h"
#include "string-table.h"

#define RAIL_TABLE_BASE	    UINT32_C(10000)
#define RAIL_TABLE_MAX	    UINT32_C(4294967294) /* 2^32-1 is RT_TABLE_MAX, not a table */
#define RAIL_RULE_PRIORITY  UINT32_C(32000)	 /* before main (32766) and default (32767) */
#define RAIL_ROUTE_PROTOCOL 211			 /* unregistered in iproute2's rt_protos */

/* A table a profile may name: 1..2^32-2 except 253, 254 and 255. */
bool rail_table_valid(uint64_t table) _const_;
/* The table of "rail-routing: true" for a netdev: RAIL_TABLE_BASE + ifindex; 0 when the
 * ifindex is not known. */
uint32_t rail_table_auto(int ifindex) _const_;

/* The IPv4 conf sysctls of a rail, net.ipv4.conf.<netdev>.<name>. */
typedef enum RailSysctl {
	RAIL_SYSCTL_ARP_IGNORE,	  /* 1: answer ARP only for addresses of the netdev asked */
	RAIL_SYSCTL_ARP_ANNOUNCE, /* 2: ARP requests name the source of the netdev they leave */
	RAIL_SYSCTL_RP_FILTER,	  /* 2: loose: a reply to another rail's address is not dropped */
	_RAIL_SYSCTL_MAX,
	_RAIL_SYSCTL_INVALID = -EINVAL,
} RailSysctl;
DECLARE_STRING_TABLE_LOOKUP(rail_sysctl, RailSysctl)
/* The value rdmad sets. */
int rail_sysctl_desired(RailSysctl s) _const_;

/* "from SRC/SRC_LEN lookup TABLE priority PRIORITY" */
typedef struct RailRule {
	int family; /* AF_INET or AF_INET6 */
	uint8_t src[16];
	uint8_t src_len;
	uint32_t table;
	uint32_t priority;
} RailRule;

/* "DST/DST_LEN dev OIF src PREFSRC table TABLE proto PROTOCOL scope link" */
typedef struct RailRoute {
	int family;
	uint8_t dst[16];
	uint8_t dst_len;
	uint8_t prefsrc[16];
	bool has_prefsrc;
	int oif;
	uint32_t table;
	uint8_t protocol;
} RailRoute;

bool rail_rule_equal(const RailRule *a, const RailRule *b) _pure_;
bool rail_route_equal(const RailRoute *a, const RailRoute *b) _pure_;
/* "from 192.0.2.1 lookup 10002", "192.0.2.0/24 dev veth0 src 192.0.2.1 table 10002": as a plan
 * shows them (netdev may be NULL). Allocated, NULL on ENOMEM. */
char *rail_rule_to_string(const RailRule *r);
char *rail_route_to_string(const RailRoute *r, const char *netdev);

/* What one rail-routing action does (plan.h's ActionValue). */
typedef enum RailKind {
	RAIL_KIND_SYSCTL, /* set sysctl to value (remove: put the recorded value back) */
	RAIL_KIND_ROUTE,
	RAIL_KIND_RULE,
	/* Drop table from the netdev's record (0: the whole record), once nothing of it is
	 * left on the host. */
	RAIL_KIND_FORGET,
	_RAIL_KIND_MAX,
	_RAIL_KIND_INVALID = -EINVAL,
} RailKind;

typedef struct RailItem {
	RailKind kind;
	bool remove;
	RailSysctl sysctl;
	int value;
	RailRoute route;
	RailRule rule;
	uint32_t table; /* forget */
} RailItem;
