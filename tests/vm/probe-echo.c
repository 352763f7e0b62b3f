/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The probe transport (lib/verbs/probe-ud.c) on its own, in the VM, and a peer that misbehaves:
 *
 *   probe-echo ADDR PORT [PEER COUNT]
 *   probe-echo --flood ADDR PORT PEER SECONDS
 *   probe-echo --forge ADDR PORT FORGE_ADDR
 *   probe-echo --dead-channel ADDR PORT
 *   probe-echo --settings ADDR PORT [PEER COUNT]
 *
 * One link's endpoint at ADDR:PORT that answers probes, or with PEER, a path from ADDR (any
 * port) to PEER:PORT that sends COUNT probes 100 ms apart and prints each answer's round trip,
 * then a summary line.
 * Exit 0 when every probe was answered (or, without PEER, on SIGTERM), 1 when some were not,
 * 2 when the path failed to resolve (its step and error printed). Bounded: 10 s to resolve,
 * 2 s after the last probe for its answer.
 *
 * --flood: the path to PEER:PORT sends requests as fast as its send slots free up, for
 * SECONDS, from one QP: one source. Prints "flood sent N answered M" at the end.
 *
 * --forge: an endpoint at ADDR:PORT, in raw verbs, that a prober's path resolves (SIDR
 * answered with its QP) but that never answers a probe itself. It answers each request twice,
 * as another would forge the answer, with the request's sender, path and sequence: once from
 * its own QP but the GID of FORGE_ADDR (another address of its device), once from another QP
 * with ADDR's GID. Until SIGTERM; then "forged N" (answers sent, both kinds) and "requests N".
 *
 * --settings (issue 44, probe-wire version 2): the link tells fixed RoCE settings, the
 * responder's or the prober's (below), and prints what the other side told: the prober asks
 * once its path is ready ("settings path 7 ..." when answered, "settings: no answer" at the end
 * if not); the responder prints each asker's ("settings path 4294967295 ...") and answers.
 *
 * --dead-channel: what a device that the kernel disassociated (mlx5 removed) does to a link's
 * completion channel, which rxe cannot do: the channel, in the transport's epoll, becomes a
 * descriptor readable forever with nothing to read (a pipe whose writer is gone). The
 * transport must let go of the device and stop watching it: the transport's descriptor is
 * readable for at most a few calls, not forever. Prints "dispatches N: FAILURE"; exit 0 when N
 * is at most 3 and the link says its device was disassociated, 1 otherwise.
 *
 * Every mode prints its line when it is listening. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "fileio.h"
#include "probe-ud-internal.h" /* --dead-channel reaches into a link */
#include "probe-ud.h"
#include "probe-wire.h"

#define NSEC_PER_MSEC 1000000ULL

static volatile sig_atomic_t stop;
static uint64_t answered, sent_seq;
static uint64_t rtts_ns[100000];

static void on_term(int sig) {
	stop = 1;
}

static void on_reply(void *userdata, uint32_t path, uint64_t seq, uint64_t sent_ns, uint64_t now,
		     uint64_t device_ns) {
	bool quiet = userdata != NULL;

	if (!quiet)
		printf("reply path %" PRIu32 " seq %" PRIu64 " rtt_us %.1f\n", path, seq,
		       (now - sent_ns) / 1e3);
	if (answered < sizeof(rtts_ns) / sizeof(rtts_ns[0]))
		rtts_ns[answered] = now - sent_ns;
	answered++;
}

/* --settings (issue 44): each side's link tells these, and prints what the other told */
static const ProbeLinkSettings responder_settings = {
	.known = PROBE_KNOWN_ALL,
	.netdev_mtu = 1500,
	.roce_mtu = 1024,
	.roce_mode = 2,
	.tos = 106,
	.trust = PROBE_TRUST_DSCP,
	.priority = 3,
	.pfc = 0x08,
	.ecn = 0x08,
	.cnp_dscp = 48,
	.cnp_priority = 6,
};
static const ProbeLinkSettings prober_settings = {
	.known = PROBE_KNOWN_ALL & ~PROBE_KNOWN_ECN,
	.netdev_mtu = 9000,
	.roce_mtu = 4096,
	.roce_mode = 2,
	.tos = 96,
	.trust = PROBE_TRUST_DSCP,
	.priority = 4,
	.pfc = 0x10,
	.cnp_dscp = 46,
	.cnp_priority = 6,
};
static unsigned settings_seen;

