/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The event loop of the selftest and its server side. One rdma_cm event channel and one poll
 * loop run the client and, for a local peer, the server too: the client's code
 * (selftest-client.c) is sequential and waits through selftest_pump(), which also serves the
 * server; the server only reacts (a connect request, a ping). --listen is the server alone. */
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "selftest-internal.h"

/* What a listener accepts to register for one client (rdmactl's --size maximum). */
#define SERVE_SIZE_MAX (UINT64_C(1) << 30)
/* Spin on the CQs this long before sleeping in poll(): a hardware round trip is a few µs, a
 * wake-up from poll() is more than that. */
#define SPIN_NSEC 20000
/* After the test, how long a clean disconnect may take. */
#define DISCONNECT_NSEC (1000 * 1000 * 1000ULL)

static int reject(struct rdma_cm_id *id, SelftestStep step, int error) {
	RejectData d = {
		.magic = htobe32(SELFTEST_MAGIC),
		.error = (int32_t) htobe32((uint32_t) error),
		.step = (int32_t) htobe32((uint32_t) step),
	};

	return rdma_reject(id, &d, sizeof(d));
}

/* A connect request on the listener: take it as the server side (one at a time). */
static int server_accept(Selftest *t, struct rdma_cm_id *id, const void *data, size_t len) {
	Side *s = &t->server;
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1,
				      .rnr_retry_count = 7,
				      .retry_count = 7 };
	ConnectData c = { 0 };
	AcceptData a;
	uint64_t size;
	int r;

	if (s->id) {
		(void) reject(id, SELFTEST_STEP_CONNECT, -EBUSY);
		(void) rdma_destroy_id(id);
		return 0;
	}
	if (len >= sizeof(c))
		memcpy(&c, data, sizeof(c));
	size = be64toh(c.size);
	if (be32toh(c.magic) != SELFTEST_MAGIC || be32toh(c.version) != SELFTEST_VERSION ||
	    size == 0 || size > SERVE_SIZE_MAX) {
		(void) reject(id, SELFTEST_STEP_CONNECT, -EPROTO);
		(void) rdma_destroy_id(id);
		return 0;
	}
	if (t->serving) {
		selftest_result_done(&t->session);
		r = selftest_result_init(
			&t->session, t->params->link.name,
			sockaddr_format(rdma_get_peer_addr(id), t->peer_text, sizeof(t->peer_text)),
			size, be32toh(c.iterations));
		if (r < 0) {
			(void) rdma_destroy_id(id);
			return r;
		}
		selftest_result_set_gids(t->params, &t->session);
		/* The client's time: its pings must keep coming. */
		selftest_progress_init(&t->progress, now_monotonic_nsec(), t->params->timeout_sec,
				       t->params->deadline_sec);
		t->progress.stage = SELFTEST_STAGE_SERVE;
		t->progress.total = be32toh(c.iterations) + 1;
	}
	s->id = id;
	s->iterations = be32toh(c.iterations);
	id->context = s;

	r = side_check_device(s, "the connect request arrived on");
	if (r >= 0)
		r = side_setup(s, size, IBV_ACCESS_REMOTE_WRITE);
	if (r >= 0)
		r = side_post_recv(s);
	if (r < 0) {
		if (r == -ENOMEM)
			return r;
		(void) reject(id, s->result->step, s->result->error);
		return 0;
	}
	a = (AcceptData){
		.magic = htobe32(SELFTEST_MAGIC),
		.version = htobe32(SELFTEST_VERSION),
		.addr = htobe64((uintptr_t) s->data),
		.size = htobe64(size),
		.rkey = htobe32(s->data_mr->rkey),
	};
	cp.private_data = &a;
	cp.private_data_len = sizeof(a);
	if (rdma_accept(id, &cp) != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: rdma_accept failed (moving the QP to RTR/RTS): %s",
				     s->role, strerror(errno));
	return side_check_qp(s);
}

/* --listen: the current client is done (or gone): report it and free its side. */
static void session_end(Selftest *t, selftest_served_t served, void *userdata) {
	Side *s = &t->server;
	SelftestResult *r = &t->session;

	if (!selftest_failed(r)) {
		if ((uint64_t) s->pings >= (uint64_t) s->iterations + 1)
			r->pass = true;
		else
			(void) selftest_fail(r, SELFTEST_STEP_CONNECT, -ECONNRESET, NULL,
					     "the client left before the end");
	}
	/* How far it got (out of memory: the message without it). */
	t->progress.done = s->pings;
	(void) selftest_progress_note(&t->progress, r);
	if (served)
		served(r, userdata);
	side_free(s);
	selftest_result_done(r);
}

static int server_event(Selftest *t, const struct rdma_cm_event *e) {
	Side *s = &t->server;

	switch (e->event) {
	case RDMA_CM_EVENT_ESTABLISHED:
		s->established = true;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		s->disconnected = true;
		return 0;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
		s->disconnected = true;
		return selftest_fail(s->result, SELFTEST_STEP_CONNECT,
				     e->status ? e->status : -ECONNRESET, NULL,
				     "server: the connection failed (%s: %s)",
				     rdma_event_str(e->event), strerror(-e->status));
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		s->disconnected = true;
		return selftest_fail(s->result, SELFTEST_STEP_LINK, -ENODEV, NULL,
				     "%s was removed during the test", s->link->device);
	default:
		return 0;
	}
}

