/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The pure parts of the selftest: step names, the result and its JSON, percentiles, and
 * HOST[:PORT]. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "selftest.h"

static const char *const selftest_step_table[_SELFTEST_STEP_MAX] = {
	[SELFTEST_STEP_LINK] = "link",
	[SELFTEST_STEP_GID] = "gid",
	[SELFTEST_STEP_LISTEN] = "listen",
	[SELFTEST_STEP_ADDRESS_RESOLUTION] = "address-resolution",
	[SELFTEST_STEP_ROUTE] = "route",
	[SELFTEST_STEP_CONNECT] = "connect",
	[SELFTEST_STEP_QP] = "qp",
	[SELFTEST_STEP_MEMORY_REGISTRATION] = "memory-registration",
	[SELFTEST_STEP_COMPLETION] = "completion",
	[SELFTEST_STEP_DATA] = "data",
	[SELFTEST_STEP_TIMEOUT] = "timeout",
};
DEFINE_STRING_TABLE_LOOKUP(selftest_step, SelftestStep)

void selftest_result_done(SelftestResult *r) {
	if (!r)
		return;
	free(r->link);
	free(r->peer);
	free(r->message);
	free(r->hint);
	*r = (SelftestResult){ .step = _SELFTEST_STEP_INVALID };
}

int selftest_result_init(SelftestResult *r, const char *link, const char *peer, uint64_t size,
			 uint32_t iterations) {
	_cleanup_free_ char *l = NULL, *p = NULL;

	l = strdup(link);
	if (!l)
		return -ENOMEM;
	if (peer) {
		p = strdup(peer);
		if (!p)
			return -ENOMEM;
	}
	selftest_result_done(r);
	r->link = TAKE_PTR(l);
	r->peer = TAKE_PTR(p);
	r->size = size;
	r->iterations = iterations;
	return 0;
}

int selftest_fail(SelftestResult *r, SelftestStep step, int error, const char *hint,
		  const char *format, ...) {
	_cleanup_free_ char *m = NULL, *h = NULL;
	va_list ap;
	int n;

	if (error == 0)
		error = -EIO;
	if (selftest_failed(r))
		return -ECANCELED;
	va_start(ap, format);
	n = vasprintf(&m, format, ap);
	va_end(ap);
	if (n < 0) {
		m = NULL;
		return -ENOMEM;
	}
	if (hint) {
		h = strdup(hint);
		if (!h)
			return -ENOMEM;
	}
	r->pass = false;
	r->step = step;
	r->error = error;
	r->message = TAKE_PTR(m);
	r->hint = TAKE_PTR(h);
	return -ECANCELED;
}

static int json_add_gid(json_object *o, const char *key_index, const char *key_gid, bool has,
			uint32_t index, const uint8_t raw[16]) {
	char text[INET6_ADDRSTRLEN];

	if (!has)
		return json_object_object_add(o, key_index, NULL) < 0 ||
				       json_object_object_add(o, key_gid, NULL) < 0
			       ? -ENOMEM
			       : 0;
	/* The GID as an IPv6 address: ::ffff:192.0.2.1, fe80::1 (what `rdma` and `ip` show). */
	if (!inet_ntop(AF_INET6, raw, text, sizeof(text)))
		return -EINVAL;
	if (json_add_int(o, key_index, index) < 0 || json_add_string(o, key_gid, text) < 0)
		return -ENOMEM;
	return 0;
}

int selftest_result_to_json(const SelftestResult *r, json_object **ret) {
	_cleanup_(json_object_putp) json_object *o = json_object_new_object();
	json_object *lat, *v;
	int k;

	if (!o)
		return -ENOMEM;
	if (json_add_string(o, "link", r->link) < 0 || json_add_string(o, "peer", r->peer) < 0 ||
	    json_add_string(o, "result", r->pass ? "pass" : "fail") < 0 ||
	    json_add_string(o, "step", r->pass ? NULL : selftest_step_to_string(r->step)) < 0 ||
	    json_add_string(o, "error", r->pass ? NULL : r->message) < 0 ||
	    json_add_string(o, "hint", r->pass ? NULL : r->hint) < 0)
		return -ENOMEM;
	k = json_add_gid(o, "gid_index", "gid", r->has_gid, r->gid_index, r->gid);
	if (k < 0)
		return k;
	k = json_add_gid(o, "peer_gid_index", "peer_gid", r->has_peer_gid, r->peer_gid_index,
			 r->peer_gid);
	if (k < 0)
		return k;
	if (json_add_int(o, "size", (int64_t) r->size) < 0 ||
	    json_add_int(o, "iterations", r->iterations) < 0)
		return -ENOMEM;
	if (r->has_setup ? json_add_int(o, "setup_usec", (int64_t) r->setup_usec) < 0
			 : json_object_object_add(o, "setup_usec", NULL) < 0)
		return -ENOMEM;
	if (r->has_latency) {
		const struct {
			const char *key;
			uint64_t nsec;
		} l[] = {
			{ "min", r->latency.min },
			{ "p50", r->latency.p50 },
			{ "p99", r->latency.p99 },
			{ "max", r->latency.max },
		};

		if (json_add_object(o, "latency_usec", &lat) < 0)
			return -ENOMEM;
		for (size_t i = 0; i < ELEMENTSOF(l); i++) {
			char text[32];

			/* Microseconds to the nanosecond, as measured: hardware round trips
			 * are a few µs. */
			snprintf(text, sizeof(text), "%" PRIu64 ".%03" PRIu64, l[i].nsec / 1000,
				 l[i].nsec % 1000);
			v = json_object_new_double_s((double) l[i].nsec / 1000.0, text);
			if (!v || json_object_object_add(lat, l[i].key, v) < 0) {
				json_object_put(v);
				return -ENOMEM;
			}
		}
	} else if (json_object_object_add(o, "latency_usec", NULL) < 0)
		return -ENOMEM;
	if (r->has_bandwidth ? json_add_int(o, "bandwidth_bps", (int64_t) r->bandwidth_bps) < 0
			     : json_object_object_add(o, "bandwidth_bps", NULL) < 0)
		return -ENOMEM;
	*ret = TAKE_PTR(o);
	return 0;
}