static void on_settings(void *userdata, ProbeLink *l, uint32_t path, const ProbePeer *from,
			const ProbeLinkSettings *s) {
	printf("settings path %" PRIu32 " qpn %" PRIu32 ": known 0x%03x mtu %u/%u mode %u tos %u "
	       "trust %u priority %u pfc 0x%02x ecn 0x%02x cnp %u/%u\n",
	       path, from->qpn, s->known, s->netdev_mtu, s->roce_mtu, s->roce_mode, s->tos,
	       s->trust, s->priority, s->pfc, s->ecn, s->cnp_dscp, s->cnp_priority);
	settings_seen++;
}

/* Waits up to ms for the transport, then does its work. */
static int turn(ProbeTransport *t, int ms) {
	struct pollfd fd = { .fd = probe_transport_fd(t), .events = POLLIN };

	if (poll(&fd, 1, ms) < 0 && errno != EINTR)
		return -errno;
	return probe_transport_process(t);
}

static int u64_compare(const void *a, const void *b) {
	uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

	return (x > y) - (x < y);
}

/* ---- --forge: an endpoint that answers as someone else ----------------------------------- */

#define RAW_SLOTS 64
#define RAW_RECV  (PROBE_GRH_SIZE + PROBE_WIRE_SIZE)

typedef struct Raw {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t buf[RAW_SLOTS * RAW_RECV + RAW_SLOTS * PROBE_WIRE_SIZE];
	unsigned next_send;
} Raw;

