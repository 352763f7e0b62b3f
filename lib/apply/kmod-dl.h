/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* libkmod, loaded when a module must actually be looked up and loaded (apply-kmod.c;
 * dlopen-util.h). Which modules are there is read without it (kernel-modules.c: /sys/module,
 * modules.builtin): a host whose modules are loaded already never maps libkmod, nor libcrypto,
 * which it pulls in. Built against its header, not linked. */

#include <libkmod.h>

#define KMOD_SONAME "libkmod.so.2"

extern __typeof__(kmod_new) *sym_kmod_new;
extern __typeof__(kmod_unref) *sym_kmod_unref;
extern __typeof__(kmod_set_log_fn) *sym_kmod_set_log_fn;
extern __typeof__(kmod_load_resources) *sym_kmod_load_resources;
extern __typeof__(kmod_validate_resources) *sym_kmod_validate_resources;
extern __typeof__(kmod_get_dirname) *sym_kmod_get_dirname;
extern __typeof__(kmod_list_next) *sym_kmod_list_next;
extern __typeof__(kmod_module_new_from_lookup) *sym_kmod_module_new_from_lookup;
extern __typeof__(kmod_module_get_module) *sym_kmod_module_get_module;
extern __typeof__(kmod_module_unref) *sym_kmod_module_unref;
extern __typeof__(kmod_module_unref_list) *sym_kmod_module_unref_list;
extern __typeof__(kmod_module_get_name) *sym_kmod_module_get_name;
extern __typeof__(kmod_module_get_path) *sym_kmod_module_get_path;
extern __typeof__(kmod_module_get_initstate) *sym_kmod_module_get_initstate;
extern __typeof__(kmod_module_initstate_str) *sym_kmod_module_initstate_str;
extern __typeof__(kmod_module_probe_insert_module) *sym_kmod_module_probe_insert_module;

/* kmod_list_foreach() calls kmod_list_next() itself: this one calls the loaded one. */
#define sym_kmod_list_foreach(entry, first) \
	for ((entry) = (first); (entry); (entry) = sym_kmod_list_next((first), (entry)))

/* Load KMOD_SONAME once, before the first sym_kmod_ call: 1 loaded now, 0 loaded already;
 * -EOPNOTSUPP (not installed) or -ELIBBAD (a function missing) with the dynamic loader's words
 * in *ret_error, for the caller to say what needed it; -ENOMEM. */
int dlopen_kmod(char **ret_error);
