/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "fileio.h"
#include "latency.h"
#include "probe-ud.h"
#include "probe-wire.h"
#include "verbs-util.h"

/* A link sends a request on each of its paths at once when they fall due together (up to 63
 * others in the mesh and 256 peers) and answers other probers meanwhile; their answers and
 * requests arrive as a burst. A UD datagram with no receive posted is dropped silently: it
 * would count as loss. */
#define RECV_SLOTS	   512
#define SEND_SLOTS	   512
#define GRH_SIZE	   40 /* what a UD receive gets before the payload */
#define RECV_SIZE	   (GRH_SIZE + PROBE_WIRE_SIZE)
#define RESOLVE_TIMEOUT_MS 2000

/* wr_id: what completed, and its slot */
enum {
	WR_RECV = 1,
	WR_SEND = 2,
};
#define WR_ID(kind, slot) (((uint64_t) (kind) << 32) | (uint32_t) (slot))

/* An rdma_cm id's context: a link's listening id (its connect requests) or a path's. */
typedef enum IdKind {
	ID_LINK = 1,
	ID_PATH,
} IdKind;

struct ProbeTransport {
	struct rdma_event_channel *channel;
	uint32_t sender;
	probe_reply_t on_reply;
	void *userdata;
};

typedef struct SendSlot {
	bool busy;
	struct ibv_ah *ah; /* a reply's, made from its request's completion; freed with the slot */
	bool request;	   /* a request of path's, seq: its send completion's timestamp is kept */
	uint32_t path;
	uint64_t seq;
} SendSlot;

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
	ProbeTransport *t;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *completions;
	struct ibv_cq *cq;
	uint8_t *buf; /* RECV_SLOTS of RECV_SIZE, then SEND_SLOTS of PROBE_WIRE_SIZE */
	struct ibv_mr *mr;
	SendSlot sends[SEND_SLOTS];
	uint32_t free_sends[SEND_SLOTS]; /* the slots not busy, a stack */
	uint32_t n_free_sends;
	uint64_t answered, refused;
	/* the first completion with an error: the QP is in the error state (on Soft-RoCE, a send
	 * while the netdev is down puts it there) and sends and receives nothing any more */
	enum ibv_wc_status failure;
	bool device_timestamps; /* the device stamps completions (completion_timestamp_mask) */
	uint64_t clock_mask, clock_khz;
	/* the CQ: extended (ibv_create_cq_ex()) where the provider has it, with completion
	 * timestamps where the device offers them; cq_ex NULL for a plain one */
	struct ibv_cq_ex *cq_ex;
	SentStamp stamps[SEND_SLOTS];
	uint32_t next_stamp;
};

struct ProbePath {
	IdKind kind;
	ProbeLink *l;
	struct rdma_cm_id *id;
	uint32_t index;
	struct ibv_ah *ah;
	uint32_t qpn, qkey;
	bool ready, failed;
	ProbeStep step;
	int error;
};

static const char *const step_table[_PROBE_STEP_MAX] = {
	[PROBE_STEP_NONE] = "none",
	[PROBE_STEP_ADDRESS] = "address-resolution",
	[PROBE_STEP_ROUTE] = "route-resolution",
	[PROBE_STEP_CONNECT] = "connect",
	[PROBE_STEP_QP] = "qp",
	[PROBE_STEP_SEND] = "send",
	[PROBE_STEP_COMPLETION] = "completion",
};

const char *probe_step_to_string(ProbeStep s) {
	return s < _PROBE_STEP_MAX ? step_table[s] : NULL;
}

static int sockaddr_copy(const struct sockaddr *sa, uint16_t port, struct sockaddr_storage *ret) {
	size_t size = sa->sa_family == AF_INET	  ? sizeof(struct sockaddr_in)
		      : sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
						  : 0;

	if (size == 0)
		return -EAFNOSUPPORT;
	memset(ret, 0, sizeof(*ret));
	memcpy(ret, sa, size);
	sockaddr_set_port(ret, port);
	return 0;
}