static int raw_post_recv(Raw *r, unsigned slot) {
	struct ibv_sge sge = { .addr = (uintptr_t) (r->buf + slot * RAW_RECV),
			       .length = RAW_RECV,
			       .lkey = r->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;

	return ibv_post_recv(r->id->qp, &wr, &bad);
}

/* A UD QP of its own on addr:port (0: any); listening when listen. */
static int raw_new(Raw *r, struct rdma_event_channel *ch, const struct sockaddr_storage *addr,
		   uint16_t port, bool listen) {
	struct sockaddr_storage ss = *addr;
	struct ibv_qp_init_attr attr = { .qp_type = IBV_QPT_UD,
					 .cap = { .max_send_wr = RAW_SLOTS,
						  .max_recv_wr = RAW_SLOTS,
						  .max_send_sge = 1,
						  .max_recv_sge = 1 } };

	((struct sockaddr_in *) &ss)->sin_port = htons(port);
	if (rdma_create_id(ch, &r->id, r, RDMA_PS_UDP) < 0 ||
	    rdma_bind_addr(r->id, (struct sockaddr *) &ss) < 0 || !r->id->verbs)
		return -1;
	r->pd = ibv_alloc_pd(r->id->verbs);
	r->cq = r->pd ? ibv_create_cq(r->id->verbs, 2 * RAW_SLOTS, NULL, NULL, 0) : NULL;
	if (!r->cq)
		return -1;
	attr.send_cq = attr.recv_cq = r->cq;
	if (rdma_create_qp(r->id, r->pd, &attr) < 0)
		return -1;
	r->mr = ibv_reg_mr(r->pd, r->buf, sizeof(r->buf), IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr)
		return -1;
	for (unsigned i = 0; i < RAW_SLOTS; i++)
		if (raw_post_recv(r, i) != 0)
			return -1;
	return listen && rdma_listen(r->id, 16) < 0 ? -1 : 0;
}

/* m to qpn behind ah, from r's QP; its send completions are only counted. */
static int raw_send(Raw *r, const ProbeMessage *m, struct ibv_ah *ah, uint32_t qpn) {
	unsigned slot = r->next_send++ % RAW_SLOTS;
	uint8_t *b = r->buf + RAW_SLOTS * RAW_RECV + slot * PROBE_WIRE_SIZE;
	struct ibv_sge sge = { .addr = (uintptr_t) b,
			       .length = PROBE_WIRE_SIZE,
			       .lkey = r->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = RAW_SLOTS + slot,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED,
				  .wr.ud = { .ah = ah,
					     .remote_qpn = qpn,
					     .remote_qkey = RDMA_UDP_QKEY } },
			   *bad;

	probe_wire_build(m, b);
	return ibv_post_send(r->id->qp, &wr, &bad);
}

/* The index of the RoCE v2 GID of an IPv4 address on a port of verbs, or -1. */
static int gid_index_of(struct ibv_context *verbs, uint8_t port, const struct sockaddr_storage *a) {
	uint8_t want[16] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;

	memcpy(want + 12, &((const struct sockaddr_in *) a)->sin_addr, 4);
	if (ibv_query_port(verbs, port, &pa) != 0)
		return -1;
	for (int i = 0; i < pa.gid_tbl_len; i++) {
		struct ibv_gid_entry e;

		if (ibv_query_gid_ex(verbs, port, (uint32_t) i, &e, 0) == 0 &&
		    e.gid_type == IBV_GID_TYPE_ROCE_V2 && memcmp(e.gid.raw, want, 16) == 0)
			return i;
	}
	return -1;
}

static int forge(const struct sockaddr_storage *addr, uint16_t port,
		 const struct sockaddr_storage *forge_addr) {
	struct rdma_event_channel *ch = rdma_create_event_channel();
	static Raw peer, other;
	uint64_t forged = 0, requests = 0;
	int forge_gid;

	if (!ch || fd_nonblock(ch->fd) < 0 || raw_new(&peer, ch, addr, port, true) < 0 ||
	    raw_new(&other, ch, addr, 0, false) < 0) {
		fprintf(stderr, "forge: endpoint: %s\n", strerror(errno));
		return 2;
	}
	forge_gid = gid_index_of(peer.id->verbs, peer.id->port_num, forge_addr);
	if (forge_gid < 0 || other.id->verbs != peer.id->verbs) {
		fprintf(stderr, "forge: no RoCE v2 GID of the forged address on the device\n");
		return 2;
	}
	printf("listening on port %u, forging from QP %u and GID index %d\n", port,
	       other.id->qp->qp_num, forge_gid);
	while (!stop) {
		struct rdma_cm_event *ev;
		struct ibv_wc wc[16];
		int n;

		while (rdma_get_cm_event(ch, &ev) == 0) {
			struct rdma_conn_param param = { .qp_num = peer.id->qp->qp_num };
			struct rdma_cm_id *request = NULL;

			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
				(void) rdma_accept(ev->id, &param);
				request = ev->id;
			}
			rdma_ack_cm_event(ev);
			if (request)
				rdma_destroy_id(request);
		}
		n = ibv_poll_cq(peer.cq, 16, wc);
		for (int i = 0; i < n; i++) {
			uint8_t *b = peer.buf + wc[i].wr_id * RAW_RECV;
			struct ibv_ah_attr attr;
			struct ibv_ah *ah_gid = NULL, *ah_qp = NULL;
			ProbeMessage m;

			if (wc[i].wr_id >= RAW_SLOTS)
				continue; /* a send of its own done */
			if (wc[i].status == IBV_WC_SUCCESS && wc[i].byte_len == RAW_RECV &&
			    probe_wire_parse(b + PROBE_GRH_SIZE, PROBE_WIRE_SIZE, &m) == 0 &&
			    m.kind == PROBE_REQUEST &&
			    ibv_init_ah_from_wc(peer.id->verbs, peer.id->port_num, &wc[i],
						(struct ibv_grh *) b, &attr) == 0) {
				requests++;
				m.kind = PROBE_REPLY;
				/* the path's peer's QP, another GID */
				attr.grh.sgid_index = (uint8_t) forge_gid;
				ah_gid = ibv_create_ah(peer.pd, &attr);
				if (ah_gid && raw_send(&peer, &m, ah_gid, wc[i].src_qp) == 0)
					forged++;
				/* another QP, the path's peer's GID */
				ah_qp = ibv_create_ah_from_wc(
					other.pd, &wc[i], (struct ibv_grh *) b, other.id->port_num);
				if (ah_qp && raw_send(&other, &m, ah_qp, wc[i].src_qp) == 0)
					forged++;
			}
			(void) raw_post_recv(&peer, (unsigned) wc[i].wr_id);
			/* rxe copies the address vector at post: the handles can go at once */
			if (ah_gid)
				(void) ibv_destroy_ah(ah_gid);
			if (ah_qp)
				(void) ibv_destroy_ah(ah_qp);
		}
		while (ibv_poll_cq(other.cq, 16, wc) > 0)
			;
		if (n == 0)
			(void) poll(NULL, 0, 1);
	}
	printf("requests %" PRIu64 " forged %" PRIu64 "\n", requests, forged);
	return 0;
}

