/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network, QoS and security preflight checks on hand-built host states, sysctls in a scratch
 * root, given ip rules and routes, and nftables rulesets as libnftables 1.0.6 prints them. */
#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <sched.h>
#include <sys/socket.h>

#include "nftables-dl.h"
#include "preflight.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static const PreflightRow *row_find(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	return NULL;
}

static void row_print(const PreflightRow *r) {
	if (r)
		printf("#   %s %s %s: %s [fix: %s]\n", r->check, r->subject,
		       preflight_status_to_string(r->status), r->seen, strna(r->fix));
}

/* The row, printed, and its status checked. */
static const PreflightRow *row_expect(const Preflight *p, const char *check, const char *subject,
				      PreflightStatus status) {
	const PreflightRow *r = row_find(p, check, subject);

	CHECK(r != NULL);
	if (!r) {
		printf("#   no row %s %s\n", check, subject);
		return NULL;
	}
	row_print(r);
	CHECK_INTEQ(r->status, status);
	return r;
}

static void gid_add(HostPort *p, uint32_t index, const char *addr, GidType type) {
	Gid *g;

	p->gids = realloc(p->gids, sizeof(Gid) * (p->n_gids + 1));
	g = &p->gids[p->n_gids++];
	*g = (Gid){ .index = index, .type = type };
	CHECK(inet_pton(AF_INET6, addr, g->raw) == 1);
}

static HostDevice *host_add_device(HostState *h, const char *name, const char *driver,
				   const char *netdev) {
	HostDevice *d;

	h->devices = realloc(h->devices, sizeof(HostDevice) * (h->n_devices + 1));
	d = &h->devices[h->n_devices++];
	*d = (HostDevice){ .name = strdup(name),
			   .driver = strdup(driver),
			   .configfs_present = true };
	d->ports = calloc(1, sizeof(HostPort));
	d->n_ports = 1;
	d->ports[0] = (HostPort){
		.port = 1,
		.state = PORT_STATE_ACTIVE,
		.phys_state = PORT_PHYS_STATE_LINK_UP,
		.link_layer = LINK_LAYER_ETHERNET,
		.netdev = strdup(netdev),
		.has_roce_mode = true,
		.roce_mode = ROCE_MODE_V2,
	};
	return d;
}

static HostNetdev *host_add_netdev(HostState *h, const char *name, int ifindex, unsigned mtu) {
	HostNetdev *n;

	h->netdevs = realloc(h->netdevs, sizeof(HostNetdev) * (h->n_netdevs + 1));
	n = &h->netdevs[h->n_netdevs++];
	*n = (HostNetdev){ .name = strdup(name),
			   .ifindex = ifindex,
			   .mtu = mtu,
			   .up = true,
			   .operstate = strdup("up"),
			   .addresses_known = true };
	return n;
}

static void netdev_add_address(HostNetdev *n, const char *s) {
	n->addresses = realloc(n->addresses, sizeof(Address) * (n->n_addresses + 1));
	CHECK(address_from_string(s, &n->addresses[n->n_addresses++]) == 0);
}

/* rxe0 on veth0 (192.0.2.1/24, GIDs fe80 and ::ffff:192.0.2.1) and mlx5_0 on ens1f0np0
 * (198.51.100.1/24). Pointers into h move when more is added: look them up again. */
static HostState *host_new(void) {
	HostState *h = calloc(1, sizeof(HostState));
	HostNetdev *n;

	h->root = strdup("/");
	h->configfs_mounted = true;
	host_add_device(h, "mlx5_0", "mlx5_core", "ens1f0np0");
	host_add_device(h, "rxe0", "rdma_rxe", "veth0");
	gid_add(&h->devices[0].ports[0], 0, "fe80::1", GID_TYPE_ROCE_V2);
	gid_add(&h->devices[0].ports[0], 3, "::ffff:198.51.100.1", GID_TYPE_ROCE_V2);
	gid_add(&h->devices[1].ports[0], 0, "fe80::2", GID_TYPE_ROCE_V2);
	gid_add(&h->devices[1].ports[0], 1, "::ffff:192.0.2.1", GID_TYPE_ROCE_V2);
	n = host_add_netdev(h, "ens1f0np0", 2, 1500);
	netdev_add_address(n, "198.51.100.1/24");
	netdev_add_address(n, "fe80::1/64");
	n = host_add_netdev(h, "veth0", 3, 1500);
	netdev_add_address(n, "192.0.2.1/24");
	netdev_add_address(n, "fe80::2/64");
	return h;
}

