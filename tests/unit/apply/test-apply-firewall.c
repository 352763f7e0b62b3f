/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* security.roce-allow-from through observe, plan and apply against the kernel's nf_tables, in a
 * private network namespace (needs root, as test-apply-rail does): rdmad's table and chain
 * appear, a second pass is planned empty and re-applying writes nothing, a deleted table and a
 * chain someone changed are put back, another prefix list rewrites the chain, removing the key
 * removes the table; someone else's table is the same, byte for byte, all along. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>

#include "apply.h"
#include "nftables-dl.h"
#include "tests.h"
#include "test-util.h"

static char state_dir[] = "/tmp/rdmad-test-apply-firewall-XXXXXX";

/* libnftables' error text of the last nft() that failed. */
static char nft_error[4096];

/* Run an nft command (text): its output (static), or NULL with libnftables' error text in
 * nft_error. Both are buffered: nothing libnftables says reaches stdout, which is TAP. */
static const char *nft(const char *cmd) {
	static char out[16384];
	struct nft_ctx *ctx;
	int r;

	nft_error[0] = '\0';
	/* the test's own libnftables is rdmad's: loaded, not linked */
	if (dlopen_nftables(NULL) < 0) {
		snprintf(nft_error, sizeof(nft_error), "cannot load %s", NFTABLES_SONAME);
		return NULL;
	}
	ctx = sym_nft_ctx_new(NFT_CTX_DEFAULT);
	if (!ctx || sym_nft_ctx_buffer_output(ctx) < 0 || sym_nft_ctx_buffer_error(ctx) < 0) {
		snprintf(nft_error, sizeof(nft_error), "cannot make a libnftables context");
		if (ctx)
			sym_nft_ctx_free(ctx);
		return NULL;
	}
	r = sym_nft_run_cmd_from_buffer(ctx, cmd);
	if (r != 0)
		snprintf(nft_error, sizeof(nft_error), "%s", sym_nft_ctx_get_error_buffer(ctx));
	else
		snprintf(out, sizeof(out), "%s", sym_nft_ctx_get_output_buffer(ctx));
	sym_nft_ctx_free(ctx);
	return r == 0 ? out : NULL;
}

/* nft() for a command that must succeed: a failure is a TAP diagnostic, every line of
 * libnftables' text (it shows the command with a caret line under the error) after "# ". */
static const char *nft_ok(const char *cmd) {
	const char *out = nft(cmd);

	if (!out)
		for (const char *l = nft_error; *l;) {
			size_t n = strcspn(l, "\n");

			printf("# nft %s: %.*s\n", cmd, (int) n, l);
			l += n + (l[n] == '\n');
		}
	return out;
}

/* nft() for a command that must fail because what it names is not there. */
static bool nft_absent(const char *cmd) {
	return !nft(cmd) && strstr(nft_error, "No such file or directory");
}

static HostState *observe(void) {
	HostState *h = calloc(1, sizeof(HostState));
	HostDevice *d;

	h->root = strdup("/");
	h->devices = calloc(1, sizeof(HostDevice));
	h->n_devices = 1;
	d = &h->devices[0];
	*d = (HostDevice){ .name = strdup("rxe0"),
			   .driver = strdup("rdma_rxe"),
			   .parent = strdup("r0") };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] =
		(HostPort){ .port = 1, .link_layer = LINK_LAYER_ETHERNET, .netdev = strdup("r0") };
	h->netdevs = calloc(1, sizeof(HostNetdev));
	h->n_netdevs = 1;
	h->netdevs[0] = (HostNetdev){ .name = strdup("r0"), .ifindex = 2 };
	CHECK_INTEQ(host_firewall_observe(h), 0);
	CHECK(h->firewall_observed);
	return h;
}

/* One pass: observe, plan, apply; the number of actions. */
static size_t pass(const char *profile, unsigned *changed) {
	HostState *h = observe();
	Plan *p = plan_of(profile, h);
	unsigned unchanged;
	size_t n = p->n_actions;

	apply_all(state_dir, p, changed, &unchanged);
	plan_free(p);
	host_state_free(h);
	return n;
}

static const char allow[] = "match: {device: rxe0}\n"
			    "security:\n  roce-allow-from: [192.0.2.2, \"2001:db8::/32\"]\n";
static const char want[] = "table inet rdmad {\n"
			   "\tchain r0 {\n"
			   "\t\ttype filter hook input priority filter - 10; policy accept;\n"
			   "\t\tiifname \"r0\" ip saddr 192.0.2.2 udp dport 4791 accept\n"
			   "\t\tiifname \"r0\" ip6 saddr 2001:db8::/32 udp dport 4791 accept\n"
			   "\t\tiifname \"r0\" udp dport 4791 drop\n"
			   "\t}\n"
			   "}\n";
/* someone else's table */
static const char admin_table[] =
	"add table inet admin; "
	"add chain inet admin input { type filter hook input priority 0; policy accept; }; "
	"add rule inet admin input tcp dport 22 accept; "
	"add rule inet admin input udp dport 4791 counter accept";
