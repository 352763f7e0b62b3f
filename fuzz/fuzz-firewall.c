/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parser of libnftables' JSON listing of rdmad's table (firewall.c) on
 * arbitrary text, and what reads its result (describe, converged, a batch built from it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "firewall.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	FirewallState s;
	char *text, *out;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	if (firewall_state_parse(text, &s) >= 0) {
		for (size_t i = 0; i < s.n_chains; i++) {
			const FirewallChain *c = &s.chains[i];

			/* what parsed is a prefix of a known family that fits the address */
			for (size_t k = 0; k < c->n_allow; k++)
				if ((c->allow[k].family != AF_INET &&
				     c->allow[k].family != AF_INET6) ||
				    c->allow[k].prefixlen >
					    (c->allow[k].family == AF_INET ? 32 : 128))
					abort();
			(void) firewall_chain_converged(c, c->name, c->allow, c->n_allow);
			free(firewall_chain_describe(&s, c->name));
			if (firewall_chain_batch(&s, c->name, c->allow, c->n_allow, &out) >= 0)
				free(out);
		}
		firewall_state_done(&s);
	}
	free(text);
	return 0;
}
