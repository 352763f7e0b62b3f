/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* rdmactl selftest: a real RDMA exchange through librdmacm and libibverbs on the GID a link
 * publishes. The client resolves the peer's address and route from the GID's IP address,
 * connects an RC QP, then per iteration RDMA WRITEs `size` bytes of a pattern that changes
 * every time and SENDs a ping; the server checks the written bytes and SENDs a reply. The
 * round trips give the latency distribution; a burst of RDMA WRITEs (a few outstanding) gives
 * the bandwidth, and a last ping checks what the burst wrote.
 *
 * The peer is the link itself (loopback), another link of this host (both sides run here, in
 * one poll loop), or HOST[:PORT] of a remote `rdmactl selftest --listen`. Every wait is bounded:
 * by timeout_sec since the last progress (a step of the connection reached, a completion), and
 * by deadline_sec for the whole test when one is given; every completion is checked. Nothing
 * here prints: a failure is a SelftestResult that names the step, what happened, how far the
 * test got and what to check.
 *
 * The latency of a round trip is from posting the RDMA WRITE to the completion of the reply's
 * RECV, less the time the server took to check the bytes (its reply says how long).
 *
 * selftest-client.c is the client, selftest-loop.c the event loop and the server, selftest-side.c
 * one side's verbs resources and work (selftest-internal.h), selftest-link.c the link and GID
 * checks on a HostState, selftest-route.c the kernel's route between the two addresses,
 * selftest-result.c the pure parts (steps, percentiles, HOST[:PORT], JSON, the packed result),
 * selftest-progress.c the two bounds and how far a test got (pure), selftest-bounded.c the
 * child process that bounds it all against the kernel. */

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "host.h"
#include "json-util.h"
#include "macro.h"
#include "rdma-types.h"
#include "string-table.h"

typedef enum SelftestStep {
	SELFTEST_STEP_LINK,		   /* "link": no such link, port not ACTIVE, netdev down */
	SELFTEST_STEP_GID,		   /* "gid": the GID slot is empty, not RoCE v2, no IP */
	SELFTEST_STEP_LISTEN,		   /* "listen": binding the listener (port in use) */
	SELFTEST_STEP_ADDRESS_RESOLUTION,  /* "address-resolution": rdma_resolve_addr, HOST */
	SELFTEST_STEP_ROUTE,		   /* "route": rdma_resolve_route, the wrong device/GID */
	SELFTEST_STEP_CONNECT,		   /* "connect": rejected, unreachable, disconnected */
	SELFTEST_STEP_QP,		   /* "qp": PD/CQ/QP creation, RTR/RTS transitions */
	SELFTEST_STEP_MEMORY_REGISTRATION, /* "memory-registration": ibv_reg_mr (memlock) */
	SELFTEST_STEP_COMPLETION,	   /* "completion": a work completion with an error */
	SELFTEST_STEP_DATA,		   /* "data": the bytes read back are not those written */
	SELFTEST_STEP_TIMEOUT,		   /* "timeout": nothing for --timeout, or --deadline ran
					    * out (the error says which, where, how far) */
	_SELFTEST_STEP_MAX,
	_SELFTEST_STEP_INVALID = -EINVAL,
} SelftestStep;
DECLARE_STRING_TABLE_LOOKUP(selftest_step, SelftestStep)

typedef struct SelftestResult SelftestResult;

/* One end of the test on this host: a port and the GID (and so the IP address) it uses. */
typedef struct SelftestLink {
	char name[RDMA_DEVICE_NAME_MAX + 8]; /* "rxe0/1" */
	char device[RDMA_DEVICE_NAME_MAX];
	uint32_t port;
	char netdev[IF_NAMESIZE]; /* the GID's netdev (the port's, else); may be empty */
	uint32_t gid_index;
	uint8_t gid[16];
	struct sockaddr_storage address; /* the GID's IP address, port 0: rdma_cm's source */
} SelftestLink;

typedef enum SelftestPeerKind {
	SELFTEST_PEER_LOOPBACK, /* LINK to itself */
	SELFTEST_PEER_LINK,	/* another link of this host: both sides run here */
	SELFTEST_PEER_REMOTE,	/* HOST:PORT of `rdmactl selftest --listen` */
} SelftestPeerKind;

