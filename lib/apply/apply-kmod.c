/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* modules: load kernel modules with libkmod as `modprobe --use-blacklist` would: modprobe.d
 * options, softdeps and install commands apply, and a blacklisted module is not loaded (by name
 * too, not only by alias). Modules are never unloaded. Loading is kernel-global: under a fixture
 * root nothing is loaded. (systemd's module_load_and_warn(), kmod's tools/modprobe.c) */
#include <stdarg.h>

#include "apply-internal.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct kmod_list *, sym_kmod_module_unref_list)
DEFINE_TRIVIAL_CLEANUP_FUNC(struct kmod_module *, sym_kmod_module_unref)

/* rdma_rxe computes its ICRC with the crypto API's "crc32" shash, which the kernel looks for
 * only at `rdma link add` time (crypto_alloc_shash()); modules.dep does not name it. Without a
 * provider the add fails with ENOENT. crc32_generic is the provider every kernel has (as a
 * module, or built in: then it is not in the module tree, and nothing needs loading). */
#define RXE_MODULE	 "rdma_rxe"
#define RXE_CRC32_MODULE "crc32_generic"

static const char *initstate_str(int state) {
	if (state < 0)
		return "not loaded";
	return sym_kmod_module_initstate_str((enum kmod_module_initstate) state);
}

typedef enum ModuleLoad {
	MODULE_PRESENT, /* loaded or built in already */
	MODULE_LOADED,	/* loaded now, and live */
	MODULE_FAILED,	/* *ret says why */
} ModuleLoad;

/* Load one module of a lookup's result (with its dependencies). request: what was asked for
 * (the module, an alias, or the module crc32_generic is loaded for). Returns a ModuleLoad or
 * -ENOMEM. */
static int module_load(struct kmod_module *mod, const char *request, ActionOutcome *ret) {
	const char *name = sym_kmod_module_get_name(mod);
	char label[256];
	int state, r;

	state = sym_kmod_module_get_initstate(mod);
	if (state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE)
		return MODULE_PRESENT;

	if (streq(name, request))
		snprintf(label, sizeof(label), "module %s", name);
	else
		snprintf(label, sizeof(label), "module %s (for %s)", name, request);

	r = sym_kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL,
						NULL);
	if (r == -ENOMEM)
		return r;
	if (r == KMOD_PROBE_APPLY_BLACKLIST) {
		r = outcome_set(ret, APPLY_FAILED, -EPERM,
				"%s is blacklisted (modprobe.d): not loaded", label);
		return r < 0 ? r : MODULE_FAILED;
	}
	if (r == -EEXIST) /* loaded by someone else since we looked */
		return MODULE_PRESENT;
	if (r < 0) {
		const char *why = strerror(-r);

		if (r == -ENOENT)
			why = "unknown symbol or parameter (see dmesg), or the module file is "
			      "missing";
		else if (r == -EPERM)
			why = "not permitted (CAP_SYS_MODULE, module signature, module_blacklist=, "
			      "or "
			      "modules disabled)";
		r = outcome_set(ret, APPLY_FAILED, r, "could not insert %s from %s: %s", label,
				strna(sym_kmod_module_get_path(mod)), why);
		return r < 0 ? r : MODULE_FAILED;
	}

	/* Read back. */
	state = sym_kmod_module_get_initstate(mod);
	if (state != KMOD_MODULE_LIVE && state != KMOD_MODULE_BUILTIN) {
		r = outcome_set(ret, APPLY_FAILED, -EIO, "%s is %s after loading it", label,
				initstate_str(state));
		return r < 0 ? r : MODULE_FAILED;
	}
	return MODULE_LOADED;
}

/* Load everything a lookup of alias gives. Returns the "most changed" ModuleLoad, or -ENOMEM;
 * -ENOENT (nothing filled in) when the lookup finds nothing. request: as for module_load().
 * rxe: set when rdma_rxe is among them. */
static int lookup_load(struct kmod_ctx *k, const char *alias, const char *request, bool *rxe,
		       ActionOutcome *ret) {
	_cleanup_(sym_kmod_module_unref_listp) struct kmod_list *list = NULL;
	struct kmod_list *l;
	int result = MODULE_PRESENT, r;

	r = sym_kmod_module_new_from_lookup(k, alias, &list);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		r = outcome_set(ret, APPLY_FAILED, r, "cannot look up module %s in %s: %s", alias,
				sym_kmod_get_dirname(k), strerror(-r));
		return r < 0 ? r : MODULE_FAILED;
	}
	if (!list)
		return -ENOENT;

	sym_kmod_list_foreach(l, list) {
		_cleanup_(sym_kmod_module_unrefp) struct kmod_module *mod =
			sym_kmod_module_get_module(l);

		if (!mod)
			return -ENOMEM;
		if (rxe && streq(sym_kmod_module_get_name(mod), RXE_MODULE))
			*rxe = true;
		r = module_load(mod, request, ret);
		if (r < 0 || r == MODULE_FAILED)
			return r;
		if (r == MODULE_LOADED)
			result = MODULE_LOADED;
	}
	return result;
}

int apply_module(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *name = x->value.name;
	_cleanup_free_ char *error = NULL;
	bool rxe = false, changed = false;
	struct kmod_ctx *k;
	int r;

	if (!streq(applier_root(a), "/"))
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "modules: cannot load modules into a fixture root (--root %s)",
				   applier_root(a));
	if (!name || !*name)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "modules: no module name");

	/* looked up and loaded only now: a host with its modules loaded never maps libkmod */
	r = dlopen_kmod(&error);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "modules: loading %s needs %s: %s", name,
				   KMOD_SONAME, error);
	r = applier_kmod(a, &k);
	if (r < 0)
		return r;
	r = lookup_load(k, name, name, &rxe, ret);
	if (r == -ENOENT)
		r = outcome_set(ret, APPLY_FAILED, -ENOENT, "module %s not found in %s", name,
				sym_kmod_get_dirname(k));
	else if (r >= 0 && r != MODULE_FAILED) {
		changed = r == MODULE_LOADED;
		if (rxe) {
			r = lookup_load(k, RXE_CRC32_MODULE, RXE_MODULE, NULL, ret);
			if (r == -ENOENT) /* built in, or this kernel has another provider only */
				r = MODULE_PRESENT;
			changed = changed || r == MODULE_LOADED;
		}
	}
	if (r < 0 || r == MODULE_FAILED || ret->result == APPLY_FAILED) {
		/* libkmod reads modprobe.d once, when its context is made: the administrator's
		 * fix there (a blacklist or install line removed, a module installed) must be
		 * seen by the next attempt, so that one starts from a fresh context. */
		applier_kmod_forget(a);
		return r < 0 ? r : 0;
	}

	return outcome_set(ret, changed ? APPLY_CHANGED : APPLY_UNCHANGED, 0, NULL);
}
