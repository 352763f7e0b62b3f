/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fileio.h"
#include "macro.h"

static const char *const source_dir[_COUNTER_SOURCE_MAX] = {
	[COUNTER_PORT] = "counters",
	[COUNTER_PORT_EXT] = "counters_ext",
	[COUNTER_HW] = "hw_counters",
};

bool counter_counts_words(CounterSource source, const char *name) {
	return source != COUNTER_HW &&
	       (streq(name, "port_rcv_data") || streq(name, "port_xmit_data") ||
		streq(name, "port_rcv_data_64") || streq(name, "port_xmit_data_64"));
}

uint64_t port_rate_parse(const char *s) {
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v <= 0 || v > 1e6 || strncmp(end, " Gb/sec", 7) != 0)
		return 0;
	return (uint64_t) (v * 1e9 + 0.5);
}

static int counter_compare(const void *a, const void *b) {
	const Counter *x = a, *y = b;

	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The files of one directory into c; an absent directory adds nothing. */
static int counters_dir_read(int portfd, CounterSource source, PortCounters *c) {
	_cleanup_close_ int fd = -EBADF;
	DIR *d;
	int r = 0;

	fd = openat(portfd, source_dir[source], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir_consume(TAKE_FD(fd));
	if (!d)
		return -errno;
	for (struct dirent *de; (de = readdir(d));) {
		char buf[32], *end;
		unsigned long long v;
		Counter *items;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(c->items->name) ||
		    streq(de->d_name, "lifespan")) /* hw_counters/lifespan: a setting, in ms */
			continue;
		if (read_small_at(dirfd(d), de->d_name, buf, sizeof(buf)) <= 0)
			continue;
		errno = 0;
		v = strtoull(buf, &end, 10);
		if (errno || *end || buf[0] == '-')
			continue;
		items = realloc(c->items, (c->n + 1) * sizeof(Counter));
		if (!items) {
			r = -ENOMEM;
			break;
		}
		c->items = items;
		c->items[c->n] = (Counter) { .source = source, .value = (uint64_t) v };
		if (counter_counts_words(source, de->d_name))
			c->items[c->n].value *= 4;
		strcpy(c->items[c->n].name, de->d_name);
		c->n++;
	}
	closedir(d);
	return r;
}

int port_counters_read(int rootfd, const char *device, uint32_t port, PortCounters *ret) {
	_cleanup_close_ int portfd = -EBADF;
	PortCounters c = { 0 };
	char path[256], rate[64];
	int r = 0;

	snprintf(path, sizeof(path), "sys/class/infiniband/%s/ports/%u", device, port);
	portfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (portfd < 0)
		return errno == ENOENT ? -ENODEV : -errno;
	for (CounterSource s = 0; r >= 0 && s < _COUNTER_SOURCE_MAX; s++)
		r = counters_dir_read(portfd, s, &c);
	if (r < 0) {
		port_counters_done(&c);
		return r;
	}
	if (c.n > 1)
		qsort(c.items, c.n, sizeof(Counter), counter_compare);
	if (read_small_at(portfd, "rate", rate, sizeof(rate)) > 0)
		c.rate_bps = port_rate_parse(rate);
	*ret = c;
	return 0;
}

void port_counters_done(PortCounters *c) {
	free(c->items);
	*c = (PortCounters) { 0 };
}

const Counter *port_counters_find(const PortCounters *c, CounterSource source, const char *name) {
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].source == source && streq(c->items[i].name, name))
			return &c->items[i];
	return NULL;
}

static const struct {
	const char *file, *metric;
} metric_table[] = {
	{ "VL15_dropped", "vl15_dropped_total" },
	{ "excessive_buffer_overrun_errors", "excessive_buffer_overrun_errors_total" },
	{ "link_downed", "link_downed_total" },
	{ "link_error_recovery", "link_error_recovery_total" },
	{ "local_link_integrity_errors", "local_link_integrity_errors_total" },
	{ "multicast_rcv_packets", "multicast_packets_received_total" },
	{ "multicast_xmit_packets", "multicast_packets_transmitted_total" },
	{ "port_rcv_constraint_errors", "port_constraint_errors_received_total" },
	{ "port_rcv_data", "port_data_received_bytes_total" },
	{ "port_rcv_discards", "port_discards_received_total" },
	{ "port_rcv_errors", "port_errors_received_total" },
	{ "port_rcv_packets", "port_packets_received_total" },
	{ "port_rcv_remote_physical_errors", "port_receive_remote_physical_errors_total" },
	{ "port_rcv_switch_relay_errors", "port_receive_switch_relay_errors_total" },
	{ "port_xmit_constraint_errors", "port_constraint_errors_transmitted_total" },
	{ "port_xmit_data", "port_data_transmitted_bytes_total" },
	{ "port_xmit_discards", "port_discards_transmitted_total" },
	{ "port_xmit_packets", "port_packets_transmitted_total" },
	{ "port_xmit_wait", "port_transmit_wait_total" },
	{ "symbol_error", "symbol_error_total" },
	{ "unicast_rcv_packets", "unicast_packets_received_total" },
	{ "unicast_xmit_packets", "unicast_packets_transmitted_total" },
};

const char *counter_metric_suffix(CounterSource source, const char *name) {
	char base[64];
	size_t n = strlen(name);

	if (source == COUNTER_HW || n >= sizeof(base))
		return NULL;
	memcpy(base, name, n + 1);
	if (source == COUNTER_PORT_EXT && n > 3 && streq(base + n - 3, "_64"))
		base[n - 3] = 0;
	for (size_t i = 0; i < ELEMENTSOF(metric_table); i++)
		if (streq(metric_table[i].file, base))
			return metric_table[i].metric;
	return NULL;
}
