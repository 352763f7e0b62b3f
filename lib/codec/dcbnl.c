/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <sys/socket.h>

#include "dcbnl.h"
#include "macro.h"

_Static_assert(DCBNL_IFNAME_MAX == IFNAMSIZ, "DCBNL_IFNAME_MAX must be IFNAMSIZ");
_Static_assert(N_TC == IEEE_8021QAZ_MAX_TCS, "N_TC must be IEEE_8021QAZ_MAX_TCS");

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

uint8_t ets_tsa_to_kernel(EtsTsa t) {
	switch (t) {
	case ETS_TSA_STRICT:
		return IEEE_8021QAZ_TSA_STRICT;
	case ETS_TSA_CBS:
		return IEEE_8021QAZ_TSA_CB_SHAPER;
	case ETS_TSA_ETS:
		return IEEE_8021QAZ_TSA_ETS;
	default:
		return IEEE_8021QAZ_TSA_VENDOR;
	}
}

EtsTsa ets_tsa_from_kernel(uint8_t tsa) {
	switch (tsa) {
	case IEEE_8021QAZ_TSA_STRICT:
		return ETS_TSA_STRICT;
	case IEEE_8021QAZ_TSA_CB_SHAPER:
		return ETS_TSA_CBS;
	case IEEE_8021QAZ_TSA_ETS:
		return ETS_TSA_ETS;
	case IEEE_8021QAZ_TSA_VENDOR:
		return ETS_TSA_VENDOR;
	default:
		return _ETS_TSA_INVALID;
	}
}

struct dcb_app dcb_app_dscp(uint8_t dscp, uint8_t priority) {
	return (struct dcb_app){
		.selector = IEEE_8021QAZ_APP_SEL_DSCP,
		.priority = priority,
		.protocol = dscp,
	};
}

/* The room a nested DCB_ATTR_IEEE takes: its header, the structs given, and an app table of
 * n_apps entries. */
static size_t ieee_size(const DcbChange *c, size_t n_apps) {
	size_t n = (size_t) nla_total_size(0);

	if (c && c->ets)
		n += (size_t) nla_total_size(sizeof(*c->ets));
	if (c && c->pfc)
		n += (size_t) nla_total_size(sizeof(*c->pfc));
	if (c && c->maxrate)
		n += (size_t) nla_total_size(sizeof(*c->maxrate));
	if (c && c->buffer)
		n += (size_t) nla_total_size(sizeof(*c->buffer));
	if (n_apps > 0)
		n += (size_t) nla_total_size(0) +
		     n_apps * (size_t) nla_total_size(sizeof(struct dcb_app));
	return n;
}

/* A request with its struct dcbmsg and DCB_ATTR_IFNAME: what every dcbnl command starts with
 * (iproute2's dcb_prepare()). The message is sized to hold payload more bytes of attributes:
 * libnl's default (a page) takes ~500 app entries, fewer than a whole DSCP table can have. */
