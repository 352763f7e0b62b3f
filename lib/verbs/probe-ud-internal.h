/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the files of the probe transport share (probe-ud.h): probe-ud.c holds the transport
 * (its one epoll, rdma_cm's events) and the paths, probe-ud-link.c a link's endpoint (its
 * datagrams: answers judged, requests answered), probe-ud-device.c the devices (their
 * asynchronous events, and letting go of one that went away). */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "probe-guard.h"
#include "probe-ud.h"
#include "probe-wire.h"

/* A link sends a request on each of its paths at once when they fall due together (up to 63
 * others in the mesh and 256 peers) and answers other probers meanwhile; their answers and
 * requests arrive as a burst. A UD datagram with no receive posted is dropped silently: it
 * would count as loss. */
#define RECV_SLOTS 512
#define SEND_SLOTS 512
/* the send slots an answer may not take: this prober's own requests always find one */
#define SEND_RESERVED	   128
#define RECV_SIZE	   (PROBE_GRH_SIZE + PROBE_WIRE_SIZE)
#define RESOLVE_TIMEOUT_MS 2000
/* the work of one probe_transport_process(): completions a link, rdma_cm events, a device's
 * asynchronous events. What is left waits for the next call, and the caller's timers run in
 * between. */
#define COMPLETIONS_A_CALL 64
#define EVENTS_A_CALL	   64
/* address handles of answers kept a link, one a peer (GIDs, traffic class, flow label, SL) */
#define ANSWER_AHS 64

/* wr_id: what completed, and its slot */
enum {
	WR_RECV = 1,
	WR_SEND = 2,
};
#define WR_ID(kind, slot) (((uint64_t) (kind) << 32) | (uint32_t) (slot))

/* An rdma_cm id's context: a link's listening id (its connect requests), a path's, or the id
 * that stands for a device. */
typedef enum IdKind {
	ID_LINK = 1,
	ID_PATH,
	ID_DEVICE,
} IdKind;

/* What a descriptor in the transport's epoll is: its data points to one. */
typedef enum WatchKind {
	WATCH_CM = 1, /* the rdma_cm event channel */
	WATCH_MORE,   /* work left from the last call */
	WATCH_DEVICE, /* a device's asynchronous events */
	WATCH_LINK,   /* a link's completion channel */
} WatchKind;

typedef struct Watch {
	WatchKind kind;
	void *owner;
} Watch;

/* A device this transport used. librdmacm opened it (its ibv_context: the uverbs file the
 * kernel waits for when it removes the device) and keeps it open after the last id on it is
 * gone, until a later lookup of a device misses it. Its id is bound to it for as long as the
 * transport lives, so that its removal is heard also when no link is on it any more. */
typedef struct ProbeDevice {
	IdKind kind; /* first: the id's context */
	Watch watch;
	ProbeTransport *t;
	struct ibv_context *verbs;
	struct rdma_cm_id *id;
	bool watched; /* its async_fd in the epoll */
	bool gone;    /* let go: freed at the end of the call */
	struct ProbeDevice *next;
} ProbeDevice;

struct ProbeTransport {
	struct rdma_event_channel *channel;
	int epoll_fd, more_fd;
	Watch cm_watch, more_watch;
	bool more; /* more_fd is readable */
	uint32_t sender;
	probe_reply_t on_reply;
	probe_settings_t on_settings; /* NULL: settings exchanged are not handed on */
	void *userdata;
	ProbeDevice *devices;
	ProbeLink *links;
};

typedef struct SendSlot {
	bool busy;
	int answer;   /* an answer's: the entry of ahs[] it sends through; -1 */
	bool request; /* a request of path's, seq: its send completion's timestamp is kept */
	uint32_t path;
	uint64_t seq;
} SendSlot;

/* An address handle answers go back through: one a peer, made from the first request's
 * completion, kept while the link lives (the least recently used one no send holds is made
 * over when all are taken). */
typedef struct AnswerAh {
	ProbeGrh grh;
	uint8_t sl;
	struct ibv_ah *ah;
	unsigned sends; /* in flight through it */
	uint64_t used_ns;
} AnswerAh;

/* When a request left, by the device's clock (its send completion), until its answer comes. */
typedef struct SentStamp {
	bool used;
	uint32_t path;
	uint64_t seq;
	uint64_t ticks;
} SentStamp;

/* One completion, read from either kind of CQ; ticks when the device stamped it. */
typedef struct Completion {
	struct ibv_wc wc;
	bool stamped;
	uint64_t ticks;
} Completion;

struct ProbeLink {
	IdKind kind; /* first: what the id's context points to */
	Watch watch;
	ProbeTransport *t;
	struct ibv_context *verbs; /* the device's, kept after the id is gone */
	uint8_t port_num;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *completions;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint8_t *buf; /* RECV_SLOTS of RECV_SIZE, then SEND_SLOTS of PROBE_WIRE_SIZE */
	struct ibv_mr *mr;
	SendSlot sends[SEND_SLOTS];
	uint32_t free_sends[SEND_SLOTS]; /* the slots not busy, a stack */
	uint32_t n_free_sends;
	AnswerAh ahs[ANSWER_AHS];
	unsigned n_ahs;
	ProbeBudget budget;
	uint64_t answered, refused;
	ProbeLinkSettings settings; /* what the link tells a peer that asks (version 2) */
	/* the first completion with an error: the QP is in the error state (on Soft-RoCE, a send
	 * while the netdev is down puts it there) and sends and receives nothing any more */
	enum ibv_wc_status failure;
	const char *gone; /* stopped otherwise: its device went away, its address changed */
	bool device_gone;
	bool woken;		/* its completion channel was readable */
	bool more;		/* completions left for the next call */
	bool device_timestamps; /* the device stamps completions (completion_timestamp_mask) */
	uint64_t clock_mask, clock_khz;
	/* the CQ: extended (ibv_create_cq_ex()) where the provider has it, with completion
	 * timestamps where the device offers them; cq_ex NULL for a plain one */
	struct ibv_cq_ex *cq_ex;
	SentStamp stamps[SEND_SLOTS];
	uint32_t next_stamp;
	ProbePath *paths; /* its paths, for their answers and to let go with it */
	ProbeLink *next;
};

struct ProbePath {
	IdKind kind;
	ProbeLink *l; /* NULL once the link was freed first */
	struct rdma_cm_id *id;
	uint32_t index;
	int tos; /* the traffic class its setup and requests carry; -1: rdma_cm's default */
	struct ibv_ah *ah;
	struct ibv_ah_attr ah_attr; /* what the SIDR reply gave, ah made from it (its class: tos) */
	struct ibv_ah *old_ah;	    /* the one before a ToS change: a send may still use it */
	uint32_t qkey;
	ProbePeer peer; /* its QP number and GID: where its answers must come from */
	bool ready, failed;
	ProbeStep step;
	int error;
	ProbePath *next;
};

/* probe-ud.c */
int probe_sockaddr_copy(const struct sockaddr *sa, uint16_t port, struct sockaddr_storage *ret);
int probe_watch_add(ProbeTransport *t, int fd, Watch *w);
void probe_watch_remove(ProbeTransport *t, int fd);
void probe_path_fail(ProbePath *p, ProbeStep step, int error);
/* A path's objects: its address handle (on its link's PD); with its id, everything. */
void probe_path_release(ProbePath *p, bool id);

/* probe-ud-link.c */
/* A link's objects: its QP, the address handles of its answers, its MR, CQ, completion channel
 * and PD; with its id, everything. Its paths are the caller's to let go first. */
void probe_link_release(ProbeLink *l, bool id);
/* A link's share of the completions: at most COMPLETIONS_A_CALL, more set when some are left. */
void probe_link_work(ProbeLink *l);

/* probe-ud-device.c */
/* The device of a link bound to addr: known, or watched from now on (its asynchronous events,
 * and an id bound to it, that hears of its removal when no link is on it any more). */
int probe_device_use(ProbeTransport *t, struct ibv_context *verbs, const struct sockaddr *addr);
void probe_device_free(ProbeDevice *d);
/* A device gone: everything of this transport on it let go at once. */
void probe_device_release(ProbeTransport *t, struct ibv_context *verbs, const char *why);
/* Its asynchronous events, after epoll said events of its descriptor. */
void probe_device_process(ProbeDevice *d, uint32_t events);
