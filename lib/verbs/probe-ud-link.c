/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A link's endpoint: its QP, its completions, the datagrams it receives (answers judged,
 * requests answered within their source's budget, through an address handle kept per peer). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "latency.h"
#include "macro.h"
#include "probe-ud-internal.h"
#include "verbs-util.h"

static void send_slot_release(ProbeLink *l, uint32_t slot);

/* A link's objects: its QP, the address handles of its answers, its MR, CQ, completion channel
 * and PD; with its id, everything. Its paths are the caller's to let go first. */
void probe_link_release(ProbeLink *l, bool id) {
	if (l->completions)
		probe_watch_remove(l->t, l->completions->fd);
	if (l->qp)
		(void) ibv_destroy_qp(l->qp);
	l->qp = NULL;
	if (l->id)
		l->id->qp = NULL;
	for (uint32_t i = 0; i < SEND_SLOTS; i++)
		send_slot_release(l, i);
	for (unsigned i = 0; i < l->n_ahs; i++)
		(void) ibv_destroy_ah(l->ahs[i].ah);
	l->n_ahs = 0;
	if (l->mr)
		(void) ibv_dereg_mr(l->mr);
	l->mr = NULL;
	free(l->buf);
	l->buf = NULL;
	if (l->cq)
		(void) ibv_destroy_cq(l->cq);
	l->cq = NULL;
	l->cq_ex = NULL;
	if (l->completions)
		(void) ibv_destroy_comp_channel(l->completions);
	l->completions = NULL;
	if (l->pd)
		(void) ibv_dealloc_pd(l->pd);
	l->pd = NULL;
	l->more = l->woken = false;
	if (id && l->id)
		(void) rdma_destroy_id(l->id);
	if (id)
		l->id = NULL;
}

/* ---- a link's datagrams ------------------------------------------------------------------ */

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

	return -ibv_post_recv(l->qp, &wr, &bad);
}

static int send_slot_take(ProbeLink *l, uint32_t *ret) {
	uint32_t i;

	if (l->n_free_sends == 0)
		return -ENOBUFS;
	i = l->free_sends[--l->n_free_sends];
	l->sends[i] = (SendSlot){ .busy = true, .answer = -1 };
	*ret = i;
	return 0;
}

static void send_slot_release(ProbeLink *l, uint32_t slot) {
	if (!l->sends[slot].busy)
		return;
	if (l->sends[slot].answer >= 0)
		l->ahs[l->sends[slot].answer].sends--;
	l->sends[slot] = (SendSlot){ 0 };
	l->free_sends[l->n_free_sends++] = slot;
}

/* The datagram in slot's buffer (built there by the caller) to qpn behind ah. */
static int send_post(ProbeLink *l, uint32_t slot, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey) {
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

	return -ibv_post_send(l->qp, &wr, &bad);
}

static bool answer_ah_matches(const AnswerAh *a, const ProbeGrh *grh, uint8_t sl) {
	return a->sl == sl && a->grh.traffic_class == grh->traffic_class &&
	       a->grh.flow_label == grh->flow_label &&
	       memcmp(a->grh.sgid, grh->sgid, sizeof(grh->sgid)) == 0 &&
	       memcmp(a->grh.dgid, grh->dgid, sizeof(grh->dgid)) == 0;
}

/* The entry of ahs[] an answer to this request goes back through, one more send counted on it;
 * -1 when none can be made (every entry in flight, or the device refused). */
static int answer_ah(ProbeLink *l, const struct ibv_wc *wc, const uint8_t *grh_bytes,
		     const ProbeGrh *grh, uint64_t now) {
	int victim = -1;
	struct ibv_ah *ah;

	for (unsigned i = 0; i < l->n_ahs; i++)
		if (answer_ah_matches(&l->ahs[i], grh, wc->sl)) {
			l->ahs[i].sends++;
			l->ahs[i].used_ns = now;
			return (int) i;
		}
	if (l->n_ahs < ANSWER_AHS)
		victim = (int) l->n_ahs;
	else
		for (unsigned i = 0; i < l->n_ahs; i++)
			if (l->ahs[i].sends == 0 &&
			    (victim < 0 || l->ahs[i].used_ns < l->ahs[victim].used_ns))
				victim = (int) i;
	if (victim < 0)
		return -1;
	ah = ibv_create_ah_from_wc(l->pd, (struct ibv_wc *) wc, (struct ibv_grh *) grh_bytes,
				   l->port_num);
	if (!ah)
		return -1;
	if ((unsigned) victim < l->n_ahs)
		(void) ibv_destroy_ah(l->ahs[victim].ah);
	else
		l->n_ahs++;
	l->ahs[victim] =
		(AnswerAh){ .grh = *grh, .sl = wc->sl, .ah = ah, .sends = 1, .used_ns = now };
	return victim;
}

