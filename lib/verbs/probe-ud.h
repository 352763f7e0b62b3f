/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmad-probe's transport: unreliable datagrams (UD) in rdma_cm's UDP port space.
 *
 * A link's endpoint (ProbeLink) is an rdma_cm id bound to the link's address and the probe
 * port, listening, with one UD QP. It answers the probes that arrive, whoever sent them, within
 * a budget a source (probe-guard.h): the reply goes back to the sender's QP, through an address
 * handle made from the completion (ibv_create_ah_from_wc()) and kept for that peer, and the
 * responder keeps nothing else. It also sends this prober's requests. A path (ProbePath)
 * resolves a peer's address and route, then asks the peer's endpoint for its QP number and
 * Q_Key (SIDR: rdma_connect() on a UD id); its requests go out of its link's QP to that QP, and
 * an answer counts only if it comes from there: that QP number and the GID the route gave.
 *
 * UD and not RC: one QP a link serves every path and every prober that asks, with no state
 * kept per peer on the answering side; and a probe lost is a probe without an answer, where RC
 * would retransmit it (a late answer) or break the connection seconds later. So loss and the
 * latency tail are what the fabric did to one datagram each way.
 *
 * Nothing here blocks, and one descriptor tells the caller's event loop of all the work: the
 * rdma_cm events, each device's asynchronous events and each link's completions are watched
 * together (probe_transport_fd()), and probe_transport_process() does a bounded share of them
 * each time. Times are the caller's CLOCK_MONOTONIC in nanoseconds (software: the completion is
 * polled when the loop wakes up); where the device stamps completions, an answer also comes
 * with its round trip by the device's clock (send completion to receive completion).
 *
 * A device that goes away (rdma_cm's DEVICE_REMOVAL on any id of it, IBV_EVENT_DEVICE_FATAL, or
 * a completion channel that the kernel closed) is let go at once: every id, QP, CQ, MR, PD,
 * address handle and completion channel of this transport on it, and the device itself, which
 * the kernel waits for before it can finish the removal (Soft-RoCE has no
 * disassociate_ucontext: `rdma link delete` waits until every process closed the device). Its
 * links and paths then say why they stopped, and are made again by the caller. A transport
 * keeps an rdma_cm id on each device it used, so that it hears of the device's removal also
 * when no link is on it any more: librdmacm keeps a device open once it was used. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "macro.h"
#include "probe-wire.h"

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

/* RoCE settings a peer told (probe-wire.h, version 2), on link l from `from`: a request's, the
 * asking link's (path UINT32_MAX: no path of this prober's), or an answer to this prober's
 * probe_path_ask_settings() on its path (judged as an answer to a probe is: this prober's, the
 * path's peer). */
typedef void (*probe_settings_t)(void *userdata, ProbeLink *l, uint32_t path, const ProbePeer *from,
				 const ProbeLinkSettings *settings);

/* An IPv4 or IPv6 address in text, port 0. */
int probe_address_parse(const char *s, struct sockaddr_storage *ret);

/* sender: this prober's instance (random), so that answers to another instance are not
 * taken for its own. */
int probe_transport_new(uint32_t sender, probe_reply_t on_reply, void *userdata,
			ProbeTransport **ret);
ProbeTransport *probe_transport_free(ProbeTransport *t);
/* Settings exchanged from now on are handed to on_settings, with the transport's userdata. */
void probe_transport_set_settings_handler(ProbeTransport *t, probe_settings_t on_settings);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeTransport *, probe_transport_free)
/* Readable when probe_transport_process() has work: rdma_cm events for any link and path, a
 * device's asynchronous events, a link's completions. */
int probe_transport_fd(const ProbeTransport *t);
/* A bounded share of the work, never blocking: 0 when it is done, 1 when some was left for the
 * next call (the descriptor stays readable), or -errno. A caller that gives its other work a
 * turn in between (its timers) keeps its own probes going while a flood arrives. Requests are
 * answered, answers handed to on_reply, a device gone let go. */
int probe_transport_process(ProbeTransport *t);

