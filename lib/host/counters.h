/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* An RDMA port's counters, read on demand from sysfs (the daemon never polls them): the IB
 * PortCounters of counters/ and counters_ext/ (PMA; absent on rxe), and the driver's
 * hw_counters/ (mlx5, irdma, bnxt_re, rxe, ...). The data counters of the first two count
 * 4-byte words (IBTA PortXmitData/PortRcvData); they are kept here in bytes. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum CounterSource {
	COUNTER_PORT,	  /* counters/ */
	COUNTER_PORT_EXT, /* counters_ext/ */
	COUNTER_HW,	  /* hw_counters/ */
	_COUNTER_SOURCE_MAX,
} CounterSource;

typedef struct Counter {
	char name[64]; /* the file's name */
	CounterSource source;
	uint64_t value; /* bytes for the data counters */
} Counter;

typedef struct PortCounters {
	Counter *items; /* by source, then name */
	size_t n;
	uint64_t rate_bps; /* the port's rate (ports/N/rate), 0 when unknown */
} PortCounters;

/* The counters of port of device, under rootfd ("/" or a fixture): a directory that is absent
 * is no error (rxe has no counters/), a file that cannot be read or parsed is left out (some
 * PMA counters fail with EINVAL on some firmware). -ENODEV when the port does not exist. */
int port_counters_read(int rootfd, const char *device, uint32_t port, PortCounters *ret);
void port_counters_done(PortCounters *c);
const Counter *port_counters_find(const PortCounters *c, CounterSource source, const char *name);

/* Whether the file counts 4-byte words: port_rcv_data, port_xmit_data and their _64 forms. */
bool counter_counts_words(CounterSource source, const char *name);
/* "100 Gb/sec (4X EDR)" -> 100000000000; 0 for anything else. */
uint64_t port_rate_parse(const char *s);

/* node_exporter's name for a counters/ or counters_ext/ file, without its "node_infiniband_"
 * prefix ("port_data_received_bytes_total" for port_rcv_data and port_rcv_data_64), so that
 * dashboards can join the two; NULL for a file it does not know, and for hw_counters/. */
const char *counter_metric_suffix(CounterSource source, const char *name);
