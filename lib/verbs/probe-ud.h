/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe's transport: unreliable datagrams (UD) in rdma_cm's UDP port space.
 *
 * A link's endpoint (ProbeLink) is an rdma_cm id bound to the link's address and the probe
 * port, listening, with one UD QP. It answers every probe that arrives, whoever sent it: the
 * reply goes back to the sender's QP, through an address handle made from the completion
 * (ibv_create_ah_from_wc()), and the responder keeps nothing. It also sends this prober's
 * requests. A path (ProbePath) resolves a peer's address and route, then asks the peer's
 * endpoint for its QP number and Q_Key (SIDR: rdma_connect() on a UD id); its requests go out of
 * its link's QP to that QP.
 *
 * UD and not RC: one QP a link serves every path and every prober that asks, with no state
 * kept per peer on the answering side; and a probe lost is a probe without an answer, where RC
 * would retransmit it (a late answer) or break the connection seconds later. So loss and the
 * latency tail are what the fabric did to one datagram each way.
 *
 * Nothing here blocks: the rdma_cm event channel's fd and each link's completion channel fd
 * are for the caller's event loop, which calls the process functions when they are readable.
 * Times are the caller's CLOCK_MONOTONIC in nanoseconds (software: the completion is polled
 * when the loop wakes up); where the device stamps completions, an answer also comes with its
 * round trip by the device's clock (send completion to receive completion). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "macro.h"

typedef struct ProbeTransport ProbeTransport;
typedef struct ProbeLink ProbeLink;
typedef struct ProbePath ProbePath;

/* Where a path stopped, for rdmad_probe_errors_total{step} and rdmactl probe. */
typedef enum ProbeStep {
	PROBE_STEP_NONE,
	PROBE_STEP_ADDRESS,    /* rdma_resolve_addr(): no route or neighbour to the peer */
	PROBE_STEP_ROUTE,      /* rdma_resolve_route() */
	PROBE_STEP_CONNECT,    /* SIDR: no prober answers on the peer's port, or it refused */
	PROBE_STEP_QP,	       /* the address handle for the peer */
	PROBE_STEP_SEND,       /* ibv_post_send(), or no send slot free */
	PROBE_STEP_COMPLETION, /* a completion with an error */
	_PROBE_STEP_MAX,
} ProbeStep;

const char *probe_step_to_string(ProbeStep s);

/* A request's answer: on path (the sender's index of it), the request's sequence number and
 * send time, and when the answer's completion was seen. device_ns: the round trip by the
 * device's clock, from the request's send completion to the answer's receive completion, where
 * the link's device stamps completions (probe_link_device_timestamps()); 0 otherwise. */
typedef void (*probe_reply_t)(void *userdata, uint32_t path, uint64_t seq, uint64_t sent_ns,
			      uint64_t now_ns, uint64_t device_ns);

/* An IPv4 or IPv6 address in text, port 0. */
int probe_address_parse(const char *s, struct sockaddr_storage *ret);

/* sender: this prober's instance (random), so that answers to another instance are not
 * taken for its own. */
int probe_transport_new(uint32_t sender, probe_reply_t on_reply, void *userdata,
			ProbeTransport **ret);
ProbeTransport *probe_transport_free(ProbeTransport *t);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeTransport *, probe_transport_free)
/* rdma_cm's events, for every link and path: readable when probe_transport_process() has
 * work. */
int probe_transport_fd(const ProbeTransport *t);
/* The pending rdma_cm events; never blocks. */
int probe_transport_process(ProbeTransport *t);

/* addr: the link's own address (IPv4 or IPv6); port: the probe port. */
int probe_link_new(ProbeTransport *t, const struct sockaddr *addr, uint16_t port, ProbeLink **ret);
ProbeLink *probe_link_free(ProbeLink *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeLink *, probe_link_free)
/* Readable when completions wait for probe_link_process(). */
int probe_link_fd(const ProbeLink *l);
/* The completions: requests answered, answers handed to on_reply. Never blocks. */
int probe_link_process(ProbeLink *l, uint64_t now_ns);
/* Probes answered, and datagrams refused (not a probe, or another prober's answer). */
uint64_t probe_link_answered(const ProbeLink *l);
uint64_t probe_link_refused(const ProbeLink *l);
/* Whether the link's completions are stamped by its device's clock (ibv_query_device_ex()'s
 * completion_timestamp_mask and hca_core_clock, and a CQ made with completion timestamps): its
 * answers then come with device_ns. */
bool probe_link_device_timestamps(const ProbeLink *l);
/* Whether its completions are read from an extended CQ (ibv_create_cq_ex()), as they must be for
 * device timestamps; a provider without one gets a plain CQ. */
bool probe_link_cq_extended(const ProbeLink *l);
/* NULL, or why the link's QP stopped (its first send in error, or its receives flushed): it sends
 * and receives nothing any more, and is to be freed and made again. */
const char *probe_link_failure(const ProbeLink *l);

/* A path from link to a peer's endpoint at dst and port; index is what on_reply gets. The
 * resolution starts at once and goes on in probe_transport_process(). */
int probe_path_new(ProbeLink *l, const struct sockaddr *dst, uint16_t port, uint32_t index,
		   ProbePath **ret);
ProbePath *probe_path_free(ProbePath *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbePath *, probe_path_free)
/* Ready to send; or stopped, at which step and with which error (negative errno). A stopped
 * path is freed and made again by the caller, which decides when to try again. */
bool probe_path_ready(const ProbePath *p);
bool probe_path_failed(const ProbePath *p, ProbeStep *ret_step, int *ret_error);
/* One request: 0, -EAGAIN while the path resolves, or -errno (the path's step is SEND). */
int probe_path_send(ProbePath *p, uint64_t seq, uint64_t now_ns);
