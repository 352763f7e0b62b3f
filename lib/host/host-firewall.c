/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad's nftables table as the host has it (firewall.h), and the one way rdmad writes it: a
 * batch of JSON commands that libnftables sends as one transaction over NETLINK_NETFILTER in
 * this network namespace. Whether the table exists is asked over netfilter netlink directly;
 * only the table inet rdmad is ever listed, and only it is ever written. */
#include <linux/netfilter/nf_tables.h>
#include <linux/netfilter/nfnetlink.h>
#include <stdio.h>

#include "host.h"
#include "netlink-io.h"
#include "nftables-dl.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nft_ctx *, sym_nft_ctx_free)

/* An errno from libnftables' error text ("Error: Could not process rule: Operation not
 * permitted"): it says no more. */
static int nft_errno(const char *text) {
	static const struct {
		const char *s;
		int e;
	} table[] = {
		{ "Operation not permitted", EPERM },
		{ "Permission denied", EACCES },
		{ "No such file or directory", ENOENT },
		{ "Protocol not supported", EPROTONOSUPPORT },
		{ "Device or resource busy", EBUSY },
		{ "File exists", EEXIST },
		{ "Cannot allocate memory", ENOMEM },
	};

	for (size_t i = 0; text && i < ELEMENTSOF(table); i++)
		if (strstr(text, table[i].s))
			return -table[i].e;
	return -EIO;
}

int firewall_dlopen(char **ret_error) {
	_cleanup_free_ char *e = NULL;
	int r;

	r = dlopen_nftables(&e);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && ret_error &&
	    asprintf(ret_error, "security.roce-allow-from needs %s: %s", NFTABLES_SONAME, e) < 0)
		return -ENOMEM;
	return r;
}

/* Run cmd (text or, with JSON output on, a JSON batch); its output in *ret_output, libnftables'
 * error text (first line) in *ret_error on failure, or firewall_dlopen()'s. */
static int nft_run(const char *cmd, char **ret_output, char **ret_error) {
	_cleanup_(sym_nft_ctx_freep) struct nft_ctx *ctx = NULL;
	const char *e;
	int r;

	r = firewall_dlopen(ret_error);
	if (r < 0)
		return r;
	ctx = sym_nft_ctx_new(NFT_CTX_DEFAULT);
	if (!ctx)
		return -ENOMEM;
	/* JSON output; libnftables 1.0.6 then takes JSON input as well */
	sym_nft_ctx_output_set_flags(ctx, NFT_CTX_OUTPUT_JSON);
	if (sym_nft_ctx_buffer_output(ctx) < 0 || sym_nft_ctx_buffer_error(ctx) < 0)
		return -ENOMEM;
	r = sym_nft_run_cmd_from_buffer(ctx, cmd);
	if (r != 0) {
		e = sym_nft_ctx_get_error_buffer(ctx);
		r = nft_errno(e);
		if (ret_error) {
			*ret_error = strndup(strempty(e), strcspn(strempty(e), "\n"));
			if (!*ret_error)
				return -ENOMEM;
		}
		return r;
	}
	if (ret_output) {
		*ret_output = strdup(strempty(sym_nft_ctx_get_output_buffer(ctx)));
		if (!*ret_output)
			return -ENOMEM;
	}
	return 0;
}

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

static int table_reply(const struct nlmsghdr *nlh, void *userdata) {
	bool *found = userdata;

	if (nlh->nlmsg_type == (NFNL_SUBSYS_NFTABLES << 8 | NFT_MSG_NEWTABLE))
		*found = true;
	return 0;
}

/* Whether the table exists: one NFT_MSG_GETTABLE, the kernel's own answer (ENOENT: no), and no
 * libnftables, which a host without the table (most hosts) then never loads. Errors as
 * libnftables would meet them: -EPERM without CAP_NET_ADMIN, -EPROTONOSUPPORT without
 * nfnetlink. */
static int table_exists(void) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	bool found = false;
	int r;

	r = netlink_open(NETLINK_NETFILTER, &sk);
	if (r < 0)
		return r;
	r = firewall_table_get_new(&m);
	if (r < 0)
		return r;
	r = netlink_transact(sk, m, table_reply, &found);
	if (r == -ENOENT)
		return false;
	if (r < 0)
		return r;
	return found;
}

int firewall_read(FirewallState *ret, char **ret_error) {
	_cleanup_free_ char *table = NULL;
	int r;

	/* the table's name first: listing a table that is not there is an error like any
	 * other */
	r = table_exists();
	if (r < 0)
		return r;
	if (r == 0) {
		*ret = (FirewallState){ 0 };
		return 0;
	}
	r = nft_run("list table " FIREWALL_FAMILY " " FIREWALL_TABLE, &table, ret_error);
	if (r == -ENOENT) { /* gone meanwhile */
		if (ret_error)
			*ret_error = mfree(*ret_error);
		*ret = (FirewallState){ 0 };
		return 0;
	}
	if (r < 0)
		return r;
	return firewall_state_parse(table, ret);
}

int firewall_write(const char *batch, char **ret_error) {
	return nft_run(batch, NULL, ret_error);
}

int host_firewall_observe(HostState *h) {
	_cleanup_free_ char *e = NULL;
	int r;

	firewall_state_done(&h->firewall);
	h->firewall_observed = false;
	h->firewall_error_message = mfree(h->firewall_error_message);
	r = firewall_read(&h->firewall, &e);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* not fatal: the plan says the table could not be read, and why */
		h->firewall_error = r;
		h->firewall_error_message = TAKE_PTR(e);
		return 0;
	}
	h->firewall_observed = true;
	h->firewall_error = 0;
	return 0;
}
