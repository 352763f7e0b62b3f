/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Optional libraries, loaded when something first needs them rather than linked: a process
 * that never needs one never maps it (nor what it pulls in). Each library has a file of its own
 * (nftables-dl.c, kmod-dl.c) holding its handle and a sym_ pointer per function, declared with
 * the library's own prototypes, and a dlopen_x(char **ret_error) that callers call before the
 * first sym_ call and turn into their own error (an action's outcome, a preflight row). Those
 * pointers are the library's linkage, set once per process: the one kind of global state in
 * lib/. Not thread-safe; rdmad and rdmactl load libraries from one thread. (systemd's
 * dlopen_many_sym_or_warn(), src/basic/dlfcn-util.c) */

#include <stddef.h>

/* One function to resolve: the address of its sym_ pointer, and its name. */
typedef struct DlopenSymbol {
	void *ptr;
	const char *name;
} DlopenSymbol;

#define DLOPEN_SYMBOL(s) \
	{ &sym_##s, #s }

/* dlopen() soname (RTLD_NOW | RTLD_NODELETE: never unloaded, as a linked library is not) unless
 * *dl already holds it, and resolve every symbol; *dl and the pointers are set only when all
 * resolve. Returns 1 when loaded now, 0 when it already was; -EOPNOTSUPP when the library
 * cannot be loaded (not installed, unreadable, not a library), -ELIBBAD when a symbol is
 * missing (another version), each with dlerror()'s words in *ret_error (which names the
 * file), or -ENOMEM. Logs nothing. */
int dlopen_many_sym(void **dl, const char *soname, const DlopenSymbol *symbols, size_t n_symbols,
		    char **ret_error);