static HostNetdev *netdev(HostState *h, const char *name) {
	return (HostNetdev *) host_netdev_find(h, name);
}

static HostPort *port(HostState *h, const char *device) {
	return ((HostDevice *) host_device_find(h, device))->ports;
}

/* Verbs facts: each device's port 1 with the active MTU given (NULL name ends). */
static void verbs_set(VerbsFacts *v, const char *device, unsigned active, unsigned max) {
	VerbsDevice *d;

	v->devices = realloc(v->devices, sizeof(VerbsDevice) * (v->n_devices + 1));
	d = &v->devices[v->n_devices++];
	*d = (VerbsDevice){ .name = strdup(device), .n_ports = 1 };
	d->ports = calloc(1, sizeof(VerbsPort));
	d->ports[0] = (VerbsPort){ .port = 1, .state = 4, .active_mtu = active, .max_mtu = max };
}

static void run_network(HostState *h, const VerbsFacts *v, const Config *c, Preflight *p) {
	PreflightInput in = { .root = "/nonexistent-root", .host = h, .config = c, .verbs = v };

	CHECK(preflight_network(p, &in) == 0);
}

TEST(healthy) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(verbs_facts_done) VerbsFacts v = { 0 };
	_cleanup_(preflight_done) Preflight p = { 0 };
	const PreflightRow *r;

	verbs_set(&v, "mlx5_0", 1024, 4096);
	verbs_set(&v, "rxe0", 1024, 4096);
	run_network(h, &v, NULL, &p);
	row_expect(&p, "network.port-state", "rxe0/1", PREFLIGHT_OK);
	row_expect(&p, "network.netdev", "rxe0/1", PREFLIGHT_OK);
	r = row_expect(&p, "network.mtu", "mlx5_0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "active MTU 1024"));
	row_expect(&p, "network.gid", "rxe0/1", PREFLIGHT_OK);
	r = row_expect(&p, "network.gid-index", "rxe0/1", PREFLIGHT_OK);
	CHECK_STREQ(r ? r->seen : NULL, "use GID index 1 (::ffff:192.0.2.1): NCCL_IB_GID_INDEX=1");
	r = row_expect(&p, "network.gid-index", "mlx5_0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "NCCL_IB_GID_INDEX=3"));
	row_expect(&p, "network.roce-mode", "mlx5_0/1", PREFLIGHT_OK);
	/* two RDMA netdevs in different subnets */
	r = row_expect(&p, "network.multi-rail", "host", PREFLIGHT_OK);
	CHECK_INTEQ(preflight_worst(&p), PREFLIGHT_OK);
}

TEST(port_and_netdev_down) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 };
	const PreflightRow *r;

	port(h, "rxe0")->state = PORT_STATE_DOWN;
	port(h, "rxe0")->phys_state = PORT_PHYS_STATE_DISABLED;
	netdev(h, "veth0")->up = false;
	free(netdev(h, "veth0")->operstate);
	netdev(h, "veth0")->operstate = strdup("down");
	port(h, "mlx5_0")->state = PORT_STATE_DOWN;
	port(h, "mlx5_0")->phys_state = PORT_PHYS_STATE_POLLING;
	free(netdev(h, "ens1f0np0")->operstate);
	netdev(h, "ens1f0np0")->operstate = strdup("down");
	run_network(h, NULL, NULL, &p);

	r = row_expect(&p, "network.port-state", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "DOWN") && strstr(r->seen, "DISABLED"));
	CHECK_STREQ(r ? r->fix : NULL, "ip link set dev veth0 up");
	r = row_expect(&p, "network.netdev", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->fix, "netdev: {up: true}"));
	r = row_expect(&p, "network.port-state", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "no link partner") && strstr(r->fix, "cable"));
	r = row_expect(&p, "network.netdev", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "operstate is down"));
}

