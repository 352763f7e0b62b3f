/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The optional libraries rdmad loads itself (host/nftables-dl.c, apply/kmod-dl.c): none is
 * mapped until something needs it (nor libcrypto, which libkmod pulls in), each loads with
 * every function it is asked for, and the module backend loads libkmod on its first lookup.
 * No module is loaded: the lookup is of a name no kernel has, which libkmod looks up without
 * running anything. */
#include <stdio.h>

#include "apply.h"
#include "kmod-dl.h"
#include "nftables-dl.h"
#include "tests.h"

/* Whether a file whose name starts with soname is mapped into this process. */
static bool mapped(const char *soname) {
	char line[4096];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "re");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *base = strrchr(line, '/');

		found = base && strncmp(base + 1, soname, strlen(soname)) == 0;
	}
	fclose(f);
	return found;
}

TEST(nothing_mapped) {
	/* the test links librdmad as rdmad does: nothing of these comes with it */
	CHECK(mapped("libc.so.6")); /* the check itself sees libraries */
	CHECK(!mapped("libnftables.so"));
	CHECK(!mapped("libnftnl.so"));
	CHECK(!mapped("libkmod.so"));
	CHECK(!mapped("libcrypto.so"));
}

TEST(nftables) {
	char *error = NULL;

	CHECK_INTEQ(dlopen_nftables(&error), 1);
	CHECK(error == NULL);
	CHECK(mapped("libnftables.so.1"));
	CHECK(sym_nft_ctx_new && sym_nft_ctx_free && sym_nft_ctx_output_set_flags &&
	      sym_nft_ctx_buffer_output && sym_nft_ctx_buffer_error &&
	      sym_nft_ctx_get_output_buffer && sym_nft_ctx_get_error_buffer &&
	      sym_nft_run_cmd_from_buffer);
	CHECK_INTEQ(dlopen_nftables(&error), 0);
	CHECK(!mapped("libkmod.so"));
}

TEST(kmod) {
	char state[] = "/tmp/rdmad-test-apply-dlopen-XXXXXX";
	Action x = { .key = KEY_MODULES,
		     .desired = (char *) "loaded",
		     .value.name = (char *) "rdmad-test-no-such-module" };
	ActionOutcome o = { 0 };
	Applier *a = NULL;

	/* under a fixture root nothing is loaded, and libkmod is not needed */
	CHECK(mkdtemp(state) != NULL);
	CHECK_INTEQ(applier_new(state, state, &a), 0);
	CHECK_INTEQ(apply_module(a, &x, &o), 0);
	CHECK_INTEQ(o.result, APPLY_UNSUPPORTED);
	CHECK(!mapped("libkmod.so"));
	action_outcome_done(&o);
	applier_free(a);

	/* on the host: looked up through libkmod, loaded for it, and not found */
	CHECK_INTEQ(applier_new("/", state, &a), 0);
	CHECK_INTEQ(apply_module(a, &x, &o), 0);
	CHECK_INTEQ(o.result, APPLY_FAILED);
	CHECK(o.message && (strstr(o.message, "module rdmad-test-no-such-module not found in ") ||
			    strstr(o.message, "cannot look up module rdmad-test-no-such-module")));
	printf("# %s\n", o.message ? o.message : "(null)");
	CHECK(mapped("libkmod.so.2"));
	CHECK(sym_kmod_new && sym_kmod_unref && sym_kmod_set_log_fn && sym_kmod_load_resources &&
	      sym_kmod_validate_resources && sym_kmod_get_dirname && sym_kmod_list_next &&
	      sym_kmod_module_new_from_lookup && sym_kmod_module_get_module &&
	      sym_kmod_module_unref && sym_kmod_module_unref_list && sym_kmod_module_get_name &&
	      sym_kmod_module_get_path && sym_kmod_module_get_initstate &&
	      sym_kmod_module_initstate_str && sym_kmod_module_probe_insert_module);
	action_outcome_done(&o);
	applier_free(a);
	CHECK(rmdir(state) == 0);
}

TESTS_MAIN(TEST_ENTRY(nothing_mapped), TEST_ENTRY(nftables), TEST_ENTRY(kmod))
