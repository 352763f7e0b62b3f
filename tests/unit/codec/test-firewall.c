/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* security.roce-allow-from without a kernel: the parser of libnftables' JSON listing (a canned
 * `nft -j list table inet rdmad` of nftables 1.0.6), the command batches on their bytes, and
 * the planner on hand-built host states: a missing or changed chain, nothing on a converged
 * host, hardware RoCE refused, an unreadable ruleset, and the removal of a chain or of the
 * table when no profile declares the key any more; and the netlink request that asks whether
 * the table exists, on its bytes. */
#include <sys/socket.h>

#include "firewall.h"
#include "plan.h"
#include "tests.h"
#include "test-nlmsg.h"
#include "test-util.h"

#define META  "{\"metainfo\": {\"version\": \"1.0.6\", \"json_schema_version\": 1}}"
#define TABLE "{\"table\": {\"family\": \"inet\", \"name\": \"rdmad\", \"handle\": 1}}"
#define CHAIN(name, prio, policy)                                                        \
	"{\"chain\": {\"family\": \"inet\", \"table\": \"rdmad\", \"name\": \"" name     \
	"\", \"handle\": 1, \"type\": \"filter\", \"hook\": \"input\", \"prio\": " #prio \
	", \"policy\": \"" policy "\"}}"
#define IIF(n)                                                                                   \
	"{\"match\": {\"op\": \"==\", \"left\": {\"meta\": {\"key\": \"iifname\"}}, \"right\": " \
	"\"" n "\"}}"
#define DPORT                                                                                      \
	"{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"udp\", \"field\": " \
	"\"dport\"}}, \"right\": 4791}}"
#define SADDR(proto, right)                                                            \
	"{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"" proto \
	"\", \"field\": \"saddr\"}}, \"right\": " right "}}"
#define PREFIX(a, l) "{\"prefix\": {\"addr\": \"" a "\", \"len\": " #l "}}"
#define RULE(chain, ...)                                                              \
	"{\"rule\": {\"family\": \"inet\", \"table\": \"rdmad\", \"chain\": \"" chain \
	"\", \"handle\": 2, \"expr\": [" __VA_ARGS__ "]}}"

/* what nftables 1.0.6 lists for veth0 allowed from 192.0.2.0/24, 2001:db8::/32, 192.0.2.7 */
static const char listing[] =
	"{\"nftables\": [" META ", " TABLE
	", " CHAIN("veth0", -10, "accept") ", " RULE("veth0", IIF("veth0") ", " SADDR("ip", PREFIX("192.0.2.0", 24)) ", " DPORT ", {\"accept\": null}") ", " RULE(
		"veth0",
		IIF("veth0") ", " SADDR(
			"ip6",
			PREFIX(
				"2001:db8::",
				32)) ", " DPORT
				     ", {\"accept\": null}") ", " RULE("veth0",
								       IIF("veth0") ", " SADDR(
									       "ip", "\"192.0.2."
										     "7\"") ","
											    " " DPORT
											    ", "
											    "{\"acc"
											    "ept\":"
											    " null"
											    "}") ","
												 " " RULE("veth0",
													  IIF("veth0") ", " DPORT
														       ", {\"drop\": null}") "]}";

static Address *prefixes(const char *const *l, size_t *ret_n) {
	size_t n = 0;
	Address *a;

	while (l[n])
		n++;
	a = calloc(n + 1, sizeof(Address));
	for (size_t i = 0; i < n; i++)
		CHECK_INTEQ(address_from_string(l[i], &a[i]), 0);
	*ret_n = n;
	return a;
}

static const char *const allow3[] = { "192.0.2.0/24", "2001:db8::/32", "192.0.2.7", NULL };

