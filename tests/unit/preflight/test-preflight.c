/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The preflight framework: rows, their order, the worst status, JSON; and the rdmad rows made
 * from a Describe() document (running or not, profile errors, links not converged and why). */
#include <json-c/json.h>

#include "json-util.h"
#include "preflight.h"
#include "tests.h"

static const PreflightRow *row_find(const Preflight *p, const char *check, const char *subject) {
	for (size_t i = 0; i < p->n_rows; i++)
		if (streq(p->rows[i].check, check) && streq(p->rows[i].subject, subject))
			return &p->rows[i];
	return NULL;
}

TEST(rows) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	_cleanup_(json_object_putp) json_object *a = NULL;

	CHECK_INTEQ(preflight_worst(&p), PREFLIGHT_OK);
	CHECK(preflight_add(&p, "network.mtu", "rxe0/1", PREFLIGHT_WARN, "ip link set mtu 4200",
			    "MTU %u gives RoCE %u", 4000, 2048) == 0);
	CHECK(preflight_add(&p, "kernel.module", "rdma_ucm", PREFLIGHT_FAIL, "modprobe rdma_ucm",
			    "not loaded") == 0);
	CHECK(preflight_add(&p, "kernel.module", "ib_core", PREFLIGHT_OK, NULL, "loaded") == 0);
	CHECK_INTEQ(preflight_worst(&p), PREFLIGHT_FAIL);
	preflight_sort(&p);
	CHECK_STREQ(p.rows[0].subject, "ib_core");
	CHECK_STREQ(p.rows[1].subject, "rdma_ucm");
	CHECK_STREQ(p.rows[2].seen, "MTU 4000 gives RoCE 2048");
	CHECK(preflight_to_json(&p, &a) == 0);
	CHECK_STREQ(json_object_to_json_string_ext(json_object_array_get_idx(a, 0),
						   JSON_C_TO_STRING_PLAIN),
		    "{\"check\":\"kernel.module\",\"subject\":\"ib_core\",\"status\":\"ok\","
		    "\"seen\":\"loaded\",\"fix\":null}");
	CHECK_STREQ(json_get_string(json_object_array_get_idx(a, 1), "status"), "fail");
	CHECK_STREQ(json_get_string(json_object_array_get_idx(a, 1), "fix"), "modprobe rdma_ucm");
	CHECK_INTEQ(preflight_status_from_string("warn"), PREFLIGHT_WARN);
}

TEST(rdmad_not_running) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	PreflightInput in = { .root = "/" };
	const PreflightRow *r;

	CHECK(preflight_rdmad(&p, &in, NULL, "nothing owns org.rdmad1") == 0);
	CHECK_INTEQ(p.n_rows, 1);
	r = row_find(&p, "rdmad.running", "host");
	CHECK(r && r->status == PREFLIGHT_WARN);
	CHECK(r && strstr(r->seen, "nothing owns org.rdmad1"));
	CHECK_STREQ(r ? r->fix : NULL, "systemctl enable --now rdmad");
}

static const char describe_text[] =
	"{\"version\":\"0.1\",\"state\":\"degraded\","
	"\"config_errors\":[\"/etc/rdmad/50.yaml:3:7: error: unknown key 'rocee'\"],"
	"\"host\":{\"state\":\"failed\",\"last_error\":\"module foo: not found\"},"
	"\"links\":["
	"{\"link\":\"rxe0/1\",\"device\":\"rxe0\",\"netdev\":\"veth0\",\"state\":\"converged\","
	"\"settings\":[]},"
	"{\"link\":\"mlx5_0/1\",\"device\":\"mlx5_0\",\"netdev\":\"ens1f0np0\","
	"\"state\":\"failed\",\"settings\":["
	"{\"setting\":\"roce.mode\",\"desired\":\"v2\",\"current\":\"v2\",\"result\":\"converged\"},"
	"{\"setting\":\"roce.tos\",\"desired\":\"106\",\"current\":\"0\",\"result\":\"failed\","
	"\"error\":\"Device or resource busy\"}]},"
	"{\"link\":\"mlx5_1/1\",\"device\":\"mlx5_1\",\"state\":\"unmanaged\"},"
	"{\"link\":\"mlx5_2/1\",\"device\":\"mlx5_2\",\"state\":\"pending\","
	"\"last_error\":\"waiting for the netdev\"}]}";

TEST(rdmad_describe) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	_cleanup_(json_object_putp) json_object *d = json_tokener_parse(describe_text);
	PreflightInput in = { .root = "/" };
	const PreflightRow *r;

	CHECK(d != NULL);
	CHECK(preflight_rdmad(&p, &in, d, NULL) == 0);
	r = row_find(&p, "rdmad.running", "host");
	CHECK(r && r->status == PREFLIGHT_OK && strstr(r->seen, "0.1"));
	r = row_find(&p, "rdmad.config", "host");
	CHECK(r && r->status == PREFLIGHT_FAIL && strstr(r->seen, "50.yaml:3:7"));
	r = row_find(&p, "rdmad.host", "host");
	CHECK(r && r->status == PREFLIGHT_FAIL && strstr(r->seen, "module foo"));
	r = row_find(&p, "rdmad.link", "rxe0/1");
	CHECK(r && r->status == PREFLIGHT_OK);
	r = row_find(&p, "rdmad.link", "mlx5_0/1");
	CHECK(r && r->status == PREFLIGHT_FAIL);
	/* the setting that is not converged, and only it */
	CHECK(r && strstr(r->seen, "roce.tos is 0, wants 106 (failed: Device or resource busy)"));
	CHECK(r && !strstr(r->seen, "roce.mode"));
	CHECK_STREQ(r ? r->fix : NULL, "rdmactl status mlx5_0/1; journalctl RDMA_DEVICE=mlx5_0");
	r = row_find(&p, "rdmad.link", "mlx5_1/1");
	CHECK(r && r->status == PREFLIGHT_OK && strstr(r->seen, "no profile"));
	r = row_find(&p, "rdmad.link", "mlx5_2/1");
	CHECK(r && r->status == PREFLIGHT_WARN && strstr(r->seen, "waiting for the netdev"));
}

TEST(rdmad_links_filter) {
	_cleanup_(preflight_done) Preflight p = { 0 };
	_cleanup_(json_object_putp) json_object *d = json_tokener_parse(describe_text);
	char *links[] = { "ens1f0np0", NULL };
	PreflightInput in = { .root = "/", .links = links };

	CHECK(preflight_rdmad(&p, &in, d, NULL) == 0);
	CHECK(row_find(&p, "rdmad.link", "mlx5_0/1") != NULL);
	CHECK(row_find(&p, "rdmad.link", "rxe0/1") == NULL);
	CHECK(row_find(&p, "rdmad.link", "mlx5_2/1") == NULL);
}

TESTS_MAIN(TEST_ENTRY(rows), TEST_ENTRY(rdmad_not_running), TEST_ENTRY(rdmad_describe),
	   TEST_ENTRY(rdmad_links_filter))
