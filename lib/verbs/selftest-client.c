/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The client of the selftest: resolves the peer, connects, measures the round trips and the
 * bandwidth, and checks what the peer read. Sequential: every wait goes through selftest_pump(),
 * which also serves a local server. */
#include <arpa/inet.h>
#include <endian.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "selftest-internal.h"

/* IB CM reject reasons rdma_cm passes in a REJECTED event's status (IBTA 12.6.7.2). */
#define CM_REJ_INVALID_SERVICE_ID 8
#define CM_REJ_CONSUMER_DEFINED	  28

/* One attempt of rdma_resolve_addr() (client_resolve()). */
#define ADDR_ATTEMPT_MS 250

static int client_rejected(Selftest *t, int status, const void *data, size_t len) {
	const SelftestParams *p = t->params;
	SelftestResult *res = t->result;
	RejectData d = { 0 };
	char hint[256];

	if (len >= sizeof(d))
		memcpy(&d, data, sizeof(d));
	if (status == CM_REJ_CONSUMER_DEFINED && be32toh(d.magic) == SELFTEST_MAGIC) {
		int error = (int32_t) be32toh((uint32_t) d.error);
		int step = (int32_t) be32toh((uint32_t) d.step);

		if (error == -EBUSY)
			return selftest_fail(res, SELFTEST_STEP_CONNECT, error,
					     "It serves one client at a time: try again",
					     "the peer %s is busy with another client",
					     t->peer_text);
		return selftest_fail(
			res,
			step >= 0 && step < _SELFTEST_STEP_MAX ? (SelftestStep) step
							       : SELFTEST_STEP_CONNECT,
			error, "See what `rdmactl selftest --listen` printed on the peer",
			"the peer %s refused the connection at its step %s: %s", t->peer_text,
			strna(selftest_step_to_string(step)), strerror(-error));
	}
	if (status == CM_REJ_INVALID_SERVICE_ID) {
		if (p->peer_kind == SELFTEST_PEER_REMOTE)
			snprintf(hint, sizeof(hint),
				 "Start `rdmactl selftest --listen LINK` on %s (--port %u)",
				 p->peer_host, p->peer_port);
		else
			snprintf(hint, sizeof(hint), "The listener of this test went away");
		return selftest_fail(res, SELFTEST_STEP_CONNECT, -ECONNREFUSED, hint,
				     "connection to %s refused: nothing listens on that port "
				     "(REJECTED, reason %d: invalid service ID)",
				     t->peer_text, status);
	}
	return selftest_fail(res, SELFTEST_STEP_CONNECT, -ECONNREFUSED, NULL,
			     "connection to %s rejected (reason %d)", t->peer_text, status);
}

static int client_event(Selftest *t, const struct rdma_cm_event *e, const void *data, size_t len) {
	Side *s = &t->client;
	SelftestResult *res = t->result;

	switch (e->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		s->addr_done = s->addr_resolved = true;
		return 0;
	case RDMA_CM_EVENT_ADDR_ERROR: /* client_resolve() decides */
		s->addr_done = true;
		s->addr_status = e->status < 0 ? e->status : -EIO;
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		s->route_resolved = true;
		return 0;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		return selftest_fail(res, SELFTEST_STEP_ROUTE, e->status ? e->status : -EIO,
				     "Check the route: ip route get PEER from the GID's address",
				     "rdma_resolve_route to %s failed: %s", t->peer_text,
				     strerror(-e->status));
	case RDMA_CM_EVENT_ESTABLISHED: {
		AcceptData a = { 0 };

		if (len >= sizeof(a))
			memcpy(&a, data, sizeof(a));
		if (be32toh(a.magic) != SELFTEST_MAGIC || be64toh(a.size) < s->size)
			return selftest_fail(
				res, SELFTEST_STEP_CONNECT, -EPROTO,
				"Is the peer a `rdmactl selftest --listen` of the same "
				"version?",
				"the peer %s accepted without a selftest buffer of %" PRIu64
				" bytes",
				t->peer_text, s->size);
		s->remote_addr = be64toh(a.addr);
		s->remote_rkey = be32toh(a.rkey);
		s->established = true;
		return 0;
	}
	case RDMA_CM_EVENT_REJECTED:
		return client_rejected(t, e->status, data, len);
	case RDMA_CM_EVENT_UNREACHABLE:
		return selftest_fail(
			res, SELFTEST_STEP_CONNECT, -EHOSTUNREACH,
			"The peer's RDMA CM did not answer: is it up, does its rxe/NIC "
			"see the packets (UDP 4791 open)?",
			"no answer from %s to the connect request (UNREACHABLE: %s)", t->peer_text,
			strerror(-e->status));
	case RDMA_CM_EVENT_CONNECT_ERROR:
		return selftest_fail(res, SELFTEST_STEP_QP, e->status ? e->status : -EIO, NULL,
				     "client: the connection to %s failed while moving the QP to "
				     "RTR/RTS (CONNECT_ERROR: %s)",
				     t->peer_text, strerror(-e->status));
	case RDMA_CM_EVENT_DISCONNECTED:
		s->disconnected = true;
		if (s->disconnecting)
			return 0;
		return selftest_fail(res, SELFTEST_STEP_CONNECT, -ECONNRESET, NULL,
				     "the peer %s disconnected during the test", t->peer_text);
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		return selftest_fail(res, SELFTEST_STEP_LINK, -ENODEV, NULL,
				     "%s was removed during the test", s->link->device);
	default:
		return 0;
	}
}

