/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dlopen-util.h"
#include "macro.h"
#include "nftables-dl.h"

static void *nftables_dl;

__typeof__(nft_ctx_new) *sym_nft_ctx_new;
__typeof__(nft_ctx_free) *sym_nft_ctx_free;
__typeof__(nft_ctx_output_set_flags) *sym_nft_ctx_output_set_flags;
__typeof__(nft_ctx_buffer_output) *sym_nft_ctx_buffer_output;
__typeof__(nft_ctx_buffer_error) *sym_nft_ctx_buffer_error;
__typeof__(nft_ctx_get_output_buffer) *sym_nft_ctx_get_output_buffer;
__typeof__(nft_ctx_get_error_buffer) *sym_nft_ctx_get_error_buffer;
__typeof__(nft_run_cmd_from_buffer) *sym_nft_run_cmd_from_buffer;

int dlopen_nftables(char **ret_error) {
	static const DlopenSymbol symbols[] = {
		DLOPEN_SYMBOL(nft_ctx_new),
		DLOPEN_SYMBOL(nft_ctx_free),
		DLOPEN_SYMBOL(nft_ctx_output_set_flags),
		DLOPEN_SYMBOL(nft_ctx_buffer_output),
		DLOPEN_SYMBOL(nft_ctx_buffer_error),
		DLOPEN_SYMBOL(nft_ctx_get_output_buffer),
		DLOPEN_SYMBOL(nft_ctx_get_error_buffer),
		DLOPEN_SYMBOL(nft_run_cmd_from_buffer),
	};

	return dlopen_many_sym(&nftables_dl, NFTABLES_SONAME, symbols, ELEMENTSOF(symbols),
			       ret_error);
}
