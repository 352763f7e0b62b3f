/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* probe/probe-links.c: a link's probe.* Settings rows, as rdmad publishes them (settings-format.c
 * writes them), into the prober's settings; what rdmad would not write is refused. */
#include <sys/socket.h>
#include <unistd.h>

#include "probe-links.h"
#include "strv.h"
#include "tests.h"

TEST(rows) {
	ProbeSettings s = { .interval_ms = PROBE_INTERVAL_MS_DEFAULT };

	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "250ms"), 0);
	CHECK_INTEQ(s.interval_ms, 250);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "2s"), 0);
	CHECK_INTEQ(s.interval_ms, 2000);
	CHECK_INTEQ(probe_settings_set(&s, "probe.timeout", "500ms"), 0);
	CHECK_INTEQ(s.timeout_ms, 500);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "none"), 0);
	CHECK(!s.mesh);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "local"), 0);
	CHECK(s.mesh);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "18515"), 0);
	CHECK_INTEQ(s.port, 18515);
	CHECK_INTEQ(probe_settings_set(&s, "probe.peers", "192.0.2.9 2001:db8::9"), 0);
	CHECK_INTEQ(strv_length(s.peers), 2);
	CHECK_STREQ(s.peers[0], "192.0.2.9");
	CHECK_STREQ(s.peers[1], "2001:db8::9");
	CHECK_INTEQ(probe_settings_set(&s, "probe.peers", "none"), 0);
	CHECK(!s.peers);
	/* another section's row: not the prober's */
	CHECK_INTEQ(probe_settings_set(&s, "roce.tos", "106"), 0);
	strv_free(s.peers);
}

TEST(refused) {
	ProbeSettings s = { 0 };

	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "250"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "0ms"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "1h"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.interval", "99999999999s"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.timeout", "-1ms"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.mesh", "global"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "0"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "65536"), -EINVAL);
	CHECK_INTEQ(probe_settings_set(&s, "probe.port", "7473x"), -EINVAL);
	CHECK_INTEQ(s.interval_ms, 0);
	CHECK_INTEQ(s.port, 0);
}

TEST(equal) {
	ProbeSettings a = { .interval_ms = 1000, .timeout_ms = 500, .mesh = true, .port = 7473 };
	ProbeSettings b = a;

	CHECK(probe_settings_equal(&a, &b));
	CHECK_INTEQ(probe_settings_set(&b, "probe.peers", "192.0.2.9"), 0);
	CHECK(!probe_settings_equal(&a, &b));
	CHECK_INTEQ(probe_settings_set(&a, "probe.peers", "192.0.2.9"), 0);
	CHECK(probe_settings_equal(&a, &b));
	b.port = 7474;
	CHECK(!probe_settings_equal(&a, &b));
	strv_free(a.peers);
	strv_free(b.peers);
}

/* A bus only to build messages on: sd-bus makes them for a bus that has started, and this one
 * never gets past its socket (the other end is closed by the caller). */
