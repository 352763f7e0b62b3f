/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dlopen-util.h"
#include "kmod-dl.h"
#include "macro.h"

static void *kmod_dl;

__typeof__(kmod_new) *sym_kmod_new;
__typeof__(kmod_unref) *sym_kmod_unref;
__typeof__(kmod_set_log_fn) *sym_kmod_set_log_fn;
__typeof__(kmod_load_resources) *sym_kmod_load_resources;
__typeof__(kmod_validate_resources) *sym_kmod_validate_resources;
__typeof__(kmod_get_dirname) *sym_kmod_get_dirname;
__typeof__(kmod_list_next) *sym_kmod_list_next;
__typeof__(kmod_module_new_from_lookup) *sym_kmod_module_new_from_lookup;
__typeof__(kmod_module_get_module) *sym_kmod_module_get_module;
__typeof__(kmod_module_unref) *sym_kmod_module_unref;
__typeof__(kmod_module_unref_list) *sym_kmod_module_unref_list;
__typeof__(kmod_module_get_name) *sym_kmod_module_get_name;
__typeof__(kmod_module_get_path) *sym_kmod_module_get_path;
__typeof__(kmod_module_get_initstate) *sym_kmod_module_get_initstate;
__typeof__(kmod_module_initstate_str) *sym_kmod_module_initstate_str;
__typeof__(kmod_module_probe_insert_module) *sym_kmod_module_probe_insert_module;

int dlopen_kmod(char **ret_error) {
	static const DlopenSymbol symbols[] = {
		DLOPEN_SYMBOL(kmod_new),
		DLOPEN_SYMBOL(kmod_unref),
		DLOPEN_SYMBOL(kmod_set_log_fn),
		DLOPEN_SYMBOL(kmod_load_resources),
		DLOPEN_SYMBOL(kmod_validate_resources),
		DLOPEN_SYMBOL(kmod_get_dirname),
		DLOPEN_SYMBOL(kmod_list_next),
		DLOPEN_SYMBOL(kmod_module_new_from_lookup),
		DLOPEN_SYMBOL(kmod_module_get_module),
		DLOPEN_SYMBOL(kmod_module_unref),
		DLOPEN_SYMBOL(kmod_module_unref_list),
		DLOPEN_SYMBOL(kmod_module_get_name),
		DLOPEN_SYMBOL(kmod_module_get_path),
		DLOPEN_SYMBOL(kmod_module_get_initstate),
		DLOPEN_SYMBOL(kmod_module_initstate_str),
		DLOPEN_SYMBOL(kmod_module_probe_insert_module),
	};

	return dlopen_many_sym(&kmod_dl, KMOD_SONAME, symbols, ELEMENTSOF(symbols), ret_error);
}