/* ---- --flood: one source, as fast as it can ---------------------------------------------- */

static int flood(ProbeTransport *t, ProbeLink *l, ProbePath *p, unsigned long seconds) {
	uint64_t deadline = now_monotonic_nsec() + seconds * 1000 * NSEC_PER_MSEC, seq = 0;

	printf("flooding\n");
	while (!stop && now_monotonic_nsec() < deadline) {
		while (probe_path_send(p, ++seq, now_monotonic_nsec()) == 0)
			sent_seq++;
		if (turn(t, 1) < 0 || probe_link_failure(l))
			break;
	}
	printf("flood sent %" PRIu64 " answered %" PRIu64 "\n", sent_seq, answered);
	return 0;
}

/* ---- --dead-channel: a completion channel readable forever ------------------------------ */

static int dead_channel(ProbeTransport *t, ProbeLink *l) {
	int fds[2], fd = l->completions->fd;
	unsigned n = 0;
	const char *failure;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return 2;
	close(fds[1]); /* readable, at end of file, forever */
	probe_watch_remove(t, fd);
	if (dup3(fds[0], fd, O_CLOEXEC) < 0 || probe_watch_add(t, fd, &l->watch) < 0)
		return 2;
	close(fds[0]);
	while (n < 100) {
		struct pollfd p = { .fd = probe_transport_fd(t), .events = POLLIN };

		if (poll(&p, 1, 0) <= 0)
			break; /* nothing left to do */
		n++;
		if (probe_transport_process(t) < 0)
			break;
	}
	failure = probe_link_failure(l);
	printf("dispatches %u: %s\n", n, failure ? failure : "no failure");
	return n <= 3 && failure && probe_link_device_gone(l) ? 0 : 1;
}

