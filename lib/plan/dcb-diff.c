/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dcb-diff.h"

/* Only the fields rdmad declares: the rest (willing, cbs, rx and recommendation tables) are
 * sent back as read. */
static bool ets_same(const struct ieee_ets *a, const struct ieee_ets *b) {
	return memcmp(a->prio_tc, b->prio_tc, sizeof(a->prio_tc)) == 0 &&
	       memcmp(a->tc_tx_bw, b->tc_tx_bw, sizeof(a->tc_tx_bw)) == 0 &&
	       memcmp(a->tc_tsa, b->tc_tsa, sizeof(a->tc_tsa)) == 0;
}

static bool buffer_same(const struct dcbnl_buffer *a, const struct dcbnl_buffer *b) {
	return memcmp(a->prio2buffer, b->prio2buffer, sizeof(a->prio2buffer)) == 0 &&
	       memcmp(a->buffer_size, b->buffer_size, sizeof(a->buffer_size)) == 0;
}

static void dscp_table(const DcbState *live, Key key, const DcbDesired *d, DcbDiff *diff) {
	diff->what = "DSCP app entries";
	diff->check_dscp = true;
	memset(diff->dscp_want, 0, sizeof(diff->dscp_want));
	if (key == KEY_QOS_DSCP_MAP) {
		for (size_t i = 0; i < N_DSCP; i++)
			if (d->dscp_map[i] >= 0)
				diff->dscp_want[i] = (uint8_t) (1u << d->dscp_map[i]);
	} else if (d->trust == QOS_TRUST_DSCP) {
		for (size_t i = 0; i < N_DSCP; i++)
			if (live->dscp_prio[i]) {
				/* DSCP trust already: whatever map it has stays */
				memcpy(diff->dscp_want, live->dscp_prio, sizeof(diff->dscp_want));
				return;
			}
		for (size_t i = 0; i < N_DSCP; i++)
			diff->dscp_want[i] = (uint8_t) (1u << (i >> 3));
	}
	for (uint8_t i = 0; i < N_DSCP; i++)
		for (uint8_t p = 0; p < N_PRIO; p++) {
			bool have = live->dscp_prio[i] & (1u << p),
			     need = diff->dscp_want[i] & (1u << p);

			if (need && !have)
				diff->add[diff->n_add++] = dcb_app_dscp(i, p);
			else if (have && !need)
				diff->del[diff->n_del++] = dcb_app_dscp(i, p);
		}
}

