/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure parts of rdmactl selftest: the step table, HOST[:PORT], the percentiles, the JSON
 * of a result, the link/GID checks on a made-up port, and the two bounds of a test (a stall,
 * the whole) on made-up clocks. */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "selftest-progress.h"
#include "selftest.h"
#include "tests.h"

TEST(step_table_round_trips) {
	for (int i = 0; i < _SELFTEST_STEP_MAX; i++) {
		const char *s = selftest_step_to_string((SelftestStep) i);

		CHECK(s != NULL);
		CHECK_INTEQ(selftest_step_from_string(s), i);
	}
	CHECK_STREQ(selftest_step_to_string(SELFTEST_STEP_ADDRESS_RESOLUTION),
		    "address-resolution");
	CHECK_STREQ(selftest_step_to_string(SELFTEST_STEP_MEMORY_REGISTRATION),
		    "memory-registration");
	CHECK(selftest_step_to_string(_SELFTEST_STEP_MAX) == NULL);
	CHECK_INTEQ(selftest_step_from_string("nope"), -EINVAL);
}

static void peer_ok(const char *s, const char *host, unsigned port) {
	_cleanup_free_ char *h = NULL;
	uint16_t p = 0;
	int r;

	r = selftest_peer_parse(s, 7472, &h, &p);
	CHECK_INTEQ(r, 0);
	if (r < 0) {
		printf("#     for '%s'\n", s);
		return;
	}
	CHECK_STREQ(h, host);
	CHECK_INTEQ(p, port);
}

static void peer_bad(const char *s) {
	_cleanup_free_ char *h = NULL;
	uint16_t p = 4242;
	int r;

	r = selftest_peer_parse(s, 7472, &h, &p);
	CHECK_INTEQ(r, -EINVAL);
	if (r != -EINVAL)
		printf("#     for '%s'\n", s);
	CHECK(h == NULL);
	CHECK_INTEQ(p, 4242); /* ret_* untouched on failure */
}

TEST(peer_parse) {
	peer_ok("192.0.2.1", "192.0.2.1", 7472);
	peer_ok("192.0.2.1:18515", "192.0.2.1", 18515);
	peer_ok("host.example", "host.example", 7472);
	peer_ok("host.example:1", "host.example", 1);
	peer_ok("node-7:65535", "node-7", 65535);
	peer_ok("[2001:db8::1]", "2001:db8::1", 7472);
	peer_ok("[2001:db8::1]:7000", "2001:db8::1", 7000);
	peer_ok("[fe80::1%veth0]:7000", "fe80::1%veth0", 7000);
	/* A bare IPv6 address: every ':' is the address's. */
	peer_ok("2001:db8::1", "2001:db8::1", 7472);
	peer_ok("::1", "::1", 7472);

	peer_bad("");
	peer_bad(":7472");
	peer_bad("192.0.2.1:");
	peer_bad("192.0.2.1:0");
	peer_bad("192.0.2.1:65536");
	peer_bad("192.0.2.1:-1");
	peer_bad("192.0.2.1:+5");
	peer_bad("192.0.2.1:12ab");
	peer_bad("[2001:db8::1");
	peer_bad("[]:7472");
	peer_bad("[2001:db8::1]7472");
	peer_bad("[2001:db8::1]:");
	peer_bad("rxe0/1");
	peer_bad("a b");
}

