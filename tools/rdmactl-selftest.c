/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmactl selftest LINK [PEER]: finds the links and their GIDs on this host (the GID rdmad
 * publishes, as `rdmactl gid` answers), runs the exchange (lib/verbs/selftest.h) and reports it. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <time.h>

#include "gid.h"
#include "output.h"
#include "rdmactl.h"
#include "selftest.h"

static const HostNetdev *netdev_find(const HostState *h, const char *name) {
	for (size_t i = 0; name && i < h->n_netdevs; i++)
		if (streq(h->netdevs[i].name, name))
			return &h->netdevs[i];
	return NULL;
}

/* LINK (or a local PEER) as a SelftestLink: found, up, and on its GID: gid_index when >= 0,
 * else the one `rdmactl gid LINK [--family F]` answers. Failures go in res. */
static int link_prepare(const Options *o, const HostState *h, const char *name, const char *family,
			int gid_index, SelftestLink *ret, SelftestResult *res) {
	_cleanup_free_ char *why = NULL, *says = NULL;
	const HostDevice *d;
	const HostPort *p;
	const HostNetdev *n;
	uint32_t index = 0;
	int r, k;

	r = link_find(h, name, &d, &p);
	if (r < 0)
		return selftest_fail(res, SELFTEST_STEP_LINK, r == -EADDRNOTAVAIL ? r : -ENODEV,
				     "rdmactl links lists the links of this host", "%s: %s", name,
				     r == -EADDRNOTAVAIL
					     ? "the device has several ports, say DEV/PORT"
				     : r == -EINVAL ? "not DEV/PORT nor a netdev name"
						    : "no such link");
	n = netdev_find(h, p->netdev);
	r = selftest_link_check(d, p, n, res);
	if (r < 0)
		return r;

	k = link_gid_index(o, h, name, family, &index, &why);
	if (k == -ENOMEM)
		return k;
	if (k >= 0 && asprintf(&says, "%" PRIu32, index) < 0)
		return -ENOMEM;
	if (gid_index >= 0)
		index = (uint32_t) gid_index;
	else if (k < 0)
		return selftest_fail(res, SELFTEST_STEP_GID, k,
				     "Configure an IP address on the link's netdev (its GID "
				     "follows), or give --gid-index",
				     "`rdmactl gid %s` finds no GID: %s", name, strna(why));
	return selftest_link_prepare(d, p, n, index, k >= 0 ? says : why, ret, res);
}

/* The link's name as rdmad reports it ("rxe0/1"), whatever the user typed. */
static int name_set(char **dest, const char *name) {
	char *s = strdup(name);

	if (!s)
		return -ENOMEM;
	free(*dest);
	*dest = s;
	return 0;
}

static const char *family_of(const SelftestLink *l) {
	switch (gid_family(l->gid)) {
	case GID_FAMILY_IPV4:
		return "ipv4";
	case GID_FAMILY_LINK_LOCAL:
		return "link-local";
	default:
		return "ipv6";
	}
}

static void gid_text(const uint8_t gid[16], char *buf, size_t size) {
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t) size))
		snprintf(buf, size, "?");
}

static void result_print(const SelftestResult *r, bool listen) {
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	if (listen)
		printf("selftest --listen %s", r->link);
	else
		printf("selftest %s -> %s", r->link, r->peer ? r->peer : "itself (loopback)");
	if (r->has_gid) {
		gid_text(r->gid, a, sizeof(a));
		printf(", GID %" PRIu32 " %s", r->gid_index, a);
		if (r->has_peer_gid) {
			gid_text(r->peer_gid, b, sizeof(b));
			printf(" -> GID %" PRIu32 " %s", r->peer_gid_index, b);
		}
	}
	printf("\n  %" PRIu32 " round trips of %" PRIu64 " bytes (RDMA WRITE + SEND, SEND back)\n",
	       r->iterations, r->size);
	if (r->has_setup)
		printf("  setup      %" PRIu64 ".%03" PRIu64 " ms (address, route, connect)\n",
		       r->setup_usec / 1000, r->setup_usec % 1000);
	if (r->has_latency)
		printf("  latency    min %.1f µs, p50 %.1f µs, p99 %.1f µs, max %.1f µs\n",
		       r->latency.min / 1000.0, r->latency.p50 / 1000.0, r->latency.p99 / 1000.0,
		       r->latency.max / 1000.0);
	if (r->has_bandwidth)
		printf("  bandwidth  %.3f Gbit/s (RDMA WRITE)\n", r->bandwidth_bps / 1e9);
	if (r->pass) {
		printf("PASS\n");
		return;
	}
	printf("FAIL at step %s: %s\n", strna(selftest_step_to_string(r->step)), strna(r->message));
	if (r->hint)
		printf("  hint: %s\n", r->hint);
}