/* What the client has reached and completed: the measure of its progress. */
static uint64_t client_count(const Selftest *t) {
	const Side *c = &t->client;

	return c->completed + c->addr_resolved + c->route_resolved + c->established;
}

/* The stage the client begins (total: of what), counted from here. */
static void client_stage(Selftest *t, SelftestStage stage, uint32_t total) {
	t->progress.stage = stage;
	t->progress.done = 0;
	t->progress.total = total;
	t->stage_base = stage == SELFTEST_STAGE_ROUND_TRIPS ? t->client.recvs : t->client.completed;
}

/* How far the client got in its stage: round trips answered, RDMA WRITEs of the burst done. */
static void client_position(Selftest *t) {
	SelftestProgress *p = &t->progress;
	const Side *c = &t->client;
	uint64_t n;

	if (p->stage == SELFTEST_STAGE_SETUP)
		return;
	n = (p->stage == SELFTEST_STAGE_ROUND_TRIPS ? c->recvs : c->completed) - t->stage_base;
	p->done = n < p->total ? (uint32_t) n : p->total;
}

/* Address resolution failed: rdma_cm found no neighbour, or could not resolve at all. */
static int client_unresolved(Selftest *t, int status) {
	char hint[320];

	snprintf(hint, sizeof(hint),
		 "Is %s up and reachable from %s (ping -I %s %s)? rdma_cm needs its neighbour "
		 "(ARP/ND) answer",
		 t->peer_addr, t->params->link.name, t->params->link.netdev, t->peer_addr);
	return selftest_fail(t->result, SELFTEST_STEP_ADDRESS_RESOLUTION, status, hint,
			     "rdma_resolve_addr of %s from %s failed: %s", t->peer_text,
			     t->params->link.name, strerror(-status));
}

/* One turn of the loop, for the client: -ECANCELED when the test failed (meanwhile, or now:
 * nothing for --timeout, --deadline, the loop itself), -ENOMEM. what names what is awaited,
 * for a timeout during the setup. */
