/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Port counters read from a sysfs tree (data words in bytes, sorted, unreadable files left
 * out), node_exporter's names for them, and the Prometheus exposition's bytes (grouping,
 * escaping, names). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "counters.h"
#include "fileio.h"
#include "macro.h"
#include "metrics.h"
#include "tests.h"
#include "test-util.h"

TEST(read) {
	char root[] = "/tmp/test-counters-XXXXXX";
	_cleanup_(port_counters_done) PortCounters c = { 0 };
	_cleanup_close_ int rootfd = -EBADF;
	const char *port = "sys/class/infiniband/mlx5_0/ports/1";
	char path[256], cmd[64];

	CHECK(mkdtemp(root) != NULL);
#define PUT(f, v)                                                  \
	do {                                                       \
		snprintf(path, sizeof(path), "%s/%s", port, f);    \
		put_file(root, path, v);                           \
	} while (0)
	PUT("rate", "100 Gb/sec (4X EDR)\n");
	PUT("counters/port_rcv_data", "10\n");	       /* words: 40 bytes */
	PUT("counters/symbol_error", "0\n");
	PUT("counters/port_xmit_wait", "garbage\n"); /* left out */
	PUT("counters_ext/port_rcv_data_64", "1000\n");
	PUT("hw_counters/np_cnp_sent", "7\n");
	PUT("hw_counters/rp_cnp_handled", "18446744073709551615\n");
	PUT("hw_counters/lifespan", "10\n"); /* a setting, not a counter */
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);
	CHECK(port_counters_read(rootfd, "mlx5_9", 1, &c) == -ENODEV);
	CHECK(port_counters_read(rootfd, "mlx5_0", 1, &c) == 0);
	CHECK_INTEQ(c.n, 5);
	CHECK_INTEQ(c.rate_bps, 100000000000ULL);
	CHECK_STREQ(c.items[0].name, "port_rcv_data");
	CHECK_INTEQ(c.items[0].value, 40);
	CHECK_STREQ(c.items[1].name, "symbol_error");
	CHECK_INTEQ(port_counters_find(&c, COUNTER_PORT_EXT, "port_rcv_data_64")->value, 4000);
	CHECK_INTEQ(port_counters_find(&c, COUNTER_HW, "np_cnp_sent")->value, 7);
	CHECK(port_counters_find(&c, COUNTER_HW, "rp_cnp_handled")->value == UINT64_MAX);
	CHECK(!port_counters_find(&c, COUNTER_HW, "lifespan"));
	CHECK(!port_counters_find(&c, COUNTER_PORT, "port_xmit_wait"));

	CHECK_STREQ(counter_metric_suffix(COUNTER_PORT, "port_rcv_data"),
		    "port_data_received_bytes_total");
	CHECK_STREQ(counter_metric_suffix(COUNTER_PORT_EXT, "port_rcv_data_64"),
		    "port_data_received_bytes_total");
	CHECK_STREQ(counter_metric_suffix(COUNTER_PORT, "VL15_dropped"), "vl15_dropped_total");
	CHECK(!counter_metric_suffix(COUNTER_HW, "port_rcv_data"));
	CHECK(!counter_metric_suffix(COUNTER_PORT, "unheard_of"));
	CHECK_INTEQ(port_rate_parse("2.5 Gb/sec (1X SDR)"), 2500000000ULL);
	CHECK_INTEQ(port_rate_parse("Invalid argument"), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

TEST(exposition) {
	static const MetricFamily up = { "rdmad_up", METRIC_GAUGE, "1 when up" };
	_cleanup_(metrics_done) Metrics m = { 0 };
	_cleanup_free_ char *text = NULL;
	const MetricFamily *f = NULL, *g = NULL;

	CHECK(metrics_family_new(&m, "rdmad_port_x_total", METRIC_COUNTER, "x", &f) == 0);
	CHECK(metrics_add_u64(&m, f, UINT64_MAX, "device", "mlx5_0", "netdev", NULL, NULL) == 0);
	CHECK(metrics_add_double(&m, &up, 1, NULL) == 0);
	CHECK(metrics_family_new(&m, "rdmad_port_x_total", METRIC_COUNTER, "x", &g) == 0);
	CHECK(f == g); /* the same family again: its samples stay together below */
	CHECK(metrics_add_u64(&m, g, 2, "reason", "a \"b\"\\c\nd", NULL) == 0);
	CHECK(metrics_add_double(&m, &up, 0.5, "x", "y", NULL) == 0);
	CHECK(metrics_family_new(&m, "0bad", METRIC_GAUGE, "x", &g) == -EINVAL);
	CHECK(metrics_add_u64(&m, &up, 1, "bad-label", "v", NULL) == -EINVAL);
	CHECK(metrics_format(&m, &text) == 0);
	CHECK_STREQ(text, "# HELP rdmad_port_x_total x\n"
			  "# TYPE rdmad_port_x_total counter\n"
			  "rdmad_port_x_total{device=\"mlx5_0\"} 18446744073709551615\n"
			  "rdmad_port_x_total{reason=\"a \\\"b\\\"\\\\c\\nd\"} 2\n"
			  "# HELP rdmad_up 1 when up\n"
			  "# TYPE rdmad_up gauge\n"
			  "rdmad_up 1\n"
			  "rdmad_up{x=\"y\"} 0.5\n");
	CHECK(metric_name_valid("rdmad:x_y1", false));
	CHECK(!metric_name_valid("rdmad:x", true));
	CHECK(!metric_name_valid("", false));
}

TESTS_MAIN(TEST_ENTRY(read), TEST_ENTRY(exposition))
