/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <string.h>

#include "lldp-dcb.h"
#include "macro.h"

#define TLV_END	    0
#define TLV_CHASSIS 1
#define TLV_PORT    2
#define TLV_TTL	    3
#define TLV_ORG	    127

#define SUB_ETS	      9
#define SUB_ETS_RECO  10
#define SUB_PFC	      11
#define SUB_APP	      12
#define SUB_MAX_FRAME 4

#define ETS_INFO_SIZE 21 /* one octet, then 4 + 8 + 8 */

static const uint8_t oui_8021[3] = { 0x00, 0x80, 0xc2 };
static const uint8_t oui_8023[3] = { 0x00, 0x12, 0x0f };

static void ets_tables_parse(const uint8_t *p, LldpEts *ets) {
	for (unsigned i = 0; i < 8; i++) {
		ets->prio_tc[i] = i % 2 ? p[i / 2] & 0x0f : p[i / 2] >> 4;
		ets->tc_bw[i] = p[4 + i];
		ets->tsa[i] = p[12 + i];
	}
}

static int org_8021(LldpDcb *dcb, uint8_t subtype, const uint8_t *info, size_t size) {
	switch (subtype) {
	case SUB_ETS:
		if (size != ETS_INFO_SIZE || dcb->has_ets)
			return -EBADMSG;
		dcb->ets = (LldpEts){ .willing = info[0] & 0x80,
				      .cbs = info[0] & 0x40,
				      .max_tcs = (info[0] & 0x07) ? (info[0] & 0x07) : 8 };
		ets_tables_parse(info + 1, &dcb->ets);
		dcb->has_ets = true;
		return 1;
	case SUB_ETS_RECO:
		if (size != ETS_INFO_SIZE || dcb->has_ets_reco)
			return -EBADMSG;
		dcb->ets_reco = (LldpEts){ 0 };
		ets_tables_parse(info + 1, &dcb->ets_reco);
		dcb->has_ets_reco = true;
		return 1;
	case SUB_PFC:
		if (size != 2 || dcb->has_pfc)
			return -EBADMSG;
		dcb->pfc = (LldpPfc){ .willing = info[0] & 0x80,
				      .mbc = info[0] & 0x40,
				      .cap = info[0] & 0x0f,
				      .enable = info[1] };
		dcb->has_pfc = true;
		return 1;
	case SUB_APP:
		if (size < 1 || (size - 1) % 3 != 0 || (size - 1) / 3 > LLDP_APPS_MAX ||
		    dcb->has_app)
			return -EBADMSG;
		dcb->n_apps = 0;
		for (size_t i = 1; i < size; i += 3)
			dcb->apps[dcb->n_apps++] = (LldpApp){
				.priority = info[i] >> 5,
				.selector = info[i] & 0x07,
				.protocol = (uint16_t) (info[i + 1] << 8 | info[i + 2]),
			};
		dcb->has_app = true;
		return 1;
	}
	return 0;
}

int lldp_dcb_parse_org(LldpDcb *dcb, const uint8_t oui[3], uint8_t subtype, const uint8_t *info,
		       size_t size) {
	if (memcmp(oui, oui_8021, 3) == 0)
		return org_8021(dcb, subtype, info, size);
	if (memcmp(oui, oui_8023, 3) == 0 && subtype == SUB_MAX_FRAME) {
		if (size != 2 || dcb->has_max_frame)
			return -EBADMSG;
		dcb->max_frame = (uint16_t) (info[0] << 8 | info[1]);
		dcb->has_max_frame = true;
		return 1;
	}
	return 0;
}

static int id_parse(const uint8_t *v, size_t len, bool *has, LldpId *ret) {
	if (len < 2 || len - 1 > LLDP_ID_MAX || *has) /* a subtype and 1 to 255 bytes of ID */
		return -EBADMSG;
	ret->subtype = v[0];
	ret->len = (uint8_t) (len - 1);
	memcpy(ret->id, v + 1, len - 1);
	*has = true;
	return 0;
}

int lldp_dcb_parse(const uint8_t *pdu, size_t size, LldpDcb *ret) {
	LldpDcb dcb = { 0 };
	size_t off = 0;
	int r;

	while (off < size) {
		unsigned type, len;
		const uint8_t *v;

		if (size - off < 2)
			return -EBADMSG;
		type = pdu[off] >> 1;
		len = (unsigned) (pdu[off] & 1) << 8 | pdu[off + 1];
		v = pdu + off + 2;
		if (size - off - 2 < len)
			return -EBADMSG;
		off += 2 + len;
		switch (type) {
		case TLV_END:
			if (len != 0)
				return -EBADMSG;
			off = size;
			break;
		case TLV_CHASSIS:
			r = id_parse(v, len, &dcb.has_chassis, &dcb.chassis);
			if (r < 0)
				return r;
			break;
		case TLV_PORT:
			r = id_parse(v, len, &dcb.has_port, &dcb.port);
			if (r < 0)
				return r;
			break;
		case TLV_TTL:
			if (len != 2 || dcb.has_ttl)
				return -EBADMSG;
			dcb.ttl = (uint16_t) (v[0] << 8 | v[1]);
			dcb.has_ttl = true;
			break;
		case TLV_ORG:
			if (len < 4)
				return -EBADMSG;
			r = lldp_dcb_parse_org(&dcb, v, v[3], v + 4, len - 4);
			if (r < 0)
				return r;
			break;
		}
	}
	*ret = dcb;
	return 0;
}

