/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* dcbnl, the DCB interface of rtnetlink (NETLINK_ROUTE, RTM_GETDCB/RTM_SETDCB, struct dcbmsg):
 * message builders that do no I/O, and parsers of what the kernel sends. The I/O is in
 * dcbnl-talk.c; the reference is iproute2's dcb/ and the kernel's net/dcb/dcbnl.c.
 *
 * Only the IEEE 802.1Qaz commands: IEEE_GET (the whole state), IEEE_SET (the attributes given:
 * ETS, PFC, maxrate, app entries to add) and IEEE_DEL (app entries to remove). The kernel
 * answers a SET or DEL with a message whose u8 DCB_ATTR_IEEE is the driver's error as a signed
 * byte, and ACKs it with 0 even when the driver failed: the reply is the answer. The DCBX mode
 * has a command of its own (SDCBX), which the kernel does not multicast. Every SET and
 * DEL is also multicast on RTNLGRP_DCB as the netdev's whole IEEE state, in the same form as an
 * IEEE_GET reply. apptrust (DCB_ATTR_DCB_APP_TRUST_TABLE, Linux >= 6.2) is not used. */

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <netlink/msg.h>
#include <stdbool.h>
#include <stdint.h>

#include "profile.h"

#define DCBNL_IFNAME_MAX 16 /* IFNAMSIZ, with the NUL */

/* A netdev's IEEE DCB state as an IEEE_GET reply (or an RTNLGRP_DCB message) tells it. The
 * structs are the kernel's, kept whole: a SET built from them keeps every field rdmad does not
 * declare (pfc mbc and delay, ets willing, cbs and the recommendation tables). */
typedef struct DcbState {
	bool has_ets, has_pfc, has_maxrate; /* the driver has the op (and it answered) */
	bool has_dcbx;			    /* the driver has getdcbx */
	bool has_buffer;		    /* the driver has dcbnl_getbuffer (mlx5, dcbsim) */
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer; /* DCB_ATTR_DCB_BUFFER: receive buffer per priority, sizes */
	uint8_t dcbx;		   /* DCB_CAP_DCBX_* bits */
	uint8_t dscp_prio[N_DSCP]; /* app entries with the DSCP selector: bit per priority */
	unsigned n_other_apps;	   /* app entries with other selectors (left alone) */
} DcbState;

/* What one IEEE_SET carries: only the attributes given (non-NULL, n_apps > 0). */
typedef struct DcbChange {
	const struct ieee_ets *ets;
	const struct ieee_pfc *pfc;
	const struct ieee_maxrate *maxrate;
	const struct dcbnl_buffer *buffer;
	const struct dcb_app *apps; /* to add */
	size_t n_apps;
} DcbChange;

/* The kernel's TSA numbers (IEEE_8021QAZ_TSA_*) and the profile's names. */
uint8_t ets_tsa_to_kernel(EtsTsa t) _pure_;
EtsTsa ets_tsa_from_kernel(uint8_t tsa) _pure_;

/* A DSCP app entry (selector IEEE_8021QAZ_APP_SEL_DSCP), as the kernel lays it out. */
struct dcb_app dcb_app_dscp(uint8_t dscp, uint8_t priority) _pure_;

/* DCB_CMD_IEEE_GET of ifname (`dcb ets show dev IFNAME`), NLM_F_REQUEST | NLM_F_ACK. -EINVAL
 * for a name the kernel cannot have. */
int dcbnl_ieee_get_new(const char *ifname, struct nl_msg **ret);
/* DCB_CMD_IEEE_SET of the attributes in c, in the order the kernel applies them (ETS, PFC,
 * MAXRATE, DCB_BUFFER, APP_TABLE). -EINVAL for a bad name or an empty change. */
int dcbnl_ieee_set_new(const char *ifname, const DcbChange *c, struct nl_msg **ret);
/* DCB_CMD_IEEE_DEL of app entries (`dcb app del`). -EINVAL for a bad name or no entries. */
int dcbnl_ieee_del_new(const char *ifname, const struct dcb_app *apps, size_t n_apps,
		       struct nl_msg **ret);

/* DCB_CMD_SDCBX, the DCBX mode (DCB_CAP_DCBX_* bits) as one u8 DCB_ATTR_DCBX (`dcb dcbx set`).
 * The kernel sends no RTNLGRP_DCB message for it. -EINVAL for a bad name. */
int dcbnl_dcbx_set_new(const char *ifname, uint8_t mode, struct nl_msg **ret);

/* An IEEE_GET reply, or an IEEE_SET/IEEE_DEL message from RTNLGRP_DCB: the netdev's name and
 * its state. Unknown attributes and app entries with other selectors are skipped (a newer
 * kernel adds some); -EBADMSG if the message is not such a message, is malformed, names no
 * netdev or carries a struct shorter than the kernel's. Nothing is written on an error. */
int dcbnl_ieee_parse(const struct nlmsghdr *nlh, size_t len,
		     char ret_ifname[static DCBNL_IFNAME_MAX], DcbState *ret);
/* The answer to an IEEE_SET or IEEE_DEL: ret_error is the driver's error (0 or a negative
 * errno). The answer to an SDCBX carries the driver's setdcbx() result as a u8 DCB_ATTR_DCBX,
 * nonzero for a refusal without an errno: ret_error is then -EINVAL. -EBADMSG if the message is
 * not such an answer. */
int dcbnl_set_reply_parse(const struct nlmsghdr *nlh, size_t len, int *ret_error);
/* The netdev any dcbnl message from RTNLGRP_DCB is about (IEEE or CEE): for the watch.
 * -ENODATA if it names none, -EBADMSG if it is not a dcbnl message or is malformed. */
int dcbnl_ifname_parse(const struct nlmsghdr *nlh, size_t len,
		       char ret_ifname[static DCBNL_IFNAME_MAX]);
