/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A declared value as text, for status (a setting that is converged has no plan action to
 * carry its desired value). The forms match the planner's "desired" column. */
#include <stdio.h>

#include "profile.h"

static void put(FILE *f, bool *first, const char *s) {
	fprintf(f, "%s%s", *first ? "" : ",", s);
	*first = false;
}

static void format_mask(FILE *f, uint8_t mask) {
	bool first = true;
	char b[4];

	fputc('[', f);
	for (unsigned i = 0; i < N_PRIO; i++)
		if (mask & (1u << i)) {
			snprintf(b, sizeof(b), "%u", i);
			put(f, &first, b);
		}
	fputc(']', f);
}

static void format_u8s(FILE *f, const uint8_t *v, size_t n) {
	bool first = true;
	char b[4];

	fputc('[', f);
	for (size_t i = 0; i < n; i++) {
		snprintf(b, sizeof(b), "%u", v[i]);
		put(f, &first, b);
	}
	fputc(']', f);
}

static int format_value(FILE *f, const LinkSettings *s, Key key) {
	bool first = true;

	switch (key) {
	case KEY_ROCE_MODE:
		fputs(roce_mode_to_string(s->roce_mode), f);
		break;
	case KEY_ROCE_TOS:
		fprintf(f, "%u", s->roce_tos);
		break;
	case KEY_NETDEV_UP:
		fputs(s->netdev_up ? "up" : "down", f);
		break;
	case KEY_NETDEV_MTU:
		fprintf(f, "%u", s->netdev_mtu);
		break;
	case KEY_NETDEV_ADDRESSES:
		for (size_t i = 0; i < s->n_addresses; i++) {
			_cleanup_free_ char *a = address_to_string(&s->addresses[i]);

			if (!a)
				return -ENOMEM;
			fprintf(f, "%s%s", i > 0 ? " " : "", a);
		}
		break;
	case KEY_GIDS_REQUIRE:
		for (GidRequirement g = 0; g < _GID_REQUIREMENT_MAX; g++)
			if (s->gids_require & (1u << g))
				put(f, &first, gid_requirement_to_string(g));
		break;
	case KEY_QOS_TRUST:
		fputs(qos_trust_to_string(s->qos_trust), f);
		break;
	case KEY_QOS_PFC:
		format_mask(f, s->qos_pfc);
		break;
	case KEY_QOS_DSCP_MAP:
		for (unsigned d = 0; d < N_DSCP; d++)
			if (s->qos_dscp_map[d] >= 0) {
				fprintf(f, "%s%u:%d", first ? "" : " ", d, s->qos_dscp_map[d]);
				first = false;
			}
		break;
	case KEY_QOS_ETS_PRIO_TC:
		format_u8s(f, s->ets_prio_tc, N_PRIO);
		break;
	case KEY_QOS_ETS_TC_BW:
		format_u8s(f, s->ets_tc_bw, N_TC);
		break;
	case KEY_QOS_ETS_TSA:
		fputc('[', f);
		for (unsigned i = 0; i < N_TC; i++)
			put(f, &first, ets_tsa_to_string(s->ets_tsa[i]));
		fputc(']', f);
		break;
	case KEY_ECN_ROCE_NP:
		format_mask(f, s->ecn_roce_np);
		break;
	case KEY_ECN_ROCE_RP:
		format_mask(f, s->ecn_roce_rp);
		break;
	default:
		fputs("(declared)", f);
	}
	return 0;
}

int link_setting_format(const LinkSettings *s, Key key, char **ret) {
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int r;

	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	r = format_value(f, s, key);
	if (fclose(f) != 0 || r < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(buf);
	return 0;
}
