/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner on netdev.rail-routing (plan-rail.c), on hand-built host states: what a netdev
 * needs, nothing on a converged host, addresses that came later, rules of an address gone,
 * another table, and the removal (rules, routes, sysctls put back, the record) when no profile
 * declares it any more. */
#include <arpa/inet.h>
#include <sys/socket.h>

#include "plan.h"
#include "profile-schema.h"
#include "tests.h"
#include "test-util.h"

static void host_add_rxe(HostState *h, const char *name, const char *netdev, int ifindex,
			 const char *addr) {
	HostDevice *d;
	HostNetdev *n;

	h->devices = realloc(h->devices, sizeof(HostDevice) * (h->n_devices + 1));
	d = &h->devices[h->n_devices++];
	*d = (HostDevice){ .name = strdup(name),
			   .driver = strdup("rdma_rxe"),
			   .parent = strdup(netdev) };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup(netdev) };
	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	n = &h->netdevs[h->n_netdevs++];
	*n = (HostNetdev){ .name = strdup(netdev),
			   .ifindex = ifindex,
			   .mtu = 1500,
			   .up = true,
			   .addresses_known = true,
			   .rail_sysctls_observed = true };
	n->addresses = calloc(1, sizeof(Address));
	n->n_addresses = 1;
	CHECK(address_from_string(addr, &n->addresses[0]) == 0);
}

/* rxe0 on veth0 (ifindex 3, 192.0.2.1/24), rxe1 on veth2 (ifindex 5, 192.0.2.2/24); all
 * sysctls 0, no rules, no routes. */
static HostState *host_new(void) {
	HostState *h = calloc(1, sizeof(HostState));

	host_add_rxe(h, "rxe0", "veth0", 3, "192.0.2.1/24");
	host_add_rxe(h, "rxe1", "veth2", 5, "192.0.2.2/24");
	h->rails_observed = true;
	return h;
}

static void host_add_rule(HostState *h, const char *src, uint32_t table) {
	RailRule *r;

	h->rail_rules = realloc(h->rail_rules, sizeof(RailRule) * (h->n_rail_rules + 1));
	r = &h->rail_rules[h->n_rail_rules++];
	*r = (RailRule){ .family = AF_INET,
			 .src_len = 32,
			 .table = table,
			 .priority = RAIL_RULE_PRIORITY };
	CHECK(inet_pton(AF_INET, src, r->src) == 1);
}

static void host_add_route(HostState *h, const char *dst, const char *src, int oif,
			   uint32_t table) {
	RailRoute *r;

	h->rail_routes = realloc(h->rail_routes, sizeof(RailRoute) * (h->n_rail_routes + 1));
	r = &h->rail_routes[h->n_rail_routes++];
	*r = (RailRoute){ .family = AF_INET,
			  .dst_len = 24,
			  .has_prefsrc = true,
			  .oif = oif,
			  .table = table,
			  .protocol = RAIL_ROUTE_PROTOCOL };
	CHECK(inet_pton(AF_INET, dst, r->dst) == 1);
	CHECK(inet_pton(AF_INET, src, r->prefsrc) == 1);
}

/* What converging veth0 and veth2 leaves on the host. */
static void host_converge(HostState *h) {
	for (size_t i = 0; i < h->n_netdevs; i++) {
		h->netdevs[i].rail_sysctl[RAIL_SYSCTL_ARP_IGNORE] = 1;
		h->netdevs[i].rail_sysctl[RAIL_SYSCTL_ARP_ANNOUNCE] = 2;
		h->netdevs[i].rail_sysctl[RAIL_SYSCTL_RP_FILTER] = 2;
	}
	host_add_route(h, "192.0.2.0", "192.0.2.1", 3, 10003);
	host_add_route(h, "192.0.2.0", "192.0.2.2", 5, 10005);
	host_add_rule(h, "192.0.2.1", 10003);
	host_add_rule(h, "192.0.2.2", 10005);
}

static void host_add_record(HostState *h, const char *netdev, uint32_t table, int rp_filter) {
	RailRecord *r;

	h->rail_records = realloc(h->rail_records, sizeof(RailRecord) * (h->n_rail_records + 1));
	r = &h->rail_records[h->n_rail_records++];
	CHECK(rail_record_init(r, netdev) == 0);
	CHECK(rail_record_add_table(r, table) == 0);
	r->saved[RAIL_SYSCTL_RP_FILTER] = rp_filter;
}