TEST(parse_converged) {
	FirewallState s;
	size_t n;
	Address *a = prefixes(allow3, &n);
	const FirewallChain *c;
	char *d;

	CHECK_INTEQ(firewall_state_parse(listing, &s), 0);
	CHECK(s.table);
	CHECK_INTEQ(s.n_chains, 1);
	c = firewall_chain_find(&s, "veth0");
	CHECK(c != NULL);
	CHECK(c && c->base_ok && c->drop_last && c->n_other == 0 && c->n_allow == 3);
	CHECK(firewall_chain_converged(c, "veth0", a, n));
	CHECK(!firewall_chain_converged(c, "veth0", a, n - 1)); /* one prefix less */
	CHECK(!firewall_chain_converged(c, "veth1", a, n));	/* another netdev */
	SWAP(a[0], a[1]);
	CHECK(!firewall_chain_converged(c, "veth0", a, n)); /* another order */
	d = firewall_chain_describe(&s, "veth0");
	CHECK_STREQ(d, "udp/4791 from 192.0.2.0/24 2001:db8::/32 192.0.2.7/32, others dropped");
	free(d);
	d = firewall_chain_describe(&s, "veth2");
	CHECK_STREQ(d, "absent");
	free(d);
	firewall_state_done(&s);
	free(a);
}

TEST(parse_changed) {
	/* policy drop, a rule of someone else's after the drop rule */
	static const char changed[] =
		"{\"nftables\": [" META ", " TABLE ", " CHAIN("veth0", -10, "drop") ", " RULE(
			"veth0",
			IIF("veth0") ", " DPORT
				     ", {\"drop\": null}") ", " RULE("veth0",
								     IIF("veth0") ", {\"accept\": "
										  "null}") "]}";
	static const char tables[] =
		"{\"nftables\": [" META ", "
		"{\"table\": {\"family\": \"inet\", \"name\": \"filter\", \"handle\": 2}}]}";
	FirewallState s;
	const FirewallChain *c;
	char *d;

	CHECK_INTEQ(firewall_state_parse(changed, &s), 0);
	c = firewall_chain_find(&s, "veth0");
	CHECK(c && !c->base_ok && c->n_other == 1 && !c->drop_last);
	CHECK(!firewall_chain_converged(c, "veth0", NULL, 0));
	d = firewall_chain_describe(&s, "veth0");
	CHECK_STREQ(d, "no rule of rdmad's, 1 rule not rdmad's, not a filter input chain at "
		       "priority -10 with policy accept");
	free(d);
	firewall_state_done(&s);

	/* someone's rule after rdmad's drop rule */
	{
		static const char appended[] =
			"{\"nftables\": [" META ", " TABLE
			", " CHAIN("veth0", -10, "accept") ", " RULE(
				"veth0",
				IIF("veth0") ", " SADDR(
					"ip",
					PREFIX("192.0.2.0",
					       24)) ", " DPORT
						    ", {\"accept\": null}") ", " RULE("veth0",
										      IIF("veth0") ", " DPORT
												   ", {\"drop\": null}") ", " RULE("veth0",
																   DPORT
																   ", {\"accept\": null}") "]}";

		CHECK_INTEQ(firewall_state_parse(appended, &s), 0);
		c = firewall_chain_find(&s, "veth0");
		CHECK(c && c->base_ok && c->n_other == 1 && !c->drop_last && c->n_allow == 1);
		d = firewall_chain_describe(&s, "veth0");
		CHECK_STREQ(d, "udp/4791 from 192.0.2.0/24, no drop rule last, 1 rule not rdmad's");
		free(d);
		firewall_state_done(&s);
	}

	/* `list tables inet`: someone else's table only */
	CHECK_INTEQ(firewall_state_parse(tables, &s), 0);
	CHECK(!s.table);
	d = firewall_chain_describe(&s, "veth0");
	CHECK_STREQ(d, "absent (no table inet rdmad)");
	free(d);
	firewall_state_done(&s);

	CHECK_INTEQ(firewall_state_parse("{\"nftables\": 3}", &s), -EBADMSG);
	CHECK_INTEQ(firewall_state_parse("not json", &s), -EBADMSG);
}