static int result_output(const SelftestResult *r, const Options *o, bool one_line) {
	if (o->json) {
		_cleanup_(json_object_putp) json_object *j = NULL;
		int k;

		k = selftest_result_to_json(r, &j);
		if (k < 0)
			return k;
		if (one_line)
			printf("%s\n",
			       json_object_to_json_string_ext(
				       j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		else
			json_print(j, stdout);
	} else
		result_print(r, o->listen);
	fflush(stdout);
	return 0;
}

typedef struct Serving {
	const Options *options;
	const SelftestParams *params;
} Serving;

static void listening(const char *address, void *userdata) {
	const SelftestParams *p = ((const Serving *) userdata)->params;

	fprintf(stderr, "rdmactl selftest: listening on %s (%s, GID index %" PRIu32 "); ^C stops\n",
		address, p->link.name, p->link.gid_index);
}

static void served(const SelftestResult *r, void *userdata) {
	const Options *o = ((const Serving *) userdata)->options;

	if (o->json) {
		(void) result_output(r, o, true);
		return;
	}
	if (r->pass)
		printf("%s: pass, %" PRIu32 " round trips and a burst of %" PRIu64
		       "-byte RDMA WRITEs, every byte checked\n",
		       r->peer, r->iterations, r->size);
	else
		printf("%s: FAIL at step %s: %s\n", r->peer,
		       strna(selftest_step_to_string(r->step)), strna(r->message));
	fflush(stdout);
}

static int serve(const Options *o, SelftestParams *params, SelftestResult *res) {
	_cleanup_close_ int fd = -EBADF;
	Serving ud = { .options = o, .params = params };
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
		return negative_errno();
	fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		return negative_errno();
	params->listen_port = (uint16_t) o->port;
	return selftest_serve(params, fd, listening, served, &ud, res);
}

static uint64_t monotonic_nsec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

int verb_selftest(const Options *o, int argc, char **argv) {
	_cleanup_(host_state_freep) HostState *h = NULL;
	_cleanup_(selftest_result_done) SelftestResult res = { .step = _SELFTEST_STEP_INVALID };
	_cleanup_free_ char *host = NULL;
	SelftestParams params = {
		.size = o->size,
		.iterations = (uint32_t) o->iters,
		.timeout_sec = (uint32_t) o->timeout,
		.deadline_sec = (uint32_t) o->deadline,
		.start_nsec = monotonic_nsec(), /* the bounds start with the command */
	};
	const char *peer = argc > 1 ? argv[1] : NULL;
	const HostDevice *d;
	const HostPort *p;
	int r;

	if (argc < 1) {
		fprintf(stderr, "rdmactl selftest: which link? (DEV/PORT, DEV or netdev)\n");
		return EXIT_FAILURE;
	}
	if (o->listen && peer) {
		fprintf(stderr, "rdmactl selftest: --listen serves clients on LINK: no PEER\n");
		return EXIT_FAILURE;
	}
	r = selftest_result_init(&res, argv[0], o->listen ? NULL : peer, o->size,
				 (uint32_t) o->iters);
	if (r < 0)
		goto oom;

	r = host_observe("/", HOST_OBSERVE_GIDS | HOST_OBSERVE_DETAILS | HOST_OBSERVE_NETDEVS, &h);
	if (r == -ENOMEM)
		goto oom;
	if (r < 0)
		r = selftest_fail(&res, SELFTEST_STEP_LINK, r, NULL, "cannot read the host: %s",
				  strerror(-r));
	else
		r = link_prepare(o, h, argv[0], NULL, o->gid_index, &params.link, &res);
	if (r >= 0)
		r = name_set(&res.link, params.link.name);

	if (r >= 0 && peer) {
		if (link_find(h, peer, &d, &p) >= 0) {
			params.peer_kind = SELFTEST_PEER_LINK;
			r = link_prepare(o, h, peer, family_of(&params.link), -1, &params.peer,
					 &res);
			if (r >= 0)
				r = name_set(&res.peer, params.peer.name);
			if (r >= 0 && streq(params.peer.name, params.link.name))
				params.peer_kind = SELFTEST_PEER_LOOPBACK;
		} else if (strchr(peer, '/')) {
			r = selftest_fail(&res, SELFTEST_STEP_LINK, -ENODEV,
					  "rdmactl links lists the links of this host",
					  "%s: no such link", peer);
		} else {
			params.peer_kind = SELFTEST_PEER_REMOTE;
			r = selftest_peer_parse(peer, (uint16_t) o->port, &host, &params.peer_port);
			if (r == -EINVAL)
				r = selftest_fail(&res, SELFTEST_STEP_ADDRESS_RESOLUTION, r,
						  "PEER is a link of this host, HOST, HOST:PORT, "
						  "[IPV6] or [IPV6]:PORT",
						  "%s: not a link of this host nor HOST[:PORT]",
						  peer);
			params.peer_host = host;
		}
	}
	if (r == -ENOMEM)
		goto oom;

	if (!selftest_failed(&res)) {
		if (o->listen) {
			r = serve(o, &params, &res);
			if (r == -ENOMEM)
				goto oom;
			if (r >= 0 && !selftest_failed(&res))
				return EXIT_SUCCESS;
			if (!selftest_failed(&res))
				(void) selftest_fail(&res, SELFTEST_STEP_LISTEN, r, NULL,
						     "cannot wait for signals: %s", strerror(-r));
		} else {
			r = selftest_run_bounded(&params, &res);
			if (r < 0)
				goto oom;
		}
	}
	if (result_output(&res, o, false) < 0)
		goto oom;
	return res.pass ? EXIT_SUCCESS : EXIT_FAILURE;
oom:
	fprintf(stderr, "rdmactl selftest: out of memory\n");
	return EXIT_FAILURE;
}