TEST(mtu) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(verbs_facts_done) VerbsFacts v = { 0 };
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	const PreflightRow *r;

	/* the driver did not follow a change to 4200 (iboe_get_mtu: 4200 - 96 >= 4096) */
	netdev(h, "ens1f0np0")->mtu = 4200;
	/* 4000 gives 2048 in rxe (80 bytes of headers): 4176 would give 4096 */
	netdev(h, "veth0")->mtu = 4000;
	verbs_set(&v, "mlx5_0", 1024, 4096);
	verbs_set(&v, "rxe0", 2048, 4096);
	run_network(h, &v, NULL, &p);
	r = row_expect(&p, "network.mtu", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "active MTU 1024, but netdev MTU 4200 of ens1f0np0 gives 4096"));
	r = row_expect(&p, "network.mtu", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "netdev MTU 4000 of veth0 gives RoCE MTU 2048"));
	CHECK_STREQ(r ? r->fix : NULL, "netdev: {mtu: 4176}");

	/* 4192 is the least that gives 4096 through iboe_get_mtu(); 4191 wastes the step */
	netdev(h, "ens1f0np0")->mtu = 4191;
	v.devices[0].ports[0].active_mtu = 2048;
	run_network(h, &v, NULL, &q);
	r = row_expect(&q, "network.mtu", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK_STREQ(r ? r->fix : NULL, "netdev: {mtu: 4192}");
	/* a port that cannot do more than 2048 wastes nothing at 4191 */
	v.devices[0].ports[0].max_mtu = 2048;
	preflight_done(&q);
	run_network(h, &v, NULL, &q);
	row_expect(&q, "network.mtu", "mlx5_0/1", PREFLIGHT_OK);

	/* no verbs facts: said so; the netdev MTU alone still judged */
	run_network(h, NULL, NULL, &u);
	r = row_expect(&u, "network.mtu", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "could not be read"));
	netdev(h, "veth0")->mtu = 9000;
	preflight_done(&u);
	run_network(h, NULL, NULL, &u);
	r = row_expect(&u, "network.mtu", "rxe0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "could not be read") && strstr(r->seen, "RoCE MTU 4096"));
}

TEST(gids) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 };
	const PreflightRow *r;
	HostPort *m;

	netdev_add_address(netdev(h, "veth0"), "198.18.0.1/15");
	netdev_add_address(netdev(h, "veth0"), "2001:db8::1/64");
	/* mlx5_0 has only its link-local GID and a RoCE v1 one: no GID index for jobs */
	m = port(h, "mlx5_0");
	m->n_gids = 1;
	gid_add(m, 1, "::ffff:198.51.100.1", GID_TYPE_ROCE_V1);
	run_network(h, NULL, NULL, &p);
	r = row_expect(&p, "network.gid", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "no RoCE v2 GID for 198.18.0.1, 2001:db8::1 (of the 3 "
				   "addresses of veth0)"));
	row_expect(&p, "network.gid-index", "rxe0/1", PREFLIGHT_OK);
	r = row_expect(&p, "network.gid", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "198.51.100.1"));
	r = row_expect(&p, "network.gid-index", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->fix, "ens1f0np0"));

	/* addresses not known: said, not guessed */
	netdev(h, "veth0")->addresses_known = false;
	preflight_done(&p);
	run_network(h, NULL, NULL, &p);
	r = row_expect(&p, "network.gid", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "could not be read"));
}