TEST(latency_percentiles) {
	SelftestLatency l = { 0 };
	uint64_t one[] = { 42 };
	uint64_t ten[] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	uint64_t *many;

	CHECK_INTEQ(selftest_latency_compute(one, 0, &l), -EINVAL);
	CHECK_INTEQ(selftest_latency_compute(one, 1, &l), 0);
	CHECK_INTEQ(l.min, 42);
	CHECK_INTEQ(l.p50, 42);
	CHECK_INTEQ(l.p99, 42);
	CHECK_INTEQ(l.max, 42);

	/* Nearest rank: p50 of 10 is the 5th, p99 the 10th. */
	CHECK_INTEQ(selftest_latency_compute(ten, ELEMENTSOF(ten), &l), 0);
	CHECK_INTEQ(l.min, 1);
	CHECK_INTEQ(l.p50, 5);
	CHECK_INTEQ(l.p99, 10);
	CHECK_INTEQ(l.max, 10);
	CHECK_INTEQ(ten[0], 1); /* sorted in place */

	/* 1000 samples 1..1000 in reverse, with one outlier: p99 is the 990th, not the max. */
	many = calloc(1000, sizeof(*many));
	CHECK(many != NULL);
	if (!many)
		return;
	for (size_t i = 0; i < 1000; i++)
		many[i] = 1000 - i;
	many[500] = 1000000;
	CHECK_INTEQ(selftest_latency_compute(many, 1000, &l), 0);
	CHECK_INTEQ(l.min, 1);
	CHECK_INTEQ(l.p50, 501); /* 500 is the outlier's place: 1..499, 501.. */
	CHECK_INTEQ(l.p99, 991);
	CHECK_INTEQ(l.max, 1000000);
	CHECK(l.min <= l.p50 && l.p50 <= l.p99 && l.p99 <= l.max);
	free(many);
}

static json_object *member(json_object *o, const char *key) {
	json_object *v = NULL;

	CHECK(json_object_object_get_ex(o, key, &v));
	return v;
}

TEST(json_of_a_pass) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	_cleanup_(json_object_putp) json_object *j = NULL;
	json_object *lat;

	CHECK_INTEQ(selftest_result_init(&r, "rxe0/1", "rxe1/1", 65536, 1000), 0);
	r.pass = true;
	r.has_gid = true;
	r.gid_index = 1;
	inet_pton(AF_INET6, "::ffff:192.0.2.1", r.gid);
	r.has_peer_gid = true;
	r.peer_gid_index = 3;
	inet_pton(AF_INET6, "::ffff:192.0.2.2", r.peer_gid);
	r.has_setup = true;
	r.setup_usec = 1234;
	r.has_latency = true;
	r.latency = (SelftestLatency){ .min = 2500, .p50 = 3001, .p99 = 12345, .max = 1000000 };
	r.has_bandwidth = true;
	r.bandwidth_bps = UINT64_C(12345678901);

	CHECK_INTEQ(selftest_result_to_json(&r, &j), 0);
	if (!j)
		return;
	CHECK_STREQ(json_object_get_string(member(j, "link")), "rxe0/1");
	CHECK_STREQ(json_object_get_string(member(j, "peer")), "rxe1/1");
	CHECK_STREQ(json_object_get_string(member(j, "result")), "pass");
	CHECK(member(j, "step") == NULL);
	CHECK(member(j, "error") == NULL);
	CHECK(member(j, "hint") == NULL);
	CHECK_INTEQ(json_object_get_int64(member(j, "gid_index")), 1);
	CHECK_STREQ(json_object_get_string(member(j, "gid")), "::ffff:192.0.2.1");
	CHECK_INTEQ(json_object_get_int64(member(j, "peer_gid_index")), 3);
	CHECK_STREQ(json_object_get_string(member(j, "peer_gid")), "::ffff:192.0.2.2");
	CHECK_INTEQ(json_object_get_int64(member(j, "size")), 65536);
	CHECK_INTEQ(json_object_get_int64(member(j, "iterations")), 1000);
	CHECK_INTEQ(json_object_get_int64(member(j, "setup_usec")), 1234);
	CHECK_INTEQ(json_object_get_int64(member(j, "bandwidth_bps")), INT64_C(12345678901));
	lat = member(j, "latency_usec");
	CHECK(json_object_is_type(lat, json_type_object));
	/* Microseconds, to the nanosecond. */
	CHECK(json_object_get_double(member(lat, "min")) == 2.5);
	CHECK(json_object_get_double(member(lat, "p50")) == 3.001);
	CHECK(json_object_get_double(member(lat, "p99")) == 12.345);
	CHECK(json_object_get_double(member(lat, "max")) == 1000.0);
	CHECK_STREQ(json_object_to_json_string_ext(member(lat, "p50"), JSON_C_TO_STRING_PLAIN),
		    "3.001");
	CHECK_STREQ(json_object_to_json_string_ext(member(lat, "max"), JSON_C_TO_STRING_PLAIN),
		    "1000.000");
}

