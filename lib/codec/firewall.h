/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Soft-RoCE firewall (security.roce-allow-from): what rdmad owns in nftables and how it
 * recognises it.
 *
 * rdmad owns one table, FIREWALL_FAMILY FIREWALL_TABLE ("inet rdmad"), and nothing else in the
 * ruleset. In it, each rxe netdev that declares the key has a base chain named after the
 * netdev, "type filter hook input priority -10; policy accept" (before the filter priority, 0,
 * where an administrator's own input chain usually sits), holding in this order:
 *
 *     iifname "NETDEV" ip saddr PREFIX udp dport 4791 accept     one per listed prefix
 *     iifname "NETDEV" ip6 saddr PREFIX udp dport 4791 accept
 *     iifname "NETDEV" udp dport 4791 drop
 *
 * Everything else on the host passes the chain untouched (policy accept). The table is read
 * and written through libnftables in its JSON form (host-firewall.c); whether it exists at all
 * is asked first with one netfilter netlink request, so that a host without it (most hosts)
 * never needs libnftables. The builders and the parser here do no I/O and are tested on their
 * bytes. */

#include <netlink/msg.h>
#include <stdbool.h>
#include <stddef.h>

#include "profile.h"

#define FIREWALL_FAMILY	  "inet"
#define FIREWALL_TABLE	  "rdmad"
#define FIREWALL_PRIORITY (-10) /* NF_IP_PRI_FILTER - 10 */
#define ROCE_V2_UDP_PORT  4791

/* One chain of rdmad's table, as listed. */
typedef struct FirewallChain {
	char *name;
	/* type filter, hook input, priority FIREWALL_PRIORITY, policy accept */
	bool base_ok;
	/* The rules of rdmad's shape, in order: the prefixes accepted, and whether the drop rule
	 * came last; the interface each names (NULL: they name different ones, or none). */
	Address *allow;
	size_t n_allow;
	bool drop_last;
	char *iifname;
	bool iifname_mixed;
	/* Rules of any other shape, or in another order (someone changed the chain). */
	unsigned n_other;
} FirewallChain;

/* rdmad's table as the host has it. */
typedef struct FirewallState {
	bool table; /* it exists */
	FirewallChain *chains;
	size_t n_chains;
	unsigned n_other; /* sets, maps, flowtables ... in the table: not rdmad's */
} FirewallState;

void firewall_state_done(FirewallState *s);
/* The "nftables" JSON of `list tables` (only whether rdmad's table is there) or of `list table
 * inet rdmad` (its chains and rules) into *ret. -EBADMSG on JSON that is not libnftables'. */
int firewall_state_parse(const char *json, FirewallState *ret);
const FirewallChain *firewall_chain_find(const FirewallState *s, const char *name);
/* The chain for netdev exactly as rdmad builds it for the prefixes allow. */
bool firewall_chain_converged(const FirewallChain *c, const char *netdev, const Address *allow,
			      size_t n_allow) _pure_;

/* "udp/4791 from 192.0.2.0/24 2001:db8::/32, others dropped" (n_allow 0: "udp/4791 dropped"):
 * as a plan shows the desired value. NULL on ENOMEM. */
char *firewall_allow_format(const Address *allow, size_t n_allow);
/* What the host has for netdev, in the same words: "absent (no table inet rdmad)", "absent",
 * or the chain's rules, with what is not rdmad's named. NULL on ENOMEM. */
char *firewall_chain_describe(const FirewallState *s, const char *netdev);

/* NFT_MSG_GETTABLE of FIREWALL_FAMILY FIREWALL_TABLE over NETLINK_NETFILTER, with NLM_F_ACK:
 * the kernel answers with the table (NFT_MSG_NEWTABLE), or ENOENT when there is none. */
int firewall_table_get_new(struct nl_msg **ret);

/* libnftables JSON command batches (one transaction each):
 * - the chain for netdev as rdmad builds it, from what live has: the table added if missing,
 *   an existing chain flushed (or, when its type, hook, priority or policy differ, deleted
 *   and made again), then the rules;
 * - the chain for netdev deleted (flushed first);
 * - rdmad's table deleted.
 * Allocated string in *ret; -ENOMEM, -EINVAL for a netdev name nftables cannot take. */
int firewall_chain_batch(const FirewallState *live, const char *netdev, const Address *allow,
			 size_t n_allow, char **ret);
int firewall_chain_delete_batch(const char *netdev, char **ret);
int firewall_table_delete_batch(char **ret);

/* What one security.roce-allow-from action does (plan.h's ActionValue). */
typedef enum FirewallOp {
	FIREWALL_OP_CHAIN,	  /* the netdev's chain as declared (prefixes in the action) */
	FIREWALL_OP_CHAIN_REMOVE, /* the chain of a netdev no profile declares the key for */
	FIREWALL_OP_TABLE_REMOVE, /* the whole table: no profile declares the key any more */
	_FIREWALL_OP_MAX,
	_FIREWALL_OP_INVALID = -EINVAL,
} FirewallOp;