TEST(roce_mode) {
	static const char *const v1[] = { "match: {device: mlx5_0}\nroce: {mode: v1}\n", NULL };
	static const char *const v2[] = { "roce: {mode: v2}\n", NULL };
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(config_freep) Config *c1 = config_from(v1), *c2 = config_from(v2);
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	const PreflightRow *r;

	port(h, "mlx5_0")->roce_mode = ROCE_MODE_V1;
	port(h, "rxe0")->roce_mode = ROCE_MODE_V1;
	run_network(h, NULL, c1, &p);
	/* declared v1: as wanted */
	r = row_expect(&p, "network.roce-mode", "mlx5_0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "00-test.yaml"));
	r = row_expect(&p, "network.roce-mode", "rxe0/1", PREFLIGHT_WARN);
	CHECK_STREQ(r ? r->fix : NULL, "roce: {mode: v2}");
	/* declared v2, still v1: rdmad has not converged */
	run_network(h, NULL, c2, &q);
	r = row_expect(&q, "network.roce-mode", "rxe0/1", PREFLIGHT_WARN);
	CHECK_STREQ(r ? r->fix : NULL, "rdmactl reconcile");

	/* no configfs directory: the kernel's default, v2 where the port has RoCE v2 GIDs */
	port(h, "rxe0")->has_roce_mode = false;
	((HostDevice *) host_device_find(h, "rxe0"))->configfs_present = false;
	port(h, "mlx5_0")->has_roce_mode = false;
	((HostDevice *) host_device_find(h, "mlx5_0"))->configfs_present = false;
	for (size_t i = 0; i < port(h, "mlx5_0")->n_gids; i++)
		port(h, "mlx5_0")->gids[i].type = GID_TYPE_ROCE_V1;
	run_network(h, NULL, NULL, &u);
	r = row_expect(&u, "network.roce-mode", "rxe0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "not set") && strstr(r->seen, "RoCE v2"));
	r = row_expect(&u, "network.roce-mode", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "RoCE v1"));
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	return remove(path);
}

/* Two Soft-RoCE netdevs in 192.0.2.0/24: veth0 source-routed with its sysctls set, veth1
 * neither. */
TEST(multi_rail) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	char root[] = "/tmp/test-preflight-net-XXXXXX";
	PreflightRule rule = { .family = AF_INET, .src_len = 32, .table = 103 };
	PreflightRoute routes[] = {
		{ .family = AF_INET, .table = 103, .oif = 3 },
		{ .family = AF_INET, .table = 254, .oif = 4 }, /* main: does not count */
	};
	PreflightRouting routing = { .rules = &rule,
				     .n_rules = 1,
				     .routes = routes,
				     .n_routes = ELEMENTSOF(routes) };
	PreflightInput in = { .host = h };
	const PreflightRow *r;
	HostNetdev *n;

	host_add_device(h, "rxe1", "rdma_rxe", "veth1");
	n = host_add_netdev(h, "veth1", 4, 1500);
	netdev_add_address(n, "192.0.2.2/24");
	netdev_add_address(n, "fe80::3/64"); /* link-local: every netdev shares fe80::/64 */
	CHECK(inet_pton(AF_INET, "192.0.2.1", rule.src) == 1);

	CHECK(mkdtemp(root) != NULL);
	in.root = root;
	put_file(root, "/proc/sys/net/ipv4/conf/all/arp_ignore", "0\n");
	put_file(root, "/proc/sys/net/ipv4/conf/all/arp_announce", "0\n");
	put_file(root, "/proc/sys/net/ipv4/conf/all/rp_filter", "0\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth0/arp_ignore", "1\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth0/arp_announce", "2\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth0/rp_filter", "2\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth1/arp_ignore", "0\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth1/arp_announce", "0\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth1/rp_filter", "1\n");

	CHECK(preflight_multi_rail(&p, &in, &routing) == 0);
	r = row_expect(&p, "network.multi-rail", "veth0", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "shares 192.0.2.0/24 with veth1") &&
	      strstr(r->seen, "lookup 103"));
	r = row_expect(&p, "network.multi-rail", "veth1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "veth1 and veth0 have addresses in 192.0.2.0/24"));
	CHECK(r && strstr(r->seen, "no ip rule from 192.0.2.2") &&
	      strstr(r->seen, "arp_ignore is 0") && strstr(r->seen, "rp_filter is 1"));
	CHECK_STREQ(
		r ? r->fix : NULL,
		"ip route add 192.0.2.0/24 dev veth1 table 104; ip rule add from 192.0.2.2 "
		"table 104; sysctl -w net.ipv4.conf.veth1.arp_ignore=1; sysctl -w "
		"net.ipv4.conf.veth1.arp_announce=2; sysctl -w net.ipv4.conf.veth1.rp_filter=2");
	CHECK(row_find(&p, "network.multi-rail", "ens1f0np0") == NULL);
	CHECK(row_find(&p, "network.multi-rail", "host") == NULL);

	/* conf/all raises the effective value (the kernel takes the larger) */
	put_file(root, "/proc/sys/net/ipv4/conf/all/rp_filter", "1\n");
	put_file(root, "/proc/sys/net/ipv4/conf/veth0/rp_filter", "0\n");
	CHECK(preflight_multi_rail(&q, &in, &routing) == 0);
	r = row_expect(&q, "network.multi-rail", "veth0", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "rp_filter is 1") && !strstr(r->seen, "no ip rule"));

	/* the whole check under a fixture root: the rules cannot be read, and it says so */
	run_network(h, NULL, NULL, &u);
	r = row_expect(&u, "network.multi-rail", "veth0", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "ip rules were not read"));
	CHECK(r && strstr(r->seen, "arp_ignore could not be read"));

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* rxe's send_err: none, some, most (the socket filtered); no row without the counter. */
TEST(send_errors) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	char root[] = "/tmp/test-preflight-net-XXXXXX";
	const char *dir = "/sys/class/infiniband/rxe0/ports/1/hw_counters";
	PreflightInput in = { .host = h };
	char path[256];
	const PreflightRow *r;

	CHECK(mkdtemp(root) != NULL);
	in.root = root;
	snprintf(path, sizeof(path), "%s/send_err", dir);
	put_file(root, path, "0\n");
	snprintf(path, sizeof(path), "%s/sent_pkts", dir);
	put_file(root, path, "1234\n");
	CHECK(preflight_network(&p, &in) == 0);
	r = row_expect(&p, "network.send-errors", "rxe0/1", PREFLIGHT_OK);
	CHECK_STREQ(r ? r->seen : NULL, "no send errors (hw_counters/send_err 0, sent_pkts 1234)");
	CHECK(row_find(&p, "network.send-errors", "mlx5_0/1") == NULL);

	snprintf(path, sizeof(path), "%s/send_err", dir);
	put_file(root, path, "3\n");
	CHECK(preflight_network(&q, &in) == 0);
	r = row_expect(&q, "network.send-errors", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "send_err 3, sent_pkts 1234") && strstr(r->seen, "some"));

	/* what rdmad.service's IPAddressDeny= did to the links it made: nothing left */
	put_file(root, path, "2774140\n");
	snprintf(path, sizeof(path), "%s/sent_pkts", dir);
	put_file(root, path, "0\n");
	CHECK(preflight_network(&u, &in) == 0);
	r = row_expect(&u, "network.send-errors", "rxe0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "send_err 2774140, sent_pkts 0") && strstr(r->seen, "most"));
	CHECK(r && r->fix && strstr(r->fix, "IPAddressDeny=") &&
	      strstr(r->fix, "rdma link delete rxe0"));
	CHECK_INTEQ(preflight_worst(&u), PREFLIGHT_FAIL);

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* QoS */

static void dcb_set(HostNetdev *n, uint8_t pfc_en) {
	n->dcb_observed = true;
	n->dcb = (DcbState){ .has_ets = true, .has_pfc = true, .has_dcbx = true };
	n->dcb.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	n->dcb.pfc.pfc_cap = 8;
	n->dcb.pfc.pfc_en = pfc_en;
}

static void run_qos(HostState *h, const Config *c, const char *root, Preflight *p) {
	PreflightInput in = { .root = root, .host = h, .config = c };

	CHECK(preflight_qos(p, &in) == 0);
}

TEST(qos) {
	static const char *const texts[] = { "qos: {pfc: [3, 4], trust: dscp}\n", NULL };
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(config_freep) Config *c = config_from(texts);
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 }, u = { 0 };
	char root[] = "/tmp/test-preflight-qos-XXXXXX";
	const PreflightRow *r;
	HostNetdev *n;

	CHECK(mkdtemp(root) != NULL);
	put_file(root, "/proc/1/comm", "systemd\n");
	n = netdev(h, "ens1f0np0");
	dcb_set(n, 1u << 3);
	n->dcb.dscp_prio[26] = 0; /* no DSCP app entries: trust is pcp */
	netdev(h, "veth0")->dcb_observed = true;
	netdev(h, "veth0")->dcb_error = -EOPNOTSUPP;
	run_qos(h, c, root, &p);
	r = row_expect(&p, "qos.pfc", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "off on ens1f0np0 for priorities [4]"));
	CHECK(r && strstr(r->fix, "rdmactl reconcile"));
	r = row_expect(&p, "qos.trust", "mlx5_0/1", PREFLIGHT_FAIL);
	CHECK(r && strstr(r->seen, "trusts pcp") && strstr(r->seen, "declares dscp"));
	r = row_expect(&p, "qos.owner", "mlx5_0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "no lldpad"));
	row_expect(&p, "qos.dcb", "mlx5_0/1", PREFLIGHT_OK);
	r = row_expect(&p, "qos.dcb", "rxe0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "no DCB") && strstr(r->seen, "Soft-RoCE"));
	CHECK(row_find(&p, "qos.pfc", "rxe0/1") == NULL);

	/* PFC and trust as declared; an LLDP agent with the willing bit owns the port */
	n = netdev(h, "ens1f0np0");
	dcb_set(n, (1u << 3) | (1u << 4));
	n->dcb.dscp_prio[26] = 1u << 3;
	n->dcb.ets.willing = 1;
	run_qos(h, c, root, &q);
	row_expect(&q, "qos.pfc", "mlx5_0/1", PREFLIGHT_OK);
	row_expect(&q, "qos.trust", "mlx5_0/1", PREFLIGHT_OK);
	r = row_expect(&q, "qos.owner", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "willing") && strstr(r->seen, "leaves its DCB alone"));
	CHECK(r && strstr(r->fix, "qos: {owner: rdmad}"));

	/* lldpad running, port not willing: rdmad writes, and they may fight */
	n->dcb.ets.willing = 0;
	put_file(root, "/proc/4242/comm", "lldpad\n");
	run_qos(h, c, root, &u);
	r = row_expect(&u, "qos.owner", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "lldpad is running"));

	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TEST(qos_undeclared) {
	static const char *const texts[] = { "roce: {tos: 106}\n", NULL };
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(config_freep) Config *c = config_from(texts);
	_cleanup_(preflight_done) Preflight p = { 0 };

	dcb_set(netdev(h, "ens1f0np0"), 0);
	run_qos(h, c, "/nonexistent-root", &p);
	CHECK_INTEQ(p.n_rows, 0);
}

