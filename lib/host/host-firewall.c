/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad's nftables table as the host has it (firewall.h), and the one way rdmad writes it: a
 * batch of JSON commands that libnftables sends as one transaction over NETLINK_NETFILTER in
 * this network namespace. Only the table inet rdmad is ever listed beyond its name, and only it
 * is ever written. */
#include <nftables/libnftables.h>
#include <stdio.h>

#include "host.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nft_ctx *, nft_ctx_free)

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

/* Run cmd (text or, with JSON output on, a JSON batch); its output in *ret_output, libnftables'
 * error text (first line) in *ret_error on failure. */
static int nft_run(const char *cmd, char **ret_output, char **ret_error) {
	_cleanup_(nft_ctx_freep) struct nft_ctx *ctx = nft_ctx_new(NFT_CTX_DEFAULT);
	const char *e;
	int r;

	if (!ctx)
		return -ENOMEM;
	/* JSON output; libnftables 1.0.6 then takes JSON input as well */
	nft_ctx_output_set_flags(ctx, NFT_CTX_OUTPUT_JSON);
	if (nft_ctx_buffer_output(ctx) < 0 || nft_ctx_buffer_error(ctx) < 0)
		return -ENOMEM;
	r = nft_run_cmd_from_buffer(ctx, cmd);
	if (r != 0) {
		e = nft_ctx_get_error_buffer(ctx);
		r = nft_errno(e);
		if (ret_error) {
			*ret_error = strndup(strempty(e), strcspn(strempty(e), "\n"));
			if (!*ret_error)
				return -ENOMEM;
		}
		return r;
	}
	if (ret_output) {
		*ret_output = strdup(strempty(nft_ctx_get_output_buffer(ctx)));
		if (!*ret_output)
			return -ENOMEM;
	}
	return 0;
}

int firewall_read(FirewallState *ret) {
	_cleanup_free_ char *tables = NULL, *table = NULL;
	FirewallState s;
	int r;

	/* the table's name first: listing a table that is not there is an error like any
	 * other */
	r = nft_run("list tables " FIREWALL_FAMILY, &tables, NULL);
	if (r < 0)
		return r;
	r = firewall_state_parse(tables, &s);
	if (r < 0 || !s.table) {
		if (r >= 0)
			*ret = s;
		return r;
	}
	firewall_state_done(&s);
	r = nft_run("list table " FIREWALL_FAMILY " " FIREWALL_TABLE, &table, NULL);
	if (r == -ENOENT) { /* gone meanwhile */
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
	int r;

	firewall_state_done(&h->firewall);
	h->firewall_observed = false;
	r = firewall_read(&h->firewall);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		h->firewall_error = r;
		return 0; /* not fatal: the plan says the table could not be read */
	}
	h->firewall_observed = true;
	h->firewall_error = 0;
	return 0;
}