TEST(pack_round_trip) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	_cleanup_(selftest_result_done) SelftestResult q = { .step = _SELFTEST_STEP_INVALID };
	_cleanup_free_ char *buf = NULL;
	size_t size = 0;

	CHECK_INTEQ(selftest_result_init(&r, "rxe2/1", "203.0.113.2:7472", 4096, 50), 0);
	r.has_gid = true;
	r.gid_index = 1;
	inet_pton(AF_INET6, "::ffff:203.0.113.1", r.gid);
	r.has_latency = true;
	r.latency = (SelftestLatency){ .min = 1, .p50 = 2, .p99 = 3, .max = 4 };
	CHECK_INTEQ(selftest_fail(&r, SELFTEST_STEP_CONNECT, -ETIMEDOUT, NULL, "no answer"),
		    -ECANCELED);
	CHECK_INTEQ(selftest_result_pack(&r, &buf, &size), 0);
	CHECK_INTEQ(selftest_result_init(&q, "old", NULL, 1, 1), 0);
	CHECK_INTEQ(selftest_result_unpack(buf, size, &q), 0);
	CHECK_STREQ(q.link, "rxe2/1");
	CHECK_STREQ(q.peer, "203.0.113.2:7472");
	CHECK_STREQ(q.message, "no answer");
	CHECK(q.hint == NULL);
	CHECK(!q.pass);
	CHECK_INTEQ(q.step, SELFTEST_STEP_CONNECT);
	CHECK_INTEQ(q.error, -ETIMEDOUT);
	CHECK_INTEQ(q.gid_index, 1);
	CHECK(memcmp(q.gid, r.gid, 16) == 0);
	CHECK_INTEQ(q.latency.max, 4);
	CHECK_INTEQ(q.size, 4096);

	/* Cut anywhere, or with a byte too many: refused, and q stays as it was. */
	for (size_t n = 0; n < size; n++)
		CHECK_INTEQ(selftest_result_unpack(buf, n, &q), -EBADMSG);
	buf = realloc(buf, size + 1);
	CHECK(buf != NULL);
	CHECK_INTEQ(selftest_result_unpack(buf, size + 1, &q), -EBADMSG);
	CHECK_STREQ(q.link, "rxe2/1");
}

TEST(json_of_a_failure) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	_cleanup_(json_object_putp) json_object *j = NULL;
	const char *text;

	CHECK_INTEQ(selftest_result_init(&r, "rxe0/1", NULL, 4096, 200), 0);
	CHECK(!selftest_failed(&r));
	CHECK_INTEQ(selftest_fail(&r, SELFTEST_STEP_ROUTE, -EXDEV, "policy \"routing\"",
				  "via %s, not %s", "lo", "veth1"),
		    -ECANCELED);
	/* The first failure wins. */
	CHECK_INTEQ(selftest_fail(&r, SELFTEST_STEP_CONNECT, -ECONNRESET, NULL, "later"),
		    -ECANCELED);
	CHECK(selftest_failed(&r));
	CHECK_INTEQ(r.step, SELFTEST_STEP_ROUTE);
	CHECK_INTEQ(r.error, -EXDEV);
	/* A failure without an errno still has one. */
	{
		_cleanup_(selftest_result_done)
			SelftestResult q = { .step = _SELFTEST_STEP_INVALID };

		CHECK_INTEQ(selftest_result_init(&q, "rxe0/1", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_fail(&q, SELFTEST_STEP_DATA, 0, NULL, "x"), -ECANCELED);
		CHECK_INTEQ(q.error, -EIO);
	}

	CHECK_INTEQ(selftest_result_to_json(&r, &j), 0);
	if (!j)
		return;
	CHECK_STREQ(json_object_get_string(member(j, "result")), "fail");
	CHECK_STREQ(json_object_get_string(member(j, "step")), "route");
	CHECK_STREQ(json_object_get_string(member(j, "error")), "via lo, not veth1");
	CHECK_STREQ(json_object_get_string(member(j, "hint")), "policy \"routing\"");
	/* Known before any traffic: null, never a made-up number. */
	CHECK(member(j, "peer") == NULL);
	CHECK(member(j, "gid_index") == NULL);
	CHECK(member(j, "gid") == NULL);
	CHECK(member(j, "setup_usec") == NULL);
	CHECK(member(j, "latency_usec") == NULL);
	CHECK(member(j, "bandwidth_bps") == NULL);
	CHECK_INTEQ(json_object_get_int64(member(j, "size")), 4096);
	/* Every key is there, null or not: consumers index without checking. */
	text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE);
	CHECK_STREQ(text, "{\"link\":\"rxe0/1\",\"peer\":null,\"result\":\"fail\","
			  "\"step\":\"route\",\"error\":\"via lo, not veth1\","
			  "\"hint\":\"policy \\\"routing\\\"\",\"gid_index\":null,\"gid\":null,"
			  "\"peer_gid_index\":null,\"peer_gid\":null,\"size\":4096,"
			  "\"iterations\":200,\"setup_usec\":null,\"latency_usec\":null,"
			  "\"bandwidth_bps\":null}");
}