/* Security: rulesets as libnftables 1.0.6 prints `list ruleset` in JSON. */

#define META	   "{\"metainfo\": {\"version\": \"1.0.6\", \"json_schema_version\": 1}}"
#define INET_TABLE "{\"table\": {\"family\": \"inet\", \"name\": \"filter\", \"handle\": 1}}"
#define INET_INPUT(policy)                                                                    \
	"{\"chain\": {\"family\": \"inet\", \"table\": \"filter\", \"name\": \"input\", "     \
	"\"handle\": 1, \"type\": \"filter\", \"hook\": \"input\", \"prio\": 0, \"policy\": " \
	"\"" policy "\"}}"
#define RULE(handle, expr)                                                                \
	"{\"rule\": {\"family\": \"inet\", \"table\": \"filter\", \"chain\": \"input\", " \
	"\"handle\": " #handle ", \"expr\": [" expr "]}}"
#define UDP_DPORT(right)                                                                \
	"{\"match\": {\"op\": \"==\", \"left\": {\"payload\": {\"protocol\": \"udp\", " \
	"\"field\": \"dport\"}}, \"right\": " right "}}"
#define SADDR(op, addr, len)                                                                      \
	"{\"match\": {\"op\": \"" op "\", \"left\": {\"payload\": {\"protocol\": \"ip\", "        \
	"\"field\": \"saddr\"}}, \"right\": {\"prefix\": {\"addr\": \"" addr "\", \"len\": " #len \
	"}}}}"
