/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Inside the selftest: the messages the two sides exchange; one side of a connection
 * (selftest-side.c: its verbs resources, what it posts, what completes); the test with its
 * rdma_cm event channel, the poll loop and the server (selftest-loop.c) and the client
 * (selftest-client.c). */

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "fileio.h"
#include "selftest-progress.h"
#include "selftest.h"
#include "verbs-util.h"

#define SELFTEST_MAGIC	 UINT32_C(0x52445354) /* "RDST" */
#define SELFTEST_VERSION 1
/* Outstanding RDMA WRITEs of the bandwidth burst. */
#define BURST_WINDOW 8

/* The wr_id of every work request: what it was, for a completion with an error (whose opcode
 * is undefined). */
enum {
	WR_RECV = 1,
	WR_SEND,
	WR_WRITE,
};

enum {
	MSG_PING = 1, /* check the buffer against pattern(seq), then reply */
	MSG_REPLY,
};

/* A SEND, either way; big-endian. */
typedef struct Message {
	uint32_t magic;
	uint32_t kind;
	uint32_t seq;
	uint32_t status;     /* reply: 0 the bytes were right, 1 they were not */
	uint64_t offset;     /* the first wrong byte */
	uint64_t check_nsec; /* how long the server took to check the bytes */
	uint8_t expected, got;
	uint8_t reserved[6];
} Message;

typedef struct Side {
	const char *role;	  /* "client", "server": for messages */
	const SelftestLink *link; /* the link it must run on */
	SelftestResult *result;	  /* where its failures go */
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	bool has_qp;
	uint8_t *data;
	uint64_t size;
	struct ibv_mr *data_mr;
	Message *msgs; /* [0] received into, [1] sent from */
	struct ibv_mr *msg_mr;
	uint64_t remote_addr;
	uint32_t remote_rkey;
	unsigned outstanding; /* signaled sends and writes not completed yet */
	unsigned recvs;	      /* RECV completions */
	uint64_t completed;   /* completions without an error, of any kind: progress */
	Message received;
	bool addr_done, addr_resolved, route_resolved, established, disconnected, disconnecting;
	int addr_status; /* of an ADDR_ERROR */
	/* rdma_cm said it found no neighbour (ETIMEDOUT, ENODATA): address resolution failed,
	 * whichever ends first, a retry or --timeout */
	int addr_unanswered;
	uint32_t iterations; /* server: what the client announced */
	uint32_t pings;	     /* server: pings answered */
} Side;

void pattern_fill(uint8_t *buf, uint64_t size, uint32_t seq);
const char *sockaddr_format(const struct sockaddr *sa, char *buf, size_t size);
void side_free(Side *s);
/* PD, completion channel, CQ, QP and the two registered buffers of a side whose id is bound
 * to a device. access: what the peer may do to the data buffer. */
int side_setup(Side *s, uint64_t size, int access);
int side_post_recv(Side *s);
/* A message from msgs[1]; after an RDMA WRITE of the data buffer when write_size > 0. */
int side_post_send(Side *s, uint64_t write_size, bool message);
/* Poll a side's CQ empty; > 0 when something completed. */
int side_drain(Side *s);
/* The completion channel of a side fired: take the event, re-arm, drain. */
int side_cq_event(Side *s);
/* Was the connection taken on the link this side must run on, with its GID? */
int side_check_device(Side *s, const char *when);
/* Is the connected QP in RTS, on the GID index of the side's link? */
int side_check_qp(Side *s);

/* selftest-route.c: does the kernel send from one link's address to dst by that link's netdev?
 * to: the link that owns dst, when it is a link of this host (the hint then says how to route
 * between two local links). A failure at step "route" in res. */
int selftest_route_check(SelftestResult *res, const SelftestLink *from, const struct sockaddr *dst,
			 const SelftestLink *to);

/* The wire formats: big-endian. The REQ carries what the client will write, the REP where. */
typedef struct ConnectData {
	uint32_t magic;
	uint32_t version;
	uint64_t size;
	uint32_t iterations;
	uint32_t reserved;
} ConnectData;

typedef struct AcceptData {
	uint32_t magic;
	uint32_t version;
	uint64_t addr;
	uint64_t size;
	uint32_t rkey;
	uint32_t reserved;
} AcceptData;

/* A listener that cannot take a client says why in its REJ. */
typedef struct RejectData {
	uint32_t magic;
	int32_t error; /* -errno */
	int32_t step;  /* SelftestStep */
	uint32_t reserved;
} RejectData;

/* A test: the client and, for a local peer or --listen, the server, on one rdma_cm event
 * channel. */
typedef struct Selftest {
	const SelftestParams *params;
	SelftestResult *result;
	struct rdma_event_channel *events;
	struct rdma_cm_id *listener;
	Side client, server;
	bool local_server;	/* loopback or a peer link: the server runs here */
	bool serving;		/* --listen */
	SelftestResult session; /* --listen: the current client's */
	SelftestStep phase;	/* what the client is at: the step a failure to wait is */
	/* The client's bounds and how far it got; --listen: the current client's. */
	SelftestProgress progress;
	uint64_t stage_base; /* the client's count (recvs, completed) when its stage began */
	char peer_text[INET6_ADDRSTRLEN + 8]; /* the peer's address and port */
	char peer_addr[INET6_ADDRSTRLEN];     /* ... without the port */
	/* An rdma_cm event for the client's id, after its acknowledgement: selftest-client.c's
	 * handler, which the loop calls without knowing the client (NULL: no client). */
	int (*client_event)(struct Selftest *t, const struct rdma_cm_event *e, const void *data,
			    size_t len);
} Selftest;

/* selftest-loop.c: the event loop and the server. Wait for something to happen, up to deadline
 * (NSEC_INFINITY: forever) or stop_fd. Returns 0 after handling what came (what is there is
 * handled even past the deadline), 1 when stop_fd is readable, -ETIME when nothing came by
 * the deadline, -ENOMEM. */
int selftest_pump(Selftest *t, uint64_t deadline, int stop_fd);
/* The rdma_cm event channel, non-blocking; a failure at step "link" (no rdma_ucm). */
int selftest_events_open(Selftest *t);
/* A listener on link's address and port (0: any free one). */
int selftest_listen(Selftest *t, const SelftestLink *link, uint16_t port, SelftestResult *res);
/* Disconnects (briefly waiting for it) and frees everything, in the order verbs wants. */
void selftest_free(Selftest *t);
/* The GIDs of the report, from the links the test runs on. */
void selftest_result_set_gids(const SelftestParams *p, SelftestResult *r);
