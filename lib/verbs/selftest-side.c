/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One side of a selftest connection: its PD, CQ, QP and registered buffers, the work it posts,
 * its completions (each checked), and the server's check of the bytes a ping announces. */
#include <arpa/inet.h>
#include <endian.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "selftest-internal.h"

/* The pattern of ping seq: 64-bit words that depend on seq and their offset, so that every
 * round trip writes other bytes than the one before, everywhere. */
static inline uint64_t pattern_word(uint32_t seq, uint64_t k) {
	return ((uint64_t) seq * UINT64_C(0xd6e8feb86659fd93)) ^ (k * UINT64_C(0x9e3779b97f4a7c15));
}

static inline uint8_t pattern_at(uint32_t seq, uint64_t i) {
	return (uint8_t) (pattern_word(seq, i / 8) >> (8 * (i % 8)));
}

void pattern_fill(uint8_t *buf, uint64_t size, uint32_t seq) {
	uint64_t i = 0;

	for (; i + 8 <= size; i += 8) {
		uint64_t w = htole64(pattern_word(seq, i / 8));

		memcpy(buf + i, &w, 8);
	}
	for (; i < size; i++)
		buf[i] = pattern_at(seq, i);
}

/* The first offset where buf differs from pattern(seq), or size. */
static uint64_t pattern_check(const uint8_t *buf, uint64_t size, uint32_t seq) {
	uint64_t i = 0;

	for (; i + 8 <= size; i += 8) {
		uint64_t w;

		memcpy(&w, buf + i, 8);
		if (le64toh(w) != pattern_word(seq, i / 8))
			break;
	}
	for (; i < size; i++)
		if (buf[i] != pattern_at(seq, i))
			return i;
	return size;
}

const char *sockaddr_format(const struct sockaddr *sa, char *buf, size_t size) {
	char a[INET6_ADDRSTRLEN] = "?";
	uint16_t port = 0;

	if (sa->sa_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in *) sa)->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in6 *) sa)->sin6_port);
	}
	if (port == 0)
		snprintf(buf, size, "%s", a);
	else
		snprintf(buf, size, sa->sa_family == AF_INET6 ? "[%s]:%u" : "%s:%u", a, port);
	return buf;
}

static const char *wr_name(uint64_t wr_id) {
	switch (wr_id) {
	case WR_RECV:
		return "RECV";
	case WR_SEND:
		return "SEND";
	case WR_WRITE:
		return "RDMA WRITE";
	default:
		return "work request";
	}
}

/* What to check when a work completion fails with status. */
static const char *wc_hint(enum ibv_wc_status status) {
	switch (status) {
	case IBV_WC_RETRY_EXC_ERR:
		return "The peer never acknowledged: check the path between the two netdevs (MTU, "
		       "PFC, a firewall dropping UDP 4791, the route: ip route get PEER from the "
		       "GID's address)";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "The peer had no receive posted: is it a `rdmactl selftest --listen` of the "
		       "same version?";
	case IBV_WC_REM_ACCESS_ERR:
	case IBV_WC_REM_INV_REQ_ERR:
		return "The peer refused the access: its buffer or rkey did not match what it "
		       "announced";
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_LEN_ERR:
		return "A local buffer was refused: a provider or driver problem (dmesg)";
	default:
		return "See dmesg and the provider's counters (rdma statistic show link DEV/PORT)";
	}
}

void side_free(Side *s) {
	if (s->id && s->has_qp)
		rdma_destroy_qp(s->id);
	s->has_qp = false;
	if (s->data_mr)
		(void) ibv_dereg_mr(s->data_mr);
	if (s->msg_mr)
		(void) ibv_dereg_mr(s->msg_mr);
	if (s->cq)
		(void) ibv_destroy_cq(s->cq);
	if (s->channel)
		(void) ibv_destroy_comp_channel(s->channel);
	if (s->pd)
		(void) ibv_dealloc_pd(s->pd);
	if (s->id)
		(void) rdma_destroy_id(s->id);
	free(s->data);
	free(s->msgs);
	*s = (Side){ .role = s->role, .link = s->link, .result = s->result };
}

