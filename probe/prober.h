/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What the prober's files share (probe/README.md): its links (a fixed table of slots), the
 * paths between them and to peers, and the Prober that holds both. rdmad-probe.c runs the loop,
 * prober-link.c keeps the links and their endpoints, prober-path.c a path's probes, and
 * prober-report.c writes the metrics and state files. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <time.h>

#include "fabric-agree.h"
#include "latency.h"
#include "probe-links.h"
#include "probe-tos.h"
#include "probe-ud.h"

#define MAX_LINKS     64
#define MAX_PEERS     64
#define OUTSTANDING   64 /* probes awaiting an answer, a path */
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

/* A slot of Prober.links: its place never changes, paths point to it; name NULL when free. */
typedef struct Link {
	char *name;
	struct sockaddr_storage addr;
	char *addr_text;
	ProbeSettings settings;
	ProbeLink *endpoint;
	int error;	   /* of making the endpoint */
	uint64_t retry_ns; /* an endpoint not made, or failed, is made again from then on */
	uint64_t answered, refused; /* by the endpoints closed before this one */
	ProbeLinkSettings facts;    /* its RoCE settings as rdmad publishes them (RoceFacts) */
	ProbeLinkSettings told;	    /* what its endpoint tells peers: facts and its RoCE MTU */
	/* the ToS its paths' setup and probes carry (prober-tos.c): -1 not known (rdma_cm's
	 * default), and where it was read; the error of reading configfs, said when it changes */
	int tos;
	ProbeTosSource tos_source;
	int tos_error;
} Link;

typedef struct Pending {
	uint64_t seq, sent_ns; /* seq 0: a free entry */
} Pending;

typedef struct Path {
	uint32_t id; /* what its probes carry: a path's place in the array changes */
	Link *from;
	Link *to_link; /* the mesh's: the link probed; NULL for a peer */
	char *peer;    /* a link's name (mesh), or an address */
	const char *kind;
	struct sockaddr_storage to;
	ProbePath *p;
	int tos; /* its link's when p was made, or retagged since; -1: rdma_cm's default */
	uint64_t retry_ns; /* a failed path is made again from then on */
	uint64_t made_ns;  /* when p was made: its setup has PATH_SETUP_NS */
	uint64_t due_ns;   /* its next probe */
	uint64_t seq;
	Pending pending[OUTSTANDING];
	uint64_t sent, lost;
	unsigned silent;      /* probes lost in a row since the last answer */
	unsigned silent_made; /* ... since p was made: SILENT_MAX of them, and it is made again */
	bool device_clock;    /* its last answer was timed by the device's clock */
	uint64_t errors[_PROBE_STEP_MAX];
	ProbeStep step; /* where it stopped last, or NONE */
	int error;
	ProbeStep said_step; /* what the log said last: a change is said once */
	int said_error;
	double last_success; /* CLOCK_REALTIME, seconds; 0 never */
	LatencyHistogram rtt;
	LatencyWindow window;
	/* The peer's RoCE settings (probe-wire version 2; prober-settings.c): asked when the path
	 * is made, every SETTINGS_EVERY intervals and when its link's change. Not known until an
	 * answer came (a prober of version 1 never answers); forgotten after SETTINGS_SILENT_MAX
	 * asks in a row without one. */
	bool peer_known;
	bool said_known; /* what the log said last: known or not */
	bool asked_unanswered;
	unsigned asks_unanswered;
	uint32_t ask_seq;
	uint64_t ask_due_ns;
	ProbeLinkSettings peer_settings;
	/* the comparison of the last answer with the link's own settings: what both sides know,
	 * and the mismatches among it */
	const char *compared[FABRIC_MISMATCHES_MAX];
	size_t n_compared;
	FabricMismatch mismatches[FABRIC_MISMATCHES_MAX];
	size_t n_mismatches;
} Path;

typedef struct Prober {
	sd_event *event;
	ProbeTransport *transport;
	sd_event_source *transport_io, *tick, *refresh;
	Link links[MAX_LINKS];
	uint64_t window_ns; /* of the figures rdmactl probe shows: a minute */
	const char *metrics_path, *state_path, *links_file, *links_file_name;
	uint64_t written_ns;		/* when the files were last written */
	int metrics_error, state_error; /* of the last write, said when it changes */
	Path *paths;
	size_t n_paths;
	uint32_t next_id;
	sd_bus *bus; /* rdmad's, when the links are its */
} Prober;

static inline double now_realtime(void) {
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* prober-path.c: a path's life. */
/* An answer to a probe of this prober (probe_transport_new()'s callback, userdata the Prober). */
void on_reply(void *userdata, uint32_t id, uint64_t seq, uint64_t sent_ns, uint64_t now,
	      uint64_t device_ns);
void path_expire(Path *p, uint64_t now, uint64_t timeout);
const char *path_state(const Path *p);
/* The class its probes carry, or its setup asks for; -1: rdma_cm's default. */
int path_tos(const Path *p);
void path_probe(Prober *pr, Path *p, uint64_t now);
int path_add(Prober *pr, Link *from, Link *to_link, const char *peer, const char *kind,
	     const struct sockaddr_storage *to);
void path_reset(Path *p);
void path_remove(Prober *pr, size_t i);

/* prober-link.c: the links, their endpoints and paths, following rdmad's. */
uint64_t link_answered(const Link *l);
uint64_t link_refused(const Link *l);
int link_check(Prober *pr, Link *l, uint64_t now);
/* The links whose endpoint stopped, closed with their paths (the transport let go of what was
 * on a device gone already): right after the transport's work, not at the next tick. */
void links_check_failed(Prober *pr, uint64_t now);
void link_close(Link *l);
int prober_links_update(Prober *pr, const ProbeLinkInfo *infos, size_t n);
/* rdmad's probe.links watched: 0, or 1 when it is gone already (the loop told to exit). */
int prober_links_file_watch(Prober *pr);
/* rdmad's links read, and read again as its signals say they changed: -ESRCH without rdmad. */
int prober_links_follow(Prober *pr);

/* prober-settings.c: the RoCE settings each link tells and each path's peer told. */
/* Settings a peer told (probe_transport_new()'s settings handler, userdata the Prober). */
void on_settings(void *userdata, ProbeLink *l, uint32_t id, const ProbePeer *from,
		 const ProbeLinkSettings *settings);
/* The link's own settings now (rdmad's facts and its endpoint's active RoCE MTU) handed to its
 * endpoint; where they changed, its paths compared again and their peers asked at once. */
void link_settings_update(Prober *pr, Link *l);
/* The rdmad's facts of a link: link_settings_update() where they changed. */
void link_facts_set(Prober *pr, Link *l, const ProbeLinkSettings *facts);
/* The peer asked when due (a ready path only). */
void path_settings_ask(Path *p, uint64_t now);

/* prober-tos.c: each link's ToS followed. */
/* The link's ToS read again (configfs, else rdmad's facts): where it changed, each path from the
 * link retagged, set up again or retried with it (path_tos_action()). Before its probes go out,
 * each tick; and when rdmad's facts change. */
void link_tos_update(Prober *pr, Link *l, uint64_t now);

/* prober-report.c: the files, each written whole (write_file_atomic()); none without its path. */
int prober_metrics_write(Prober *pr);
int prober_state_write(Prober *pr, uint64_t now);