/* A made-up rxe port on netdev veth0: GID 0 link-local, 1 IPv4, 2 RoCE v1, 3 empty. */
static Gid gids[] = {
	{ .index = 0,
	  .raw = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x84, 0x65, 0x60, 0xff, 0xfe, 0x82, 0x8e, 0xd0 },
	  .type = GID_TYPE_ROCE_V2,
	  .netdev = "lo" },
	{ .index = 1,
	  .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 },
	  .type = GID_TYPE_ROCE_V2,
	  .netdev = "veth0" },
	{ .index = 2,
	  .raw = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 },
	  .type = GID_TYPE_ROCE_V1,
	  .netdev = "veth0" },
};

TEST(link_prepare) {
	HostPort p = {
		.port = 1,
		.state = PORT_STATE_ACTIVE,
		.netdev = (char *) "veth0",
		.gids = gids,
		.n_gids = ELEMENTSOF(gids),
	};
	HostDevice d = { .name = (char *) "rxe0", .ports = &p, .n_ports = 1 };
	HostNetdev n = { .name = (char *) "veth0", .up = true, .operstate = (char *) "up" };
	SelftestLink l = { 0 };

	{
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
		const struct sockaddr_in *in = (const struct sockaddr_in *) &l.address;
		char a[INET_ADDRSTRLEN];

		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_prepare(&d, &p, &n, 1, "1", &l, &r), 0);
		CHECK(!selftest_failed(&r));
		CHECK_STREQ(l.name, "rxe0/1");
		CHECK_STREQ(l.device, "rxe0");
		CHECK_INTEQ(l.port, 1);
		CHECK_STREQ(l.netdev, "veth0");
		CHECK_INTEQ(l.gid_index, 1);
		CHECK_INTEQ(in->sin_family, AF_INET);
		CHECK_INTEQ(in->sin_port, 0);
		CHECK_STREQ(inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a)), "192.0.2.1");
	}
	{
		/* Link-local: the GID's netdev is its scope ("lo" here: one that exists). */
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) &l.address;

		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_prepare(&d, &p, &n, 0, "1", &l, &r), 0);
		CHECK_INTEQ(in6->sin6_family, AF_INET6);
		CHECK(in6->sin6_scope_id > 0);
	}
	{
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };

		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_prepare(&d, &p, &n, 3, "1", &l, &r), -ECANCELED);
		CHECK_INTEQ(r.error, -ENOENT);
		CHECK_INTEQ(r.step, SELFTEST_STEP_GID);
		CHECK_STREQ(r.message, "GID index 3 of rxe0/1 is empty");
		CHECK(r.hint && strstr(r.hint, "`rdmactl gid rxe0/1` says: 1"));
	}
	{
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };

		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_prepare(&d, &p, &n, 2, "1", &l, &r), -ECANCELED);
		CHECK_INTEQ(r.error, -EPROTOTYPE);
		CHECK_INTEQ(r.step, SELFTEST_STEP_GID);
		CHECK_STREQ(r.message, "GID index 2 of rxe0/1 is RoCE v1, not RoCE v2");
	}
	{
		/* The netdev down comes first: its GIDs may be gone too. */
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };

		n.up = false;
		n.operstate = (char *) "down";
		p.state = PORT_STATE_DOWN;
		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_prepare(&d, &p, &n, 3, "1", &l, &r), -ECANCELED);
		CHECK_INTEQ(r.error, -ENETDOWN);
		CHECK_INTEQ(r.step, SELFTEST_STEP_LINK);
		CHECK_STREQ(r.message, "rxe0/1 is DOWN: its netdev veth0 is down");
		CHECK_STREQ(r.hint, "Bring the netdev up: ip link set veth0 up");
	}
	{
		/* Up, no carrier (the other end of a veth is down). */
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };

		n.up = true;
		n.operstate = (char *) "lowerlayerdown";
		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_check(&d, &p, &n, &r), -ECANCELED);
		CHECK_INTEQ(r.error, -ENETDOWN);
		CHECK_INTEQ(r.step, SELFTEST_STEP_LINK);
		CHECK(strstr(r.message, "operstate is lowerlayerdown") != NULL);
	}
	{
		/* The netdev looks fine but the port is not ACTIVE. */
		_cleanup_(selftest_result_done)
			SelftestResult r = { .step = _SELFTEST_STEP_INVALID };

		n.operstate = (char *) "up";
		p.state = PORT_STATE_INIT;
		CHECK_INTEQ(selftest_result_init(&r, "rxe0", NULL, 1, 1), 0);
		CHECK_INTEQ(selftest_link_check(&d, &p, &n, &r), -ECANCELED);
		CHECK_INTEQ(r.error, -ENETDOWN);
		CHECK_STREQ(r.message, "rxe0/1 is INIT, not ACTIVE");
	}
}

