/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the LLDPDU parser (lib/codec/lldp-dcb.c) on arbitrary bytes, as a switch
 * port, or anything on the wire that sends to the LLDP multicast address, would deliver them.
 * What the parser accepts must build (lldp_dcb_build(), 1500 bytes always do) into bytes that
 * parse to the same thing: nothing it keeps may be lost or changed on the way. The same bytes
 * as one organizationally specific TLV's information string (liblldpctl's unknown TLVs). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lldp-dcb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool id_same(const LldpId *a, const LldpId *b) {
	return a->subtype == b->subtype && a->len == b->len && memcmp(a->id, b->id, a->len) == 0;
}

static bool ets_same(const LldpEts *a, const LldpEts *b) {
	return a->willing == b->willing && a->cbs == b->cbs && a->max_tcs == b->max_tcs &&
	       memcmp(a->prio_tc, b->prio_tc, 8) == 0 && memcmp(a->tc_bw, b->tc_bw, 8) == 0 &&
	       memcmp(a->tsa, b->tsa, 8) == 0;
}

/* Field by field: what is set, and its value. */
static bool same(const LldpDcb *a, const LldpDcb *b) {
	if (a->has_chassis != b->has_chassis || a->has_port != b->has_port ||
	    a->has_ttl != b->has_ttl || a->has_ets != b->has_ets ||
	    a->has_ets_reco != b->has_ets_reco || a->has_pfc != b->has_pfc ||
	    a->has_app != b->has_app || a->has_max_frame != b->has_max_frame)
		return false;
	if ((a->has_chassis && !id_same(&a->chassis, &b->chassis)) ||
	    (a->has_port && !id_same(&a->port, &b->port)) || (a->has_ttl && a->ttl != b->ttl) ||
	    (a->has_ets && !ets_same(&a->ets, &b->ets)) ||
	    (a->has_ets_reco && !ets_same(&a->ets_reco, &b->ets_reco)) ||
	    (a->has_max_frame && a->max_frame != b->max_frame))
		return false;
	if (a->has_pfc && (a->pfc.willing != b->pfc.willing || a->pfc.mbc != b->pfc.mbc ||
			   a->pfc.cap != b->pfc.cap || a->pfc.enable != b->pfc.enable))
		return false;
	if (a->n_apps != b->n_apps)
		return false;
	for (size_t i = 0; i < a->n_apps; i++)
		if (a->apps[i].priority != b->apps[i].priority ||
		    a->apps[i].selector != b->apps[i].selector ||
		    a->apps[i].protocol != b->apps[i].protocol)
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	static LldpDcb d, back, org;
	static uint8_t buf[1500];
	int r, n;

	memset(&d, 0, sizeof(d));
	r = lldp_dcb_parse(data, size, &d);
	if (r < 0 && r != -EBADMSG)
		abort();
	if (r == 0) {
		n = lldp_dcb_build(&d, buf, sizeof(buf));
		if (n < 2)
			abort();
		memset(&back, 0, sizeof(back));
		if (lldp_dcb_parse(buf, (size_t) n, &back) != 0 || !same(&d, &back))
			abort();
		if (d.n_apps > 0 && !d.has_app)
			abort();
	}
	if (size >= 4) {
		memset(&org, 0, sizeof(org));
		r = lldp_dcb_parse_org(&org, data, data[3], data + 4, size - 4);
		if ((r < 0 && r != -EBADMSG) || r > 1)
			abort();
	}
	return 0;
}