static int client_turn(Selftest *t, const char *what) {
	const SelftestParams *p = t->params;
	SelftestExpiry e;
	uint64_t now;
	int r;

	if (selftest_failed(t->result))
		return -ECANCELED;
	r = selftest_pump(t, selftest_progress_wake(&t->progress), -1);
	now = now_monotonic_nsec();
	if (selftest_progress_update(&t->progress, client_count(t), now) && p->progress_nsec)
		__atomic_store_n(p->progress_nsec, now, __ATOMIC_RELAXED);
	/* Judged on what came, whatever woke us: events that are no progress of the client
	 * (its retries of address resolution, the local server's completions) do not hold the
	 * wait open. */
	e = r == 0 || r == -ETIME ? selftest_progress_expired(&t->progress, now)
				  : SELFTEST_EXPIRY_NONE;
	if (r == -ETIME)
		r = 0;
	if (e == SELFTEST_EXPIRY_STALLED && t->phase == SELFTEST_STEP_CONNECT)
		/* The REQ was neither accepted, rejected nor reported unreachable by the CM:
		 * a connect failure, whatever the kernel does with the REQ afterwards. */
		return selftest_fail(
			t->result, SELFTEST_STEP_CONNECT, -ETIMEDOUT,
			"Check that the peer listens and is reachable over RDMA (rdmactl "
			"selftest --listen there), and the counters of both links "
			"(rdmactl counters)",
			"%s: no answer from %s within the %" PRIu32 " s of --timeout", what,
			t->peer_text, p->timeout_sec);
	if (e == SELFTEST_EXPIRY_STALLED && t->phase == SELFTEST_STEP_ADDRESS_RESOLUTION &&
	    t->client.addr_unanswered)
		/* a retry still out when --timeout ran out: rdma_cm's answer to the one before
		 * stands, not a race between the two timers that the machine's load decides */
		return client_unresolved(t, t->client.addr_unanswered);
	if (e != SELFTEST_EXPIRY_NONE) {
		client_position(t);
		return selftest_progress_fail(&t->progress, e, what, t->result);
	}
	if (r < 0 && r != -ENOMEM)
		return selftest_fail(t->result, t->phase, r, NULL, "%s: waiting failed: %s", what,
				     strerror(-r));
	if (r < 0)
		return r;
	return selftest_failed(t->result) ? -ECANCELED : 0;
}

/* Wait in the client until *flag or a failure. */
static int client_wait(Selftest *t, const bool *flag, const char *what) {
	int r;

	while (!*flag) {
		r = client_turn(t, what);
		if (r < 0)
			return r;
	}
	return selftest_failed(t->result) ? -ECANCELED : 0;
}

/* Until the client has no work outstanding and has received `recvs` messages. */
static int client_wait_completions(Selftest *t, unsigned recvs, const char *what) {
	Side *c = &t->client;
	int r;

	while (c->outstanding > 0 || c->recvs < recvs) {
		r = client_turn(t, what);
		if (r < 0)
			return r;
	}
	return selftest_failed(t->result) ? -ECANCELED : 0;
}

/* A ping for the data of seq, and the reply. */
static int client_ping(Selftest *t, uint32_t seq, uint64_t write_size, const char *what,
		       uint64_t *ret_check_nsec) {
	Side *c = &t->client;
	Message *m = &c->msgs[1];
	unsigned recvs = c->recvs + 1;
	int r;

	*m = (Message){
		.magic = htobe32(SELFTEST_MAGIC),
		.kind = htobe32(MSG_PING),
		.seq = htobe32(seq),
	};
	r = side_post_send(c, write_size, true);
	if (r < 0)
		return r;
	r = client_wait_completions(t, recvs, what);
	if (r < 0)
		return r;
	m = &c->received;
	if (be32toh(m->magic) != SELFTEST_MAGIC || be32toh(m->kind) != MSG_REPLY ||
	    be32toh(m->seq) != seq)
		return selftest_fail(t->result, SELFTEST_STEP_DATA, -EBADMSG, NULL,
				     "%s: the reply is not the one to ping %" PRIu32, what, seq);
	if (be32toh(m->status) != 0)
		return selftest_fail(t->result, SELFTEST_STEP_DATA, -EILSEQ,
				     "An RDMA WRITE placed other bytes than were sent: a provider, "
				     "driver or NIC problem (dmesg)",
				     "%s: the peer read 0x%02x at offset %" PRIu64
				     " of the %" PRIu64 " bytes written, not 0x%02x",
				     what, m->got, be64toh(m->offset), c->size, m->expected);
	if (ret_check_nsec)
		*ret_check_nsec = be64toh(m->check_nsec);
	return side_post_recv(c);
}

