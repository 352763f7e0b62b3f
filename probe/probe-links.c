/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "probe-links.h"
#include "rdmad-bus.h"
#include "strv.h"

void probe_link_infos_free(ProbeLinkInfo *l, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].address);
		strv_free(l[i].settings.peers);
	}
	free(l);
}

bool probe_settings_equal(const ProbeSettings *a, const ProbeSettings *b) {
	return a->interval_ms == b->interval_ms && a->timeout_ms == b->timeout_ms &&
	       a->mesh == b->mesh && a->port == b->port && strv_equal(a->peers, b->peers);
}

/* "250ms", "1s", as settings-format.c writes them */
static int duration_ms(const char *s, unsigned *ret) {
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || v > UINT32_MAX / 1000)
		return -EINVAL;
	if (streq(end, "s"))
		v *= 1000;
	else if (!streq(end, "ms"))
		return -EINVAL;
	if (v == 0)
		return -EINVAL;
	*ret = (unsigned) v;
	return 0;
}

int probe_settings_set(ProbeSettings *s, const char *key, const char *value) {
	if (streq(key, "probe.interval"))
		return duration_ms(value, &s->interval_ms);
	if (streq(key, "probe.timeout"))
		return duration_ms(value, &s->timeout_ms);
	if (streq(key, "probe.mesh")) {
		if (!streq(value, "local") && !streq(value, "none"))
			return -EINVAL;
		s->mesh = streq(value, "local");
		return 0;
	}
	if (streq(key, "probe.port")) {
		char *end;
		unsigned long v;

		errno = 0;
		v = strtoul(value, &end, 10);
		if (errno || *end || v == 0 || v > 65535)
			return -EINVAL;
		s->port = (unsigned) v;
		return 0;
	}
	if (streq(key, "probe.peers")) {
		char **l = NULL;

		/* "none", or the addresses with a space between */
		for (const char *w = value; !streq(value, "none") && *w;) {
			size_t n = strcspn(w, " ");

			if (n > 0 && strv_consume(&l, strndup(w, n)) < 0) {
				strv_free(l);
				return -ENOMEM;
			}
			w += n + strspn(w + n, " ");
		}
		strv_free(s->peers);
		s->peers = l;
		return 0;
	}
	return 0;
}

/* The probe.* rows of the Settings variant at reply's position into s; *declared when one is
 * there. */
static int settings_read(sd_bus_message *reply, ProbeSettings *s, bool *declared) {
	const char *key, *desired, *current, *result, *error;
	int r;

	r = sd_bus_message_enter_container(reply, 'v', "a(sssss)");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "(sssss)");
	while (r >= 0 && (r = sd_bus_message_read(reply, "(sssss)", &key, &desired, &current,
						  &result, &error)) > 0) {
		if (strncmp(key, "probe.", 6) != 0)
			continue;
		*declared = true;
		r = probe_settings_set(s, key, desired);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	return r;
}

/* The address of the GID at index in the Gids variant at reply's position (its IPv4 address,
 * or the IPv6 GID itself); *ret left NULL when index is not there. */
static int gid_address(sd_bus_message *reply, int32_t index, char **ret) {
	const char *gid, *type, *netdev, *ipv4;
	uint32_t i;
	int r;

	r = sd_bus_message_enter_container(reply, 'v', "a(ussss)");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "(ussss)");
	while (r >= 0 &&
	       (r = sd_bus_message_read(reply, "(ussss)", &i, &gid, &type, &netdev, &ipv4)) > 0) {
		struct in6_addr a;

		if (index < 0 || i != (uint32_t) index || *ret)
			continue;
		if (*ipv4)
			*ret = strdup(ipv4);
		else if (inet_pton(AF_INET6, gid, &a) == 1)
			*ret = strdup(gid);
		else
			return -EBADMSG;
		if (!*ret)
			return -ENOMEM;
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	return r;
}

/* The link at path, from one GetAll of its properties: a consistent snapshot (reading
 * PreferredGidIndex and Gids in two calls could fall between two of rdmad's updates, and find
 * the published index missing from the Gids). 1 with its probe settings and the address of its
 * published GID; 0 when it declares no probe key or publishes no GID. */
static int link_read(sd_bus *bus, const char *path, ProbeSettings *ret_settings,
		     char **ret_address) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	ProbeSettings s = { .interval_ms = PROBE_INTERVAL_MS_DEFAULT,
			    .timeout_ms = PROBE_TIMEOUT_MS_DEFAULT,
			    .mesh = true,
			    .port = PROBE_PORT_DEFAULT };
	_cleanup_free_ char *address = NULL;
	bool declared = false;
	int32_t preferred = -1;
	int r;

	r = sd_bus_call_method(bus, RDMAD_BUS_NAME, path, "org.freedesktop.DBus.Properties",
			       "GetAll", NULL, &reply, "s", RDMAD_LINK_IFACE);
	if (r < 0)
		return r;
	/* two passes over the dictionary: Gids is read once PreferredGidIndex is known */
	for (int pass = 0; r >= 0 && pass < 2; pass++) {
		const char *name;

		r = pass == 0 ? 0 : sd_bus_message_rewind(reply, true);
		if (r >= 0)
			r = sd_bus_message_enter_container(reply, 'a', "{sv}");
		while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
			r = sd_bus_message_read(reply, "s", &name);
			if (r >= 0 && pass == 0 && streq(name, "Settings"))
				r = settings_read(reply, &s, &declared);
			else if (r >= 0 && pass == 0 && streq(name, "PreferredGidIndex"))
				r = sd_bus_message_read(reply, "v", "i", &preferred);
			else if (r >= 0 && pass == 1 && streq(name, "Gids"))
				r = gid_address(reply, preferred, &address);
			else if (r >= 0)
				r = sd_bus_message_skip(reply, "v");
			if (r >= 0)
				r = sd_bus_message_exit_container(reply);
		}
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
		if (r >= 0 && (!declared || preferred < 0))
			break; /* nothing to probe from: Gids not needed */
	}
	if (r < 0 || !declared || !address) {
		strv_free(s.peers);
		return r < 0 ? r : 0;
	}
	*ret_settings = s;
	*ret_address = TAKE_PTR(address);
	return 1;
}

int probe_links_from_rdmad(sd_bus *bus, char *const *names, ProbeLinkInfo **ret, size_t *ret_n) {
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
		ProbeSettings settings = { 0 };
		ProbeLinkInfo *x;

		if (streq(state, "unmanaged") || (names && !strv_contains(names, name)))
			continue;
		r = link_read(bus, path, &settings, &address);
		if (r < 0)
			break;
		if (r == 0) /* no probe key declared for it, or no GID published */
			continue;
		x = reallocarray(l, n + 1, sizeof(ProbeLinkInfo));
		if (!x) {
			strv_free(settings.peers);
			r = -ENOMEM;
			break;
		}
		l = x;
		l[n] = (ProbeLinkInfo){ .name = strdup(name),
					.address = TAKE_PTR(address),
					.settings = settings };
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