#define CT_ESTABLISHED                                                                       \
	"{\"match\": {\"op\": \"in\", \"left\": {\"ct\": {\"key\": \"state\"}}, \"right\": " \
	"[\"established\", \"related\"]}}"

static PreflightStatus judge(const char *json, const char *netdev, char **seen) {
	PreflightStatus s = _PREFLIGHT_STATUS_INVALID;

	free(*seen);
	*seen = NULL;
	CHECK(preflight_firewall_judge(json, netdev, &s, seen) == 0);
	printf("#   %s: %s\n", preflight_status_to_string(s), strna(*seen));
	return s;
}

TEST(firewall) {
	_cleanup_free_ char *seen = NULL;

	/* nothing at all */
	CHECK_INTEQ(judge("{\"nftables\": [" META "]}", "veth0", &seen), PREFLIGHT_WARN);
	CHECK(seen && strstr(seen, "open to every IPv4 and IPv6 source"));

	/* udp dport 4791 drop */
	CHECK_INTEQ(judge("{\"nftables\": [" META ", " INET_TABLE
			  ", " INET_INPUT("accept") ", " RULE(
				  2, UDP_DPORT("4791") ", {\"drop\": null}") "]}",
			  "veth0", &seen),
		    PREFLIGHT_OK);
	CHECK(seen && strstr(seen, "restricted by table inet filter chain input (rule handle 2 "
				   "drops it)"));

	/* a set { 4791, 4792 } accepted from 192.0.2.0/24, then policy drop: IPv4 restricted
	 * to a subnet, IPv6 dropped */
	CHECK_INTEQ(
		judge("{\"nftables\": [" META ", " INET_TABLE ", " INET_INPUT("drop") ", " RULE(
			      2, CT_ESTABLISHED
			      ", {\"accept\": "
			      "null}") ", " RULE(4,
						 UDP_DPORT("{\"set\": [4791, 4792]}") ", " SADDR(
							 "==", "192.0.2.0",
							 24) ", {\"accept\": null}") "]}",
		      "veth0", &seen),
		PREFLIGHT_OK);
	CHECK(seen && strstr(seen, "policy drop, rules accept some sources"));

	/* an inet chain with policy accept and nothing about 4791 (ssh, loopback) */
	CHECK_INTEQ(
		judge("{\"nftables\": [" META ", " INET_TABLE ", " INET_INPUT("accept") ", " RULE(
			      2,
			      "{\"match\": {\"op\": \"==\", \"left\": {\"payload\": "
			      "{\"protocol\": \"tcp\", \"field\": \"dport\"}}, \"right\": 22}}, "
			      "{\"accept\": null}") ", " RULE(3,
							      "{\"match\": {\"op\": \"==\", "
							      "\"left\": {\"meta\": {\"key\": "
							      "\"iifname\"}}, \"right\": \"lo\"}}, "
							      "{\"accept\": null}") "]}",
		      "veth0", &seen),
		PREFLIGHT_WARN);
	CHECK(seen && strstr(seen, "open to every IPv4 and IPv6 source"));

	/* ip saddr != subnet drop: IPv4 restricted, IPv6 (which ip saddr never matches) open */
	CHECK_INTEQ(judge("{\"nftables\": [" META ", " INET_TABLE
			  ", " INET_INPUT("accept") ", " RULE(
				  2, SADDR("!=", "192.0.2.0",
					   24) ", " UDP_DPORT("4791") ", {\"drop\": null}") "]}",
			  "veth0", &seen),
		    PREFLIGHT_WARN);
	CHECK(seen && strstr(seen, "open to every IPv6 source") && strstr(seen, "policy accept"));
	/* a port range accepted before the policy drop: open */
	CHECK_INTEQ(
		judge("{\"nftables\": [" META ", " INET_TABLE ", " INET_INPUT("drop") ", " RULE(
			      2,
			      UDP_DPORT("{\"range\": [4000, 5000]}") ", {\"accept\": null}") "]}",
		      "veth0", &seen),
		PREFLIGHT_WARN);
	CHECK(seen && strstr(seen, "accepts it"));

	/* iifname of another netdev: does not restrict veth0 */
	CHECK_INTEQ(judge("{\"nftables\": [" META ", " INET_TABLE
			  ", " INET_INPUT("accept") ", " RULE(
				  2, "{\"match\": {\"op\": \"==\", \"left\": {\"meta\": {\"key\": "
				     "\"iifname\"}}, \"right\": \"eth*\"}}, " UDP_DPORT(
					     "4791") ", {\"drop\": null}") "]}",
			  "veth0", &seen),
		    PREFLIGHT_WARN);
	CHECK_INTEQ(judge("{\"nftables\": [" META ", " INET_TABLE
			  ", " INET_INPUT("accept") ", " RULE(
				  2, "{\"match\": {\"op\": \"==\", \"left\": {\"meta\": {\"key\": "
				     "\"iifname\"}}, \"right\": \"veth*\"}}, " UDP_DPORT(
					     "4791") ", {\"drop\": null}") "]}",
			  "veth0", &seen),
		    PREFLIGHT_OK);

	/* a rule this judge does not follow, accepting before the drop: cannot tell */
	CHECK_INTEQ(judge("{\"nftables\": [" META ", " INET_TABLE ", " INET_INPUT("drop") ", " RULE(
				  2, "{\"match\": {\"op\": \"==\", \"left\": {\"meta\": {\"key\": "
				     "\"mark\"}}, \"right\": 1}}, {\"accept\": null}") "]}",
			  "veth0", &seen),
		    PREFLIGHT_WARN);
	CHECK(seen && strstr(seen, "could not tell") && strstr(seen, "handle 2"));

	/* rdmad's own table (security.roce-allow-from), as libnftables lists it */
	CHECK_INTEQ(
		judge("{\"nftables\": [" META ", "
		      "{\"table\": {\"family\": \"inet\", \"name\": \"rdmad\", \"handle\": 1}}, "
		      "{\"chain\": {\"family\": \"inet\", \"table\": \"rdmad\", \"name\": "
		      "\"veth0\", \"handle\": 1, \"type\": \"filter\", \"hook\": \"input\", "
		      "\"prio\": -10, \"policy\": \"accept\"}}, "
		      "{\"rule\": {\"family\": \"inet\", \"table\": \"rdmad\", \"chain\": "
		      "\"veth0\", \"handle\": 2, \"expr\": [{\"match\": {\"op\": \"==\", "
		      "\"left\": {\"meta\": {\"key\": \"iifname\"}}, \"right\": "
		      "\"veth0\"}}, " SADDR("==", "192.0.2.0", 24) ", " UDP_DPORT(
			      "4791") ", {\"accept\": null}]}}, "
				      "{\"rule\": {\"family\": \"inet\", \"table\": \"rdmad\", "
				      "\"chain\": "
				      "\"veth0\", \"handle\": 3, \"expr\": [{\"match\": {\"op\": "
				      "\"==\", "
				      "\"left\": {\"meta\": {\"key\": \"iifname\"}}, \"right\": "
				      "\"veth0\"}}, " UDP_DPORT("4791") ", {\"drop\": null}]}}]}",
		      "veth0", &seen),
		PREFLIGHT_OK);
	CHECK(seen && strstr(seen, "table inet rdmad"));

	CHECK(preflight_firewall_judge("[]", "veth0", &(PreflightStatus){ 0 }, &seen) == -EBADMSG);
}