/* addr: the link's own address (IPv4 or IPv6); port: the probe port. */
int probe_link_new(ProbeTransport *t, const struct sockaddr *addr, uint16_t port, ProbeLink **ret);
ProbeLink *probe_link_free(ProbeLink *l);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbeLink *, probe_link_free)
/* Probes answered, and datagrams refused: not a probe, an answer to another prober or from
 * another than the path's peer, a request over its source's budget. */
uint64_t probe_link_answered(const ProbeLink *l);
/* What the link tells a peer that asks for its settings, and sends with its own asking: none
 * known until set. -EINVAL if the wire could not carry s (probe_settings_valid()). */
int probe_link_set_settings(ProbeLink *l, const ProbeLinkSettings *s);
uint64_t probe_link_refused(const ProbeLink *l);
/* The active MTU of the link's port (ibv_query_port()), in bytes (256..4096), now: -ENODEV once
 * its device went away. */
int probe_link_active_mtu(const ProbeLink *l, unsigned *ret);
/* Whether the link's completions are stamped by its device's clock (ibv_query_device_ex()'s
 * completion_timestamp_mask and hca_core_clock, and a CQ made with completion timestamps): its
 * answers then come with device_ns. */
bool probe_link_device_timestamps(const ProbeLink *l);
/* Whether its completions are read from an extended CQ (ibv_create_cq_ex()), as they must be for
 * device timestamps; a provider without one gets a plain CQ. */
bool probe_link_cq_extended(const ProbeLink *l);
/* NULL, or why the link's endpoint stopped: its QP in error (its first send in error, its
 * receives flushed, or an asynchronous QP event), its address changed, or its device went away
 * (everything of the link was let go then). It sends and receives nothing any more, and is to
 * be freed and made again. */
const char *probe_link_failure(const ProbeLink *l);
/* Whether it stopped because its device went away: made again later, not at once (a new
 * device, if one comes). */
bool probe_link_device_gone(const ProbeLink *l);
/* The name of the link's device and its port (rdma_cm bound it there): -ENODEV once the device
 * went away. The name is the device's, valid while the link lives. */
int probe_link_port(const ProbeLink *l, const char **ret_device, unsigned *ret_port);

/* A path from link to a peer's endpoint at dst and port; index is what on_reply gets. The
 * resolution starts at once and goes on in probe_transport_process(). tos: the traffic class
 * (the IP header's ToS byte) its setup (the SIDR exchange) and its requests carry, set on its
 * rdma_cm id (RDMA_OPTION_ID_TOS) before its route is resolved; -1 leaves rdma_cm's default,
 * the device's configfs default_roce_tos when the route is resolved. */
int probe_path_new(ProbeLink *l, const struct sockaddr *dst, uint16_t port, int tos, uint32_t index,
		   ProbePath **ret);
ProbePath *probe_path_free(ProbePath *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProbePath *, probe_path_free)
/* Ready to send; or stopped, at which step and with which error (negative errno). A stopped
 * path is freed and made again by the caller, which decides when to try again. */
bool probe_path_ready(const ProbePath *p);
bool probe_path_failed(const ProbePath *p, ProbeStep *ret_step, int *ret_error);
/* A ready path's requests carry another traffic class from the next one on: a new address
 * handle, the one the SIDR reply gave with only its class changed; the peer's endpoint answers
 * with the class of the request (probe-ud-link.c). Not set up again: no request is forgotten
 * and nothing resolves, so a class the fabric carries costs no probe. 0, -EAGAIN while the path
 * resolves (make it again to resolve with the class), or -errno (nothing changed). */
int probe_path_set_tos(ProbePath *p, uint8_t tos);
/* The class its requests carry: the address handle's once ready, else the one its setup asked
 * for; -1 for rdma_cm's default while it resolves. */
int probe_path_tos(const ProbePath *p);
/* One request: 0, -EAGAIN while the path resolves, or -errno (the path's step is SEND). */
int probe_path_send(ProbePath *p, uint64_t seq, uint64_t now_ns);
/* Ask the path's peer for its link's settings, telling this link's (version 2; a peer of
 * version 1 refuses it, and nothing answers): 0, -EAGAIN while the path resolves, or -errno.
 * The answer, if any, comes to the transport's on_settings with the path's index. */
int probe_path_ask_settings(ProbePath *p, uint32_t seq);
