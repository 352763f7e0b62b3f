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

/* "ay": a bitmap of the priorities listed (0..7; another is -EBADMSG) */
static int priorities_read(sd_bus_message *m, uint8_t *ret) {
	uint8_t bits = 0, p;
	int r;

	r = sd_bus_message_enter_container(m, 'a', "y");
	while (r >= 0 && (r = sd_bus_message_read(m, "y", &p)) > 0) {
		if (p > 7)
			return -EBADMSG;
		bits |= (uint8_t) (1u << p);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		*ret = bits;
	return r;
}

/* One RoceFacts entry's variant into s; *np, *rp: ECN's two halves, combined by the caller. */
static int fact_read(sd_bus_message *m, const char *name, ProbeLinkSettings *s, int *np, int *rp) {
	const char *word;
	uint32_t u32;
	uint8_t u8;
	int r;

	if (streq(name, "netdev-mtu")) {
		r = sd_bus_message_read(m, "v", "u", &u32);
		if (r >= 0 && u32 > 0 && u32 <= UINT16_MAX) {
			s->known |= PROBE_KNOWN_NETDEV_MTU;
			s->netdev_mtu = (uint16_t) u32;
		}
		return r;
	}
	if (streq(name, "roce-mode") || streq(name, "trust")) {
		bool mode = streq(name, "roce-mode");

		r = sd_bus_message_read(m, "v", "s", &word);
		if (r < 0)
			return r;
		u8 = mode ? (streq(word, "v1")	 ? 1
			     : streq(word, "v2") ? 2
						 : 0)
			  : (streq(word, "pcp")	   ? PROBE_TRUST_PCP
			     : streq(word, "dscp") ? PROBE_TRUST_DSCP
						   : 0);
		if (u8 > 0 && mode) {
			s->known |= PROBE_KNOWN_ROCE_MODE;
			s->roce_mode = u8;
		} else if (u8 > 0) {
			s->known |= PROBE_KNOWN_TRUST;
			s->trust = u8;
		}
		return 0;
	}
	if (streq(name, "pfc") || streq(name, "ecn-np") || streq(name, "ecn-rp")) {
		r = sd_bus_message_enter_container(m, 'v', "ay");
		if (r >= 0)
			r = priorities_read(m, &u8);
		if (r >= 0)
			r = sd_bus_message_exit_container(m);
		if (r < 0)
			return r;
		if (streq(name, "pfc")) {
			s->known |= PROBE_KNOWN_PFC;
			s->pfc = u8;
		} else
			*(streq(name, "ecn-np") ? np : rp) = u8;
		return 0;
	}
	if (streq(name, "tos") || streq(name, "priority") || streq(name, "cnp-dscp") ||
	    streq(name, "cnp-priority")) {
		r = sd_bus_message_read(m, "v", "y", &u8);
		if (r < 0)
			return r;
		if (streq(name, "tos")) {
			s->known |= PROBE_KNOWN_TOS;
			s->tos = u8;
		} else if (streq(name, "priority") && u8 < 8) {
			s->known |= PROBE_KNOWN_PRIORITY;
			s->priority = u8;
		} else if (streq(name, "cnp-dscp") && u8 < 64) {
			s->known |= PROBE_KNOWN_CNP_DSCP;
			s->cnp_dscp = u8;
		} else if (streq(name, "cnp-priority") && u8 < 8) {
			s->known |= PROBE_KNOWN_CNP_PRIORITY;
			s->cnp_priority = u8;
		}
		return 0;
	}
	return sd_bus_message_skip(m, "v"); /* a fact of a later rdmad */
}

int probe_facts_read(sd_bus_message *reply, ProbeLinkSettings *ret) {
	ProbeLinkSettings s = { 0 };
	int np = -1, rp = -1;
	const char *name;
	int r;

	r = sd_bus_message_enter_container(reply, 'v', "a{sv}");
	if (r >= 0)
		r = sd_bus_message_enter_container(reply, 'a', "{sv}");
	while (r >= 0 && (r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
		r = sd_bus_message_read(reply, "s", &name);
		if (r >= 0)
			r = fact_read(reply, name, &s, &np, &rp);
		if (r >= 0)
			r = sd_bus_message_exit_container(reply);
	}
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r >= 0)
		r = sd_bus_message_exit_container(reply);
	if (r < 0)
		return r;
	if (np >= 0 && rp >= 0) {
		s.known |= PROBE_KNOWN_ECN;
		s.ecn = (uint8_t) (np & rp);
	}
	*ret = s;
	return 0;
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
		     ProbeLinkSettings *ret_facts, char **ret_address) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	ProbeSettings s = { .interval_ms = PROBE_INTERVAL_MS_DEFAULT,
			    .timeout_ms = PROBE_TIMEOUT_MS_DEFAULT,
			    .mesh = true,
			    .port = PROBE_PORT_DEFAULT };
	_cleanup_free_ char *address = NULL;
	ProbeLinkSettings facts = { 0 }; /* none known from an rdmad without RoceFacts */
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
			else if (r >= 0 && pass == 0 && streq(name, "RoceFacts"))
				r = probe_facts_read(reply, &facts);
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
	*ret_facts = facts;
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
		ProbeLinkSettings facts;
		ProbeLinkInfo *x;

		if (streq(state, "unmanaged") || (names && !strv_contains(names, name)))
			continue;
		r = link_read(bus, path, &settings, &facts, &address);
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
					.settings = settings,
					.facts = facts };
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