static int request_new(int type, uint8_t cmd, const char *ifname, size_t payload,
		       struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct dcbmsg d = { .dcb_family = AF_UNSPEC, .cmd = cmd };

	if (!netdev_name_valid(ifname))
		return -EINVAL;
	m = nlmsg_alloc_size(NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(d)) +
			     (size_t) nla_total_size((int) strlen(ifname) + 1) + payload);
	if (!m || !nlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, type, 0, NLM_F_REQUEST | NLM_F_ACK))
		return -ENOMEM;
	if (nlmsg_append(m, &d, sizeof(d), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(m, DCB_ATTR_IFNAME, ifname) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

static int put_app_table(struct nl_msg *m, const struct dcb_app *apps, size_t n_apps) {
	struct nlattr *table;

	table = nla_nest_start(m, DCB_ATTR_IEEE_APP_TABLE);
	if (!table)
		return -ENOMEM;
	for (size_t i = 0; i < n_apps; i++)
		if (nla_put(m, DCB_ATTR_IEEE_APP, sizeof(struct dcb_app), &apps[i]) < 0)
			return -ENOMEM;
	return nla_nest_end(m, table) < 0 ? -ENOMEM : 0;
}

int dcbnl_ieee_get_new(const char *ifname, struct nl_msg **ret) {
	return request_new(RTM_GETDCB, DCB_CMD_IEEE_GET, ifname, 0, ret);
}

int dcbnl_ieee_set_new(const char *ifname, const DcbChange *c, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *ieee;
	int r;

	if (!c || (!c->ets && !c->pfc && !c->maxrate && !c->buffer && c->n_apps == 0) ||
	    (c->n_apps > 0 && !c->apps))
		return -EINVAL;
	r = request_new(RTM_SETDCB, DCB_CMD_IEEE_SET, ifname, ieee_size(c, c->n_apps), &m);
	if (r < 0)
		return r;
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	if (!ieee)
		return -ENOMEM;
	if ((c->ets && nla_put(m, DCB_ATTR_IEEE_ETS, sizeof(*c->ets), c->ets) < 0) ||
	    (c->pfc && nla_put(m, DCB_ATTR_IEEE_PFC, sizeof(*c->pfc), c->pfc) < 0) ||
	    (c->maxrate && nla_put(m, DCB_ATTR_IEEE_MAXRATE, sizeof(*c->maxrate), c->maxrate) < 0) ||
	    (c->buffer && nla_put(m, DCB_ATTR_DCB_BUFFER, sizeof(*c->buffer), c->buffer) < 0))
		return -ENOMEM;
	if (c->n_apps > 0) {
		r = put_app_table(m, c->apps, c->n_apps);
		if (r < 0)
			return r;
	}
	if (nla_nest_end(m, ieee) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int dcbnl_dcbx_set_new(const char *ifname, uint8_t mode, struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	int r;

	r = request_new(RTM_SETDCB, DCB_CMD_SDCBX, ifname, (size_t) nla_total_size(1), &m);
	if (r < 0)
		return r;
	if (nla_put_u8(m, DCB_ATTR_DCBX, mode) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

int dcbnl_ieee_del_new(const char *ifname, const struct dcb_app *apps, size_t n_apps,
		       struct nl_msg **ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	struct nlattr *ieee;
	int r;

	if (n_apps == 0 || !apps)
		return -EINVAL;
	r = request_new(RTM_SETDCB, DCB_CMD_IEEE_DEL, ifname, ieee_size(NULL, n_apps), &m);
	if (r < 0)
		return r;
	ieee = nla_nest_start(m, DCB_ATTR_IEEE);
	if (!ieee)
		return -ENOMEM;
	r = put_app_table(m, apps, n_apps);
	if (r < 0)
		return r;
	if (nla_nest_end(m, ieee) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(m);
	return 0;
}

/* Check the headers of a received dcbnl message and parse its top-level attributes into tb
 * (DCB_ATTR_MAX + 1 slots). Returns the dcbmsg command. */
static int message_parse(const struct nlmsghdr *nlh, size_t len, struct nla_policy *policy,
			 struct nlattr **tb) {
	const struct dcbmsg *d;

	if (len < NLMSG_HDRLEN || nlh->nlmsg_len > len ||
	    nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct dcbmsg)))
		return -EBADMSG;
	if (nlh->nlmsg_type != RTM_GETDCB && nlh->nlmsg_type != RTM_SETDCB)
		return -EBADMSG;
	d = NLMSG_DATA(nlh);
	if (nla_parse(tb, DCB_ATTR_MAX,
		      (struct nlattr *) ((uint8_t *) NLMSG_DATA(nlh) + NLMSG_ALIGN(sizeof(*d))),
		      (int) (nlh->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*d)))), policy) < 0)
		return -EBADMSG;
	return d->cmd;
}

/* A NUL-terminated name of 1..DCBNL_IFNAME_MAX-1 characters. */
static int attr_ifname(const struct nlattr *a, char ret[static DCBNL_IFNAME_MAX]) {
	const char *s = nla_data(a);
	size_t n = (size_t) nla_len(a), l;

	if (n == 0)
		return -EBADMSG;
	l = strnlen(s, n);
	if (l == n || l == 0 || l >= DCBNL_IFNAME_MAX)
		return -EBADMSG;
	memcpy(ret, s, l + 1);
	return 0;
}

static void app_table_parse(const struct nlattr *table, DcbState *s) {
	const struct nlattr *a;
	int rem;

	nla_for_each_nested(a, table, rem) {
		struct dcb_app app;

		/* Linux >= 6.2 lists non-IEEE selectors as DCB_ATTR_DCB_APP: not ours either. */
		if (nla_type(a) != DCB_ATTR_IEEE_APP || nla_len(a) < (int) sizeof(app)) {
			s->n_other_apps++;
			continue;
		}
		memcpy(&app, nla_data(a), sizeof(app));
		if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && app.protocol < N_DSCP &&
		    app.priority < N_PRIO)
			s->dscp_prio[app.protocol] |= (uint8_t) (1u << app.priority);
		else
			s->n_other_apps++;
	}
}

int dcbnl_ieee_parse(const struct nlmsghdr *nlh, size_t len,
		     char ret_ifname[static DCBNL_IFNAME_MAX], DcbState *ret) {
	static struct nla_policy policy[DCB_ATTR_MAX + 1] = {
		[DCB_ATTR_IFNAME] = { .type = NLA_STRING },
		[DCB_ATTR_IEEE] = { .type = NLA_NESTED },
		[DCB_ATTR_DCBX] = { .type = NLA_U8 },
	};
	/* The kernel's structs are fixed; shorter is not them. */
	static struct nla_policy ieee_policy[DCB_ATTR_IEEE_MAX + 1] = {
		[DCB_ATTR_IEEE_ETS] = { .minlen = sizeof(struct ieee_ets) },
		[DCB_ATTR_IEEE_PFC] = { .minlen = sizeof(struct ieee_pfc) },
		[DCB_ATTR_IEEE_MAXRATE] = { .minlen = sizeof(struct ieee_maxrate) },
		[DCB_ATTR_IEEE_APP_TABLE] = { .type = NLA_NESTED },
		[DCB_ATTR_DCB_BUFFER] = { .minlen = sizeof(struct dcbnl_buffer) },
	};
	struct nlattr *tb[DCB_ATTR_MAX + 1] = { 0 }, *ieee[DCB_ATTR_IEEE_MAX + 1] = { 0 };
	char ifname[DCBNL_IFNAME_MAX];
	DcbState s = { 0 };
	int cmd;

	cmd = message_parse(nlh, len, policy, tb);
	if (cmd < 0)
		return cmd;
	if (!((nlh->nlmsg_type == RTM_GETDCB && cmd == DCB_CMD_IEEE_GET) ||
	      (nlh->nlmsg_type == RTM_SETDCB &&
	       (cmd == DCB_CMD_IEEE_SET || cmd == DCB_CMD_IEEE_DEL))))
		return -EBADMSG;
	if (!tb[DCB_ATTR_IFNAME] || !tb[DCB_ATTR_IEEE] ||
	    attr_ifname(tb[DCB_ATTR_IFNAME], ifname) < 0)
		return -EBADMSG;
	/* A SET's answer carries a u8 DCB_ATTR_IEEE, not the nest: not a state. */
	if (nla_len(tb[DCB_ATTR_IEEE]) > 0 && nla_len(tb[DCB_ATTR_IEEE]) < NLA_HDRLEN)
		return -EBADMSG;
	if (nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, tb[DCB_ATTR_IEEE], ieee_policy) < 0)
		return -EBADMSG;

	if (ieee[DCB_ATTR_IEEE_ETS]) {
		memcpy(&s.ets, nla_data(ieee[DCB_ATTR_IEEE_ETS]), sizeof(s.ets));
		s.has_ets = true;
	}
	if (ieee[DCB_ATTR_IEEE_PFC]) {
		memcpy(&s.pfc, nla_data(ieee[DCB_ATTR_IEEE_PFC]), sizeof(s.pfc));
		s.has_pfc = true;
	}
	if (ieee[DCB_ATTR_IEEE_MAXRATE]) {
		memcpy(&s.maxrate, nla_data(ieee[DCB_ATTR_IEEE_MAXRATE]), sizeof(s.maxrate));
		s.has_maxrate = true;
	}
	if (ieee[DCB_ATTR_DCB_BUFFER]) {
		memcpy(&s.buffer, nla_data(ieee[DCB_ATTR_DCB_BUFFER]), sizeof(s.buffer));
		s.has_buffer = true;
	}
	if (ieee[DCB_ATTR_IEEE_APP_TABLE])
		app_table_parse(ieee[DCB_ATTR_IEEE_APP_TABLE], &s);
	if (tb[DCB_ATTR_DCBX]) {
		s.dcbx = nla_get_u8(tb[DCB_ATTR_DCBX]);
		s.has_dcbx = true;
	}
	memcpy(ret_ifname, ifname, strlen(ifname) + 1);
	*ret = s;
	return 0;
}

