/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure half of the LLDP neighbour reader (lldp-neighbor.h): what liblldpctl hands over,
 * into lldp-dcb.h's LldpDcb. No I/O: unit tests feed it the bytes lldpcli shows. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lldp-neighbor.h"
#include "strv.h"

static const uint8_t oui_8021[3] = { 0x00, 0x80, 0xc2 }, oui_8023[3] = { 0x00, 0x12, 0x0f };

const char *lldp_org_tlv_name(const uint8_t oui[3], long subtype) {
	if (memcmp(oui, oui_8021, 3) == 0)
		switch (subtype) {
		case 9:
			return "ETS Configuration";
		case 10:
			return "ETS Recommendation";
		case 11:
			return "PFC Configuration";
		case 12:
			return "Application Priority";
		}
	if (memcmp(oui, oui_8023, 3) == 0 && subtype == 4)
		return "Maximum Frame Size";
	return NULL;
}

void lldp_neighbor_done(LldpNeighbor *n) {
	if (!n)
		return;
	free(n->chassis_id);
	free(n->port_id);
	free(n->system_name);
	strv_free(n->tlv_errors);
	*n = (LldpNeighbor){ 0 };
}

HostLldp *host_lldp_free(HostLldp *l) {
	if (!l)
		return NULL;
	for (size_t i = 0; i < l->n_neighbors; i++)
		lldp_neighbor_done(&l->neighbors[i]);
	free(l->neighbors);
	free(l->message);
	free(l);
	return NULL;
}

int host_lldp_add_neighbor(HostLldp *l, LldpNeighbor **ret) {
	LldpNeighbor *a = reallocarray(l->neighbors, l->n_neighbors + 1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	l->neighbors = a;
	a[l->n_neighbors] = (LldpNeighbor){ 0 };
	*ret = &a[l->n_neighbors++];
	return 0;
}

int lldp_neighbor_add_org_tlv(LldpNeighbor *n, const uint8_t *oui, size_t oui_size, long subtype,
			      const uint8_t *info, size_t size) {
	const char *name;
	char *line;
	int r;

	if (oui_size != 3 || subtype < 0 || subtype > 255)
		return 0;
	name = lldp_org_tlv_name(oui, subtype);
	if (!name)
		return 0;
	r = lldp_dcb_parse_org(&n->dcb, oui, (uint8_t) subtype, info, size);
	if (r >= 0)
		return 0;
	if (asprintf(&line, "%s TLV (%02X-%02X-%02X subtype %ld, %zu bytes): %s", name, oui[0],
		     oui[1], oui[2], subtype, size,
		     r == -EBADMSG ? "malformed or sent twice" : strerror(-r)) < 0)
		return -ENOMEM;
	return strv_consume(&n->tlv_errors, line);
}
