/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bus-client.h"
#include "macro.h"
#include "probe-links.h"

void probe_link_infos_free(ProbeLinkInfo *l, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].address);
	}
	free(l);
}

/* The address of the link at path's published GID, or NULL (none published). */
static int link_address(sd_bus *bus, const char *path, char **ret) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int32_t preferred = -1;
	uint32_t index;
	const char *gid, *type, *netdev, *ipv4;
	int r;

	r = sd_bus_get_property_trivial(bus, RDMAD_BUS_NAME, path, RDMAD_LINK_IFACE,
					"PreferredGidIndex", NULL, 'i', &preferred);
	if (r < 0)
		return r;
	*ret = NULL;
	if (preferred < 0)
		return 0;
	r = sd_bus_get_property(bus, RDMAD_BUS_NAME, path, RDMAD_LINK_IFACE, "Gids", NULL, &reply,
				"a(ussss)");
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "(ussss)");
	if (r < 0)
		return r;
	while ((r = sd_bus_message_read(reply, "(ussss)", &index, &gid, &type, &netdev, &ipv4)) >
	       0) {
		struct in6_addr a;

		if (index != (uint32_t) preferred)
			continue;
		if (*ipv4)
			*ret = strdup(ipv4);
		else if (inet_pton(AF_INET6, gid, &a) == 1)
			*ret = strdup(gid);
		else
			return -EBADMSG;
		return *ret ? 0 : -ENOMEM;
	}
	return r < 0 ? r : 0;
}

int probe_links_from_rdmad(sd_bus *bus, ProbeLinkInfo **ret, size_t *ret_n) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	ProbeLinkInfo *l = NULL;
	size_t n = 0;
	const char *name, *path, *state;
	int r;

	r = sd_bus_call_method(bus, RDMAD_BUS_NAME, RDMAD_MANAGER_PATH, RDMAD_MANAGER_IFACE,
			       "ListLinks", NULL, &reply, "");
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "(sos)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(sos)", &name, &path, &state)) > 0) {
		_cleanup_free_ char *address = NULL;
		ProbeLinkInfo *x;

		if (streq(state, "unmanaged"))
			continue;
		r = link_address(bus, path, &address);
		if (r < 0)
			break;
		if (!address)
			continue;
		x = reallocarray(l, n + 1, sizeof(ProbeLinkInfo));
		if (!x) {
			r = -ENOMEM;
			break;
		}
		l = x;
		l[n] = (ProbeLinkInfo){ .name = strdup(name), .address = TAKE_PTR(address) };
		if (!l[n++].name) {
			r = -ENOMEM;
			break;
		}
	}
	if (r < 0) {
		probe_link_infos_free(l, n);
		return r;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}