/* One rdma_cm event, if there is one: copied, acknowledged, then handled (rdma_destroy_id()
 * waits for the acknowledgement of its events). */
static int cm_event(Selftest *t) {
	struct rdma_cm_event *ev, e;
	uint8_t data[UINT8_MAX]; /* private_data_len is a uint8_t */
	size_t len = 0;

	if (rdma_get_cm_event(t->events, &ev) != 0)
		return errno == EAGAIN || errno == EINTR ? 0 : negative_errno();
	e = *ev;
	if ((e.event == RDMA_CM_EVENT_CONNECT_REQUEST || e.event == RDMA_CM_EVENT_ESTABLISHED ||
	     e.event == RDMA_CM_EVENT_REJECTED) &&
	    ev->param.conn.private_data && ev->param.conn.private_data_len > 0) {
		len = ev->param.conn.private_data_len;
		memcpy(data, ev->param.conn.private_data, len);
	}
	(void) rdma_ack_cm_event(ev);

	if (e.event == RDMA_CM_EVENT_CONNECT_REQUEST && t->listener && e.listen_id == t->listener)
		return server_accept(t, e.id, data, len);
	if (t->client.id && e.id == t->client.id && t->client_event)
		return t->client_event(t, &e, data, len);
	if (t->server.id && e.id == t->server.id)
		return server_event(t, &e);
	return 0;
}

/* Wait for something to happen, up to deadline (NSEC_INFINITY: forever) or stop_fd.
 * Returns 0 after handling what came (what is there is handled even past the deadline), 1
 * when stop_fd is readable, -ETIME when nothing came by the deadline, -ENOMEM. */