static int client_measure(Selftest *t) {
	const SelftestParams *p = t->params;
	Side *c = &t->client;
	_cleanup_free_ uint64_t *samples = NULL;
	uint32_t n = p->iterations, posted = 0, burst_seq = n + 1;
	uint64_t t0, bytes, elapsed, check = 0;
	char what[64];
	int r;

	samples = calloc(n, sizeof(*samples));
	if (!samples)
		return -ENOMEM;
	client_stage(t, SELFTEST_STAGE_ROUND_TRIPS, n);
	for (uint32_t i = 0; i < n; i++) {
		pattern_fill(c->data, c->size, i + 1);
		snprintf(what, sizeof(what), "round trip %" PRIu32 " of %" PRIu32, i + 1, n);
		t0 = now_monotonic_nsec();
		r = client_ping(t, i + 1, c->size, what, &check);
		if (r < 0)
			return r;
		/* The wire's round trip, not the peer's reading of the bytes. */
		elapsed = now_monotonic_nsec() - t0;
		samples[i] = elapsed > check ? elapsed - check : 1;
	}
	r = selftest_latency_compute(samples, n, &t->result->latency);
	if (r < 0)
		return r;
	t->result->has_latency = true;

	/* The bandwidth: n WRITEs, BURST_WINDOW in flight; then a ping checks what arrived. */
	t->phase = SELFTEST_STEP_COMPLETION;
	client_stage(t, SELFTEST_STAGE_BURST, n);
	snprintf(what, sizeof(what), "the bandwidth burst of %" PRIu32 " RDMA WRITEs", n);
	pattern_fill(c->data, c->size, burst_seq);
	t0 = now_monotonic_nsec();
	while (posted < n) {
		while (posted < n && c->outstanding < BURST_WINDOW) {
			r = side_post_send(c, c->size, false);
			if (r < 0)
				return r;
			posted++;
		}
		/* The window is full: on when one of them completes. */
		while (c->outstanding >= BURST_WINDOW) {
			r = client_turn(t, what);
			if (r < 0)
				return r;
		}
	}
	r = client_wait_completions(t, c->recvs, what);
	if (r < 0)
		return r;
	elapsed = now_monotonic_nsec() - t0;
	bytes = c->size * n;
	t->result->bandwidth_bps = (uint64_t) ((double) bytes * 8.0 * (double) NSEC_PER_SEC /
					       (double) (elapsed > 0 ? elapsed : 1));
	t->result->has_bandwidth = true;
	return client_ping(t, burst_seq, 0, "the check of the bandwidth burst's data", NULL);
}

/* rdma_cm gets a share of what is left of the wait for each resolution, so that its own error
 * comes before ours. */
static int cm_timeout_ms(const Selftest *t) {
	uint64_t now = now_monotonic_nsec(), wake = selftest_progress_wake(&t->progress),
		 left = wake > now ? wake - now : 0;
	uint64_t ms = left / 1000000 * 3 / 4;

	return ms < 100 ? 100 : ms > 30000 ? 30000 : (int) ms;
}

/* HOST of a remote peer, in the family of the link's address. */
static int peer_resolve(Selftest *t, struct sockaddr_storage *ret) {
	const SelftestParams *p = t->params;
	int family = p->link.address.ss_family;
	struct addrinfo hints = { .ai_family = family, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char hint[256];
	int r;

	r = getaddrinfo(p->peer_host, NULL, &hints, &ai);
	if (r == EAI_MEMORY)
		return -ENOMEM;
	if (r != 0 || !ai) {
		snprintf(hint, sizeof(hint),
			 "%s's GID %" PRIu32 " is %s: the peer needs an address of that family "
			 "(getent ahosts %s)",
			 p->link.name, p->link.gid_index, family == AF_INET ? "IPv4" : "IPv6",
			 p->peer_host);
		return selftest_fail(t->result, SELFTEST_STEP_ADDRESS_RESOLUTION, -EADDRNOTAVAIL,
				     hint, "%s has no %s address: %s", p->peer_host,
				     family == AF_INET ? "IPv4" : "IPv6",
				     r == EAI_SYSTEM ? strerror(errno) : gai_strerror(r));
	}
	memset(ret, 0, sizeof(*ret));
	memcpy(ret, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	if (ret->ss_family == AF_INET6 &&
	    IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *) ret)->sin6_addr) &&
	    p->link.address.ss_family == AF_INET6)
		((struct sockaddr_in6 *) ret)->sin6_scope_id =
			((const struct sockaddr_in6 *) &p->link.address)->sin6_scope_id;
	sockaddr_set_port(ret, p->peer_port);
	return 0;
}

