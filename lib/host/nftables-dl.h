/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* libnftables, loaded when something must read or write nftables through it (dlopen-util.h):
 * rdmad's own table once it exists or a profile declares security.roce-allow-from
 * (host-firewall.c, apply-firewall.c), and the ruleset preflight judges
 * (preflight-security.c). Built against its header, not linked: a process that needs none of
 * it never maps libnftables, libnftnl, libxtables, libjansson, libgmp. */

#include <nftables/libnftables.h>

#define NFTABLES_SONAME "libnftables.so.1"

extern __typeof__(nft_ctx_new) *sym_nft_ctx_new;
extern __typeof__(nft_ctx_free) *sym_nft_ctx_free;
extern __typeof__(nft_ctx_output_set_flags) *sym_nft_ctx_output_set_flags;
extern __typeof__(nft_ctx_buffer_output) *sym_nft_ctx_buffer_output;
extern __typeof__(nft_ctx_buffer_error) *sym_nft_ctx_buffer_error;
extern __typeof__(nft_ctx_get_output_buffer) *sym_nft_ctx_get_output_buffer;
extern __typeof__(nft_ctx_get_error_buffer) *sym_nft_ctx_get_error_buffer;
extern __typeof__(nft_run_cmd_from_buffer) *sym_nft_run_cmd_from_buffer;

/* Load NFTABLES_SONAME once, before the first sym_nft_ call: 1 loaded now, 0 loaded already;
 * -EOPNOTSUPP (not installed) or -ELIBBAD (a function missing) with the dynamic loader's words
 * in *ret_error, for the caller to say what needed it; -ENOMEM. */
int dlopen_nftables(char **ret_error);