static ProbePath *link_path(ProbeLink *l, uint32_t index) {
	for (ProbePath *p = l->paths; p; p = p->next)
		if (p->index == index)
			return p;
	return NULL;
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

/* An answer to the datagram from `from` (its GRH grh, its completion wc), built by build into
 * a send slot, within its source's budget and with a send slot free beyond those kept for this
 * prober's requests: 0, or -1 when refused. */
typedef void (*answer_build_t)(const void *request, const ProbeLink *l, uint8_t *buf);

static int answer(ProbeLink *l, const struct ibv_wc *wc, const uint8_t *grh_bytes,
		  const ProbeGrh *grh, const ProbePeer *from, uint64_t now, answer_build_t build,
		  const void *request) {
	uint32_t s;
	int a;

	if (l->n_free_sends <= SEND_RESERVED || !probe_budget_take(&l->budget, from, now))
		return -1;
	a = answer_ah(l, wc, grh_bytes, grh, now);
	if (a < 0 || send_slot_take(l, &s) < 0) {
		if (a >= 0)
			l->ahs[a].sends--;
		return -1;
	}
	l->sends[s].answer = a;
	build(request, l, send_buf(l, s));
	if (send_post(l, s, l->ahs[a].ah, wc->src_qp, RDMA_UDP_QKEY) < 0) {
		send_slot_release(l, s);
		return -1;
	}
	l->answered++;
	return 0;
}

/* a probe's answer: the request as it came but for the kind */
static void probe_answer_build(const void *request, const ProbeLink *l, uint8_t *buf) {
	ProbeMessage m = *(const ProbeMessage *) request;

	m.kind = PROBE_REPLY;
	probe_wire_build(&m, buf);
}

/* a settings request's answer: its sender, path and sequence number, the link's settings */
static void settings_answer_build(const void *request, const ProbeLink *l, uint8_t *buf) {
	ProbeSettingsMessage m = *(const ProbeSettingsMessage *) request;

	m.kind = PROBE_SETTINGS_REPLY;
	m.settings = l->settings;
	probe_wire_build_settings(&m, buf);
}

/* A datagram received in slot: an answer from a path's peer handed on, a request answered
 * within its source's budget, the rest refused. */
static void link_received(ProbeLink *l, const Completion *c, uint32_t slot, uint64_t now) {
	const struct ibv_wc *wc = &c->wc;
	const uint8_t *buf = recv_buf(l, slot), *payload = buf + PROBE_GRH_SIZE;
	ProbePeer from = { .qpn = wc->src_qp };
	ProbeSettingsMessage sm;
	ProbeMessage m;
	ProbeGrh grh;
	size_t size;
	int k;

	if (!(wc->wc_flags & IBV_WC_GRH) || wc->byte_len < PROBE_GRH_SIZE ||
	    probe_grh_parse(buf, &grh) < 0) {
		l->refused++;
		return;
	}
	size = wc->byte_len - PROBE_GRH_SIZE;
	k = probe_wire_kind(payload, size);
	if ((k == PROBE_REQUEST || k == PROBE_REPLY) ? probe_wire_parse(payload, size, &m) < 0
	    : (k == PROBE_SETTINGS_REQUEST || k == PROBE_SETTINGS_REPLY)
		    ? probe_wire_parse_settings(payload, size, &sm) < 0
		    : true) {
		l->refused++;
		return;
	}
	memcpy(from.gid, grh.sgid, sizeof(from.gid));
	if (k == PROBE_REPLY || k == PROBE_SETTINGS_REPLY) {
		/* judged alike: this prober's, on a path it knows, from that path's peer */
		ProbeMessage view = k == PROBE_REPLY ? m
						     : (ProbeMessage){ .kind = PROBE_REPLY,
								       .sender = sm.sender,
								       .path = sm.path };
		ProbePath *p = link_path(l, view.path);

		if (probe_reply_judge(&view, l->t->sender, p && p->ready ? &p->peer : NULL,
				      &from) != PROBE_REPLY_OK) {
			l->refused++;
			return;
		}
		if (k == PROBE_REPLY)
			l->t->on_reply(l->t->userdata, m.path, m.seq, m.sent_ns, now,
				       c->stamped ? stamp_take(l, m.path, m.seq, c->ticks) : 0);
		else if (l->t->on_settings)
			l->t->on_settings(l->t->userdata, l, sm.path, &from, &sm.settings);
		return;
	}
	if (k == PROBE_REQUEST) {
		if (answer(l, wc, buf, &grh, &from, now, probe_answer_build, &m) < 0)
			l->refused++;
		return;
	}
	/* a settings request: the asker's settings handed on, whether or not it is answered */
	if (l->t->on_settings)
		l->t->on_settings(l->t->userdata, l, UINT32_MAX, &from, &sm.settings);
	if (answer(l, wc, buf, &grh, &from, now, settings_answer_build, &sm) < 0)
		l->refused++;
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

/* The software clock of a completion is read once the poll has found it, never before: a clock
 * read before the poll would time an answer that arrived after that read (the thread
 * descheduled between them, as a loaded host does to a VM) as faster than its wire allowed. */

/* The extended CQ, one completion for each ibv_start_poll() and ibv_end_poll(): handled after
 * end_poll (handling posts receives and sends). Not a batch through ibv_next_poll(): providers
 * disagree on where end_poll leaves the queue once next_poll has found it empty (rxe in Debian
 * 12's rdma-core moves on once more, and then reads empty entries as completions, forever);
 * start, read, end is the same on all of them. At most COMPLETIONS_A_CALL: 1 when some may be
 * left. */
static int link_poll_ex(ProbeLink *l) {
	struct ibv_poll_cq_attr attr = { 0 };

	for (unsigned n = 0; n < COMPLETIONS_A_CALL; n++) {
		Completion c;
		int r = ibv_start_poll(l->cq_ex, &attr);

		if (r == ENOENT)
			return 0;
		if (r != 0)
			return -EIO;
		completion_read(l, &c);
		ibv_end_poll(l->cq_ex);
		r = link_completed(l, &c, now_monotonic_nsec());
		if (r < 0)
			return r;
	}
	return 1;
}

static int link_poll(ProbeLink *l) {
	struct ibv_wc wc[16];
	unsigned done = 0;
	int n, r;

	while (done < COMPLETIONS_A_CALL &&
	       (n = ibv_poll_cq(l->cq, (int) ELEMENTSOF(wc), wc)) > 0) {
		uint64_t seen_ns = now_monotonic_nsec();

		for (int i = 0; i < n; i++) {
			r = link_completed(l, &(Completion){ .wc = wc[i] }, seen_ns);
			if (r < 0)
				return r;
		}
		done += (unsigned) n;
	}
	if (done >= COMPLETIONS_A_CALL)
		return 1;
	return n < 0 ? -EIO : 0;
}

/* A link's share of the completions: the event that woke it taken (a channel the kernel
 * closed, readable forever with nothing to read, is its device gone), the CQ armed again
 * before it is read, so that nothing completing meanwhile is missed, then at most
 * COMPLETIONS_A_CALL of them. */
void probe_link_work(ProbeLink *l) {
	int r;

	if (l->woken) {
		struct ibv_cq *cq;
		void *ctx;

		l->woken = false;
		errno = 0;
		if (ibv_get_cq_event(l->completions, &cq, &ctx) == 0)
			ibv_ack_cq_events(cq, 1);
		else if (errno != EAGAIN && errno != EWOULDBLOCK) {
			probe_device_release(l->t, l->verbs, "its device was disassociated");
			return;
		}
	}
	r = ibv_req_notify_cq(l->cq, 0);
	if (r == 0)
		r = l->cq_ex ? link_poll_ex(l) : link_poll(l);
	l->more = r > 0;
	if (r < 0 && l->failure == IBV_WC_SUCCESS)
		l->failure = IBV_WC_GENERAL_ERR; /* the CQ cannot be read: made again */
}

/* ---- links -------------------------------------------------------------------------------- */

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

	r = probe_sockaddr_copy(addr, port, &ss);
	if (r < 0)
		return r;
	l = calloc(1, sizeof(ProbeLink));
	if (!l)
		return -ENOMEM;
	l->kind = ID_LINK;
	l->watch = (Watch){ WATCH_LINK, l };
	for (uint32_t i = SEND_SLOTS; i > 0; i--)
		l->free_sends[l->n_free_sends++] = i - 1;
	l->t = t;
	l->next = t->links;
	t->links = l;
	if (rdma_create_id(t->channel, &l->id, l, RDMA_PS_UDP) < 0)
		return -errno;
	/* bound to an address of an RDMA device: the id has the device's context from now on */
	if (rdma_bind_addr(l->id, (struct sockaddr *) &ss) < 0)
		return -errno;
	if (!l->id->verbs)
		return -ENODEV;
	l->verbs = l->id->verbs;
	l->port_num = l->id->port_num;
	r = probe_device_use(t, l->verbs, addr);
	if (r < 0)
		return r;
	if (ibv_query_device_ex(l->verbs, NULL, &dev) == 0 && dev.completion_timestamp_mask != 0 &&
	    dev.hca_core_clock != 0) {
		l->device_timestamps = true;
		l->clock_mask = dev.completion_timestamp_mask;
		l->clock_khz = dev.hca_core_clock;
	}
	l->pd = ibv_alloc_pd(l->verbs);
	if (!l->pd)
		return -errno;
	l->completions = ibv_create_comp_channel(l->verbs);
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
	l->qp = l->id->qp;
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
	r = probe_watch_add(t, l->completions->fd, &l->watch);
	if (r < 0)
		return r;
	if (rdma_listen(l->id, 16) < 0)
		return -errno;
	*ret = TAKE_PTR(l);
	return 0;
}

ProbeLink *probe_link_free(ProbeLink *l) {
	if (!l)
		return NULL;
	/* paths that outlive their link: let go, failed */
	while (l->paths) {
		ProbePath *p = l->paths;

		l->paths = p->next;
		probe_path_release(p, true);
		probe_path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
		p->l = NULL;
		p->next = NULL;
	}
	probe_link_release(l, true);
	for (ProbeLink **i = &l->t->links; *i; i = &(*i)->next)
		if (*i == l) {
			*i = l->next;
			break;
		}
	free(l);
	return NULL;
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
	if (l->gone)
		return l->gone;
	return l->failure == IBV_WC_SUCCESS ? NULL : ibv_wc_status_str(l->failure);
}

bool probe_link_device_gone(const ProbeLink *l) {
	return l->device_gone;
}

int probe_link_port(const ProbeLink *l, const char **ret_device, unsigned *ret_port) {
	const char *name;

	if (!l->verbs || l->device_gone)
		return -ENODEV;
	name = ibv_get_device_name(l->verbs->device);
	if (!name)
		return -ENODEV;
	*ret_device = name;
	*ret_port = l->port_num;
	return 0;
}

/* A send slot of the path's link, for a message to the path's peer. */
static int path_slot_take(ProbePath *p, uint32_t *ret_slot) {
	if (p->failed)
		return p->error;
	if (!p->ready || !p->l)
		return -EAGAIN;
	if (!p->l->qp)
		return -ENODEV;
	return send_slot_take(p->l, ret_slot);
}

/* The slot's bytes out to the path's peer; the slot is free again if they cannot go. */
static int path_post(ProbePath *p, uint32_t slot) {
	int r = send_post(p->l, slot, p->ah, p->peer.qpn, p->qkey);

	if (r < 0)
		send_slot_release(p->l, slot);
	return r;
}

/* A path's request goes out of its link's QP. */
int probe_path_send(ProbePath *p, uint64_t seq, uint64_t now_ns) {
	ProbeMessage m = { .kind = PROBE_REQUEST, .path = p->index, .seq = seq, .sent_ns = now_ns };
	uint32_t slot;
	int r;

	r = path_slot_take(p, &slot);
	if (r < 0)
		return r;
	m.sender = p->l->t->sender;
	p->l->sends[slot].request = true;
	p->l->sends[slot].path = p->index;
	p->l->sends[slot].seq = seq;
	probe_wire_build(&m, send_buf(p->l, slot));
	return path_post(p, slot);
}

int probe_path_ask_settings(ProbePath *p, uint32_t seq) {
	ProbeSettingsMessage m = { .kind = PROBE_SETTINGS_REQUEST, .path = p->index, .seq = seq };
	uint32_t slot;
	int r;

	r = path_slot_take(p, &slot);
	if (r < 0)
		return r;
	m.sender = p->l->t->sender;
	m.settings = p->l->settings;
	probe_wire_build_settings(&m, send_buf(p->l, slot));
	return path_post(p, slot);
}

int probe_link_active_mtu(const ProbeLink *l, unsigned *ret) {
	struct ibv_port_attr attr;
	int r;

	if (!l->verbs || l->device_gone)
		return -ENODEV;
	r = ibv_query_port(l->verbs, l->port_num, &attr);
	if (r != 0)
		return r > 0 ? -r : -EIO;
	if (attr.active_mtu < IBV_MTU_256 || attr.active_mtu > IBV_MTU_4096)
		return -EBADMSG;
	*ret = 128u << attr.active_mtu; /* IBV_MTU_256 is 1 */
	return 0;
}

int probe_link_set_settings(ProbeLink *l, const ProbeLinkSettings *s) {
	if (!probe_settings_valid(s))
		return -EINVAL;
	l->settings = *s;
	return 0;
}
