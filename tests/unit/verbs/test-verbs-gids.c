/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl gids' verbs reader: an entry of ibv_query_gid_table()'s answer becomes the Gid the
 * sysfs reader makes of the same slot; and under a fixture root, which the live kernel knows
 * nothing of, every device falls back to sysfs through the sysfs reader's own code, so the
 * tables and the errors are those of host_observe(HOST_OBSERVE_GIDS). The query itself needs
 * a kernel with RDMA devices: the VM scenario rdmactl.sh compares the two paths there. */
#include <infiniband/verbs.h>

#include "gid.h"
#include "strv.h"
#include "tests.h"
#include "verbs-gids.h"

static struct ibv_gid_entry entry(const char *gid, uint32_t type, uint32_t ifindex) {
	struct ibv_gid_entry e = { .gid_index = 3,
				   .port_num = 1,
				   .gid_type = type,
				   .ndev_ifindex = ifindex };

	CHECK_INTEQ(gid_parse(gid, e.gid.raw), 0);
	return e;
}

#define V4  "0000:0000:0000:0000:0000:ffff:c000:0201"
#define LL  "fe80:0000:0000:0000:a810:7cff:fe3e:9102"
#define IB0 "fe80:0000:0000:0000:b859:9f03:00d4:5a10"

TEST(entry_as_sysfs_reads_it) {
	struct ibv_gid_entry e;
	Gid g, untouched = { .index = 77 };

	e = entry(V4, IBV_GID_TYPE_ROCE_V2, 1); /* ifindex 1: lo in every network namespace */
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), 1);
	CHECK_INTEQ(g.index, 3);
	CHECK(memcmp(g.raw, e.gid.raw, 16) == 0);
	CHECK_INTEQ(g.type, GID_TYPE_ROCE_V2);
	CHECK_STREQ(g.netdev, "lo");

	/* "IB/RoCE v1" in sysfs: RoCE v1 on Ethernet, IB on InfiniBand, whichever number the
	 * kernel gave it */
	e = entry(LL, IBV_GID_TYPE_ROCE_V1, 1);
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), 1);
	CHECK_INTEQ(g.type, GID_TYPE_ROCE_V1);
	e = entry(LL, IBV_GID_TYPE_IB, 1);
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), 1);
	CHECK_INTEQ(g.type, GID_TYPE_ROCE_V1);
	e = entry(IB0, IBV_GID_TYPE_IB, 0); /* an IB GID has no netdev */
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_INFINIBAND, &g), 1);
	CHECK_INTEQ(g.type, GID_TYPE_IB);
	CHECK_STREQ(g.netdev, "");
	e = entry(IB0, IBV_GID_TYPE_ROCE_V1, 0);
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_INFINIBAND, &g), 1);
	CHECK_INTEQ(g.type, GID_TYPE_IB);

	/* what sysfs does not list, or lists otherwise: *ret untouched */
	g = untouched;
	e = entry("0000:0000:0000:0000:0000:0000:0000:0000", IBV_GID_TYPE_ROCE_V2, 1);
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), 0);
	e = entry(V4, 7, 1);
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), -EINVAL);
	e = entry(V4, IBV_GID_TYPE_ROCE_V2, 0x7ffffff0); /* no such netdev here */
	CHECK_INTEQ(verbs_gid_from_entry(&e, LINK_LAYER_ETHERNET, &g), -ENXIO);
	CHECK_INTEQ(g.index, 77);
}

static bool gids_equal(const HostPort *a, const HostPort *b) {
	if (a->n_gids != b->n_gids)
		return false;
	for (size_t i = 0; i < a->n_gids; i++) {
		const Gid *x = &a->gids[i], *y = &b->gids[i];

		if (x->index != y->index || memcmp(x->raw, y->raw, 16) != 0 || x->type != y->type ||
		    strcmp(x->netdev, y->netdev) != 0)
			return false;
	}
	return true;
}

static void same_as_sysfs(const char *fixture) {
	_cleanup_(host_state_freep) HostState *want = NULL, *got = NULL;
	char root[512];
	size_t n_gids = 0;

	snprintf(root, sizeof(root), "%s/%s", FIXTURES_DIR, fixture);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_GIDS, &want), 0);
	CHECK_INTEQ(host_observe(root, 0, &got), 0);
	if (!want || !got)
		return;
	CHECK_INTEQ(verbs_gids_observe(got), 0); /* no device answered by the live kernel */
	/* twice: each table replaced, not appended to (the errors are, as a second read's) */
	CHECK_INTEQ(host_device_gids_observe(root, &got->devices[0]), 0);
	CHECK_INTEQ(got->n_devices, want->n_devices);
	for (size_t i = 0; i < want->n_devices && i < got->n_devices; i++) {
		const HostDevice *a = &want->devices[i], *b = &got->devices[i];

		CHECK_STREQ(b->name, a->name);
		CHECK_INTEQ(b->n_ports, a->n_ports);
		for (size_t k = 0; k < a->n_ports && k < b->n_ports; k++) {
			const HostPort *p = &a->ports[k], *q = &b->ports[k];
			_cleanup_strv_free_ char **errors = NULL;

			n_gids += p->n_gids;
			CHECK(gids_equal(p, q));
			/* device 0 was read twice: its errors twice */
			CHECK_INTEQ(strv_extend_strv(&errors, p->errors, false), 0);
			if (i == 0)
				CHECK_INTEQ(strv_extend_strv(&errors, p->errors, false), 0);
			CHECK(strv_equal(q->errors, errors));
		}
	}
	printf("# %s: %zu devices, %zu GIDs\n", fixture, want->n_devices, n_gids);
	CHECK(n_gids > 0);
}

TEST(fixtures_fall_back_to_sysfs) {
	same_as_sysfs("rxe");
	same_as_sysfs("rxe-garbage");
	same_as_sysfs("sparse-gid");
	same_as_sysfs("ib-hca");
	same_as_sysfs("mlx5-dual-vf");
}

TESTS_MAIN(TEST_ENTRY(entry_as_sysfs_reads_it), TEST_ENTRY(fixtures_fall_back_to_sysfs))