/* rdma_resolve_addr() in short attempts until the wait ends: when the neighbour is not known
 * yet, the kernel looks again only when the attempt times out (it was not woken by the ARP
 * answer over two links of one host: 7.5 s of a 10 s test), so a short attempt that fails
 * with ETIMEDOUT is tried again, and the first answer wins. */
static int client_resolve(Selftest *t, const struct sockaddr_storage *dst) {
	const SelftestParams *p = t->params;
	Side *c = &t->client;
	int r;

	for (;;) {
		uint64_t now = now_monotonic_nsec(), wake = selftest_progress_wake(&t->progress),
			 left = wake > now ? wake - now : 0;
		uint64_t ms = left / 1000000 * 3 / 4;

		if (ms > ADDR_ATTEMPT_MS)
			ms = ADDR_ATTEMPT_MS;
		if (ms < 50)
			ms = 50;
		if (rdma_create_id(t->events, &c->id, c, RDMA_PS_TCP) != 0) {
			c->id = NULL;
			r = negative_errno();
			return selftest_fail(t->result, SELFTEST_STEP_ADDRESS_RESOLUTION, r, NULL,
					     "rdma_create_id failed: %s", strerror(-r));
		}
		if (rdma_resolve_addr(c->id, (struct sockaddr *) &p->link.address,
				      (struct sockaddr *) dst, (int) ms) != 0) {
			r = negative_errno();
			return selftest_fail(t->result, SELFTEST_STEP_ADDRESS_RESOLUTION, r,
					     "Is the GID's address still on the netdev (rdmactl "
					     "gids)?",
					     "rdma_resolve_addr of %s from %s failed: %s",
					     t->peer_text, p->link.name, strerror(-r));
		}
		r = client_wait(t, &c->addr_done, "address resolution");
		if (r < 0)
			return r;
		if (c->addr_resolved)
			return 0;
		r = c->addr_status;
		if (r != -ETIMEDOUT && r != -ENODATA)
			return client_unresolved(t, r);
		c->addr_unanswered = r;
		if (now_monotonic_nsec() + 100 * 1000000ULL >= selftest_progress_wake(&t->progress))
			return client_unresolved(t, r);
		(void) rdma_destroy_id(c->id);
		c->id = NULL;
		c->addr_done = false;
	}
}