#define SEC(x)	(UINT64_C(1000000000) * (x))
#define MSEC(x) (UINT64_C(1000000) * (x))
/* An arbitrary CLOCK_MONOTONIC reading when the test started. */
#define T0 SEC(5000)

/* Issue 42: two rxe links in a qemu VM move the default burst (1000 RDMA WRITEs of 64 KiB) in
 * 12.3 s, a completion every 12 ms, and the test failed at 10 s "nothing within the 10 s of
 * --timeout". A completion is progress: a test that keeps completing is never stalled, and
 * without --deadline nothing bounds the whole. */
TEST(progress_slow_is_not_stalled) {
	SelftestProgress p;
	uint64_t now = T0;

	selftest_progress_init(&p, T0, 10, 0);
	p.stage = SELFTEST_STAGE_BURST;
	p.total = 1000;
	CHECK_INTEQ(selftest_progress_wake(&p), T0 + SEC(10));
	for (uint32_t i = 1; i <= 1000; i++) {
		now += MSEC(12) + 300000; /* 12.3 ms */
		p.done = i;
		CHECK(selftest_progress_update(&p, i, now));
		CHECK_INTEQ(selftest_progress_expired(&p, now), SELFTEST_EXPIRY_NONE);
		CHECK_INTEQ(selftest_progress_wake(&p), now + SEC(10));
	}
	CHECK_INTEQ(now, T0 + MSEC(12300));
	/* Woken at the old whole-test deadline, with the last completion 12.3 ms before. */
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(10)), SELFTEST_EXPIRY_NONE);
	CHECK_INTEQ(selftest_progress_expired(&p, now + SEC(10) - 1), SELFTEST_EXPIRY_NONE);
	CHECK_INTEQ(selftest_progress_expired(&p, now + SEC(10)), SELFTEST_EXPIRY_STALLED);
	/* An hour in, still progressing: no deadline unless one is given. */
	CHECK(selftest_progress_update(&p, 1001, T0 + SEC(3600)));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(3605)), SELFTEST_EXPIRY_NONE);
	CHECK_INTEQ(selftest_progress_wake(&p), T0 + SEC(3610));
}