int dcb_diff_compute(const DcbState *live, Key key, const DcbDesired *d, DcbDiff *ret) {
	DcbDiff diff = { 0 };

	switch (key) {
	case KEY_QOS_PFC:
	case KEY_QOS_PFC_DELAY: /* one struct ieee_pfc: both declared fields in one SET */
		if (!live->has_pfc)
			return -EOPNOTSUPP;
		diff.what = "PFC";
		diff.pfc = live->pfc;
		if (key == KEY_QOS_PFC || (d->set & KEY_BIT(KEY_QOS_PFC)))
			diff.pfc.pfc_en = d->pfc;
		if (key == KEY_QOS_PFC_DELAY || (d->set & KEY_BIT(KEY_QOS_PFC_DELAY)))
			diff.pfc.delay = d->pfc_delay;
		diff.set_pfc =
			live->pfc.pfc_en != diff.pfc.pfc_en || live->pfc.delay != diff.pfc.delay;
		break;
	case KEY_QOS_BUFFER_PRIO:
	case KEY_QOS_BUFFER_SIZE:
		if (!live->has_buffer)
			return -EOPNOTSUPP;
		diff.what = "buffer";
		diff.buffer = live->buffer;
		if (key == KEY_QOS_BUFFER_PRIO || (d->set & KEY_BIT(KEY_QOS_BUFFER_PRIO)))
			memcpy(diff.buffer.prio2buffer, d->buffer_prio,
			       sizeof(diff.buffer.prio2buffer));
		if (key == KEY_QOS_BUFFER_SIZE || (d->set & KEY_BIT(KEY_QOS_BUFFER_SIZE)))
			memcpy(diff.buffer.buffer_size, d->buffer_size,
			       sizeof(diff.buffer.buffer_size));
		diff.set_buffer = !buffer_same(&live->buffer, &diff.buffer);
		break;
	case KEY_QOS_DCBX:
		if (!live->has_dcbx)
			return -EOPNOTSUPP;
		diff.what = "DCBX mode";
		diff.dcbx = d->dcbx;
		diff.set_dcbx = (live->dcbx & DCBX_DECLARABLE) != d->dcbx;
		break;
	case KEY_QOS_ETS_PRIO_TC:
	case KEY_QOS_ETS_TC_BW:
	case KEY_QOS_ETS_TSA:
		if (!live->has_ets)
			return -EOPNOTSUPP;
		diff.what = "ETS";
		diff.ets = live->ets;
		if (d->set & KEY_BIT(KEY_QOS_ETS_PRIO_TC))
			memcpy(diff.ets.prio_tc, d->ets_prio_tc, sizeof(diff.ets.prio_tc));
		if (d->set & KEY_BIT(KEY_QOS_ETS_TC_BW))
			memcpy(diff.ets.tc_tx_bw, d->ets_tc_bw, sizeof(diff.ets.tc_tx_bw));
		if (d->set & KEY_BIT(KEY_QOS_ETS_TSA))
			for (size_t i = 0; i < N_TC; i++)
				diff.ets.tc_tsa[i] = ets_tsa_to_kernel(d->ets_tsa[i]);
		diff.set_ets = !ets_same(&live->ets, &diff.ets);
		break;
	case KEY_QOS_MAXRATE:
		if (!live->has_maxrate)
			return -EOPNOTSUPP;
		diff.what = "maxrate";
		diff.maxrate = live->maxrate;
		for (size_t i = 0; i < N_TC; i++)
			diff.maxrate.tc_maxrate[i] = d->maxrate[i];
		diff.set_maxrate = memcmp(&diff.maxrate, &live->maxrate, sizeof(diff.maxrate)) != 0;
		break;
	case KEY_QOS_DSCP_MAP:
	case KEY_QOS_TRUST:
		dscp_table(live, key, d, &diff);
		break;
	default:
		return -EINVAL;
	}
	*ret = diff;
	return diff.set_ets || diff.set_pfc || diff.set_maxrate || diff.set_buffer ||
	       diff.set_dcbx || diff.n_add > 0 || diff.n_del > 0;
}

bool dcb_diff_has_set(const DcbDiff *diff) {
	return diff->set_ets || diff->set_pfc || diff->set_maxrate || diff->set_buffer ||
	       diff->n_add > 0;
}

DcbChange dcb_diff_change(const DcbDiff *diff) {
	return (DcbChange){
		.ets = diff->set_ets ? &diff->ets : NULL,
		.pfc = diff->set_pfc ? &diff->pfc : NULL,
		.maxrate = diff->set_maxrate ? &diff->maxrate : NULL,
		.buffer = diff->set_buffer ? &diff->buffer : NULL,
		.apps = diff->n_add > 0 ? diff->add : NULL,
		.n_apps = diff->n_add,
	};
}

bool dcb_diff_applied(const DcbDiff *diff, const DcbState *after) {
	if (diff->set_pfc && (!after->has_pfc || after->pfc.pfc_en != diff->pfc.pfc_en ||
			      after->pfc.delay != diff->pfc.delay))
		return false;
	if (diff->set_buffer && (!after->has_buffer || !buffer_same(&after->buffer, &diff->buffer)))
		return false;
	if (diff->set_dcbx && (!after->has_dcbx || (after->dcbx & DCBX_DECLARABLE) != diff->dcbx))
		return false;
	if (diff->set_ets && (!after->has_ets || !ets_same(&after->ets, &diff->ets)))
		return false;
	if (diff->set_maxrate &&
	    (!after->has_maxrate || memcmp(after->maxrate.tc_maxrate, diff->maxrate.tc_maxrate,
					   sizeof(diff->maxrate.tc_maxrate)) != 0))
		return false;
	if (diff->check_dscp &&
	    memcmp(after->dscp_prio, diff->dscp_want, sizeof(diff->dscp_want)) != 0)
		return false;
	return true;
}