int probe_address_parse(const char *s, struct sockaddr_storage *ret) {
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *) &ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *) &ss;

	if (inet_pton(AF_INET, s, &in->sin_addr) == 1)
		in->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1)
		in6->sin6_family = AF_INET6;
	else
		return -EINVAL;
	*ret = ss;
	return 0;
}

int probe_transport_new(uint32_t sender, probe_reply_t on_reply, void *userdata,
			ProbeTransport **ret) {
	_cleanup_(probe_transport_freep) ProbeTransport *t = NULL;
	int r;

	t = calloc(1, sizeof(ProbeTransport));
	if (!t)
		return -ENOMEM;
	*t = (ProbeTransport){ .sender = sender, .on_reply = on_reply, .userdata = userdata };
	t->channel = rdma_create_event_channel();
	if (!t->channel)
		return -errno;
	r = fd_nonblock(t->channel->fd);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(t);
	return 0;
}

ProbeTransport *probe_transport_free(ProbeTransport *t) {
	if (!t)
		return NULL;
	if (t->channel)
		rdma_destroy_event_channel(t->channel);
	free(t);
	return NULL;
}

int probe_transport_fd(const ProbeTransport *t) {
	return t->channel->fd;
}

static void path_fail(ProbePath *p, ProbeStep step, int error) {
	if (p->failed)
		return;
	p->ready = false;
	p->failed = true;
	p->step = step;
	p->error = error < 0 ? error : -EIO;
}

/* A peer's endpoint answered the SIDR request: its QP number, Q_Key and the address to it. */
static void path_established(ProbePath *p, const struct rdma_ud_param *ud) {
	if (p->id->verbs != p->l->id->verbs) {
		/* the route to the peer leaves by another device than the link's */
		path_fail(p, PROBE_STEP_ROUTE, -EXDEV);
		return;
	}
	p->ah = ibv_create_ah(p->l->pd, (struct ibv_ah_attr *) &ud->ah_attr);
	if (!p->ah) {
		path_fail(p, PROBE_STEP_QP, -errno);
		return;
	}
	p->qpn = ud->qp_num;
	p->qkey = ud->qkey;
	p->ready = true;
}

static void path_event(ProbePath *p, struct rdma_cm_event *ev) {
	struct rdma_conn_param param = { 0 };

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(p->id, RESOLVE_TIMEOUT_MS) < 0)
			path_fail(p, PROBE_STEP_ROUTE, -errno);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		path_fail(p, PROBE_STEP_ADDRESS, ev->status);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rdma_connect(p->id, &param) < 0)
			path_fail(p, PROBE_STEP_CONNECT, -errno);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		path_fail(p, PROBE_STEP_ROUTE, ev->status);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		path_established(p, &ev->param.ud);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		/* status: a negative errno, or the CM's reject reason (positive) */
		path_fail(p, PROBE_STEP_CONNECT, ev->status < 0 ? ev->status : -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_ADDR_CHANGE:
		path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
		break;
	default:
		break;
	}
}

/* A SIDR request on the link's port: answered with the link's one QP. The id the request came
 * on is not kept (acked, then destroyed by the caller). */
static void link_event(ProbeLink *l, struct rdma_cm_event *ev) {
	struct rdma_conn_param param = { .qp_num = l->id->qp->qp_num };

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST && rdma_accept(ev->id, &param) < 0)
		l->refused++;
}