typedef struct SelftestParams {
	SelftestLink link;
	SelftestPeerKind peer_kind;
	SelftestLink peer;     /* SELFTEST_PEER_LINK */
	const char *peer_host; /* SELFTEST_PEER_REMOTE: a name or a numeric address */
	uint16_t peer_port;    /* SELFTEST_PEER_REMOTE */
	uint16_t listen_port;  /* selftest_serve(); local peers listen on a free port */
	uint64_t size;	       /* bytes per RDMA WRITE */
	uint32_t iterations;   /* round trips measured, and WRITEs of the bandwidth burst */
	uint32_t timeout_sec;  /* the longest wait for progress; selftest_serve(): for a client's */
	uint32_t deadline_sec; /* the whole test, 0: none; selftest_serve(): each client's */
	uint64_t start_nsec;   /* selftest_run*(): CLOCK_MONOTONIC when the test began (the
				* command's start); 0: when the run starts */
	/* selftest_run(): where to store the CLOCK_MONOTONIC time of each progress, for a process
	 * that watches (selftest_run_bounded()'s parent, through shared memory); may be NULL. */
	uint64_t *progress_nsec;
	/* selftest_run(): called with the final result before the test's resources are torn
	 * down (rdma_destroy_id() may wait on the kernel); may be NULL. */
	void (*result_ready)(const SelftestResult *result, void *userdata);
	void *result_ready_userdata;
} SelftestParams;

/* Nanoseconds. */
typedef struct SelftestLatency {
	uint64_t min, p50, p99, max;
} SelftestLatency;

struct SelftestResult {
	char *link; /* "rxe0/1" */
	char *peer; /* "rxe1/1", "HOST:PORT" as given, a client's address; NULL: loopback */
	bool pass;
	SelftestStep step; /* the failed step; _SELFTEST_STEP_INVALID when passed */
	int error;	   /* -errno of the failure, 0 when none applies */
	char *message;	   /* what failed, one sentence */
	char *hint;	   /* what to check; may be NULL */
	bool has_gid;
	uint32_t gid_index;
	uint8_t gid[16];
	bool has_peer_gid; /* a local peer's */
	uint32_t peer_gid_index;
	uint8_t peer_gid[16];
	uint64_t size;
	uint32_t iterations;
	bool has_setup;
	uint64_t setup_usec; /* rdma_resolve_addr() to ESTABLISHED */
	bool has_latency;
	SelftestLatency latency;
	bool has_bandwidth;
	uint64_t bandwidth_bps;
};

void selftest_result_done(SelftestResult *r);
/* Names and sizes for the report; link may not be NULL. -ENOMEM only. */
int selftest_result_init(SelftestResult *r, const char *link, const char *peer, uint64_t size,
			 uint32_t iterations);
/* Record a failure: its step, error (-errno; 0 becomes -EIO) and message; hint may be NULL.
 * The first one wins: later calls change nothing. Returns -ECANCELED (the test stops: `return
 * selftest_fail(...)` passes that up), or -ENOMEM when it could not be recorded. Every
 * function here that takes a SelftestResult returns so: -ECANCELED means "failed, and the
 * result says how"; -ENOMEM is out of memory, even when ibv_reg_mr()'s ENOMEM is what failed. */
int selftest_fail(SelftestResult *r, SelftestStep step, int error, const char *hint,
		  const char *format, ...) _printf_(5, 6);
static inline bool selftest_failed(const SelftestResult *r) {
	return r->message != NULL;
}

/* The JSON object of rdmactl selftest --json and the D-Bus SelfTest():
 * {"link","peer","result":"pass"|"fail","step","error","hint","gid_index","gid",
 *  "peer_gid_index","peer_gid","size","iterations","setup_usec",
 *  "latency_usec":{"min","p50","p99","max"},"bandwidth_bps"}; what is not known is null. */
int selftest_result_to_json(const SelftestResult *r, json_object **ret);

/* min, p50, p99, max of n samples (n > 0), sorting them in place. A percentile is the
 * nearest-rank one: the smallest sample with at least p% of the samples at or below it.
 * -EINVAL for n == 0. */
