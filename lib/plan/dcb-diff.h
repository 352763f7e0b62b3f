/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What one QoS action has to change on a netdev: the live DCB state (dcbnl IEEE_GET) against the
 * declared values, as the attributes of one IEEE_SET and the app entries of one IEEE_DEL. Pure;
 * apply-dcb.c does the I/O. Read-modify-write: the structs to send are the live ones with only
 * the declared fields changed. */

#include "dcbnl.h"
#include "plan.h"

typedef struct DcbDiff {
	const char *what; /* "PFC", "ETS", "maxrate", "DSCP app entries": for messages */
	bool set_ets, set_pfc, set_maxrate, set_buffer;
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	bool set_dcbx; /* an SDCBX of its own, not part of the IEEE_SET */
	uint8_t dcbx;
	bool check_dscp; /* the DSCP app table must read back as dscp_want */
	uint8_t dscp_want[N_DSCP];
	struct dcb_app add[N_DSCP * N_PRIO]; /* to IEEE_SET */
	size_t n_add;
	struct dcb_app del[N_DSCP * N_PRIO]; /* to IEEE_DEL */
	size_t n_del;
} DcbDiff;

/* For an action on key (a qos.* key) with the declared values d: fills ret. Returns 1 when
 * something is to be written, 0 when live is already as declared, -EOPNOTSUPP when the driver
 * lacks the object (no IEEE PFC, ETS, maxrate, buffer or DCBX in live), -EINVAL for a key that
 * is not DCB.
 *   qos.pfc, qos.pfc-delay: pfc_en and delay, each declared one. The ETS keys: every declared
 *   one of prio-tc, tc-bw and tsa at once. The qos.buffer keys: prio2buffer and buffer_size,
 *   each declared one (total_size is sent back as read). qos.dcbx: the mode, by SDCBX.
 *   qos.maxrate: tc_maxrate. qos.dscp-map: the exact DSCP app table.
 *   qos.trust dscp: the default map dscp -> dscp>>3 where no DSCP entry exists (any is DSCP
 *   trust already); pcp: no DSCP entry. Other selectors are never touched. */
int dcb_diff_compute(const DcbState *live, Key key, const DcbDesired *d, DcbDiff *ret);

/* The DCBX bits a profile can declare: mode and version (the STATIC bit is left alone). */
#define DCBX_DECLARABLE                                                        \
	(DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_CEE | \
	 DCB_CAP_DCBX_VER_IEEE)

/* The change a DcbDiff sends as its IEEE_SET (not to be used when it sets nothing). */
DcbChange dcb_diff_change(const DcbDiff *diff);
bool dcb_diff_has_set(const DcbDiff *diff) _pure_;

/* after (read back) has what diff wrote. */
bool dcb_diff_applied(const DcbDiff *diff, const DcbState *after) _pure_;