int selftest_pump(Selftest *t, uint64_t deadline, int stop_fd) {
	Side *sides[] = { &t->client, &t->server };
	struct pollfd p[4];
	uint64_t now, spin_until;
	int n = 0, timeout_ms, r, got;

	/* Completions first, spinning a little: the latency is the wire's, not poll()'s. What is
	 * there is taken even past the deadline (a process that was not scheduled for a while):
	 * the caller judges its bounds on what came. */
	now = now_monotonic_nsec();
	spin_until = now + SPIN_NSEC;
	do {
		got = 0;
		for (size_t i = 0; i < ELEMENTSOF(sides); i++) {
			r = side_drain(sides[i]);
			if (r < 0)
				return r == -ENOMEM ? r : 0;
			got += r;
		}
		if (got > 0)
			return 0;
		now = now_monotonic_nsec();
	} while (now < spin_until);

	p[n++] = (struct pollfd){ .fd = t->events->fd, .events = POLLIN };
	for (size_t i = 0; i < ELEMENTSOF(sides); i++)
		if (sides[i]->channel)
			p[n++] = (struct pollfd){ .fd = sides[i]->channel->fd, .events = POLLIN };
	if (stop_fd >= 0)
		p[n++] = (struct pollfd){ .fd = stop_fd, .events = POLLIN };
	if (deadline == NSEC_INFINITY)
		timeout_ms = -1;
	else if (now >= deadline)
		timeout_ms = 0; /* only what is there */
	else if ((deadline - now) / 1000000 + 1 > INT_MAX)
		timeout_ms = INT_MAX;
	else
		timeout_ms = (int) ((deadline - now) / 1000000 + 1);
	r = poll(p, (nfds_t) n, timeout_ms);
	if (r < 0)
		return errno == EINTR ? 0 : negative_errno();
	if (r == 0)
		return now_monotonic_nsec() >= deadline ? -ETIME : 0;
	if (stop_fd >= 0 && p[n - 1].revents)
		return 1;
	for (size_t i = 0; i < ELEMENTSOF(sides); i++)
		if (sides[i]->channel) {
			r = side_cq_event(sides[i]);
			if (r == -ENOMEM)
				return r;
		}
	if (p[0].revents) {
		r = cm_event(t);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

int selftest_events_open(Selftest *t) {
	int r;

	t->events = rdma_create_event_channel();
	if (!t->events) {
		r = negative_errno();
		if (r == -ENOMEM)
			return r;
		return selftest_fail(t->result, SELFTEST_STEP_LINK, r,
				     "Load rdma_ucm (modprobe rdma_ucm) and check "
				     "/dev/infiniband/rdma_cm",
				     "rdma_cm is not available: %s", strerror(-r));
	}
	r = fd_nonblock(t->events->fd);
	if (r < 0)
		return selftest_fail(t->result, SELFTEST_STEP_LINK, r, NULL,
				     "cannot make the rdma_cm event channel non-blocking");
	return 0;
}

/* A listener on link's address and port (0: any free one). */
int selftest_listen(Selftest *t, const SelftestLink *link, uint16_t port, SelftestResult *res) {
	struct sockaddr_storage a = link->address;
	char text[INET6_ADDRSTRLEN + 8], hint[256];
	int r;

	if (rdma_create_id(t->events, &t->listener, t, RDMA_PS_TCP) != 0) {
		t->listener = NULL;
		return selftest_fail(res, SELFTEST_STEP_LISTEN, negative_errno(), NULL,
				     "rdma_create_id failed: %s", strerror(errno));
	}
	sockaddr_set_port(&a, port);
	sockaddr_format((struct sockaddr *) &a, text, sizeof(text));
	if (rdma_bind_addr(t->listener, (struct sockaddr *) &a) != 0) {
		r = negative_errno();
		if (r == -EADDRINUSE)
			snprintf(hint, sizeof(hint),
				 "Another listener has port %u on %s (a `rdmactl selftest "
				 "--listen`, "
				 "rping -s?): stop it or use --port",
				 port, link->name);
		else
			snprintf(hint, sizeof(hint),
				 "Is the GID's address still on %s (ip address show %s)?",
				 link->netdev, link->netdev);
		return selftest_fail(res, SELFTEST_STEP_LISTEN, r, hint,
				     "rdma_bind_addr %s on %s failed: %s", text, link->name,
				     strerror(-r));
	}
	if (rdma_listen(t->listener, 4) != 0)
		return selftest_fail(res, SELFTEST_STEP_LISTEN, negative_errno(), NULL,
				     "rdma_listen on %s (%s) failed: %s", text, link->name,
				     strerror(errno));
	return 0;
}

void selftest_free(Selftest *t) {
	/* Disconnect cleanly when connected, for a short while: the peer sees a DREQ rather
	 * than a connection that times out. */
	if (t->client.id && t->client.established && !t->client.disconnected && t->events) {
		uint64_t until = now_monotonic_nsec() + DISCONNECT_NSEC;

		t->client.disconnecting = t->server.disconnecting = true;
		(void) rdma_disconnect(t->client.id);
		while (!t->client.disconnected ||
		       (t->local_server && t->server.id && !t->server.disconnected))
			if (selftest_pump(t, until, -1) < 0)
				break;
	}
	side_free(&t->client);
	side_free(&t->server);
	if (t->listener)
		(void) rdma_destroy_id(t->listener);
	if (t->events)
		rdma_destroy_event_channel(t->events);
	selftest_result_done(&t->session);
	*t = (Selftest){ 0 };
}

void selftest_result_set_gids(const SelftestParams *p, SelftestResult *r) {
	r->has_gid = true;
	r->gid_index = p->link.gid_index;
	memcpy(r->gid, p->link.gid, sizeof(r->gid));
	if (p->peer_kind == SELFTEST_PEER_LINK) {
		r->has_peer_gid = true;
		r->peer_gid_index = p->peer.gid_index;
		memcpy(r->peer_gid, p->peer.gid, sizeof(r->peer_gid));
	}
}

int selftest_serve(const SelftestParams *params, int stop_fd, selftest_ready_t ready,
		   selftest_served_t served, void *userdata, SelftestResult *result) {
	Selftest t = {
		.params = params,
		.result = result,
		.serving = true,
		.server = { .role = "server", .link = &params->link },
		.session = { .step = _SELFTEST_STEP_INVALID },
	};
	char text[INET6_ADDRSTRLEN + 8];
	struct sockaddr_storage a = params->link.address;
	int r;

	t.server.result = &t.session;
	selftest_result_set_gids(params, result);
	r = selftest_events_open(&t);
	if (r >= 0)
		r = selftest_listen(&t, &params->link, params->listen_port, result);
	if (r < 0)
		goto finish;
	sockaddr_set_port(&a, params->listen_port);
	if (ready)
		ready(sockaddr_format((struct sockaddr *) &a, text, sizeof(text)), userdata);

	for (;;) {
		Side *s = &t.server;
		bool active = s->id != NULL;
		SelftestExpiry e = SELFTEST_EXPIRY_NONE;

		r = selftest_pump(&t, active ? selftest_progress_wake(&t.progress) : NSEC_INFINITY,
				  stop_fd);
		if (r == 1) {
			r = 0;
			break;
		}
		if (active) {
			uint64_t now = now_monotonic_nsec();

			(void) selftest_progress_update(&t.progress, s->completed, now);
			t.progress.done = s->pings;
			if (r == 0 || r == -ETIME)
				e = selftest_progress_expired(&t.progress, now);
		}
		if (e != SELFTEST_EXPIRY_NONE)
			(void) selftest_progress_fail(&t.progress, e, NULL, &t.session);
		else if (r < 0 && r != -ETIME) {
			if (r != -ENOMEM)
				r = selftest_fail(result, SELFTEST_STEP_LISTEN, r, NULL,
						  "waiting for clients failed: %s", strerror(-r));
			break;
		}
		if (s->id && (s->disconnected || selftest_failed(&t.session))) {
			if (!s->disconnected)
				(void) rdma_disconnect(s->id);
			session_end(&t, served, userdata);
		}
	}
finish:
	if (t.server.id)
		session_end(&t, served, userdata);
	selftest_free(&t);
	if (r == -ENOMEM)
		return r;
	return selftest_failed(result) ? -ECANCELED : 0;
}
