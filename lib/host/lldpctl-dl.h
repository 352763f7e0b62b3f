/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* liblldpctl, lldpd's client library, loaded when the LLDP neighbours of the RDMA ports are read
 * (host-lldp.c, dlopen-util.h): built against its header, not linked, so that a host without
 * lldpd runs rdmad and rdmactl all the same, and says that lldpd is not installed. */

#include <lldpctl.h>

#define LLDPCTL_SONAME "liblldpctl.so.4"
/* lldpd's control socket as Debian builds it (liblldpctl's lldpctl_get_default_transport(), which
 * needs the library loaded: rdmad asks the socket before it loads the library) */
#define LLDPD_SOCKET "/run/lldpd.socket"

extern __typeof__(lldpctl_new) *sym_lldpctl_new;
extern __typeof__(lldpctl_release) *sym_lldpctl_release;
extern __typeof__(lldpctl_last_error) *sym_lldpctl_last_error;
extern __typeof__(lldpctl_strerror) *sym_lldpctl_strerror;
extern __typeof__(lldpctl_get_interfaces) *sym_lldpctl_get_interfaces;
extern __typeof__(lldpctl_get_port) *sym_lldpctl_get_port;
extern __typeof__(lldpctl_atom_get) *sym_lldpctl_atom_get;
extern __typeof__(lldpctl_atom_get_str) *sym_lldpctl_atom_get_str;
extern __typeof__(lldpctl_atom_get_int) *sym_lldpctl_atom_get_int;
extern __typeof__(lldpctl_atom_get_buffer) *sym_lldpctl_atom_get_buffer;
extern __typeof__(lldpctl_atom_iter) *sym_lldpctl_atom_iter;
extern __typeof__(lldpctl_atom_iter_next) *sym_lldpctl_atom_iter_next;
extern __typeof__(lldpctl_atom_iter_value) *sym_lldpctl_atom_iter_value;
extern __typeof__(lldpctl_atom_dec_ref) *sym_lldpctl_atom_dec_ref;
extern __typeof__(lldpctl_watch_callback2) *sym_lldpctl_watch_callback2;
extern __typeof__(lldpctl_recv) *sym_lldpctl_recv;
extern __typeof__(lldpctl_process_conn_buffer) *sym_lldpctl_process_conn_buffer;

/* Load LLDPCTL_SONAME once: 1 loaded now, 0 loaded already; -EOPNOTSUPP (not installed) or
 * -ELIBBAD (a function missing) with the dynamic loader's words in *ret_error; -ENOMEM. */
int dlopen_lldpctl(char **ret_error);