/* Counting the same again is no progress: the stall is timed from the last change. */
TEST(progress_same_count_is_no_progress) {
	SelftestProgress p;

	selftest_progress_init(&p, T0, 10, 0);
	CHECK(!selftest_progress_update(&p, 0, T0 + SEC(3)));
	CHECK_INTEQ(p.last_nsec, T0);
	CHECK(selftest_progress_update(&p, 3, T0 + SEC(2)));
	CHECK(!selftest_progress_update(&p, 3, T0 + SEC(9)));
	CHECK_INTEQ(selftest_progress_wake(&p), T0 + SEC(12));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(12) - 1), SELFTEST_EXPIRY_NONE);
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(12)), SELFTEST_EXPIRY_STALLED);
}

/* A stall says how far the test got and which option to pass. */
TEST(progress_stall_says_how_far) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	SelftestProgress p;

	CHECK_INTEQ(selftest_result_init(&r, "rxe0/1", "rxe1/1", 65536, 1000), 0);
	selftest_progress_init(&p, T0, 10, 0);
	p.stage = SELFTEST_STAGE_BURST;
	p.done = 312;
	p.total = 1000;
	CHECK(selftest_progress_update(&p, 1337, T0 + SEC(2)));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(12)), SELFTEST_EXPIRY_STALLED);
	CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_STALLED, "the burst", &r),
		    -ECANCELED);
	CHECK_INTEQ(r.step, SELFTEST_STEP_TIMEOUT);
	CHECK_INTEQ(r.error, -ETIME);
	CHECK_STREQ(r.message, "the bandwidth burst: 312 of 1000 RDMA WRITEs completed, then "
			       "nothing for the 10 s of --timeout");
	CHECK(r.hint && strstr(r.hint, "raise --timeout"));

	/* In the round trips, and on the listener's side. */
	{
		_cleanup_(selftest_result_done)
			SelftestResult q = { .step = _SELFTEST_STEP_INVALID };

		CHECK_INTEQ(selftest_result_init(&q, "rxe0/1", "rxe1/1", 65536, 1000), 0);
		p.stage = SELFTEST_STAGE_ROUND_TRIPS;
		p.done = 12;
		CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_STALLED, NULL, &q),
			    -ECANCELED);
		CHECK_STREQ(q.message, "the round trips: 12 of 1000 answered, then nothing for "
				       "the 10 s of --timeout");
		selftest_result_done(&q);
		CHECK_INTEQ(selftest_result_init(&q, "rxe0/1", "192.0.2.2:4242", 65536, 1000), 0);
		p.stage = SELFTEST_STAGE_SERVE;
		p.total = 1001;
		CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_STALLED, NULL, &q),
			    -ECANCELED);
		CHECK_STREQ(q.message, "the client's pings: 12 of 1001 answered, then nothing "
				       "for the 10 s of --timeout");
	}
	/* During the setup, the step awaited. */
	{
		_cleanup_(selftest_result_done)
			SelftestResult q = { .step = _SELFTEST_STEP_INVALID };

		CHECK_INTEQ(selftest_result_init(&q, "rxe0/1", "192.0.2.99", 65536, 1000), 0);
		selftest_progress_init(&p, T0, 3, 0);
		CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(3)), SELFTEST_EXPIRY_STALLED);
		CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_STALLED,
						   "address resolution", &q),
			    -ECANCELED);
		CHECK_STREQ(q.message, "address resolution: nothing within the 3 s of --timeout");
		CHECK(q.hint && strstr(q.hint, "--timeout"));
	}
}

