/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* A link's RoCE settings as the host has them now, whoever set them (issue 44): what a peer's
 * prober and the switch need to agree with. Derived from one observation (host.h) of the port
 * and its netdev; a fact the observation could not tell is not known (its bit clear in .known),
 * never a default:
 *
 *   netdev-mtu     the netdev's MTU (sysfs or rtnetlink)
 *   roce-mode      rdma_cm's default RoCE mode (configfs)
 *   tos            rdma_cm's default ToS (configfs)
 *   trust          pcp or dscp, from the DSCP entries of the APP table (dcbnl; without apptrust,
 *                  any DSCP entry is DSCP trust, as plan-qos.c plans it)
 *   priority       the priority the APP table gives RoCE's DSCP (tos >> 2): the lowest where it
 *                  gives several; not known without an entry for that DSCP
 *   pfc            the PFC-enabled priorities (dcbnl IEEE_PFC), a bit per priority
 *   ecn-np, ecn-rp the priorities ECN is enabled on as notification and as reaction point (mlx5
 *                  sysfs ecn/roce_np, roce_rp)
 *   cnp-dscp, cnp-priority  what the CNPs carry (mlx5 sysfs ecn/roce_np/cnp_*)
 *
 * Pure: no I/O. */

#include <stdbool.h>
#include <stdint.h>

#include "host.h"
#include "string-table.h"

typedef enum RoceFact {
	ROCE_FACT_NETDEV_MTU,
	ROCE_FACT_ROCE_MODE,
	ROCE_FACT_TOS,
	ROCE_FACT_TRUST,
	ROCE_FACT_PRIORITY,
	ROCE_FACT_PFC,
	ROCE_FACT_ECN_NP,
	ROCE_FACT_ECN_RP,
	ROCE_FACT_CNP_DSCP,
	ROCE_FACT_CNP_PRIORITY,
	_ROCE_FACT_MAX,
	_ROCE_FACT_INVALID = -EINVAL,
} RoceFact;
DECLARE_STRING_TABLE_LOOKUP(roce_fact, RoceFact)

#define ROCE_FACT_BIT(f) (1u << (f))

typedef struct RoceFacts {
	unsigned known; /* ROCE_FACT_BIT() of each fact known */
	unsigned netdev_mtu;
	RoceMode roce_mode;
	QosTrust trust;
	uint8_t tos, priority, pfc, ecn_np, ecn_rp, cnp_dscp, cnp_priority;
} RoceFacts;

static inline bool roce_facts_has(const RoceFacts *f, RoceFact x) {
	return f->known & ROCE_FACT_BIT(x);
}

/* The facts of port p on netdev nd (NULL: none), into *ret. */
void roce_facts_from_host(const HostPort *p, const HostNetdev *nd, RoceFacts *ret);
/* Whether a and b say the same: the same facts known, with the same values. */
bool roce_facts_equal(const RoceFacts *a, const RoceFacts *b) _pure_;