TEST(table_get_bytes) {
	/* nf_tables_gettable() (net/netfilter/nf_tables_api.c) reads the family from the
	 * nfgenmsg and the table from NFTA_TABLE_NAME */
	static const uint8_t expected[] = {
		0x20, 0x00, 0x00, 0x00, /* nlmsg_len 32 */
		0x01, 0x0a,		/* NFNL_SUBSYS_NFTABLES (10) << 8 | NFT_MSG_GETTABLE (1) */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq: set by the sender */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x01, 0x00, 0x00, 0x00, /* nfgenmsg: NFPROTO_INET, NFNETLINK_V0, res_id 0 */
		0x0a, 0x00, 0x01, 0x00, /* nla_len 10, NFTA_TABLE_NAME */
		'r',  'd',  'm',  'a',	'd', 0x00, 0x00, 0x00, /* "rdmad\0", 2 bytes of padding */
	};
	struct nl_msg *m = NULL;

	CHECK_INTEQ(firewall_table_get_new(&m), 0);
	if (m)
		check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(batches) {
	FirewallState live = { 0 };
	size_t n;
	Address *a = prefixes(allow3, &n);
	char *b = NULL;

	/* nothing there: the table, the chain, the rules */
	CHECK_INTEQ(firewall_chain_batch(&live, "veth0", a, 2, &b), 0);
	CHECK_STREQ(
		b,
		"{\"nftables\":[{\"add\":{\"table\":{\"family\":\"inet\",\"name\":\"rdmad\"}}},"
		"{\"add\":{\"chain\":{\"family\":\"inet\",\"table\":\"rdmad\",\"name\":\"veth0\","
		"\"type\":\"filter\",\"hook\":\"input\",\"prio\":-10,\"policy\":\"accept\"}}},"
		"{\"add\":{\"rule\":{\"family\":\"inet\",\"table\":\"rdmad\",\"chain\":\"veth0\","
		"\"expr\":[{\"match\":{\"op\":\"==\",\"left\":{\"meta\":{\"key\":\"iifname\"}},"
		"\"right\":\"veth0\"}},{\"match\":{\"op\":\"==\",\"left\":{\"payload\":"
		"{\"protocol\":\"ip\",\"field\":\"saddr\"}},\"right\":{\"prefix\":{\"addr\":"
		"\"192.0.2.0\",\"len\":24}}}},{\"match\":{\"op\":\"==\",\"left\":{\"payload\":"
		"{\"protocol\":\"udp\",\"field\":\"dport\"}},\"right\":4791}},{\"accept\":null}]}}}"
		","
		"{\"add\":{\"rule\":{\"family\":\"inet\",\"table\":\"rdmad\",\"chain\":\"veth0\","
		"\"expr\":[{\"match\":{\"op\":\"==\",\"left\":{\"meta\":{\"key\":\"iifname\"}},"
		"\"right\":\"veth0\"}},{\"match\":{\"op\":\"==\",\"left\":{\"payload\":"
		"{\"protocol\":\"ip6\",\"field\":\"saddr\"}},\"right\":{\"prefix\":{\"addr\":"
		"\"2001:db8::\",\"len\":32}}}},{\"match\":{\"op\":\"==\",\"left\":{\"payload\":"
		"{\"protocol\":\"udp\",\"field\":\"dport\"}},\"right\":4791}},{\"accept\":null}]}}}"
		","
		"{\"add\":{\"rule\":{\"family\":\"inet\",\"table\":\"rdmad\",\"chain\":\"veth0\","
		"\"expr\":[{\"match\":{\"op\":\"==\",\"left\":{\"meta\":{\"key\":\"iifname\"}},"
		"\"right\":\"veth0\"}},{\"match\":{\"op\":\"==\",\"left\":{\"payload\":"
		"{\"protocol\":\"udp\",\"field\":\"dport\"}},\"right\":4791}},{\"drop\":null}]}}}]"
		"}");
	free(b);

	/* what the builder writes, the parser reads as converged (a host address too) */
	{
		FirewallState back;

		CHECK_INTEQ(firewall_chain_batch(&live, "veth0", a, n, &b), 0);
		CHECK_INTEQ(firewall_state_parse(listing, &back), 0);
		CHECK(strstr(b, "\"right\":\"192.0.2.7\"") != NULL);
		firewall_state_done(&back);
		free(b);
	}

	/* an existing chain of the right kind is flushed, one of another kind made again */
	CHECK_INTEQ(firewall_state_parse(listing, &live), 0);
	CHECK_INTEQ(firewall_chain_batch(&live, "veth0", NULL, 0, &b), 0);
	CHECK(strstr(b, "{\"flush\":{\"chain\":{\"family\":\"inet\",\"table\":\"rdmad\",\"name\":"
			"\"veth0\"}}}") != NULL);
	CHECK(strstr(b, "\"delete\"") == NULL && strstr(b, "{\"add\":{\"chain\"") == NULL);
	free(b);
	live.chains[0].base_ok = false;
	CHECK_INTEQ(firewall_chain_batch(&live, "veth0", NULL, 0, &b), 0);
	CHECK(strstr(b, "{\"delete\":{\"chain\"") != NULL &&
	      strstr(b, "{\"add\":{\"chain\"") > strstr(b, "{\"delete\":{\"chain\""));
	free(b);
	firewall_state_done(&live);

	CHECK_INTEQ(firewall_chain_batch(NULL, "a\"b", a, n, &b), -EINVAL);
	CHECK_INTEQ(firewall_chain_delete_batch("veth0", &b), 0);
	CHECK_STREQ(b,
		    "{\"nftables\":[{\"flush\":{\"chain\":{\"family\":\"inet\",\"table\":"
		    "\"rdmad\",\"name\":\"veth0\"}}},{\"delete\":{\"chain\":{\"family\":\"inet\","
		    "\"table\":\"rdmad\",\"name\":\"veth0\"}}}]}");
	free(b);
	CHECK_INTEQ(firewall_table_delete_batch(&b), 0);
	CHECK_STREQ(b, "{\"nftables\":[{\"delete\":{\"table\":{\"family\":\"inet\",\"name\":"
		       "\"rdmad\"}}}]}");
	free(b);
	free(a);
}

static void host_add(HostState *h, const char *dev, const char *driver, const char *netdev) {
	HostDevice *d;

	h->devices = realloc(h->devices, sizeof(HostDevice) * (h->n_devices + 1));
	d = &h->devices[h->n_devices++];
	*d = (HostDevice){ .name = strdup(dev), .driver = strdup(driver) };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup(netdev) };
	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	h->netdevs[h->n_netdevs] =
		(HostNetdev){ .name = strdup(netdev), .ifindex = (int) h->n_netdevs + 2 };
	h->n_netdevs++;
}

