/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>

#include "dlopen-util.h"
#include "macro.h"

/* dlsym() returns an object pointer; POSIX requires that it convert to a function pointer, and
 * the sym_ pointers are written through a void * lvalue, as POSIX's dlsym() page does (ISO C
 * has no cast between the two). */
_Static_assert(sizeof(void *) == sizeof(void (*)(void)), "function pointers are data pointers");

static int error_set(int r, char **ret_error) {
	const char *e = dlerror();

	if (ret_error) {
		*ret_error = strdup(e ? e : "unknown dynamic loader error");
		if (!*ret_error)
			return -ENOMEM;
	}
	return r;
}

int dlopen_many_sym(void **dl, const char *soname, const DlopenSymbol *symbols, size_t n_symbols,
		    char **ret_error) {
	void *h, **found;

	if (*dl)
		return 0;
	(void) dlerror(); /* clear an earlier error */
	h = dlopen(soname, RTLD_NOW | RTLD_NODELETE);
	if (!h)
		return error_set(-EOPNOTSUPP, ret_error);
	found = calloc(n_symbols ? n_symbols : 1, sizeof(void *));
	if (!found) {
		dlclose(h);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_symbols; i++) {
		found[i] = dlsym(h, symbols[i].name);
		if (!found[i]) {
			int r = error_set(-ELIBBAD, ret_error);

			free(found);
			dlclose(h); /* RTLD_NODELETE: it stays mapped, unused */
			return r;
		}
	}
	for (size_t i = 0; i < n_symbols; i++)
		*(void **) symbols[i].ptr = found[i];
	free(found);
	*dl = h;
	return 1;
}
