/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* netdev.rail-routing through observe, plan and apply in a private network namespace (needs
 * root, as test-apply-rtnl does): two veth rails in one subnet get their tables, rules and
 * sysctls; a second pass is planned empty and re-applying writes nothing; traffic from each
 * address leaves by its own rail; removing the key takes away rdmad's rules and routes only
 * and puts the sysctls back. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include "apply.h"
#include "tests.h"
#include "test-util.h"

static char state_dir[] = "/tmp/rdmad-test-apply-rail-XXXXXX";

static char *run(const char *cmd) {
	static char buf[4096];
	size_t n;
	FILE *f;

	buf[0] = 0;
	f = popen(cmd, "r");
	if (!f)
		return buf;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	pclose(f);
	return buf;
}

static int sysctl_of(const char *netdev, const char *name) {
	char path[128], buf[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/net/ipv4/conf/%s/%s", netdev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return atoi(buf);
}

static void host_add(HostState *h, const char *dev, const char *netdev) {
	HostDevice *d;

	h->devices = realloc(h->devices, sizeof(HostDevice) * (h->n_devices + 1));
	d = &h->devices[h->n_devices++];
	*d = (HostDevice){ .name = strdup(dev),
			   .driver = strdup("rdma_rxe"),
			   .parent = strdup(netdev) };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){ .port = 1,
				  .link_layer = LINK_LAYER_ETHERNET,
				  .netdev = strdup(netdev) };
	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	h->netdevs[h->n_netdevs++] = (HostNetdev){ .name = strdup(netdev) };
}

/* What host_observe() would see of rxe0 on r0 and rxe1 on r2 (sysfs shows the namespace it was
 * mounted in, so the devices are made up; everything else is this namespace's). */
static HostState *observe(void) {
	HostState *h = calloc(1, sizeof(HostState));

	h->root = strdup("/");
	host_add(h, "rxe0", "r0");
	host_add(h, "rxe1", "r2");
	CHECK_INTEQ(host_addresses_observe(h), 0);
	for (size_t i = 0; i < h->n_netdevs; i++)
		CHECK_INTEQ(host_rail_sysctls_observe(h, &h->netdevs[i]), 0);
	CHECK_INTEQ(host_rail_routing_observe(h), 0);
	CHECK(h->rails_observed);
	CHECK_INTEQ(host_records_observe(h, state_dir), 0);
	return h;
}