int probe_transport_process(ProbeTransport *t) {
	for (;;) {
		struct rdma_cm_event *ev;
		struct rdma_cm_id *request = NULL;
		IdKind *kind;

		if (rdma_get_cm_event(t->channel, &ev) < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		kind = ev->id->context;
		if (kind && *kind == ID_PATH)
			path_event((ProbePath *) kind, ev);
		else if (kind && *kind == ID_LINK) {
			link_event((ProbeLink *) kind, ev);
			if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
				request = ev->id;
		}
		rdma_ack_cm_event(ev);
		if (request)
			rdma_destroy_id(request);
	}
}

static uint8_t *recv_buf(ProbeLink *l, uint32_t slot) {
	return l->buf + (size_t) slot * RECV_SIZE;
}

static uint8_t *send_buf(ProbeLink *l, uint32_t slot) {
	return l->buf + (size_t) RECV_SLOTS * RECV_SIZE + (size_t) slot * PROBE_WIRE_SIZE;
}

static int recv_post(ProbeLink *l, uint32_t slot) {
	struct ibv_sge sge = { .addr = (uintptr_t) recv_buf(l, slot),
			       .length = RECV_SIZE,
			       .lkey = l->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = WR_ID(WR_RECV, slot), .sg_list = &sge, .num_sge = 1 },
			   *bad;

	return -ibv_post_recv(l->id->qp, &wr, &bad);
}

static int send_slot_take(ProbeLink *l, uint32_t *ret) {
	uint32_t i;

	if (l->n_free_sends == 0)
		return -ENOBUFS;
	i = l->free_sends[--l->n_free_sends];
	l->sends[i].busy = true;
	*ret = i;
	return 0;
}

static void send_slot_release(ProbeLink *l, uint32_t slot) {
	if (!l->sends[slot].busy)
		return;
	if (l->sends[slot].ah)
		ibv_destroy_ah(l->sends[slot].ah);
	l->sends[slot] = (SendSlot){ 0 };
	l->free_sends[l->n_free_sends++] = slot;
}

/* m from slot's buffer to qpn behind ah. */
static int send_post(ProbeLink *l, uint32_t slot, const ProbeMessage *m, struct ibv_ah *ah,
		     uint32_t qpn, uint32_t qkey) {
	struct ibv_sge sge = { .addr = (uintptr_t) send_buf(l, slot),
			       .length = PROBE_WIRE_SIZE,
			       .lkey = l->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = WR_ID(WR_SEND, slot),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = qkey },
	};
	struct ibv_send_wr *bad;

	probe_wire_build(m, send_buf(l, slot));
	return -ibv_post_send(l->id->qp, &wr, &bad);
}

/* The link's CQ: extended, stamped by the device where it can; extended without stamps where it
 * cannot; plain where the provider has no extended CQ (ibv_poll_cq() then). */
static int link_cq_new(ProbeLink *l) {
	struct ibv_cq_init_attr_ex attr = {
		.cqe = RECV_SLOTS + SEND_SLOTS,
		.channel = l->completions,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID |
			    IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS,
	};

	if (l->device_timestamps) {
		attr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		l->cq_ex = ibv_create_cq_ex(l->id->verbs, &attr);
		if (!l->cq_ex) { /* offered, but not on this CQ: the software clock */
			l->device_timestamps = false;
			attr.wc_flags &= ~(uint64_t) IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
		}
	}
	if (!l->cq_ex)
		l->cq_ex = ibv_create_cq_ex(l->id->verbs, &attr);
	if (l->cq_ex) {
		l->cq = ibv_cq_ex_to_cq(l->cq_ex);
		return 0;
	}
	l->cq = ibv_create_cq(l->id->verbs, RECV_SLOTS + SEND_SLOTS, NULL, l->completions, 0);
	return l->cq ? 0 : -errno;
}

