/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The devices a transport used: their asynchronous events, and letting go of one that went
 * away (removed, fatal, disassociated) at once, so that the kernel can finish removing it. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#define RDMAD_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) /* clang before 22 */
#define RDMAD_ASAN 1
#endif
#endif
#ifdef RDMAD_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#include "fileio.h"
#include "macro.h"
#include "probe-ud-internal.h"

/* librdmacm keeps the device open after the last id on it is gone (until a later lookup misses
 * it), and the kernel finishes removing a device without disassociate_ucontext only once every
 * process closed it. Once none of ours is left on it, the context's descriptors are pointed at
 * /dev/null, read-only: the kernel lets go of the device, and every call librdmacm may still
 * make on the context fails (it never uses it again for an id: a device added again has
 * another index, which its lookup tells apart), until it closes them in its stead. */
static void context_drop(struct ibv_context *verbs) {
	_cleanup_close_ int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void) dup3(fd, verbs->cmd_fd, O_CLOEXEC);
	(void) dup3(fd, verbs->async_fd, O_CLOEXEC);
}

/* librdmacm's own PD of the device (an id's pd) cannot be freed once the context's descriptors
 * point at /dev/null: the provider's dealloc fails and keeps its allocation (rxe: 16 bytes),
 * one per device gone, for as long as the process runs. Let go knowingly; LeakSanitizer is
 * told so, for that object alone. */
static void pd_let_go(const struct rdma_cm_id *id) {
#ifdef RDMAD_ASAN
	if (id && id->pd)
		__lsan_ignore_object(id->pd);
#else
	(void) id;
#endif
}

static ProbeDevice *device_find(ProbeTransport *t, struct ibv_context *verbs) {
	for (ProbeDevice *d = t->devices; d; d = d->next)
		if (d->verbs == verbs && !d->gone)
			return d;
	return NULL;
}

/* A device gone (removed, fatal, disassociated): everything of this transport on it let go at
 * once, in the order that lets the kernel finish: the verbs objects, then the device's
 * descriptors, then the ids (librdmacm drops its own PD of the device with the last one). Its
 * links and paths stay, failed, for the caller to free and make again. */
void probe_device_release(ProbeTransport *t, struct ibv_context *verbs, const char *why) {
	ProbeDevice *d = device_find(t, verbs);
	bool ours = d != NULL; /* anything of this transport still on it */

	for (ProbeLink *l = t->links; l; l = l->next) {
		bool on = l->verbs == verbs && !l->device_gone;

		for (ProbePath *p = l->paths; p; p = p->next)
			if ((on && p->id) || (p->id && p->id->verbs == verbs)) {
				probe_path_release(p, false);
				probe_path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
				ours = true;
			}
		if (on) {
			probe_link_release(l, false);
			l->gone = why;
			l->device_gone = true;
			ours = true;
		}
	}
	if (!ours)
		return; /* let go already: the context may be librdmacm's to free by now */
	if (d) {
		if (d->watched)
			probe_watch_remove(t, verbs->async_fd);
		d->watched = false;
		d->gone = true; /* freed at the end of the call: an event of it may still be read */
		pd_let_go(d->id);
	}
	for (ProbeLink *l = t->links; l; l = l->next)
		if (l->verbs == verbs && l->device_gone)
			pd_let_go(l->id);
	context_drop(verbs);
	for (ProbeLink *l = t->links; l; l = l->next) {
		bool on = l->verbs == verbs && l->device_gone;

		for (ProbePath *p = l->paths; p; p = p->next)
			if (p->id && (on || p->id->verbs == verbs))
				probe_path_release(p, true);
		if (on)
			probe_link_release(l, true);
	}
	if (d && d->id) {
		(void) rdma_destroy_id(d->id);
		d->id = NULL;
	}
}

void probe_device_free(ProbeDevice *d) {
	if (d->watched)
		probe_watch_remove(d->t, d->verbs->async_fd);
	if (d->id)
		(void) rdma_destroy_id(d->id);
	free(d);
}

/* The device of a link bound to addr: known, or watched from now on (its asynchronous events,
 * and an id bound to it for its removal). */
int probe_device_use(ProbeTransport *t, struct ibv_context *verbs, const struct sockaddr *addr) {
	ProbeDevice *d = device_find(t, verbs);
	struct sockaddr_storage any;
	int r;

	if (d)
		return 0;
	r = probe_sockaddr_copy(addr, 0, &any);
	if (r < 0)
		return r;
	d = calloc(1, sizeof(ProbeDevice));
	if (!d)
		return -ENOMEM;
	*d = (ProbeDevice){ .kind = ID_DEVICE,
			    .watch = { WATCH_DEVICE, d },
			    .t = t,
			    .verbs = verbs };
	if (rdma_create_id(t->channel, &d->id, d, RDMA_PS_UDP) < 0)
		r = -errno;
	else if (rdma_bind_addr(d->id, (struct sockaddr *) &any) < 0)
		r = -errno;
	else if (d->id->verbs != verbs)
		r = -EXDEV; /* the address moved to another device meanwhile */
	if (r >= 0)
		r = fd_nonblock(verbs->async_fd);
	if (r >= 0)
		r = probe_watch_add(t, verbs->async_fd, &d->watch);
	if (r < 0) {
		probe_device_free(d);
		return r;
	}
	d->watched = true;
	d->next = t->devices;
	t->devices = d;
	return 0;
}

static ProbeLink *link_by_qp(ProbeTransport *t, struct ibv_qp *qp) {
	for (ProbeLink *l = t->links; l; l = l->next)
		if (l->qp && l->qp == qp)
			return l;
	return NULL;
}

static ProbeLink *link_by_cq(ProbeTransport *t, struct ibv_cq *cq) {
	for (ProbeLink *l = t->links; l; l = l->next)
		if (l->cq && l->cq == cq)
			return l;
	return NULL;
}

/* A device's asynchronous events: a fatal error lets it go; a QP or CQ in error stops its link.
 * Each is acknowledged before anything is destroyed (libibverbs waits for that). A descriptor
 * the kernel closed (disassociated) is a device gone: it would stay readable forever. */
void probe_device_process(ProbeDevice *d, uint32_t events) {
	ProbeTransport *t = d->t;

	if (events & (EPOLLERR | EPOLLHUP)) {
		probe_device_release(t, d->verbs, "its device was disassociated");
		return;
	}
	for (unsigned n = 0; n < EVENTS_A_CALL; n++) {
		struct ibv_async_event ev;
		enum ibv_event_type type;
		ProbeLink *l = NULL;

		errno = 0;
		if (ibv_get_async_event(d->verbs, &ev) < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				probe_device_release(t, d->verbs, "its device was disassociated");
			return;
		}
		type = ev.event_type;
		if (type == IBV_EVENT_QP_FATAL || type == IBV_EVENT_QP_REQ_ERR ||
		    type == IBV_EVENT_QP_ACCESS_ERR)
			l = link_by_qp(t, ev.element.qp);
		else if (type == IBV_EVENT_CQ_ERR)
			l = link_by_cq(t, ev.element.cq);
		ibv_ack_async_event(&ev);
		if (type == IBV_EVENT_DEVICE_FATAL) {
			probe_device_release(t, d->verbs, "its device reported a fatal error");
			return;
		}
		if (l && !l->gone)
			l->gone = type == IBV_EVENT_CQ_ERR ? "its CQ overran" : "its QP failed";
	}
}
