/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* How settings read as text, in the forms the tools people know print them (dcb-pfc(8),
 * dcb-ets(8), dcb-app(8)): the planner's "current" and "desired" columns, and status rows of
 * converged settings (port_setting_format()). One place, so that both always agree. */

#include "profile.h"

/* "[3,4]" (ECN priorities) */
void setting_format_priorities(uint8_t mask, char buf[32]);
/* "pfc-enabled 3,4", "pfc-enabled none" */
void setting_format_pfc(uint8_t mask, char buf[32]);
/* "prio-tc 0:0 1:0 ...", "tc-bw 0:50 ..." */
void setting_format_u8_map(const char *name, const uint8_t v[8], char buf[64]);
/* "buffer-size 0:130944 1:0 ...": bytes per buffer (qos.buffer.size) */
void setting_format_buffer_size(const uint32_t v[N_BUFFERS], char buf[128]);
/* "host ieee" (qos.dcbx), as `dcb dcbx show` words the DCB_CAP_DCBX_* bits; "none" for 0 */
void setting_format_dcbx(uint8_t bits, char buf[48]);
/* "tc-tsa 0:ets 1:strict ..." from the kernel's IEEE_8021QAZ_TSA_* values */
void setting_format_tsa(const uint8_t kernel_tsa[N_TC], char buf[128]);
/* "tc-maxrate 3:25Gbit", "tc-maxrate unlimited" (kbit/s) */
void setting_format_maxrate(const uint64_t v[N_TC], char buf[256]);
/* "dscp-prio 26:3 48:6", "dscp-prio none": a bit per priority for each DSCP value; NULL on OOM */
char *setting_format_dscp_prio(const uint8_t prio[N_DSCP]);
/* qos.dscp-map as the app table would hold it: a bit per priority for each DSCP value. */
void setting_dscp_map_table(const int8_t map[N_DSCP], uint8_t ret[N_DSCP]);
/* qos.trust as declared, with the method: "dscp (DSCP app entries dscp>>3, no apptrust)" */
const char *setting_format_trust(const PortSettings *s);
/* counters.optional: "np_cnp_sent,rp_cnp_handled" (as `rdma statistic` lists them), "none";
 * NULL on OOM */
char *setting_format_counters(char *const *names);
/* sriov.vf: the fields of vf in mask (VF_BIT()s) as `ip link show` prints a VF: "vf 1 mac
 * 02:00:00:00:00:01, vlan 100, qos 3, vlan protocol 802.1ad, spoof checking off, link-state
 * auto, trust on, max_tx_rate 1000Mbps, min_tx_rate 0Mbps"; a field not in vf->set is "?".
 * NULL on OOM. */
char *setting_format_vf(const SriovVf *vf, uint32_t mask);
/* The whole sriov.vf list, "; " between VFs. NULL on OOM. */
char *setting_format_vfs(const SriovVf *vfs, size_t n);

/* The plan's "current" column of key (what the formatters above print of the kernel's value) in
 * a profile's own words, so that a trial's record can declare it back (trial-record.h):
 * "pfc-enabled 3,5" -> "[3, 5]", "dscp-prio 24:3 26:3" -> "{24: 3, 26: 3}", "up" -> "true".
 * -EOPNOTSUPP for a key it has no words for, or a value a profile cannot say (a DSCP on two
 * priorities); -EINVAL for text that is not the formatter's. */
int setting_current_to_profile(Key key, const char *current, char **ret);