int probe_link_new(ProbeTransport *t, const struct sockaddr *addr, uint16_t port, ProbeLink **ret) {
	_cleanup_(probe_link_freep) ProbeLink *l = NULL;
	struct sockaddr_storage ss;
	struct ibv_qp_init_attr attr = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SEND_SLOTS,
			 .max_recv_wr = RECV_SLOTS,
			 .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};
	size_t size = (size_t) RECV_SLOTS * RECV_SIZE + (size_t) SEND_SLOTS * PROBE_WIRE_SIZE;
	struct ibv_device_attr_ex dev = { 0 };
	int r;

	r = sockaddr_copy(addr, port, &ss);
	if (r < 0)
		return r;
	l = calloc(1, sizeof(ProbeLink));
	if (!l)
		return -ENOMEM;
	l->kind = ID_LINK;
	for (uint32_t i = SEND_SLOTS; i > 0; i--)
		l->free_sends[l->n_free_sends++] = i - 1;
	l->t = t;
	if (rdma_create_id(t->channel, &l->id, l, RDMA_PS_UDP) < 0)
		return -errno;
	/* bound to an address of an RDMA device: the id has the device's context from now on */
	if (rdma_bind_addr(l->id, (struct sockaddr *) &ss) < 0)
		return -errno;
	if (!l->id->verbs)
		return -ENODEV;
	if (ibv_query_device_ex(l->id->verbs, NULL, &dev) == 0 &&
	    dev.completion_timestamp_mask != 0 && dev.hca_core_clock != 0) {
		l->device_timestamps = true;
		l->clock_mask = dev.completion_timestamp_mask;
		l->clock_khz = dev.hca_core_clock;
	}
	l->pd = ibv_alloc_pd(l->id->verbs);
	if (!l->pd)
		return -errno;
	l->completions = ibv_create_comp_channel(l->id->verbs);
	if (!l->completions)
		return -errno;
	r = fd_nonblock(l->completions->fd);
	if (r < 0)
		return r;
	r = link_cq_new(l);
	if (r < 0)
		return r;
	r = ibv_req_notify_cq(l->cq, 0);
	if (r != 0)
		return -r;
	attr.send_cq = attr.recv_cq = l->cq;
	/* a UD QP made ready to send and receive with rdma_cm's Q_Key */
	if (rdma_create_qp(l->id, l->pd, &attr) < 0)
		return -errno;
	l->buf = calloc(1, size);
	if (!l->buf)
		return -ENOMEM;
	l->mr = ibv_reg_mr(l->pd, l->buf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!l->mr)
		return -errno;
	for (uint32_t i = 0; i < RECV_SLOTS; i++) {
		r = recv_post(l, i);
		if (r < 0)
			return r;
	}
	if (rdma_listen(l->id, 16) < 0)
		return -errno;
	*ret = TAKE_PTR(l);
	return 0;
}

ProbeLink *probe_link_free(ProbeLink *l) {
	if (!l)
		return NULL;
	if (l->id && l->id->qp)
		rdma_destroy_qp(l->id);
	for (uint32_t i = 0; i < SEND_SLOTS; i++)
		send_slot_release(l, i);
	if (l->mr)
		ibv_dereg_mr(l->mr);
	free(l->buf);
	if (l->cq)
		ibv_destroy_cq(l->cq);
	if (l->completions)
		ibv_destroy_comp_channel(l->completions);
	if (l->pd)
		ibv_dealloc_pd(l->pd);
	if (l->id)
		rdma_destroy_id(l->id);
	free(l);
	return NULL;
}

int probe_link_fd(const ProbeLink *l) {
	return l->completions->fd;
}

uint64_t probe_link_answered(const ProbeLink *l) {
	return l->answered;
}

uint64_t probe_link_refused(const ProbeLink *l) {
	return l->refused;
}

bool probe_link_device_timestamps(const ProbeLink *l) {
	return l->device_timestamps;
}

bool probe_link_cq_extended(const ProbeLink *l) {
	return l->cq_ex != NULL;
}

const char *probe_link_failure(const ProbeLink *l) {
	return l->failure == IBV_WC_SUCCESS ? NULL : ibv_wc_status_str(l->failure);
}

/* A request's send completion stamped by the device: kept until its answer (the oldest stamp
 * goes when all are taken: its answer is long overdue). */
static void stamp_put(ProbeLink *l, uint32_t path, uint64_t seq, uint64_t ticks) {
	l->stamps[l->next_stamp++ % SEND_SLOTS] =
		(SentStamp){ .used = true, .path = path, .seq = seq, .ticks = ticks };
}

/* The round trip of path's seq by the device's clock, answered at ticks; 0 without a stamp. */
static uint64_t stamp_take(ProbeLink *l, uint32_t path, uint64_t seq, uint64_t ticks) {
	for (size_t i = 0; i < SEND_SLOTS; i++) {
		SentStamp *st = &l->stamps[i];

		if (st->used && st->path == path && st->seq == seq) {
			st->used = false;
			return latency_device_ns(st->ticks, ticks, l->clock_mask, l->clock_khz);
		}
	}
	return 0;
}

