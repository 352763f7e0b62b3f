/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <string.h>

#include "fabric-agree.h"

/* the 802.3 frame of an MTU: the Ethernet header and the FCS (a VLAN tag adds 4 more) */
#define ETHERNET_OVERHEAD 18

typedef struct List {
	FabricMismatch *m;
	size_t n;
} List;

static FabricMismatch *add(List *l, const char *setting) {
	FabricMismatch *m;

	if (l->n >= FABRIC_MISMATCHES_MAX)
		return NULL;
	m = &l->m[l->n++];
	*m = (FabricMismatch){ .setting = setting };
	return m;
}

static bool both(const ProbeLinkSettings *a, const ProbeLinkSettings *b, unsigned bits) {
	return (a->known & bits) == bits && (b->known & bits) == bits;
}

/* both RoCE priorities within 0..7 (a peer's are, probe_settings_valid(); a caller's own are
 * not checked there) */
static bool priorities(const ProbeLinkSettings *a, const ProbeLinkSettings *b) {
	return a->priority < 8 && b->priority < 8;
}

void fabric_priorities_format(uint8_t bits, char *buf, size_t size) {
	size_t n = 0;

	if (size == 0)
		return;
	buf[0] = 0;
	for (unsigned i = 0; i < 8; i++)
		if (bits & (1U << i)) {
			int k = snprintf(buf + n, size - n, "%s%u", n ? "," : "", i);

			if (k < 0 || (size_t) k >= size - n)
				return;
			n += (size_t) k;
		}
	if (n == 0)
		snprintf(buf, size, "none");
}

static void on_priority(const char *what, uint8_t bits, uint8_t priority, char *buf, size_t size) {
	snprintf(buf, size, "priority %u: %s %s", priority, what,
		 bits & (1U << priority) ? "on" : "off");
}

static void mtu_format(const ProbeLinkSettings *s, char *buf, size_t size) {
	if ((s->known & PROBE_KNOWN_NETDEV_MTU) && (s->known & PROBE_KNOWN_ROCE_MTU))
		snprintf(buf, size, "RoCE MTU %u (netdev MTU %u)", s->roce_mtu, s->netdev_mtu);
	else if (s->known & PROBE_KNOWN_ROCE_MTU)
		snprintf(buf, size, "RoCE MTU %u", s->roce_mtu);
	else
		snprintf(buf, size, "netdev MTU %u", s->netdev_mtu);
}

size_t fabric_compare_peer(const ProbeLinkSettings *a, const ProbeLinkSettings *b,
			   FabricMismatch ret[FABRIC_MISMATCHES_MAX]) {
	List l = { .m = ret };
	FabricMismatch *m;

	if (both(a, b, PROBE_KNOWN_ROCE_MODE) && a->roce_mode != b->roce_mode &&
	    (m = add(&l, "roce-mode"))) {
		snprintf(m->local, sizeof(m->local), "RoCE v%u", a->roce_mode);
		snprintf(m->other, sizeof(m->other), "RoCE v%u", b->roce_mode);
	}
	if (both(a, b, PROBE_KNOWN_TOS) && a->tos >> 2 != b->tos >> 2 && (m = add(&l, "dscp"))) {
		snprintf(m->local, sizeof(m->local), "DSCP %u (ToS %u)", a->tos >> 2, a->tos);
		snprintf(m->other, sizeof(m->other), "DSCP %u (ToS %u)", b->tos >> 2, b->tos);
	}
	if (both(a, b, PROBE_KNOWN_PRIORITY) && a->priority != b->priority &&
	    (m = add(&l, "priority"))) {
		snprintf(m->local, sizeof(m->local), "priority %u", a->priority);
		snprintf(m->other, sizeof(m->other), "priority %u", b->priority);
	}
	/* on each side its own RoCE priority: the frames one side sends in a lossless queue
	 * arrive at the other in whatever queue its own mapping gives them */
	if (both(a, b, PROBE_KNOWN_PFC | PROBE_KNOWN_PRIORITY) && priorities(a, b) &&
	    !!(a->pfc & (1U << a->priority)) != !!(b->pfc & (1U << b->priority)) &&
	    (m = add(&l, "pfc"))) {
		on_priority("PFC", a->pfc, a->priority, m->local, sizeof(m->local));
		on_priority("PFC", b->pfc, b->priority, m->other, sizeof(m->other));
	}
	if (both(a, b, PROBE_KNOWN_ECN | PROBE_KNOWN_PRIORITY) && priorities(a, b) &&
	    !!(a->ecn & (1U << a->priority)) != !!(b->ecn & (1U << b->priority)) &&
	    (m = add(&l, "ecn"))) {
		on_priority("ECN", a->ecn, a->priority, m->local, sizeof(m->local));
		on_priority("ECN", b->ecn, b->priority, m->other, sizeof(m->other));
	}
	if ((both(a, b, PROBE_KNOWN_ROCE_MTU)
		     ? a->roce_mtu != b->roce_mtu
		     : both(a, b, PROBE_KNOWN_NETDEV_MTU) && a->netdev_mtu != b->netdev_mtu) &&
	    (m = add(&l, "mtu"))) {
		mtu_format(a, m->local, sizeof(m->local));
		mtu_format(b, m->other, sizeof(m->other));
	}
	return l.n;
}