TEST(security_rows) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	PreflightInput in = { .root = "/nonexistent-root", .host = h };
	const PreflightRow *r;

	h->has_netns_mode = true;
	h->netns_mode = NETNS_MODE_SHARED;
	h->modules = strv_copy((char *[]){ "ip_tables", NULL });
	CHECK(preflight_security(&p, &in) == 0);
	r = row_expect(&p, "security.offload", "mlx5_0/1", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "never sees it") && strstr(r->seen, "switch ACLs"));
	CHECK(r && strstr(r->fix, "netns-mode: exclusive"));
	r = row_expect(&p, "security.roce-firewall", "veth0", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "not checked") && strstr(r->seen, "/nonexistent-root"));
	CHECK(row_find(&p, "security.offload", "rxe0/1") == NULL);

	h->netns_mode = NETNS_MODE_EXCLUSIVE;
	CHECK(preflight_security(&q, &in) == 0);
	r = row_expect(&q, "security.offload", "mlx5_0/1", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "never sees it") && strstr(r->seen, "exclusive"));
}

/* The real libnftables, in a network namespace of our own (root only; last, since the process
 * stays in it): an empty ruleset is open, a drop rule restricts. */
#ifdef PREFLIGHT_NET_LIVE
TEST(firewall_live) {
	_cleanup_(host_state_freep) HostState *h = host_new();
	_cleanup_(preflight_done) Preflight p = { 0 }, q = { 0 };
	PreflightInput in = { .root = "/", .host = h };
	struct nft_ctx *ctx;
	const PreflightRow *r;

	/* Built as test-preflight-net-live, in the fixture suite, which runs as root. */
	if (geteuid() != 0 || unshare(CLONE_NEWNET) < 0) {
		printf("# needs root for a private network namespace: %s\n",
		       geteuid() != 0 ? "not root" : strerror(errno));
		test_failed = 1;
		return;
	}
	h->modules = strv_copy((char *[]){ "ip_tables", NULL });
	CHECK(preflight_security(&p, &in) == 0);
	r = row_expect(&p, "security.roce-firewall", "veth0", PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "open to every IPv4 and IPv6 source"));
	CHECK(r && strstr(r->seen, "Legacy iptables rules (ip_tables is loaded) are not read"));
	CHECK(r && strstr(r->fix, "iifname veth0 udp dport 4791"));

	CHECK(dlopen_nftables(NULL) >= 0);
	ctx = sym_nft_ctx_new(NFT_CTX_DEFAULT);
	CHECK(ctx != NULL && sym_nft_ctx_buffer_error(ctx) == 0);
	CHECK(sym_nft_run_cmd_from_buffer(ctx,
					  "add table inet filter\n"
					  "add chain inet filter input { type filter hook input "
					  "priority 0; policy accept; }\n"
					  "add rule inet filter input iifname \"veth*\" udp dport "
					  "{ 4791, 4792 } ip saddr != 192.0.2.0/24 drop\n"
					  "add rule inet filter input meta nfproto ipv6 udp dport "
					  "4791 drop\n") == 0);
	if (test_failed) { /* libnftables' first line: the others show the command */
		const char *e = strempty(sym_nft_ctx_get_error_buffer(ctx));

		printf("# nft: %.*s\n", (int) strcspn(e, "\n"), e);
	}
	sym_nft_ctx_free(ctx);
	CHECK(preflight_security(&q, &in) == 0);
	r = row_expect(&q, "security.roce-firewall", "veth0", PREFLIGHT_OK);
	CHECK(r && strstr(r->seen, "IPv4 by table inet filter chain input") &&
	      strstr(r->seen, "IPv6 by table inet filter chain input (rule handle 4 drops it)"));
}

#define LIVE_TESTS , TEST_ENTRY(firewall_live)
#else
#define LIVE_TESTS
#endif

TESTS_MAIN(TEST_ENTRY(healthy), TEST_ENTRY(send_errors), TEST_ENTRY(port_and_netdev_down),
	   TEST_ENTRY(mtu), TEST_ENTRY(gids), TEST_ENTRY(roce_mode), TEST_ENTRY(multi_rail),
	   TEST_ENTRY(qos), TEST_ENTRY(qos_undeclared), TEST_ENTRY(firewall),
	   TEST_ENTRY(security_rows) LIVE_TESTS)
