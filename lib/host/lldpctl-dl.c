/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "dlopen-util.h"
#include "lldpctl-dl.h"
#include "macro.h"

static void *lldpctl_dl;

__typeof__(lldpctl_new) *sym_lldpctl_new;
__typeof__(lldpctl_release) *sym_lldpctl_release;
__typeof__(lldpctl_last_error) *sym_lldpctl_last_error;
__typeof__(lldpctl_strerror) *sym_lldpctl_strerror;
__typeof__(lldpctl_get_interfaces) *sym_lldpctl_get_interfaces;
__typeof__(lldpctl_get_port) *sym_lldpctl_get_port;
__typeof__(lldpctl_atom_get) *sym_lldpctl_atom_get;
__typeof__(lldpctl_atom_get_str) *sym_lldpctl_atom_get_str;
__typeof__(lldpctl_atom_get_int) *sym_lldpctl_atom_get_int;
__typeof__(lldpctl_atom_get_buffer) *sym_lldpctl_atom_get_buffer;
__typeof__(lldpctl_atom_iter) *sym_lldpctl_atom_iter;
__typeof__(lldpctl_atom_iter_next) *sym_lldpctl_atom_iter_next;
__typeof__(lldpctl_atom_iter_value) *sym_lldpctl_atom_iter_value;
__typeof__(lldpctl_atom_dec_ref) *sym_lldpctl_atom_dec_ref;
__typeof__(lldpctl_watch_callback2) *sym_lldpctl_watch_callback2;
__typeof__(lldpctl_recv) *sym_lldpctl_recv;
__typeof__(lldpctl_process_conn_buffer) *sym_lldpctl_process_conn_buffer;

int dlopen_lldpctl(char **ret_error) {
	static const DlopenSymbol symbols[] = {
		DLOPEN_SYMBOL(lldpctl_new),
		DLOPEN_SYMBOL(lldpctl_release),
		DLOPEN_SYMBOL(lldpctl_last_error),
		DLOPEN_SYMBOL(lldpctl_strerror),
		DLOPEN_SYMBOL(lldpctl_get_interfaces),
		DLOPEN_SYMBOL(lldpctl_get_port),
		DLOPEN_SYMBOL(lldpctl_atom_get),
		DLOPEN_SYMBOL(lldpctl_atom_get_str),
		DLOPEN_SYMBOL(lldpctl_atom_get_int),
		DLOPEN_SYMBOL(lldpctl_atom_get_buffer),
		DLOPEN_SYMBOL(lldpctl_atom_iter),
		DLOPEN_SYMBOL(lldpctl_atom_iter_next),
		DLOPEN_SYMBOL(lldpctl_atom_iter_value),
		DLOPEN_SYMBOL(lldpctl_atom_dec_ref),
		DLOPEN_SYMBOL(lldpctl_watch_callback2),
		DLOPEN_SYMBOL(lldpctl_recv),
		DLOPEN_SYMBOL(lldpctl_process_conn_buffer),
	};

	return dlopen_many_sym(&lldpctl_dl, LLDPCTL_SONAME, symbols, ELEMENTSOF(symbols),
			       ret_error);
}