/* A datagram received in slot: a request answered, an answer handed on, the rest refused. */
static void link_received(ProbeLink *l, const Completion *c, uint32_t slot, uint64_t now) {
	const struct ibv_wc *wc = &c->wc;
	const uint8_t *buf = recv_buf(l, slot);
	ProbeMessage m;
	uint32_t s;

	if (!(wc->wc_flags & IBV_WC_GRH) || wc->byte_len < GRH_SIZE ||
	    probe_wire_parse(buf + GRH_SIZE, wc->byte_len - GRH_SIZE, &m) < 0) {
		l->refused++;
		return;
	}
	if (m.kind == PROBE_REPLY) {
		if (m.sender != l->t->sender) {
			l->refused++; /* an answer to another prober, or to this one before a
					 restart */
			return;
		}
		l->t->on_reply(l->t->userdata, m.path, m.seq, m.sent_ns, now,
			       c->stamped ? stamp_take(l, m.path, m.seq, c->ticks) : 0);
		return;
	}
	/* a request: back to where it came from, as it came but for the kind */
	if (send_slot_take(l, &s) < 0) {
		l->refused++;
		return;
	}
	l->sends[s].ah = ibv_create_ah_from_wc(l->pd, (struct ibv_wc *) wc, (struct ibv_grh *) buf,
					       l->id->port_num);
	m.kind = PROBE_REPLY;
	if (!l->sends[s].ah || send_post(l, s, &m, l->sends[s].ah, wc->src_qp, RDMA_UDP_QKEY) < 0) {
		send_slot_release(l, s);
		l->refused++;
		return;
	}
	l->answered++;
}

/* One completion: a send's slot freed (a request's device stamp kept), a receive handled and
 * its slot posted again. */
static int link_completed(ProbeLink *l, const Completion *c, uint64_t now_ns) {
	uint32_t kind = (uint32_t) (c->wc.wr_id >> 32), slot = (uint32_t) c->wc.wr_id;

	/* a send in error, or receives flushed: the QP is in the error state. A receive in error
	 * otherwise (a datagram longer than a probe: local length error) is that datagram's
	 * alone, refused. */
	if (c->wc.status != IBV_WC_SUCCESS && l->failure == IBV_WC_SUCCESS &&
	    (kind == WR_SEND || c->wc.status == IBV_WC_WR_FLUSH_ERR))
		l->failure = c->wc.status;
	if (kind == WR_SEND && slot < SEND_SLOTS) {
		if (c->stamped && c->wc.status == IBV_WC_SUCCESS && l->sends[slot].request)
			stamp_put(l, l->sends[slot].path, l->sends[slot].seq, c->ticks);
		send_slot_release(l, slot);
	} else if (kind == WR_RECV && slot < RECV_SLOTS) {
		if (c->wc.status == IBV_WC_WR_FLUSH_ERR)
			return 0; /* the QP is in error: made again by the caller */
		if (c->wc.status != IBV_WC_SUCCESS)
			l->refused++;
		else
			link_received(l, c, slot, now_ns);
		return recv_post(l, slot);
	}
	return 0;
}

/* The fields link_completed() reads, from an extended CQ's current completion (only wr_id and
 * status are defined for one in error). */
static void completion_read(ProbeLink *l, Completion *ret) {
	struct ibv_cq_ex *cq = l->cq_ex;

	*ret = (Completion){ .wc = { .wr_id = cq->wr_id, .status = cq->status } };
	if (cq->status != IBV_WC_SUCCESS)
		return;
	ret->wc.byte_len = ibv_wc_read_byte_len(cq);
	ret->wc.src_qp = ibv_wc_read_src_qp(cq);
	ret->wc.wc_flags = ibv_wc_read_wc_flags(cq);
	ret->wc.slid = ibv_wc_read_slid(cq);
	ret->wc.sl = ibv_wc_read_sl(cq);
	ret->wc.dlid_path_bits = ibv_wc_read_dlid_path_bits(cq);
	if (l->device_timestamps) {
		ret->stamped = true;
		ret->ticks = ibv_wc_read_completion_ts(cq);
	}
}

/* The extended CQ, one completion for each ibv_start_poll() and ibv_end_poll(): handled after
 * end_poll (handling posts receives and sends). Not a batch through ibv_next_poll(): providers
 * disagree on where end_poll leaves the queue once next_poll has found it empty (rxe in Debian
 * 12's rdma-core moves on once more, and then reads empty entries as completions, forever);
 * start, read, end is the same on all of them. */