int dcbnl_set_reply_parse(const struct nlmsghdr *nlh, size_t len, int *ret_error) {
	static struct nla_policy policy[DCB_ATTR_MAX + 1] = {
		[DCB_ATTR_IEEE] = { .type = NLA_U8 },
		[DCB_ATTR_DCBX] = { .type = NLA_U8 },
	};
	struct nlattr *tb[DCB_ATTR_MAX + 1] = { 0 };
	int cmd, error;

	cmd = message_parse(nlh, len, policy, tb);
	if (cmd < 0)
		return cmd;
	if (nlh->nlmsg_type == RTM_SETDCB && cmd == DCB_CMD_SDCBX) {
		/* dcbnl_setdcbx(): the driver's u8 result, no errno */
		if (!tb[DCB_ATTR_DCBX] || nla_len(tb[DCB_ATTR_DCBX]) != 1)
			return -EBADMSG;
		*ret_error = nla_get_u8(tb[DCB_ATTR_DCBX]) == 0 ? 0 : -EINVAL;
		return 0;
	}
	if (nlh->nlmsg_type != RTM_SETDCB || (cmd != DCB_CMD_IEEE_SET && cmd != DCB_CMD_IEEE_DEL))
		return -EBADMSG;
	/* dcbnl_ieee_set() puts its int error as a u8: a negative errno, one signed byte. */
	if (!tb[DCB_ATTR_IEEE] || nla_len(tb[DCB_ATTR_IEEE]) != 1)
		return -EBADMSG;
	error = (int8_t) nla_get_u8(tb[DCB_ATTR_IEEE]);
	if (error > 0)
		return -EBADMSG;
	*ret_error = error;
	return 0;
}

int dcbnl_ifname_parse(const struct nlmsghdr *nlh, size_t len,
		       char ret_ifname[static DCBNL_IFNAME_MAX]) {
	static struct nla_policy policy[DCB_ATTR_MAX + 1] = {
		[DCB_ATTR_IFNAME] = { .type = NLA_STRING },
	};
	struct nlattr *tb[DCB_ATTR_MAX + 1] = { 0 };
	int cmd;

	cmd = message_parse(nlh, len, policy, tb);
	if (cmd < 0)
		return cmd;
	if (!tb[DCB_ATTR_IFNAME])
		return -ENODATA;
	return attr_ifname(tb[DCB_ATTR_IFNAME], ret_ifname);
}