static char *plan_text(const char *const *texts, HostState *h, Plan **ret) {
	Config *c = config_from(texts);
	Plan *p = NULL;
	char *out = calloc(1, 1);
	size_t len = 0;

	CHECK(plan_compute(c, h, &p) == 0);
	for (size_t i = 0; p && i < p->n_actions; i++) {
		const Action *a = &p->actions[i];
		char line[512];

		snprintf(line, sizeof(line), "%s %s %s->%s%s\n", action_subject(a),
			 a->netdev ? a->netdev : "?", a->current ? a->current : "-", a->desired,
			 a->unsupported ? " (unsupported)" : "");
		out = realloc(out, len + strlen(line) + 1);
		strcpy(out + len, line);
		len += strlen(line);
	}
	if (ret)
		*ret = p;
	else
		plan_free(p);
	config_free(c);
	host_state_free(h);
	return out;
}

static const char *const both[] = { "netdev: {rail-routing: true}\n", NULL };

TEST(schema) {
	static const struct {
		const char *text;
		bool ok;
		uint32_t table;
	} cases[] = {
		{ "netdev: {rail-routing: true}\n", true, 0 },
		{ "netdev: {rail-routing: 100}\n", true, 100 },
		{ "netdev: {rail-routing: 4294967294}\n", true, 4294967294u },
		{ "netdev: {rail-routing: false}\n", true, 0 },
		{ "netdev: {rail-routing: 254}\n", false, 0 },
		{ "netdev: {rail-routing: 0}\n", false, 0 },
		{ "netdev: {rail-routing: 4294967295}\n", false, 0 },
		{ "netdev: {rail-routing: \"100\"}\n", false, 0 },
		{ "netdev: {rail-routing: [1]}\n", false, 0 },
	};

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		Diagnostics d = { 0 };
		Profile **l = NULL;
		size_t n = 0;
		int r;

		r = profile_load_string("t.yaml", cases[i].text, strlen(cases[i].text), &d, &l, &n);
		CHECK_INTEQ(r == 0, cases[i].ok);
		if (!cases[i].ok && d.n > 0)
			printf("# %s", d.items[0].message), printf("\n");
		if (r == 0 && n == 1) {
			CHECK_INTEQ(l[0]->settings.rail_table, cases[i].table);
			CHECK_INTEQ(l[0]->settings.rail_routing, !strstr(cases[i].text, "false"));
		}
		for (size_t k = 0; k < n; k++)
			profile_free(l[k]);
		free(l);
		diagnostics_done(&d);
	}
}

TEST(fresh) {
	char *s = plan_text(both, host_new(), NULL);

	CHECK_STREQ(s, "rxe0/1 veth0 arp_ignore=0->arp_ignore=1\n"
		       "rxe0/1 veth0 arp_announce=0->arp_announce=2\n"
		       "rxe0/1 veth0 rp_filter=0->rp_filter=2\n"
		       "rxe0/1 veth0 -->192.0.2.0/24 dev veth0 src 192.0.2.1 table 10003\n"
		       "rxe0/1 veth0 -->from 192.0.2.1 lookup 10003\n"
		       "rxe1/1 veth2 arp_ignore=0->arp_ignore=1\n"
		       "rxe1/1 veth2 arp_announce=0->arp_announce=2\n"
		       "rxe1/1 veth2 rp_filter=0->rp_filter=2\n"
		       "rxe1/1 veth2 -->192.0.2.0/24 dev veth2 src 192.0.2.2 table 10005\n"
		       "rxe1/1 veth2 -->from 192.0.2.2 lookup 10005\n");
	free(s);
}