static int u64_compare(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the ceil(p/100 * n)-th smallest, 1-based. */
static uint64_t nearest_rank(const uint64_t *sorted, size_t n, unsigned p) {
	size_t rank = (n * p + 99) / 100;

	return sorted[rank > 0 ? rank - 1 : 0];
}

int selftest_latency_compute(uint64_t *samples, size_t n, SelftestLatency *ret) {
	if (n == 0)
		return -EINVAL;
	qsort(samples, n, sizeof(*samples), u64_compare);
	*ret = (SelftestLatency){
		.min = samples[0],
		.p50 = nearest_rank(samples, n, 50),
		.p99 = nearest_rank(samples, n, 99),
		.max = samples[n - 1],
	};
	return 0;
}

static int port_parse(const char *s, uint16_t *ret) {
	unsigned long v;
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < 1 || v > 65535)
		return -EINVAL;
	*ret = (uint16_t) v;
	return 0;
}

int selftest_peer_parse(const char *s, uint16_t default_port, char **ret_host, uint16_t *ret_port) {
	_cleanup_free_ char *host = NULL;
	uint16_t port = default_port;
	const char *colon;
	int r;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close == s + 1)
			return -EINVAL;
		if (close[1] == ':') {
			r = port_parse(close + 2, &port);
			if (r < 0)
				return r;
		} else if (close[1])
			return -EINVAL;
		host = strndup(s + 1, (size_t) (close - s - 1));
	} else {
		colon = strchr(s, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* a bare IPv6 address */
		if (colon) {
			r = port_parse(colon + 1, &port);
			if (r < 0)
				return r;
			host = strndup(s, (size_t) (colon - s));
		} else
			host = strdup(s);
	}
	if (!host)
		return -ENOMEM;
	if (!*host || strpbrk(host, "[]/ \t"))
		return -EINVAL;
	*ret_host = TAKE_PTR(host);
	*ret_port = port;
	return 0;
}

/* Packed: the struct with its pointers cleared, then link, peer, message and hint, each a
 * uint32_t length (UINT32_MAX: NULL) and its bytes. Only ever read by the same binary. */
#define PACKED_NULL UINT32_MAX

static int pack_string(FILE *f, const char *s) {
	uint32_t n = s ? (uint32_t) strlen(s) : PACKED_NULL;

	if (fwrite(&n, sizeof(n), 1, f) != 1 || (s && n > 0 && fwrite(s, n, 1, f) != 1))
		return -ENOMEM;
	return 0;
}

int selftest_result_pack(const SelftestResult *r, char **ret, size_t *ret_size) {
	SelftestResult flat = *r;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;
	int k = 0;

	f = open_memstream(&buf, &size);
	if (!f)
		return -ENOMEM;
	flat.link = flat.peer = flat.message = flat.hint = NULL;
	if (fwrite(&flat, sizeof(flat), 1, f) != 1)
		k = -ENOMEM;
	if (k >= 0)
		k = pack_string(f, r->link);
	if (k >= 0)
		k = pack_string(f, r->peer);
	if (k >= 0)
		k = pack_string(f, r->message);
	if (k >= 0)
		k = pack_string(f, r->hint);
	if (fclose(f) != 0 && k >= 0)
		k = -ENOMEM;
	if (k < 0) {
		free(buf);
		return k;
	}
	*ret = buf;
	*ret_size = size;
	return 0;
}

static int unpack_string(const char **p, const char *end, char **ret) {
	uint32_t n;

	if ((size_t) (end - *p) < sizeof(n))
		return -EBADMSG;
	memcpy(&n, *p, sizeof(n));
	*p += sizeof(n);
	if (n == PACKED_NULL) {
		*ret = NULL;
		return 0;
	}
	if ((size_t) (end - *p) < n)
		return -EBADMSG;
	*ret = strndup(*p, n);
	if (!*ret)
		return -ENOMEM;
	*p += n;
	return 0;
}

int selftest_result_unpack(const void *buf, size_t size, SelftestResult *ret) {
	_cleanup_(selftest_result_done) SelftestResult r = { .step = _SELFTEST_STEP_INVALID };
	const char *p = buf, *end = p + size;
	int k;

	if (size < sizeof(r))
		return -EBADMSG;
	memcpy(&r, p, sizeof(r));
	p += sizeof(r);
	r.link = r.peer = r.message = r.hint = NULL;
	k = unpack_string(&p, end, &r.link);
	if (k >= 0)
		k = unpack_string(&p, end, &r.peer);
	if (k >= 0)
		k = unpack_string(&p, end, &r.message);
	if (k >= 0)
		k = unpack_string(&p, end, &r.hint);
	if (k < 0)
		return k;
	if (p != end || !r.link)
		return -EBADMSG;
	selftest_result_done(ret);
	*ret = r;
	r = (SelftestResult){ .step = _SELFTEST_STEP_INVALID };
	return 0;
}