/* --deadline bounds the whole test, progressing or not, and says so. */
TEST(progress_deadline) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	SelftestProgress p;

	CHECK_INTEQ(selftest_result_init(&r, "rxe0/1", "rxe1/1", 65536, 1000), 0);
	selftest_progress_init(&p, T0, 10, 60);
	p.stage = SELFTEST_STAGE_BURST;
	p.done = 640;
	p.total = 1000;
	CHECK_INTEQ(selftest_progress_wake(&p), T0 + SEC(10));
	CHECK(selftest_progress_update(&p, 1, T0 + MSEC(59900)));
	/* The deadline comes before the stall would. */
	CHECK_INTEQ(selftest_progress_wake(&p), T0 + SEC(60));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(60) - 1), SELFTEST_EXPIRY_NONE);
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(60)), SELFTEST_EXPIRY_DEADLINE);
	CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_DEADLINE, "the burst", &r),
		    -ECANCELED);
	CHECK_INTEQ(r.step, SELFTEST_STEP_TIMEOUT);
	CHECK_STREQ(r.message, "the bandwidth burst: 640 of 1000 RDMA WRITEs completed when the "
			       "60 s of --deadline ran out");
	CHECK(r.hint && strstr(r.hint, "raise --deadline"));

	/* Woken late, with both run out: the one that ran out first. */
	selftest_progress_init(&p, T0, 10, 60);
	CHECK(selftest_progress_update(&p, 1, T0 + SEC(45)));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(70)), SELFTEST_EXPIRY_STALLED);
	CHECK(selftest_progress_update(&p, 2, T0 + SEC(55)));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(70)), SELFTEST_EXPIRY_DEADLINE);
	/* Both at once: a stall. */
	selftest_progress_init(&p, T0, 10, 60);
	CHECK(selftest_progress_update(&p, 1, T0 + SEC(50)));
	CHECK_INTEQ(selftest_progress_expired(&p, T0 + SEC(60)), SELFTEST_EXPIRY_STALLED);
}

/* Any other failure past the setup says how far the test got; the rest are left alone. */
TEST(progress_note) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	SelftestProgress p;

	selftest_progress_init(&p, T0, 10, 0);
	CHECK_INTEQ(selftest_result_init(&r, "rxe1/1", "rxe0/1", 65536, 1000), 0);
	/* A pass: nothing to say. */
	CHECK_INTEQ(selftest_progress_note(&p, &r), 0);
	CHECK(r.message == NULL);
	/* During the setup: the step says where. */
	CHECK_INTEQ(selftest_fail(&r, SELFTEST_STEP_CONNECT, -ECONNREFUSED, NULL, "refused"),
		    -ECANCELED);
	CHECK_INTEQ(selftest_progress_note(&p, &r), 0);
	CHECK_STREQ(r.message, "refused");

	selftest_result_done(&r);
	CHECK_INTEQ(selftest_result_init(&r, "rxe1/1", "rxe0/1", 65536, 1000), 0);
	p.stage = SELFTEST_STAGE_BURST;
	p.done = 312;
	p.total = 1000;
	CHECK_INTEQ(selftest_fail(&r, SELFTEST_STEP_COMPLETION, -EIO, NULL,
				  "client: RDMA WRITE completed with transport retry counter "
				  "exceeded (status 12, vendor error 0x0)"),
		    -ECANCELED);
	CHECK_INTEQ(selftest_progress_note(&p, &r), 0);
	CHECK_STREQ(r.message, "client: RDMA WRITE completed with transport retry counter "
			       "exceeded (status 12, vendor error 0x0); so far, the bandwidth "
			       "burst: 312 of 1000 RDMA WRITEs completed");

	/* A timeout said it already. */
	selftest_result_done(&r);
	CHECK_INTEQ(selftest_result_init(&r, "rxe1/1", "rxe0/1", 65536, 1000), 0);
	CHECK_INTEQ(selftest_progress_fail(&p, SELFTEST_EXPIRY_STALLED, NULL, &r), -ECANCELED);
	CHECK_INTEQ(selftest_progress_note(&p, &r), 0);
	CHECK(strstr(r.message, "so far") == NULL);
}

TESTS_MAIN(TEST_ENTRY(step_table_round_trips), TEST_ENTRY(peer_parse),
	   TEST_ENTRY(latency_percentiles), TEST_ENTRY(json_of_a_pass), TEST_ENTRY(pack_round_trip),
	   TEST_ENTRY(json_of_a_failure), TEST_ENTRY(link_prepare),
	   TEST_ENTRY(progress_slow_is_not_stalled), TEST_ENTRY(progress_same_count_is_no_progress),
	   TEST_ENTRY(progress_stall_says_how_far), TEST_ENTRY(progress_deadline),
	   TEST_ENTRY(progress_note))