static int fail_mr(Side *s, uint64_t size, int error) {
	struct rlimit rl = { 0 };
	char limit[32] = "unknown", hint[384];

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(limit, sizeof(limit), "unlimited");
		else
			snprintf(limit, sizeof(limit), "%llu KiB",
				 (unsigned long long) rl.rlim_cur / 1024);
	}
	if (error == -ENOMEM || error == -EPERM) {
		snprintf(hint, sizeof(hint),
			 "Registering memory pins it, up to RLIMIT_MEMLOCK (ulimit -l: %s here): "
			 "raise it (LimitMEMLOCK=infinity for a service, "
			 "/etc/security/limits.d for a login) or use a smaller --size",
			 limit);
		return selftest_fail(s->result, SELFTEST_STEP_MEMORY_REGISTRATION, error, hint,
				     "%s: ibv_reg_mr of %" PRIu64 " bytes on %s failed: %s "
				     "(the memlock limit is %s)",
				     s->role, size, s->link->device, strerror(-error), limit);
	}
	return selftest_fail(s->result, SELFTEST_STEP_MEMORY_REGISTRATION, error, NULL,
			     "%s: ibv_reg_mr of %" PRIu64 " bytes on %s failed: %s", s->role, size,
			     s->link->device, strerror(-error));
}

/* PD, completion channel, CQ, QP and the two registered buffers of a side whose id is bound
 * to a device. access: what the peer may do to the data buffer. */
int side_setup(Side *s, uint64_t size, int access) {
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
		.cap = {
			.max_send_wr = BURST_WINDOW + 2,
			.max_recv_wr = 2,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	long page = sysconf(_SC_PAGESIZE);
	void *p = NULL;
	int r;

	s->pd = ibv_alloc_pd(s->id->verbs);
	if (!s->pd)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: ibv_alloc_pd on %s failed: %s", s->role, s->link->device,
				     strerror(errno));
	s->channel = ibv_create_comp_channel(s->id->verbs);
	if (!s->channel)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: ibv_create_comp_channel on %s failed: %s", s->role,
				     s->link->device, strerror(errno));
	r = fd_nonblock(s->channel->fd);
	if (r < 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, r, NULL,
				     "%s: cannot make the completion channel non-blocking",
				     s->role);
	s->cq = ibv_create_cq(s->id->verbs, 2 * (BURST_WINDOW + 4), s, s->channel, 0);
	if (!s->cq)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: ibv_create_cq on %s failed: %s", s->role, s->link->device,
				     strerror(errno));
	if (ibv_req_notify_cq(s->cq, 0) != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: ibv_req_notify_cq failed: %s", s->role, strerror(errno));
	qa.send_cq = qa.recv_cq = s->cq;
	if (rdma_create_qp(s->id, s->pd, &qa) != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, negative_errno(), NULL,
				     "%s: rdma_create_qp (RC) on %s failed: %s", s->role,
				     s->link->device, strerror(errno));
	s->has_qp = true;

	r = posix_memalign(&p, page > 0 ? (size_t) page : 4096, size);
	if (r != 0)
		return -ENOMEM;
	s->data = p;
	s->size = size;
	memset(s->data, 0, size);
	s->msgs = calloc(2, sizeof(Message));
	if (!s->msgs)
		return -ENOMEM;
	s->data_mr = ibv_reg_mr(s->pd, s->data, size, IBV_ACCESS_LOCAL_WRITE | access);
	if (!s->data_mr)
		return fail_mr(s, size, negative_errno());
	s->msg_mr = ibv_reg_mr(s->pd, s->msgs, 2 * sizeof(Message), IBV_ACCESS_LOCAL_WRITE);
	if (!s->msg_mr)
		return fail_mr(s, 2 * sizeof(Message), negative_errno());
	return 0;
}