static char admin[4096];

TEST(netns) {
	if (unshare(CLONE_NEWNET) < 0) {
		printf("Bail out! unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		exit(1);
	}
	CHECK(mkdtemp(state_dir) != NULL);
	CHECK(system("ip link add r0 type veth peer name r1") == 0);
	/* someone else's table, before rdmad's */
	CHECK(nft_ok(admin_table) != NULL);
	snprintf(admin, sizeof(admin), "%s", nft_ok("list table inet admin"));
	CHECK(strstr(admin, "tcp dport 22 accept") != NULL);
}

TEST(made_and_converged) {
	unsigned changed;
	HostState *h;
	Plan *p;

	CHECK_INTEQ(pass(allow, &changed), 1);
	CHECK_INTEQ(changed, 1);
	CHECK_STREQ(nft_ok("list table inet rdmad"), want);
	/* converged: nothing planned, and the same plan applied again writes nothing */
	h = observe();
	p = plan_of(allow, h);
	CHECK_INTEQ(p->n_actions, 0);
	plan_free(p);
	host_state_free(h);
	{
		HostState *empty = observe();
		Plan *q;
		unsigned unchanged;

		/* a plan made before the table existed, applied now: read, found, not written */
		firewall_state_done(&empty->firewall);
		q = plan_of(allow, empty);
		CHECK_INTEQ(q->n_actions, 1);
		apply_all(state_dir, q, &changed, &unchanged);
		CHECK_INTEQ(changed, 0);
		CHECK_INTEQ(unchanged, 1);
		plan_free(q);
		host_state_free(empty);
	}
	CHECK_STREQ(nft_ok("list table inet admin"), admin);
}

TEST(put_back) {
	unsigned changed;

	/* an administrator deletes rdmad's table */
	CHECK(nft_ok("delete table inet rdmad") != NULL);
	CHECK_INTEQ(pass(allow, &changed), 1);
	CHECK_INTEQ(changed, 1);
	CHECK_STREQ(nft_ok("list table inet rdmad"), want);
	/* ... or changes the chain: its policy, a rule of theirs */
	CHECK(nft_ok("add chain inet rdmad r0 "
		     "{ type filter hook input priority -10; policy drop; }; "
		     "insert rule inet rdmad r0 udp dport 4791 accept") != NULL);
	CHECK_INTEQ(pass(allow, &changed), 1);
	CHECK_INTEQ(changed, 1);
	CHECK_STREQ(nft_ok("list table inet rdmad"), want);
	/* ... or flushes the whole ruleset: rdmad puts back its table, not theirs */
	CHECK(nft_ok("flush ruleset") != NULL);
	CHECK_INTEQ(pass(allow, &changed), 1);
	CHECK_STREQ(nft_ok("list table inet rdmad"), want);
	CHECK(nft_absent("list table inet admin"));
	/* theirs back, for the rest */
	CHECK(nft_ok(admin_table) != NULL);
	CHECK_STREQ(nft_ok("list table inet admin"), admin);
}

TEST(changed_and_removed) {
	unsigned changed;
	const char *l;

	CHECK_INTEQ(pass("match: {device: rxe0}\nsecurity:\n  roce-allow-from: [10.0.0.0/8]\n",
			 &changed),
		    1);
	l = nft_ok("list table inet rdmad");
	CHECK(l && strstr(l, "iifname \"r0\" ip saddr 10.0.0.0/8 udp dport 4791 accept\n\t\t"
			     "iifname \"r0\" udp dport 4791 drop\n\t}") != NULL);
	CHECK(l && strstr(l, "192.0.2.2") == NULL);
	/* an extra chain in rdmad's table is not rdmad's: a full pass removes it */
	CHECK(nft_ok("add chain inet rdmad stray") != NULL);
	CHECK_INTEQ(pass("match: {device: rxe0}\nsecurity:\n  roce-allow-from: [10.0.0.0/8]\n",
			 &changed),
		    1);
	CHECK(nft_absent("list chain inet rdmad stray"));
	/* no profile declares the key: the table goes */
	CHECK_INTEQ(pass("match: {device: rxe0}\ngids: {require: [roce-v2-ipv4]}\n", &changed), 1);
	CHECK_INTEQ(changed, 1);
	CHECK(nft_absent("list table inet rdmad"));
	CHECK_INTEQ(pass("match: {device: rxe0}\n", &changed), 0);
	CHECK_STREQ(nft_ok("list table inet admin"), admin);
}

/* the state directory the passes wrote to: empty again (no table left), removed */
TEST(state_dir_removed) {
	CHECK(rmdir(state_dir) == 0);
}

TESTS_MAIN(TEST_ENTRY(netns), TEST_ENTRY(made_and_converged), TEST_ENTRY(put_back),
	   TEST_ENTRY(changed_and_removed), TEST_ENTRY(state_dir_removed))
