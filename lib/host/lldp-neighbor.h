/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The LLDP neighbour of a netdev as the local lldpd heard it, read through liblldpctl
 * (host-lldp.c; why lldpd and not a socket of rdmad's own: docs/fabric-lldp.md). lldpd decodes
 * the chassis and port IDs and the 802.3 maximum frame size itself; the IEEE 802.1Qaz TLVs
 * (ETS, PFC, Application Priority) it does not know, and hands over as "unknown TLVs": their
 * OUI, subtype and information string, which lldp_neighbor_add_org_tlv() parses with
 * lldp-dcb.h. */

#include <stddef.h>
#include <stdint.h>

#include "lldp-dcb.h"
#include "macro.h"

typedef struct LldpNeighbor {
	/* as lldpd formats them: "mac 00:11:22:33:44:55", "ifname Ethernet12" */
	char *chassis_id, *port_id;
	char *system_name; /* NULL: not sent */
	LldpDcb dcb;	   /* the TLVs of lldp-dcb.h it sent (its has_* say which) */
	char **tlv_errors; /* TLVs of those that could not be used, in words */
} LldpNeighbor;

/* What lldpd says of one netdev: error 0 and its neighbours (none: it heard none); else why
 * there is nothing (message: in words, where there are some):
 *   -ECONNREFUSED, -ENOENT lldpd does not run (nothing listens on its control socket, or
 *                          there is none: not installed);
 *   -EOPNOTSUPP, -ELIBBAD  lldpd answers, but liblldpctl is not installed (or another
 *                          version);
 *   -EACCES                not allowed on its socket (root or group _lldpd);
 *   -ENODEV                lldpd runs but does not listen on this netdev;
 *   -ETIMEDOUT             lldpd did not answer in time;
 *   -EPROTO                liblldpctl's own error (message). */
typedef struct HostLldp {
	int error;
	char *message;
	LldpNeighbor *neighbors;
	size_t n_neighbors;
} HostLldp;

HostLldp *host_lldp_free(HostLldp *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(HostLldp *, host_lldp_free)
void lldp_neighbor_done(LldpNeighbor *n);

/* A neighbour more, zeroed, into *ret (owned by l). -ENOMEM. */
int host_lldp_add_neighbor(HostLldp *l, LldpNeighbor **ret);

/* One organizationally specific TLV lldpd did not decode, as liblldpctl gives it (its OUI of
 * oui_size bytes, its subtype, its information string): recorded in n->dcb when it is one of
 * lldp-dcb.h's, a line in n->tlv_errors when it is one of them and malformed or repeated,
 * passed over otherwise. -ENOMEM only. */
int lldp_neighbor_add_org_tlv(LldpNeighbor *n, const uint8_t *oui, size_t oui_size, long subtype,
			      const uint8_t *info, size_t size);

/* "PFC", "Application Priority", ... for the TLV of that OUI and subtype, NULL for others. */
const char *lldp_org_tlv_name(const uint8_t oui[3], long subtype);