static int link_poll_ex(ProbeLink *l, uint64_t now_ns) {
	struct ibv_poll_cq_attr attr = { 0 };

	for (;;) {
		Completion c;
		int r = ibv_start_poll(l->cq_ex, &attr);

		if (r == ENOENT)
			return 0;
		if (r != 0)
			return -EIO;
		completion_read(l, &c);
		ibv_end_poll(l->cq_ex);
		r = link_completed(l, &c, now_ns);
		if (r < 0)
			return r;
	}
}

static int link_poll(ProbeLink *l, uint64_t now_ns) {
	struct ibv_wc wc[16];
	int n, r;

	while ((n = ibv_poll_cq(l->cq, ELEMENTSOF(wc), wc)) > 0)
		for (int i = 0; i < n; i++) {
			r = link_completed(l, &(Completion){ .wc = wc[i] }, now_ns);
			if (r < 0)
				return r;
		}
	return n < 0 ? -EIO : 0;
}

int probe_link_process(ProbeLink *l, uint64_t now_ns) {
	struct ibv_cq *cq;
	void *ctx;
	int r;

	/* the event that woke the caller, if any (the fd is non-blocking), then asked again
	 * before the queue is read, so that nothing completing meanwhile is missed */
	if (ibv_get_cq_event(l->completions, &cq, &ctx) == 0)
		ibv_ack_cq_events(cq, 1);
	r = ibv_req_notify_cq(l->cq, 0);
	if (r != 0)
		return -r;
	return l->cq_ex ? link_poll_ex(l, now_ns) : link_poll(l, now_ns);
}

int probe_path_new(ProbeLink *l, const struct sockaddr *dst, uint16_t port, uint32_t index,
		   ProbePath **ret) {
	_cleanup_(probe_path_freep) ProbePath *p = NULL;
	struct sockaddr_storage src, to;
	int r;

	r = sockaddr_copy(dst, port, &to);
	if (r >= 0) /* from the link's address, any port */
		r = sockaddr_copy(rdma_get_local_addr(l->id), 0, &src);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(ProbePath));
	if (!p)
		return -ENOMEM;
	p->kind = ID_PATH;
	p->l = l;
	p->index = index;
	if (rdma_create_id(l->t->channel, &p->id, p, RDMA_PS_UDP) < 0)
		return -errno;
	if (rdma_resolve_addr(p->id, (struct sockaddr *) &src, (struct sockaddr *) &to,
			      RESOLVE_TIMEOUT_MS) < 0)
		path_fail(p, PROBE_STEP_ADDRESS, -errno);
	*ret = TAKE_PTR(p);
	return 0;
}

ProbePath *probe_path_free(ProbePath *p) {
	if (!p)
		return NULL;
	if (p->ah)
		ibv_destroy_ah(p->ah);
	if (p->id)
		rdma_destroy_id(p->id);
	free(p);
	return NULL;
}

bool probe_path_ready(const ProbePath *p) {
	return p->ready;
}

bool probe_path_failed(const ProbePath *p, ProbeStep *ret_step, int *ret_error) {
	if (!p->failed)
		return false;
	if (ret_step)
		*ret_step = p->step;
	if (ret_error)
		*ret_error = p->error;
	return true;
}

int probe_path_send(ProbePath *p, uint64_t seq, uint64_t now_ns) {
	ProbeLink *l = p->l;
	ProbeMessage m = { .kind = PROBE_REQUEST,
			   .sender = l->t->sender,
			   .path = p->index,
			   .seq = seq,
			   .sent_ns = now_ns };
	uint32_t slot;
	int r;

	if (p->failed)
		return p->error;
	if (!p->ready)
		return -EAGAIN;
	r = send_slot_take(l, &slot);
	if (r < 0)
		return r;
	l->sends[slot].request = true;
	l->sends[slot].path = p->index;
	l->sends[slot].seq = seq;
	r = send_post(l, slot, &m, p->ah, p->qpn, p->qkey);
	if (r < 0)
		send_slot_release(l, slot);
	return r;
}