static int run(Selftest *t) {
	const SelftestParams *p = t->params;
	Side *c = &t->client;
	struct sockaddr_storage dst;
	const SelftestLink *server_link;
	ConnectData cd;
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .rnr_retry_count = 7,
				      .retry_count = 7 };
	uint64_t start;
	int r;

	r = selftest_events_open(t);
	if (r < 0)
		return r;

	/* Where the client connects to. */
	if (p->peer_kind == SELFTEST_PEER_REMOTE) {
		r = peer_resolve(t, &dst);
		if (r < 0)
			return r;
		sockaddr_format((struct sockaddr *) &dst, t->peer_text, sizeof(t->peer_text));
		r = selftest_route_check(t->result, &p->link, (struct sockaddr *) &dst, NULL);
		if (r < 0)
			return r;
	} else {
		server_link = p->peer_kind == SELFTEST_PEER_LINK ? &p->peer : &p->link;
		if (p->peer_kind == SELFTEST_PEER_LINK) {
			r = selftest_route_check(t->result, &p->link,
						 (const struct sockaddr *) &p->peer.address,
						 &p->peer);
			if (r < 0)
				return r;
			r = selftest_route_check(t->result, &p->peer,
						 (const struct sockaddr *) &p->link.address,
						 &p->link);
			if (r < 0)
				return r;
		}
		t->local_server = true;
		t->server.link = server_link;
		r = selftest_listen(t, server_link, 0, t->result);
		if (r < 0)
			return r;
		dst = server_link->address;
		sockaddr_set_port(&dst, ntohs(rdma_get_src_port(t->listener)));
		/* A link-local destination is reached through the client's interface. */
		if (dst.ss_family == AF_INET6 &&
		    IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *) &dst)->sin6_addr))
			((struct sockaddr_in6 *) &dst)->sin6_scope_id =
				((const struct sockaddr_in6 *) &p->link.address)->sin6_scope_id;
		sockaddr_format((struct sockaddr *) &dst, t->peer_text, sizeof(t->peer_text));
	}

	{
		struct sockaddr_storage a = dst;

		sockaddr_set_port(&a, 0);
		sockaddr_format((struct sockaddr *) &a, t->peer_addr, sizeof(t->peer_addr));
	}
	start = now_monotonic_nsec();
	t->phase = SELFTEST_STEP_ADDRESS_RESOLUTION;
	r = client_resolve(t, &dst);
	if (r < 0)
		return r;
	r = side_check_device(c, "after address resolution,");
	if (r < 0)
		return r;
	t->phase = SELFTEST_STEP_ROUTE;
	if (rdma_resolve_route(c->id, cm_timeout_ms(t)) != 0)
		return selftest_fail(t->result, SELFTEST_STEP_ROUTE, negative_errno(), NULL,
				     "rdma_resolve_route to %s failed: %s", t->peer_text,
				     strerror(errno));
	r = client_wait(t, &c->route_resolved, "route resolution");
	if (r < 0)
		return r;
	r = side_check_device(c, "after route resolution,");
	if (r < 0)
		return r;

	t->phase = SELFTEST_STEP_CONNECT;
	r = side_setup(c, p->size, 0);
	if (r < 0)
		return r;
	r = side_post_recv(c);
	if (r < 0)
		return r;
	cd = (ConnectData){
		.magic = htobe32(SELFTEST_MAGIC),
		.version = htobe32(SELFTEST_VERSION),
		.size = htobe64(p->size),
		.iterations = htobe32(p->iterations),
	};
	cp.private_data = &cd;
	cp.private_data_len = sizeof(cd);
	if (rdma_connect(c->id, &cp) != 0)
		return selftest_fail(t->result, SELFTEST_STEP_CONNECT, negative_errno(), NULL,
				     "rdma_connect to %s failed: %s", t->peer_text,
				     strerror(errno));
	r = client_wait(t, &c->established, "connecting");
	if (r < 0)
		return r;
	t->result->setup_usec = (now_monotonic_nsec() - start) / 1000;
	t->result->has_setup = true;
	r = side_check_qp(c);
	if (r < 0)
		return r;
	t->phase = SELFTEST_STEP_COMPLETION;
	return client_measure(t);
}

int selftest_run(const SelftestParams *params, SelftestResult *result) {
	Selftest t = {
		.params = params,
		.result = result,
		.client = { .role = "client", .link = &params->link, .result = result },
		.server = { .role = "server", .link = &params->link, .result = result },
		.phase = SELFTEST_STEP_LINK,
		.client_event = client_event,
	};
	SelftestStep phase;
	int r;

	selftest_progress_init(&t.progress,
			       params->start_nsec ? params->start_nsec : now_monotonic_nsec(),
			       params->timeout_sec, params->deadline_sec);
	selftest_result_set_gids(params, result);
	r = run(&t);
	phase = t.phase;
	if (r == -ENOMEM)
		goto finish;
	/* Every failure is recorded where it happens; this one was not. */
	if (r < 0 && !selftest_failed(result) &&
	    selftest_fail(result, phase, r, NULL, "%s", strerror(-r)) == -ENOMEM) {
		r = -ENOMEM;
		goto finish;
	}
	/* A failure past the setup says how far the test got. */
	client_position(&t);
	if (selftest_progress_note(&t.progress, result) < 0) {
		r = -ENOMEM;
		goto finish;
	}
	if (!selftest_failed(result))
		result->pass = true;
	r = 0;
	if (params->result_ready)
		params->result_ready(result, params->result_ready_userdata);
finish:
	selftest_free(&t);
	return r;
}