TEST(typed_values) {
	HostState *h = host_new();
	Plan *p = NULL;
	char *s = plan_text(both, h, &p);

	free(s);
	CHECK_INTEQ(p->n_actions, 10);
	CHECK_INTEQ(p->actions[0].phase, PHASE_ROUTING);
	CHECK_INTEQ(p->actions[0].value.rail.kind, RAIL_KIND_SYSCTL);
	CHECK_INTEQ(p->actions[0].value.rail.value, 1);
	CHECK_INTEQ(p->actions[3].value.rail.kind, RAIL_KIND_ROUTE);
	CHECK_INTEQ(p->actions[3].value.rail.route.oif, 3);
	CHECK_INTEQ(p->actions[3].ifindex, 3);
	CHECK_INTEQ(p->actions[4].value.rail.kind, RAIL_KIND_RULE);
	CHECK_INTEQ(p->actions[4].value.rail.rule.table, 10003);
	CHECK(!p->actions[4].value.rail.remove);
	CHECK_STREQ(p->actions[4].profile, "00-test.yaml");
	plan_free(p);
}

TEST(converged_is_empty) {
	HostState *h = host_new();
	char *s;

	host_converge(h);
	host_add_record(h, "veth0", 10003, 0);
	host_add_record(h, "veth2", 10005, 0);
	s = plan_text(both, h, NULL);
	CHECK_STREQ(s, "");
	free(s);
}

/* An address added later gets its rule (and the route of a new subnet); the rule of an
 * address gone goes. Declared addresses count before they are there. */
TEST(addresses_change) {
	static const char *const texts[] = {
		"netdev: {rail-routing: true}\n",
		"match: {device: rxe1}\nnetdev: {addresses: [198.51.100.2/24]}\n",
		NULL,
	};
	HostState *h = host_new();
	HostNetdev *n = &h->netdevs[0];
	char *s;

	host_converge(h);
	host_add_rule(h, "192.0.2.9", 10003);
	n->addresses = realloc(n->addresses, sizeof(Address) * 2);
	CHECK(address_from_string("192.0.2.11/24", &n->addresses[1]) == 0);
	n->n_addresses = 2;
	s = plan_text(texts, h, NULL);
	CHECK_STREQ(
		s, "rxe1/1 veth2 -->198.51.100.2/24\n"
		   "rxe0/1 veth0 from 192.0.2.9 lookup 10003->from 192.0.2.9 lookup 10003: absent\n"
		   "rxe0/1 veth0 -->from 192.0.2.11 lookup 10003\n"
		   "rxe1/1 veth2 -->198.51.100.0/24 dev veth2 src 198.51.100.2 table 10005\n"
		   "rxe1/1 veth2 -->from 198.51.100.2 lookup 10005\n");
	free(s);
}

/* A number instead of true; the same number for two netdevs is neither's. */
TEST(explicit_table) {
	static const char *const one[] = {
		"netdev: {rail-routing: true}\n",
		"match: {netdev: veth0}\nnetdev: {rail-routing: 100}\n",
		NULL,
	};
	static const char *const same[] = { "netdev: {rail-routing: 100}\n", NULL };
	HostState *h = host_new();
	char *s;

	host_converge(h);
	s = plan_text(one, h, NULL);
	CHECK_STREQ(s, "rxe0/1 veth0 -->192.0.2.0/24 dev veth0 src 192.0.2.1 table 100\n"
		       "rxe0/1 veth0 -->from 192.0.2.1 lookup 100\n");
	free(s);
	s = plan_text(same, host_new(), NULL);
	CHECK(strstr(s, "rxe0/1 veth0 -->table 100 (unsupported)\n"));
	CHECK(strstr(s, "rxe1/1 veth2 -->table 100 (unsupported)\n"));
	free(s);
}

/* Not known: said, never guessed. */
TEST(unknown) {
	HostState *h = host_new();
	char *s;

	h->rails_observed = false;
	h->rails_error = -EPERM;
	h->netdevs[1].ifindex = 0;
	s = plan_text(both, h, NULL);
	CHECK_STREQ(s, "rxe0/1 veth0 -->true (table 10000 + ifindex) (unsupported)\n"
		       "rxe1/1 veth2 -->true (table 10000 + ifindex) (unsupported)\n");
	free(s);
}