int main(int argc, char **argv) {
	ProbeTransport *t = NULL;
	ProbeLink *l = NULL;
	ProbePath *p = NULL;
	struct sockaddr_storage addr, peer;
	unsigned long count = 0;
	uint16_t port;
	uint64_t deadline, next;
	ProbeStep step;
	bool flooding = false, settings = false;
	int r, error;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && streq(argv[1], "--forge")) {
		if (probe_address_parse(argv[2], &addr) < 0 || addr.ss_family != AF_INET ||
		    probe_address_parse(argv[4], &peer) < 0 || peer.ss_family != AF_INET) {
			fprintf(stderr, "--forge: two IPv4 addresses\n");
			return 2;
		}
		return forge(&addr, (uint16_t) strtoul(argv[3], NULL, 10), &peer);
	}
	if (argc == 4 && streq(argv[1], "--dead-channel")) {
		if (probe_address_parse(argv[2], &addr) < 0)
			return 2;
		r = probe_transport_new(1, on_reply, NULL, &t);
		if (r >= 0)
			r = probe_link_new(t, (struct sockaddr *) &addr,
					   (uint16_t) strtoul(argv[3], NULL, 10), &l);
		if (r < 0) {
			fprintf(stderr, "endpoint on %s: %s\n", argv[2], strerror(-r));
			return 2;
		}
		printf("listening on %s port %s\n", argv[2], argv[3]);
		r = dead_channel(t, l);
		probe_link_free(l);
		probe_transport_free(t);
		return r;
	}
	if (argc >= 4 && streq(argv[1], "--settings")) {
		settings = true;
		argv++;
		argc--;
	}
	if (argc == 6 && streq(argv[1], "--flood")) {
		flooding = true;
		argv++;
		argc--;
	}
	if (argc != 3 && argc != 5) {
		fprintf(stderr,
			"usage: %s ADDR PORT [PEER COUNT]\n"
			"       %s --flood ADDR PORT PEER SECONDS\n"
			"       %s --forge ADDR PORT FORGE_ADDR\n"
			"       %s --settings ADDR PORT [PEER COUNT]\n",
			argv[0], argv[0], argv[0], argv[0]);
		return 2;
	}
	if (probe_address_parse(argv[1], &addr) < 0 ||
	    (argc == 5 && probe_address_parse(argv[3], &peer) < 0)) {
		fprintf(stderr, "not an address\n");
		return 2;
	}
	port = (uint16_t) strtoul(argv[2], NULL, 10);
	r = probe_transport_new(0x5eed0000U ^ (uint32_t) getpid(), on_reply,
				flooding ? &flooding : NULL, &t);
	if (r >= 0)
		/* probing or flooding, its own endpoint answers nothing: any port (so that it
		 * may share an address with the prober it probes) */
		r = probe_link_new(t, (struct sockaddr *) &addr, argc == 5 ? 0 : port, &l);
	if (r < 0) {
		fprintf(stderr, "endpoint on %s:%u: %s\n", argv[1], port, strerror(-r));
		return 2;
	}
	if (settings) {
		probe_transport_set_settings_handler(t, on_settings);
		r = probe_link_set_settings(l, argc == 3 ? &responder_settings : &prober_settings);
		if (r < 0) {
			fprintf(stderr, "settings: %s\n", strerror(-r));
			return 2;
		}
	}
	printf("listening on %s port %u\n", argv[1], port);
	if (argc == 3) {
		while (!stop && turn(t, 1000) >= 0 && !probe_link_failure(l))
			;
		if (probe_link_failure(l))
			printf("endpoint failed: %s\n", probe_link_failure(l));
		printf("answered %" PRIu64 " refused %" PRIu64 "\n", probe_link_answered(l),
		       probe_link_refused(l));
		probe_link_free(l);
		probe_transport_free(t);
		return 0;
	}
	count = strtoul(argv[4], NULL, 10);
	r = probe_path_new(l, (struct sockaddr *) &peer, port, -1, 7, &p);
	if (r < 0) {
		fprintf(stderr, "path: %s\n", strerror(-r));
		return 2;
	}
	deadline = now_monotonic_nsec() + 10000 * NSEC_PER_MSEC;
	while (!probe_path_ready(p) && !probe_path_failed(p, NULL, NULL) &&
	       now_monotonic_nsec() < deadline)
		if (turn(t, 100) < 0)
			break;
	if (probe_path_failed(p, &step, &error) || !probe_path_ready(p)) {
		if (!probe_path_failed(p, &step, &error))
			step = PROBE_STEP_CONNECT, error = -ETIMEDOUT;
		printf("path failed at %s: %s\n", probe_step_to_string(step), strerror(-error));
		return 2;
	}
	printf("path ready\n");
	if (settings) {
		r = probe_path_ask_settings(p, 1);
		if (r < 0)
			printf("asking settings: %s\n", strerror(-r));
	}
	if (flooding) {
		r = flood(t, l, p, count);
		probe_path_free(p);
		probe_link_free(l);
		probe_transport_free(t);
		return r;
	}
	next = now_monotonic_nsec();
	deadline = UINT64_MAX;
	while (!stop) {
		uint64_t now = now_monotonic_nsec();

		if (sent_seq < count && now >= next) {
			r = probe_path_send(p, ++sent_seq, now);
			if (r < 0)
				printf("send %" PRIu64 ": %s\n", sent_seq, strerror(-r));
			next = now + 100 * NSEC_PER_MSEC;
			if (sent_seq == count)
				deadline = now + 2000 * NSEC_PER_MSEC;
		}
		if (answered >= count || now >= deadline)
			break;
		if (turn(t, 10) < 0)
			break;
	}
	if (answered > 0) {
		size_t n = answered < ELEMENTSOF(rtts_ns) ? answered : ELEMENTSOF(rtts_ns);

		qsort(rtts_ns, n, sizeof(uint64_t), u64_compare);
		printf("sent %" PRIu64 " answered %" PRIu64
		       " min_us %.1f p50_us %.1f max_us %.1f\n",
		       sent_seq, answered, rtts_ns[0] / 1e3, rtts_ns[(n - 1) / 2] / 1e3,
		       rtts_ns[n - 1] / 1e3);
	} else
		printf("sent %" PRIu64 " answered 0\n", sent_seq);
	if (settings && settings_seen == 0)
		printf("settings: no answer\n");
	probe_path_free(p);
	probe_link_free(l);
	probe_transport_free(t);
	return answered == count ? 0 : 1;
}