static sd_bus *bus_new(int *ret_peer) {
	sd_bus *bus = NULL;
	int fds[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return NULL;
	if (sd_bus_new(&bus) < 0 || sd_bus_set_fd(bus, fds[0], fds[0]) < 0 ||
	    sd_bus_start(bus) < 0) {
		sd_bus_unref(bus);
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	*ret_peer = fds[1];
	return bus;
}

typedef struct Fact {
	const char *name;
	char type; /* 'u', 'y', 's', or 'a' for ay */
	uint32_t u;
	const char *s;
	const uint8_t *prios;
	size_t n_prios;
} Fact;

/* RoceFacts as rdmad's GetAll has it (the variant of a{sv}), read back by probe_facts_read() */
static int facts_parse(const Fact *facts, size_t n, ProbeLinkSettings *ret) {
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	int peer = -1, r;
	sd_bus *bus = bus_new(&peer);

	if (!bus)
		return -ENOMEM;
	r = sd_bus_message_new_method_call(bus, &m, "org.rdmad1", "/", "org.rdmad1.Test", "T");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'v', "a{sv}");
	if (r >= 0)
		r = sd_bus_message_open_container(m, 'a', "{sv}");
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const Fact *f = &facts[i];

		r = sd_bus_message_open_container(m, 'e', "sv");
		if (r >= 0)
			r = sd_bus_message_append(m, "s", f->name);
		if (r >= 0 && f->type == 'u')
			r = sd_bus_message_append(m, "v", "u", f->u);
		else if (r >= 0 && f->type == 'y')
			r = sd_bus_message_append(m, "v", "y", (uint8_t) f->u);
		else if (r >= 0 && f->type == 's')
			r = sd_bus_message_append(m, "v", "s", f->s);
		else if (r >= 0) {
			r = sd_bus_message_open_container(m, 'v', "ay");
			if (r >= 0)
				r = sd_bus_message_append_array(m, 'y', f->prios, f->n_prios);
			if (r >= 0)
				r = sd_bus_message_close_container(m);
		}
		if (r >= 0)
			r = sd_bus_message_close_container(m);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_close_container(m);
	if (r >= 0)
		r = sd_bus_message_seal(m, 1, 0);
	if (r >= 0)
		r = sd_bus_message_rewind(m, true);
	if (r >= 0)
		r = probe_facts_read(m, ret);
	m = sd_bus_message_unref(m);
	sd_bus_close_unref(bus); /* no flush: it would wait for the peer to authenticate */
	close(peer);
	return r;
}

TEST(facts) {
	static const uint8_t three[] = { 3 }, three_four[] = { 3, 4 }, four[] = { 4 };
	const Fact all[] = {
		{ "netdev-mtu", 'u', .u = 9000 },
		{ "roce-mode", 's', .s = "v2" },
		{ "tos", 'y', .u = 106 },
		{ "trust", 's', .s = "dscp" },
		{ "priority", 'y', .u = 3 },
		{ "pfc", 'a', .prios = three, .n_prios = 1 },
		{ "ecn-np", 'a', .prios = three_four, .n_prios = 2 },
		{ "ecn-rp", 'a', .prios = three, .n_prios = 1 },
		{ "cnp-dscp", 'y', .u = 48 },
		{ "cnp-priority", 'y', .u = 6 },
		{ "a-later-fact", 's', .s = "skipped" },
	};
	ProbeLinkSettings s;

	CHECK_INTEQ(facts_parse(all, ELEMENTSOF(all), &s), 0);
	/* everything but the RoCE MTU, which the prober reads from its endpoint */
	CHECK_INTEQ(s.known, PROBE_KNOWN_ALL & ~PROBE_KNOWN_ROCE_MTU);
	CHECK_INTEQ(s.netdev_mtu, 9000);
	CHECK_INTEQ(s.roce_mode, 2);
	CHECK_INTEQ(s.tos, 106);
	CHECK_INTEQ(s.trust, PROBE_TRUST_DSCP);
	CHECK_INTEQ(s.priority, 3);
	CHECK_INTEQ(s.pfc, 0x08);
	CHECK_INTEQ(s.ecn, 0x08); /* NP on 3 and 4, RP on 3: both only on 3 */
	CHECK_INTEQ(s.cnp_dscp, 48);
	CHECK_INTEQ(s.cnp_priority, 6);
	CHECK(probe_settings_valid(&s));

	/* nothing published: nothing known (an rdmad that observed nothing, or an older one) */
	CHECK_INTEQ(facts_parse(NULL, 0, &s), 0);
	CHECK_INTEQ(s.known, 0);

	/* ECN with one half only is not known; a value the wire cannot carry is not known */
	const Fact partial[] = {
		{ "ecn-np", 'a', .prios = four, .n_prios = 1 },
		{ "priority", 'y', .u = 9 },
		{ "cnp-dscp", 'y', .u = 64 },
		{ "netdev-mtu", 'u', .u = 70000 },
		{ "roce-mode", 's', .s = "v3" },
		{ "trust", 's', .s = "pcp" },
	};
	CHECK_INTEQ(facts_parse(partial, ELEMENTSOF(partial), &s), 0);
	CHECK_INTEQ(s.known, PROBE_KNOWN_TRUST);
	CHECK_INTEQ(s.trust, PROBE_TRUST_PCP);
	CHECK(probe_settings_valid(&s));

	/* a priority past 7 in a list is not a bitmap's */
	static const uint8_t nine[] = { 9 };
	const Fact bad[] = { { "pfc", 'a', .prios = nine, .n_prios = 1 } };
	CHECK_INTEQ(facts_parse(bad, ELEMENTSOF(bad), &s), -EBADMSG);
}

TESTS_MAIN(TEST_ENTRY(rows), TEST_ENTRY(refused), TEST_ENTRY(equal), TEST_ENTRY(facts))