/* ---- builders ---------------------------------------------------------------------------- */

typedef struct Out {
	uint8_t *buf;
	size_t size, n;
	bool full;
} Out;

static uint8_t *tlv_put(Out *o, unsigned type, size_t len) {
	uint8_t *p;

	if (o->full || o->size - o->n < 2 + len) {
		o->full = true;
		return NULL;
	}
	p = o->buf + o->n;
	p[0] = (uint8_t) (type << 1 | len >> 8);
	p[1] = (uint8_t) (len & 0xff);
	o->n += 2 + len;
	return p + 2;
}

static uint8_t *org_put(Out *o, const uint8_t oui[3], uint8_t subtype, size_t len) {
	uint8_t *p = tlv_put(o, TLV_ORG, 4 + len);

	if (!p)
		return NULL;
	memcpy(p, oui, 3);
	p[3] = subtype;
	return p + 4;
}

static void id_put(Out *o, unsigned type, const LldpId *id) {
	uint8_t *p = tlv_put(o, type, 1 + (size_t) id->len);

	if (!p)
		return;
	p[0] = id->subtype;
	memcpy(p + 1, id->id, id->len);
}

static void ets_put(Out *o, uint8_t subtype, const LldpEts *ets) {
	uint8_t *p = org_put(o, oui_8021, subtype, ETS_INFO_SIZE);

	if (!p)
		return;
	p[0] = subtype == SUB_ETS ? (uint8_t) ((ets->willing ? 0x80 : 0) | (ets->cbs ? 0x40 : 0) |
					       (ets->max_tcs & 0x07))
				  : 0;
	for (unsigned i = 0; i < 8; i++) {
		p[1 + i / 2] |= (uint8_t) ((ets->prio_tc[i] & 0x0f) << (i % 2 ? 0 : 4));
		p[5 + i] = ets->tc_bw[i];
		p[13 + i] = ets->tsa[i];
	}
}

int lldp_dcb_build(const LldpDcb *dcb, uint8_t *buf, size_t size) {
	Out o = { .buf = buf, .size = size };
	uint8_t *p;

	if (size > 0)
		memset(buf, 0, size);
	if (dcb->has_chassis)
		id_put(&o, TLV_CHASSIS, &dcb->chassis);
	if (dcb->has_port)
		id_put(&o, TLV_PORT, &dcb->port);
	if (dcb->has_ttl && (p = tlv_put(&o, TLV_TTL, 2))) {
		p[0] = (uint8_t) (dcb->ttl >> 8);
		p[1] = (uint8_t) dcb->ttl;
	}
	if (dcb->has_ets)
		ets_put(&o, SUB_ETS, &dcb->ets);
	if (dcb->has_ets_reco)
		ets_put(&o, SUB_ETS_RECO, &dcb->ets_reco);
	if (dcb->has_pfc && (p = org_put(&o, oui_8021, SUB_PFC, 2))) {
		p[0] = (uint8_t) ((dcb->pfc.willing ? 0x80 : 0) | (dcb->pfc.mbc ? 0x40 : 0) |
				  (dcb->pfc.cap & 0x0f));
		p[1] = dcb->pfc.enable;
	}
	if (dcb->has_app && dcb->n_apps <= LLDP_APPS_MAX &&
	    (p = org_put(&o, oui_8021, SUB_APP, 1 + 3 * dcb->n_apps)))
		for (size_t i = 0; i < dcb->n_apps; i++) {
			const LldpApp *a = &dcb->apps[i];

			p[1 + 3 * i] = (uint8_t) ((a->priority & 0x07) << 5 | (a->selector & 0x07));
			p[2 + 3 * i] = (uint8_t) (a->protocol >> 8);
			p[3 + 3 * i] = (uint8_t) a->protocol;
		}
	if (dcb->has_max_frame && (p = org_put(&o, oui_8023, SUB_MAX_FRAME, 2))) {
		p[0] = (uint8_t) (dcb->max_frame >> 8);
		p[1] = (uint8_t) dcb->max_frame;
	}
	tlv_put(&o, TLV_END, 0);
	return o.full ? -ENOBUFS : (int) o.n;
}

int lldp_dcb_dscp_priority(const LldpDcb *dcb, uint8_t dscp) {
	int best = -ENOENT;

	for (size_t i = 0; i < dcb->n_apps; i++)
		if (dcb->apps[i].selector == LLDP_APP_SEL_DSCP && dcb->apps[i].protocol == dscp &&
		    dcb->apps[i].priority > best)
			best = dcb->apps[i].priority;
	return best;
}