TEST(netns) {
	if (unshare(CLONE_NEWNET) < 0) {
		printf("Bail out! unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		exit(1);
	}
	CHECK(mkdtemp(state_dir) != NULL);
	CHECK(system("ip link set lo up && "
		     "ip link add r0 type veth peer name r1 && "
		     "ip link add r2 type veth peer name r3 && "
		     "for i in r0 r1 r2 r3; do ip link set $i up; done && "
		     "ip addr add 192.0.2.1/24 dev r0 && ip addr add 192.0.2.2/24 dev r2 && "
		     "ip addr add 2001:db8::1/64 dev r0 nodad") == 0);
}

TEST(rails) {
	const char *yes = "netdev: {rail-routing: true}\n";
	unsigned t0 = 10000 + if_nametoindex("r0"), t2 = 10000 + if_nametoindex("r2");
	int before[2][3];
	unsigned changed, unchanged;
	HostState *h;
	Plan *p, *again;
	char cmd[256], want[256];

	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "arp_ignore", "arp_announce", "rp_filter" };

		before[0][i] = sysctl_of("r0", names[i]);
		before[1][i] = sysctl_of("r2", names[i]);
	}
	/* someone else's rule at rdmad's priority, in a table rdmad does not use */
	CHECK(system("ip rule add from 192.0.2.77 lookup 4242 priority 32000") == 0);

	h = observe();
	p = plan_of(yes, h);
	/* 3 sysctls, a route and a rule on each; r0 has an IPv6 address too: 2 more */
	CHECK_INTEQ(plan_pending(p), 12);
	apply_all(state_dir, p, &changed, &unchanged);
	CHECK_INTEQ(changed, 12);
	host_state_free(h);

	snprintf(cmd, sizeof(cmd), "ip -4 route show table %u", t0);
	CHECK_STREQ(run(cmd), "192.0.2.0/24 dev r0 proto 211 scope link src 192.0.2.1 \n");
	snprintf(cmd, sizeof(cmd), "ip -4 route show table %u", t2);
	CHECK_STREQ(run(cmd), "192.0.2.0/24 dev r2 proto 211 scope link src 192.0.2.2 \n");
	snprintf(cmd, sizeof(cmd), "ip -6 route show table %u | grep -c '2001:db8::/64 dev r0'",
		 t0);
	CHECK_STREQ(run(cmd), "1\n");
	snprintf(want, sizeof(want), "32000:\tfrom 192.0.2.1 lookup %u\n", t0);
	CHECK(strstr(run("ip -4 rule show priority 32000"), want));
	snprintf(want, sizeof(want), "32000:\tfrom 192.0.2.2 lookup %u\n", t2);
	CHECK(strstr(run("ip -4 rule show priority 32000"), want));
	snprintf(want, sizeof(want), "32000:\tfrom 2001:db8::1 lookup %u\n", t0);
	CHECK(strstr(run("ip -6 rule show priority 32000"), want));
	CHECK_INTEQ(sysctl_of("r0", "arp_ignore"), 1);
	CHECK_INTEQ(sysctl_of("r2", "arp_announce"), 2);
	CHECK_INTEQ(sysctl_of("r2", "rp_filter"), 2);
	/* each address's traffic leaves by its own rail */
	CHECK(strstr(run("ip route get 192.0.2.100 from 192.0.2.2"), "dev r2"));
	CHECK(strstr(run("ip route get 192.0.2.100 from 192.0.2.1"), "dev r0"));
	CHECK(strstr(run("ip route get 2001:db8::100 from 2001:db8::1"), "dev r0"));

	/* converged: nothing planned, and the old plan applied again writes nothing */
	h = observe();
	again = plan_of(yes, h);
	CHECK_INTEQ(again->n_actions, 0);
	for (size_t i = 0; i < again->n_actions; i++)
		printf("#   left: %s\n", again->actions[i].desired);
	plan_free(again);
	host_state_free(h);
	apply_all(state_dir, p, &changed, &unchanged);
	CHECK_INTEQ(changed, 0);
	CHECK_INTEQ(unchanged, 12);
	plan_free(p);

	/* an address added later gets its rule on the next pass */
	CHECK(system("ip addr add 192.0.2.12/24 dev r2") == 0);
	h = observe();
	p = plan_of(yes, h);
	CHECK_INTEQ(p->n_actions, 1);
	if (p->n_actions == 1) {
		snprintf(want, sizeof(want), "from 192.0.2.12 lookup %u", t2);
		CHECK_STREQ(p->actions[0].desired, want);
	}
	apply_all(state_dir, p, &changed, &unchanged);
	CHECK_INTEQ(changed, 1);
	plan_free(p);
	host_state_free(h);
	CHECK(strstr(run("ip route get 192.0.2.100 from 192.0.2.12"), "dev r2"));

	/* the administrator's own route in rdmad's table stays */
	snprintf(cmd, sizeof(cmd), "ip route add 198.51.100.0/24 dev r0 table %u", t0);
	CHECK(system(cmd) == 0);

	/* no profile declares it any more: everything of rdmad's goes, sysctls as they were */
	h = observe();
	CHECK_INTEQ(h->n_rail_records, 2);
	p = plan_of("netdev: {up: true}\n", h);
	apply_all(state_dir, p, &changed, &unchanged);
	CHECK_INTEQ(unchanged, 0);
	plan_free(p);
	host_state_free(h);
	CHECK_STREQ(run("ip rule show priority 32000"), "32000:\tfrom 192.0.2.77 lookup 4242\n");
	CHECK_STREQ(run("ip -6 rule show priority 32000"), "");
	snprintf(cmd, sizeof(cmd), "ip route show table %u", t0);
	CHECK_STREQ(run(cmd), "198.51.100.0/24 dev r0 scope link \n");
	snprintf(cmd, sizeof(cmd), "ip route show table all proto 211");
	CHECK_STREQ(run(cmd), "");
	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "arp_ignore", "arp_announce", "rp_filter" };

		CHECK_INTEQ(sysctl_of("r0", names[i]), before[0][i]);
		CHECK_INTEQ(sysctl_of("r2", names[i]), before[1][i]);
	}
	h = observe();
	CHECK_INTEQ(h->n_rail_records, 0);
	p = plan_of("netdev: {up: true}\n", h);
	CHECK_INTEQ(p->n_actions, 0);
	plan_free(p);
	host_state_free(h);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", state_dir);
	CHECK(system(cmd) == 0);
}

TESTS_MAIN(TEST_ENTRY(netns), TEST_ENTRY(rails))
