/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe's links, as rdmad publishes them: each managed link (ListLinks) that declares a
 * probe key, with the address of the GID it publishes (PreferredGidIndex among its Gids: the
 * IPv4 of a RoCE v2 IPv4 GID, else the GID itself as an IPv6 address) and its probe settings
 * (the probe.* rows of its Settings). The prober does not read the profiles again. */

#include <stdbool.h>
#include <stddef.h>
#include <systemd/sd-bus.h>

#include "probe-wire.h"

/* The defaults of the keys a link leaves undeclared (rdmad.yaml(5)). */
#define PROBE_INTERVAL_MS_DEFAULT 1000
#define PROBE_TIMEOUT_MS_DEFAULT  500
#define PROBE_PORT_DEFAULT	  7473

typedef struct ProbeSettings {
	unsigned interval_ms, timeout_ms;
	bool mesh;    /* probe.mesh: local */
	char **peers; /* addresses */
	unsigned port;
} ProbeSettings;

typedef struct ProbeLinkInfo {
	char *name;    /* "mlx5_0/1" */
	char *address; /* "192.0.2.1", "fd00::1" */
	ProbeSettings settings;
	/* its RoCE settings as rdmad observed them (its RoceFacts): all but the active RoCE
	 * MTU, which the prober reads from its own endpoint */
	ProbeLinkSettings facts;
} ProbeLinkInfo;

void probe_link_infos_free(ProbeLinkInfo *l, size_t n);
bool probe_settings_equal(const ProbeSettings *a, const ProbeSettings *b);

/* One probe.* row of a link's Settings (key, desired) into s; -EINVAL for a value rdmad would
 * not have published. Keys of other sections are left alone (0). */
int probe_settings_set(ProbeSettings *s, const char *key, const char *value);

/* The RoceFacts of a link into the settings a prober tells (probe-wire.h): the facts the wire
 * carries, each known only when rdmad published it and in the wire's range; ECN is known only
 * with both ecn-np and ecn-rp, as the priorities that have both. Names this prober does not know
 * are skipped. reply is at the property's variant. */
int probe_facts_read(sd_bus_message *reply, ProbeLinkSettings *ret);

/* The links that publish a GID and declare a probe key, in ListLinks' order; of names only
 * when given (rdmad's probe.links: the others are not asked). Links without a GID (pending,
 * unmanaged, no address) are left out: nothing can be probed from them. */
int probe_links_from_rdmad(sd_bus *bus, char *const *names, ProbeLinkInfo **ret, size_t *ret_n);