int side_post_recv(Side *s) {
	struct ibv_sge sge = {
		.addr = (uintptr_t) &s->msgs[0],
		.length = sizeof(Message),
		.lkey = s->msg_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = WR_RECV, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r;

	r = ibv_post_recv(s->id->qp, &wr, &bad);
	if (r != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, -r, NULL,
				     "%s: ibv_post_recv failed: %s", s->role, strerror(r));
	return 0;
}

/* A message from msgs[1]; after an RDMA WRITE of the data buffer when write_size > 0. */
int side_post_send(Side *s, uint64_t write_size, bool message) {
	struct ibv_sge data = {
		.addr = (uintptr_t) s->data,
		.length = (uint32_t) write_size,
		.lkey = s->data_mr->lkey,
	};
	struct ibv_sge msg = {
		.addr = (uintptr_t) &s->msgs[1],
		.length = sizeof(Message),
		.lkey = s->msg_mr->lkey,
	};
	struct ibv_send_wr send = {
		.wr_id = WR_SEND,
		.sg_list = &msg,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr write = {
		.wr_id = WR_WRITE,
		.next = message ? &send : NULL,
		.sg_list = &data,
		.num_sge = 1,
		.opcode = IBV_WR_RDMA_WRITE,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = s->remote_addr, .rkey = s->remote_rkey },
	};
	struct ibv_send_wr *bad;
	int r;

	r = ibv_post_send(s->id->qp, write_size > 0 ? &write : &send, &bad);
	if (r != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, -r, NULL,
				     "%s: ibv_post_send (%s) failed: %s", s->role,
				     wr_name(bad ? bad->wr_id : WR_SEND), strerror(r));
	s->outstanding += (write_size > 0) + message;
	return 0;
}

/* The server got a ping: check the bytes the client wrote, reply. */
static int server_ping(Side *s) {
	Message *in = &s->received, *out = &s->msgs[1];
	uint32_t seq = be32toh(in->seq);
	uint64_t bad, t0;
	int r;

	if (be32toh(in->magic) != SELFTEST_MAGIC || be32toh(in->kind) != MSG_PING)
		return selftest_fail(s->result, SELFTEST_STEP_DATA, -EBADMSG, NULL,
				     "%s: a message that is no selftest ping", s->role);
	t0 = now_monotonic_nsec();
	bad = pattern_check(s->data, s->size, seq);
	*out = (Message){
		.magic = htobe32(SELFTEST_MAGIC),
		.kind = htobe32(MSG_REPLY),
		.seq = in->seq,
		.status = htobe32(bad < s->size),
		.offset = htobe64(bad),
		.check_nsec = htobe64(now_monotonic_nsec() - t0),
		.expected = bad < s->size ? pattern_at(seq, bad) : 0,
		.got = bad < s->size ? s->data[bad] : 0,
	};
	s->pings++;
	r = side_post_recv(s);
	if (r < 0)
		return r;
	return side_post_send(s, 0, true);
}

static int side_completion(Side *s, const struct ibv_wc *wc) {
	if (wc->status != IBV_WC_SUCCESS) {
		/* A QP in error flushes what was posted. It got there by a completion with an
		 * error, reported first, or by a disconnect, which its rdma_cm event reports
		 * (and which may come after the flush): the flush itself says nothing more. */
		if (wc->status == IBV_WC_WR_FLUSH_ERR)
			return 0;
		return selftest_fail(s->result, SELFTEST_STEP_COMPLETION, -EIO, wc_hint(wc->status),
				     "%s: %s completed with %s (status %d, vendor error 0x%x)",
				     s->role, wr_name(wc->wr_id), ibv_wc_status_str(wc->status),
				     (int) wc->status, wc->vendor_err);
	}
	s->completed++;
	switch (wc->wr_id) {
	case WR_RECV:
		s->recvs++;
		s->received = s->msgs[0];
		if (streq(s->role, "client"))
			return 0;
		return server_ping(s);
	case WR_SEND:
	case WR_WRITE:
		if (s->outstanding > 0)
			s->outstanding--;
		return 0;
	default:
		return 0;
	}
}

/* Poll a side's CQ empty; > 0 when something completed. */
int side_drain(Side *s) {
	struct ibv_wc wc[16];
	int n, total = 0, r;

	if (!s->cq)
		return 0;
	while ((n = ibv_poll_cq(s->cq, (int) ELEMENTSOF(wc), wc)) > 0) {
		for (int i = 0; i < n; i++) {
			r = side_completion(s, &wc[i]);
			if (r < 0 && !selftest_failed(s->result))
				return r; /* -ENOMEM */
		}
		total += n;
	}
	if (n < 0)
		return selftest_fail(s->result, SELFTEST_STEP_COMPLETION, -EIO, NULL,
				     "%s: ibv_poll_cq failed", s->role);
	return total;
}

/* The completion channel of a side fired: take the event, re-arm, drain. */
int side_cq_event(Side *s) {
	struct ibv_cq *cq;
	void *ctx;

	while (ibv_get_cq_event(s->channel, &cq, &ctx) == 0) {
		ibv_ack_cq_events(cq, 1);
		if (ibv_req_notify_cq(cq, 0) != 0)
			return selftest_fail(s->result, SELFTEST_STEP_COMPLETION, negative_errno(),
					     NULL, "%s: ibv_req_notify_cq failed: %s", s->role,
					     strerror(errno));
	}
	return side_drain(s);
}

/* Was the connection taken on the link this side must run on, with its GID? */
int side_check_device(Side *s, const char *when) {
	const char *dev = s->id->verbs ? ibv_get_device_name(s->id->verbs->device) : NULL;
	char hint[256];

	if (dev && streq(dev, s->link->device) && s->id->port_num == s->link->port)
		return 0;
	snprintf(hint, sizeof(hint),
		 "rdma_cm takes the device from the route and the source address: check `ip "
		 "route get PEER from %s`; two links of one host need policy routing (rdmactl(1), "
		 "selftest)",
		 s->link->netdev[0] ? s->link->netdev : "the GID's address");
	return selftest_fail(s->result, SELFTEST_STEP_ROUTE, -EXDEV, hint,
			     "%s: %s rdma_cm bound %s/%u, not %s", s->role, when, strna(dev),
			     (unsigned) s->id->port_num, s->link->name);
}

int side_check_qp(Side *s) {
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;
	char hint[320];
	int r;

	r = ibv_query_qp(s->id->qp, &a, IBV_QP_STATE | IBV_QP_AV, &ia);
	if (r != 0)
		return selftest_fail(s->result, SELFTEST_STEP_QP, -r, NULL,
				     "%s: ibv_query_qp failed: %s", s->role, strerror(r));
	if (a.qp_state != IBV_QPS_RTS)
		return selftest_fail(s->result, SELFTEST_STEP_QP, -EINVAL, NULL,
				     "%s: the QP is in state %d after the connection, not RTS",
				     s->role, (int) a.qp_state);
	if (!a.ah_attr.is_global || a.ah_attr.grh.sgid_index == s->link->gid_index)
		return 0;
	snprintf(hint, sizeof(hint),
		 "rdma_cm picks the GID of the source address with the device's default RoCE "
		 "mode: check /sys/kernel/config/rdma_cm/%s/ports/%" PRIu32
		 "/default_roce_mode (RoCE v2) and `rdmactl gids %s`",
		 s->link->device, s->link->port, s->link->name);
	return selftest_fail(s->result, SELFTEST_STEP_ROUTE, -EXDEV, hint,
			     "%s: the QP uses GID index %u of %s, not %" PRIu32, s->role,
			     (unsigned) a.ah_attr.grh.sgid_index, s->link->name,
			     s->link->gid_index);
}