/* mlx5_0 on ens1f0np0, rxe0 on veth0, rxe1 on veth2 (netdevs sorted by name, as observed);
 * the table as given (NULL: none) */
static HostState *host_new(const char *json) {
	HostState *h = calloc(1, sizeof(HostState));

	h->root = strdup("/");
	host_add(h, "mlx5_0", "mlx5_core", "ens1f0np0");
	host_add(h, "rxe0", "rdma_rxe", "veth0");
	host_add(h, "rxe1", "rdma_rxe", "veth2");
	h->firewall_observed = true;
	if (json)
		CHECK_INTEQ(firewall_state_parse(json, &h->firewall), 0);
	return h;
}

static const char profile_veth0[] =
	"match: {device: rxe0}\n"
	"security:\n  roce-allow-from: [192.0.2.0/24, \"2001:db8::/32\", 192.0.2.7]\n";

TEST(plan_chain) {
	HostState *h = host_new(NULL);
	Plan *p = plan_of(profile_veth0, h);

	/* no table: one action for the chain, with the reason */
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_INTEQ(p->actions[0].key, KEY_SECURITY_ROCE_ALLOW_FROM);
	CHECK_INTEQ(p->actions[0].phase, PHASE_FIREWALL);
	CHECK_STREQ(p->actions[0].netdev, "veth0");
	CHECK_STREQ(p->actions[0].current, "absent (no table inet rdmad)");
	CHECK_STREQ(p->actions[0].desired,
		    "udp/4791 from 192.0.2.0/24 2001:db8::/32 192.0.2.7/32, others dropped");
	CHECK(p->actions[0].unsupported == NULL);
	CHECK_INTEQ(p->actions[0].value.firewall_op, FIREWALL_OP_CHAIN);
	CHECK_INTEQ(p->actions[0].value.n_allow, 3);
	plan_free(p);
	host_state_free(h);

	/* converged: nothing */
	h = host_new(listing);
	p = plan_of(profile_veth0, h);
	CHECK_INTEQ(p->n_actions, 0);
	plan_free(p);
	/* one prefix less declared: the chain is rewritten */
	p = plan_of("match: {device: rxe0}\nsecurity:\n  roce-allow-from: [192.0.2.0/24]\n", h);
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_STREQ(p->actions[0].current,
		    "udp/4791 from 192.0.2.0/24 2001:db8::/32 192.0.2.7/32, others dropped");
	CHECK_STREQ(p->actions[0].desired, "udp/4791 from 192.0.2.0/24, others dropped");
	plan_free(p);
	/* [] : everything dropped */
	p = plan_of("match: {device: rxe0}\nsecurity:\n  roce-allow-from: []\n", h);
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_STREQ(p->actions[0].desired, "udp/4791 dropped");
	plan_free(p);
	host_state_free(h);
}