size_t fabric_peer_compared(const ProbeLinkSettings *a, const ProbeLinkSettings *b,
			    const char *ret[FABRIC_MISMATCHES_MAX]) {
	size_t n = 0;

	/* as fabric_compare_peer() asks each: both sides know what it needs */
	if (both(a, b, PROBE_KNOWN_ROCE_MODE))
		ret[n++] = "roce-mode";
	if (both(a, b, PROBE_KNOWN_TOS))
		ret[n++] = "dscp";
	if (both(a, b, PROBE_KNOWN_PRIORITY))
		ret[n++] = "priority";
	if (both(a, b, PROBE_KNOWN_PFC | PROBE_KNOWN_PRIORITY) && priorities(a, b))
		ret[n++] = "pfc";
	if (both(a, b, PROBE_KNOWN_ECN | PROBE_KNOWN_PRIORITY) && priorities(a, b))
		ret[n++] = "ecn";
	if (both(a, b, PROBE_KNOWN_ROCE_MTU) || both(a, b, PROBE_KNOWN_NETDEV_MTU))
		ret[n++] = "mtu";
	return n;
}

/* The switch's priority for dscp, into buf as rdmactl shows it, after prefix. */
static int app_priority(const LldpDcb *sw, const char *prefix, uint8_t dscp, char *buf,
			size_t size) {
	int p = lldp_dcb_dscp_priority(sw, dscp);

	if (p < 0)
		snprintf(buf, size, "%sDSCP %u: no Application entry (priority 0)", prefix, dscp);
	else
		snprintf(buf, size, "%sDSCP %u -> priority %d", prefix, dscp, p);
	return p < 0 ? 0 : p;
}

size_t fabric_compare_switch(const FabricHost *host, const LldpDcb *sw,
			     FabricMismatch ret[FABRIC_MISMATCHES_MAX]) {
	const ProbeLinkSettings *h = &host->link;
	List l = { .m = ret };
	FabricMismatch *m;
	char other[64];
	int p;

	if (sw->has_pfc && (h->known & PROBE_KNOWN_PFC) && h->pfc != sw->pfc.enable &&
	    (m = add(&l, "pfc"))) {
		char bits[32];

		fabric_priorities_format(h->pfc, bits, sizeof(bits));
		snprintf(m->local, sizeof(m->local), "PFC on %s", bits);
		fabric_priorities_format(sw->pfc.enable, bits, sizeof(bits));
		snprintf(m->other, sizeof(m->other), "PFC on %s", bits);
	}
	if (sw->has_app && (h->known & (PROBE_KNOWN_TOS | PROBE_KNOWN_PRIORITY)) ==
				   (PROBE_KNOWN_TOS | PROBE_KNOWN_PRIORITY)) {
		p = app_priority(sw, "", h->tos >> 2, other, sizeof(other));
		if (p != h->priority && (m = add(&l, "app-priority"))) {
			snprintf(m->local, sizeof(m->local), "DSCP %u -> priority %u", h->tos >> 2,
				 h->priority);
			memcpy(m->other, other, sizeof(other));
		}
	}
	if (sw->has_app && (h->known & (PROBE_KNOWN_CNP_DSCP | PROBE_KNOWN_CNP_PRIORITY)) ==
				   (PROBE_KNOWN_CNP_DSCP | PROBE_KNOWN_CNP_PRIORITY)) {
		p = app_priority(sw, "CNP ", h->cnp_dscp, other, sizeof(other));
		if (p != h->cnp_priority && (m = add(&l, "cnp-priority"))) {
			snprintf(m->local, sizeof(m->local), "CNP DSCP %u -> priority %u",
				 h->cnp_dscp, h->cnp_priority);
			memcpy(m->other, other, sizeof(other));
		}
	}
	if (sw->has_ets && host->has_ets && (h->known & PROBE_KNOWN_PRIORITY) && h->priority < 8) {
		uint8_t htc = host->prio_tc[h->priority], stc = sw->ets.prio_tc[h->priority];

		/* a TC past 7 (the wire's nibble allows 15) has no bandwidth to compare */
		if (htc < 8 && stc < 8 && host->tc_bw[htc] != sw->ets.tc_bw[stc] &&
		    (m = add(&l, "ets"))) {
			snprintf(m->local, sizeof(m->local), "priority %u in TC %u, %u%%",
				 h->priority, htc, host->tc_bw[htc]);
			snprintf(m->other, sizeof(m->other), "priority %u in TC %u, %u%%",
				 h->priority, stc, sw->ets.tc_bw[stc]);
		}
	}
	if (sw->has_max_frame && (h->known & PROBE_KNOWN_NETDEV_MTU) &&
	    sw->max_frame < h->netdev_mtu + ETHERNET_OVERHEAD && (m = add(&l, "max-frame"))) {
		snprintf(m->local, sizeof(m->local), "netdev MTU %u (frames of %u bytes)",
			 h->netdev_mtu, h->netdev_mtu + ETHERNET_OVERHEAD);
		snprintf(m->other, sizeof(m->other), "maximum frame size %u", sw->max_frame);
	}
	return l.n;
}
