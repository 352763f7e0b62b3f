/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe's links, as rdmad publishes them: each managed link (ListLinks) with the address
 * of the GID it publishes (PreferredGidIndex among its Gids: the IPv4 of a RoCE v2 IPv4 GID,
 * else the GID itself as an IPv6 address). The prober does not read the profiles again. */

#include <stddef.h>
#include <systemd/sd-bus.h>

typedef struct ProbeLinkInfo {
	char *name;    /* "mlx5_0/1" */
	char *address; /* "192.0.2.1", "fd00::1" */
} ProbeLinkInfo;

void probe_link_infos_free(ProbeLinkInfo *l, size_t n);

/* The links that publish a GID, in ListLinks' order. Links without one (pending, unmanaged,
 * no address) are left out: nothing can be probed from them. */
int probe_links_from_rdmad(sd_bus *bus, ProbeLinkInfo **ret, size_t *ret_n);
