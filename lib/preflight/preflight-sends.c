/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* network.send-errors: does what a Soft-RoCE link sends leave the host? rxe counts in
 * hw_counters/send_err each packet the kernel refused to send (ip_local_out() failed: a cgroup
 * BPF egress filter such as a unit's IPAddressDeny=, a netfilter drop) and in sent_pkts each
 * one it sent, since the link was created. The refusal happens before the netdev, whose own
 * counters see nothing. Hardware drivers have no send_err: no row for them. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>

#include "counters.h"
#include "preflight-internal.h"
#include "preflight.h"

#define SEND_ERRORS_FIX                                                                           \
	"the likely cause is the link's UDP socket filtered: the kernel charges a Soft-RoCE "     \
	"link's sockets (its GSI QP's carries the RDMA CM) to the cgroup of the process that "    \
	"created it, for the link's lifetime, and a service with IPAddressDeny= (or another "     \
	"cgroup egress filter, or a firewall dropping UDP 4791 on output) drops what they send. " \
	"Delete the link (rdma link delete %s) and create it from outside such a service: rdmad " \
	"creates its links from a scope of its own (rdmad(8)). Else see dmesg"

int preflight_send_errors(Preflight *p, const PreflightInput *in, const HostDevice *d,
			  const HostPort *port, const char *subject) {
	_cleanup_(port_counters_done) PortCounters c = { 0 };
	_cleanup_close_ int rootfd = -EBADF;
	_cleanup_free_ char *fix = NULL;
	const Counter *err, *sent;
	uint64_t pkts;

	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 || port_counters_read(rootfd, d->name, port->port, &c) < 0)
		return 0; /* the port's other rows say what cannot be read */
	err = port_counters_find(&c, COUNTER_HW, "send_err");
	if (!err)
		return 0;
	sent = port_counters_find(&c, COUNTER_HW, "sent_pkts");
	pkts = sent ? sent->value : 0;
	if (err->value == 0)
		return preflight_add(
			p, "network.send-errors", subject, PREFLIGHT_OK, NULL,
			"no send errors (hw_counters/send_err 0, sent_pkts %" PRIu64 ")", pkts);
	if (asprintf(&fix, SEND_ERRORS_FIX, d->name) < 0)
		return -ENOMEM;
	return preflight_add(p, "network.send-errors", subject,
			     err->value >= pkts ? PREFLIGHT_FAIL : PREFLIGHT_WARN, fix,
			     "hw_counters/send_err %" PRIu64 ", sent_pkts %" PRIu64
			     ": the kernel refused %s of what this link sent since it was created",
			     err->value, pkts, err->value >= pkts ? "most" : "some");
}