/* The table changed: the old one's rules and routes go, and its line in the record. */
TEST(table_moved) {
	static const char *const texts[] = {
		"match: {netdev: veth0}\nnetdev: {rail-routing: 100}\n", NULL
	};
	HostState *h = host_new();
	char *s;

	host_converge(h);
	host_add_route(h, "192.0.2.0", "192.0.2.1", 3, 100);
	host_add_rule(h, "192.0.2.1", 100);
	host_add_record(h, "veth0", 100, -1);
	CHECK(rail_record_add_table(&h->rail_records[0], 10003) == 0);
	host_add_record(h, "veth2", 10005, 1);
	s = plan_text(texts, h, NULL);
	CHECK_STREQ(s, "host veth0 veth0: from 192.0.2.1 lookup 10003->veth0: from 192.0.2.1 "
		       "lookup 10003: absent\n"
		       "host veth0 192.0.2.0/24 dev veth0 src 192.0.2.1 table 10003->192.0.2.0/24 "
		       "dev veth0 src 192.0.2.1 table 10003: absent\n"
		       "host veth0 veth0: table 10003 in rdmad's record->veth0: table 10003 in "
		       "rdmad's record: absent\n"
		       "host veth2 veth2: from 192.0.2.2 lookup 10005->veth2: from 192.0.2.2 "
		       "lookup 10005: absent\n"
		       "host veth2 192.0.2.0/24 dev veth2 src 192.0.2.2 table 10005->192.0.2.0/24 "
		       "dev veth2 src 192.0.2.2 table 10005: absent\n"
		       "host veth2 veth2: rp_filter=2->veth2: rp_filter=1\n"
		       "host veth2 veth2: rdmad's record->veth2: rdmad's record: absent\n");
	free(s);
}

/* No profile declares it any more: rdmad's rules and routes go, the sysctls it changed are put
 * back, the record goes last; a rule at rdmad's priority in a table it never recorded, and a
 * sysctl it never changed, are left alone. A partial observation plans no removal. */
TEST(removed) {
	static const char *const none[] = { "netdev: {mtu: 1500}\n", NULL };
	HostState *h = host_new();
	Plan *p = NULL;
	char *s;

	host_converge(h);
	host_add_rule(h, "192.0.2.77", 4242);
	host_add_record(h, "veth0", 10003, 0);
	s = plan_text(none, h, &p);
	CHECK_STREQ(s, "host veth0 veth0: from 192.0.2.1 lookup 10003->veth0: from 192.0.2.1 "
		       "lookup 10003: absent\n"
		       "host veth0 192.0.2.0/24 dev veth0 src 192.0.2.1 table 10003->192.0.2.0/24 "
		       "dev veth0 src 192.0.2.1 table 10003: absent\n"
		       "host veth0 veth0: rp_filter=2->veth0: rp_filter=0\n"
		       "host veth0 veth0: rdmad's record->veth0: rdmad's record: absent\n");
	CHECK(p->actions[0].value.rail.remove);
	CHECK_INTEQ(p->actions[2].value.rail.value, 0);
	CHECK_INTEQ(p->actions[3].value.rail.kind, RAIL_KIND_FORGET);
	CHECK_INTEQ(p->actions[3].value.rail.table, 0);
	CHECK_INTEQ(p->actions[3].ifindex, 3);
	plan_free(p);
	free(s);

	h = host_new();
	host_converge(h);
	host_add_record(h, "veth0", 10003, 0);
	h->partial = true;
	s = plan_text(none, h, NULL);
	CHECK_STREQ(s, "");
	free(s);

	/* false in a later profile is "not declared" */
	{
		static const char *const off[] = {
			"netdev: {rail-routing: true}\n",
			"match: {netdev: veth0}\nnetdev: {rail-routing: false}\n", NULL
		};

		h = host_new();
		host_converge(h);
		host_add_record(h, "veth0", 10003, 0);
		host_add_record(h, "veth2", 10005, 0);
		s = plan_text(off, h, NULL);
		CHECK(strstr(s,
			     "host veth0 veth0: rdmad's record->veth0: rdmad's record: absent\n"));
		CHECK(!strstr(s, "veth2"));
		free(s);
	}
}

TESTS_MAIN(TEST_ENTRY(schema), TEST_ENTRY(fresh), TEST_ENTRY(typed_values),
	   TEST_ENTRY(converged_is_empty), TEST_ENTRY(addresses_change), TEST_ENTRY(explicit_table),
	   TEST_ENTRY(unknown), TEST_ENTRY(table_moved), TEST_ENTRY(removed))