int selftest_latency_compute(uint64_t *samples, size_t n, SelftestLatency *ret);

/* "HOST", "HOST:PORT", "[IPV6]" or "[IPV6]:PORT"; a bare IPv6 address (more than one ':')
 * takes default_port. *ret_host is allocated. -EINVAL for an empty host, a bad port (1..65535),
 * an unclosed '['; -ENOMEM. */
int selftest_peer_parse(const char *s, uint16_t default_port, char **ret_host, uint16_t *ret_port);

/* Is port p of device d ACTIVE, and its netdev n (NULL when unknown) up with a carrier? Else
 * a failure at step "link" that says what to do (-ECANCELED). */
int selftest_link_check(const HostDevice *d, const HostPort *p, const HostNetdev *n,
			SelftestResult *result);

/* LINK's GID gid_index on port p of device d (netdev n, if any; NULL when unknown) as a
 * SelftestLink, after checking that the port is ACTIVE and the netdev up (else a failure at
 * step "link") and that the slot holds a RoCE v2 GID with an IP address (else step "gid";
 * gid_says is what `rdmactl gid LINK` answers, for the hint; may be NULL). Returns 0 and fills
 * *ret, -ECANCELED with the failure in *result, or -ENOMEM. */
int selftest_link_prepare(const HostDevice *d, const HostPort *p, const HostNetdev *n,
			  uint32_t gid_index, const char *gid_says, SelftestLink *ret,
			  SelftestResult *result);

/* The netdev the kernel routes dst by when the source address is src (ip route get DST from
 * SRC): its ifindex. -errno from rtnetlink (-ENETUNREACH: no route). */
int selftest_route_oif(const struct sockaddr *src, const struct sockaddr *dst, int *ret_ifindex);

/* The test, as the client (and for local peers the server too). result was set up with
 * selftest_result_init(); on return it holds pass or the failure. Returns 0, or -ENOMEM. */
int selftest_run(const SelftestParams *params, SelftestResult *result);

/* selftest_run() in a child process that can be abandoned, so that the caller returns within
 * timeout_sec + 2 s of the test's last progress (and deadline_sec + 2 s, when given) whatever
 * the kernel does: a REQ whose send never completes keeps its CM id referenced, and
 * rdma_destroy_id() then waits in the kernel for as long as that lasts
 * (cm_destroy_id_wait_timeout). The child hands its result over as soon as it is known, before
 * it tears down, and publishes each progress meanwhile; a child that gave none by then is
 * killed and left to whoever reaps it. When
 * a failed test's link (or local peer) counted send errors meanwhile (rxe's
 * hw_counters/send_err), the hint says so and names the likely cause. Returns as
 * selftest_run(). */
int selftest_run_bounded(const SelftestParams *params, SelftestResult *result);

/* The result as bytes for another process of this same binary (selftest_run_bounded()'s
 * child to its parent), and back. unpack: -EBADMSG when the bytes are not a whole result. */
int selftest_result_pack(const SelftestResult *r, char **ret, size_t *ret_size);
int selftest_result_unpack(const void *buf, size_t size, SelftestResult *ret);

/* --listen: called once listening, with the address ("192.0.2.1:7472", "[2001:db8::1]:7472"). */
typedef void (*selftest_ready_t)(const char *address, void *userdata);
/* --listen: what a client got, when it leaves: pass when every ping it announced was answered
 * with the right bytes. peer is the client's address. */
typedef void (*selftest_served_t)(const SelftestResult *client, void *userdata);

/* Serve remote clients on params->link, port listen_port, one at a time (a second one is
 * rejected, and says so), each until nothing came from it for timeout_sec (or its deadline_sec,
 * when given, ran out), until stop_fd is readable (a signalfd; not read here). Returns 0 when
 * stopped; -ECANCELED when it could not listen (the failure in *result: step "link",
 * "listen"); -ENOMEM. */
int selftest_serve(const SelftestParams *params, int stop_fd, selftest_ready_t ready,
		   selftest_served_t served, void *userdata, SelftestResult *result);