TEST(plan_refused) {
	HostState *h = host_new(NULL);
	Plan *p =
		plan_of("match: {device: mlx5_0}\nsecurity:\n  roce-allow-from: [192.0.2.0/24]\n", h);

	/* hardware RoCE: unsupported, saying why */
	CHECK_INTEQ(p->n_actions, 1);
	CHECK(p->actions[0].unsupported &&
	      strstr(p->actions[0].unsupported, "not Soft-RoCE (driver mlx5_core)") &&
	      strstr(p->actions[0].unsupported, "nftables does not see it"));
	plan_free(p);

	/* the ruleset could not be read */
	h->firewall_observed = false;
	h->firewall_error = -EPERM;
	p = plan_of(profile_veth0, h);
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_STREQ(p->actions[0].unsupported,
		    "the nftables table inet rdmad could not be read: Operation not permitted");
	plan_free(p);

	/* ... because libnftables is missing: the words say which library, and what needs it */
	h->firewall_error = -EOPNOTSUPP;
	h->firewall_error_message =
		strdup("security.roce-allow-from needs libnftables.so.1: libnftables.so.1: "
		       "cannot open shared object file: No such file or directory");
	p = plan_of(profile_veth0, h);
	CHECK_INTEQ(p->n_actions, 1);
	CHECK_STREQ(p->actions[0].unsupported,
		    "the nftables table inet rdmad could not be read: security.roce-allow-from "
		    "needs libnftables.so.1: libnftables.so.1: cannot open shared object file: No "
		    "such file or directory");
	plan_free(p);
	host_state_free(h);
}

TEST(plan_removed) {
	static const char two[] =
		"{\"nftables\": [" META ", " TABLE
		", " CHAIN("veth0", -10, "accept") ", " CHAIN("veth2", -10, "accept") ", " RULE(
			"veth2", IIF("veth2") ", " DPORT ", {\"drop\": null}") "]}";
	HostState *h = host_new(two);
	Plan *p;

	/* veth2 declares nothing any more: its chain goes (veth0's is rewritten) */
	p = plan_of(profile_veth0, h);
	CHECK_INTEQ(p->n_actions, 2);
	CHECK_INTEQ(p->actions[0].value.firewall_op, FIREWALL_OP_CHAIN_REMOVE);
	CHECK_STREQ(p->actions[0].netdev, "veth2");
	CHECK_STREQ(p->actions[0].current, "chain veth2: udp/4791 dropped");
	CHECK_STREQ(p->actions[0].desired, "chain inet rdmad veth2: absent");
	CHECK_INTEQ(p->actions[1].value.firewall_op, FIREWALL_OP_CHAIN);
	plan_free(p);

	/* nothing declares the key: the table goes, whole */
	p = plan_of("match: {device: rxe0}\nroce: {tos: 106}\n", h);
	for (size_t i = 0; i < p->n_actions; i++)
		if (p->actions[i].key == KEY_SECURITY_ROCE_ALLOW_FROM) {
			CHECK_INTEQ(p->actions[i].value.firewall_op, FIREWALL_OP_TABLE_REMOVE);
			CHECK_STREQ(p->actions[i].current, "table inet rdmad (2 chains)");
			CHECK_STREQ(p->actions[i].desired, "table inet rdmad: absent");
			CHECK(p->actions[i].netdev == NULL);
		}
	plan_free(p);

	/* a partial observation (an event for one device) removes nothing */
	h->partial = true;
	p = plan_of("match: {device: rxe0}\nroce: {tos: 106}\n", h);
	for (size_t i = 0; i < p->n_actions; i++)
		CHECK(p->actions[i].key != KEY_SECURITY_ROCE_ALLOW_FROM);
	plan_free(p);
	host_state_free(h);
}

TESTS_MAIN(TEST_ENTRY(parse_converged), TEST_ENTRY(parse_changed), TEST_ENTRY(table_get_bytes),
	   TEST_ENTRY(batches), TEST_ENTRY(plan_chain), TEST_ENTRY(plan_refused),
	   TEST_ENTRY(plan_removed))
