/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The transport (probe-ud.h): its one epoll over rdma_cm's events, the devices' asynchronous
 * events and the links' completions, worked through a bounded share at a time; rdma_cm's events;
 * and the paths, from their address resolution to the peer's QP (SIDR). */
#include <errno.h>
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <netinet/in.h>

#include "fileio.h"
#include "macro.h"
#include "probe-ud-internal.h"
#include "verbs-util.h"

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

int probe_sockaddr_copy(const struct sockaddr *sa, uint16_t port, struct sockaddr_storage *ret) {
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

int probe_watch_add(ProbeTransport *t, int fd, Watch *w) {
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	return epoll_ctl(t->epoll_fd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

void probe_watch_remove(ProbeTransport *t, int fd) {
	(void) epoll_ctl(t->epoll_fd, EPOLL_CTL_DEL, fd, NULL);
}

int probe_transport_new(uint32_t sender, probe_reply_t on_reply, void *userdata,
			ProbeTransport **ret) {
	_cleanup_(probe_transport_freep) ProbeTransport *t = NULL;
	int r;

	t = calloc(1, sizeof(ProbeTransport));
	if (!t)
		return -ENOMEM;
	*t = (ProbeTransport){ .sender = sender,
			       .on_reply = on_reply,
			       .userdata = userdata,
			       .epoll_fd = -EBADF,
			       .more_fd = -EBADF,
			       .cm_watch = { WATCH_CM, t },
			       .more_watch = { WATCH_MORE, t } };
	t->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (t->epoll_fd < 0)
		return -errno;
	t->more_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->more_fd < 0)
		return -errno;
	t->channel = rdma_create_event_channel();
	if (!t->channel)
		return -errno;
	r = fd_nonblock(t->channel->fd);
	if (r >= 0)
		r = probe_watch_add(t, t->channel->fd, &t->cm_watch);
	if (r >= 0)
		r = probe_watch_add(t, t->more_fd, &t->more_watch);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(t);
	return 0;
}

ProbeTransport *probe_transport_free(ProbeTransport *t) {
	if (!t)
		return NULL;
	while (t->links) /* the caller's to free first; not left behind if it did not */
		probe_link_free(t->links);
	while (t->devices) {
		ProbeDevice *d = t->devices;

		t->devices = d->next;
		probe_device_free(d);
	}
	if (t->channel)
		rdma_destroy_event_channel(t->channel);
	safe_close(t->more_fd);
	safe_close(t->epoll_fd);
	free(t);
	return NULL;
}

void probe_transport_set_settings_handler(ProbeTransport *t, probe_settings_t on_settings) {
	t->on_settings = on_settings;
}

int probe_transport_fd(const ProbeTransport *t) {
	return t->epoll_fd;
}

void probe_path_fail(ProbePath *p, ProbeStep step, int error) {
	if (p->failed)
		return;
	p->ready = false;
	p->failed = true;
	p->step = step;
	p->error = error < 0 ? error : -EIO;
}

/* A path's objects: its address handle (on its link's PD); with its id, everything. */
void probe_path_release(ProbePath *p, bool id) {
	if (p->ah)
		(void) ibv_destroy_ah(p->ah);
	p->ah = NULL;
	if (p->old_ah)
		(void) ibv_destroy_ah(p->old_ah);
	p->old_ah = NULL;
	if (id && p->id)
		(void) rdma_destroy_id(p->id);
	if (id)
		p->id = NULL;
}

/* ---- rdma_cm events ---------------------------------------------------------------------- */

/* A peer's endpoint answered the SIDR request: its QP number, Q_Key and the address to it. */
static void path_established(ProbePath *p, const struct rdma_ud_param *ud) {
	if (!p->l || p->id->verbs != p->l->verbs) {
		/* the route to the peer leaves by another device than the link's */
		probe_path_fail(p, PROBE_STEP_ROUTE, -EXDEV);
		return;
	}
	p->ah_attr = ud->ah_attr;
	p->ah = ibv_create_ah(p->l->pd, &p->ah_attr);
	if (!p->ah) {
		probe_path_fail(p, PROBE_STEP_QP, -errno);
		return;
	}
	p->peer.qpn = ud->qp_num;
	memcpy(p->peer.gid, ud->ah_attr.grh.dgid.raw, sizeof(p->peer.gid));
	p->qkey = ud->qkey;
	p->ready = true;
}

/* What an event asks of the transport once it is acknowledged (rdma_destroy_id() waits for the
 * events of its id to be). */
typedef struct CmAction {
	struct ibv_context *device_gone; /* let go of this device */
	const char *why;
	ProbeLink *link_gone;	    /* let go of this link: its address changed */
	struct rdma_cm_id *request; /* a connect request's id, answered: destroyed */
} CmAction;

static void path_event(ProbePath *p, struct rdma_cm_event *ev, CmAction *a) {
	struct rdma_conn_param param = { 0 };

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(p->id, RESOLVE_TIMEOUT_MS) < 0)
			probe_path_fail(p, PROBE_STEP_ROUTE, -errno);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
		probe_path_fail(p, PROBE_STEP_ADDRESS, ev->status);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (rdma_connect(p->id, &param) < 0)
			probe_path_fail(p, PROBE_STEP_CONNECT, -errno);
		break;
	case RDMA_CM_EVENT_ROUTE_ERROR:
		probe_path_fail(p, PROBE_STEP_ROUTE, ev->status);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		path_established(p, &ev->param.ud);
		break;
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		/* status: a negative errno, or the CM's reject reason (positive) */
		probe_path_fail(p, PROBE_STEP_CONNECT, ev->status < 0 ? ev->status : -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		probe_path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
		a->device_gone = p->id->verbs;
		a->why = "its device was removed";
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		probe_path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
		break;
	default:
		break;
	}
}

/* A SIDR request on the link's port: answered with the link's one QP (its id then destroyed).
 * Its device removed, or its address changed: the endpoint is let go. */
static void link_event(ProbeLink *l, struct rdma_cm_event *ev, CmAction *a) {
	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST: {
		struct rdma_conn_param param = { .qp_num = l->qp ? l->qp->qp_num : 0 };

		if (!l->qp || rdma_accept(ev->id, &param) < 0)
			l->refused++;
		a->request = ev->id;
		break;
	}
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		a->device_gone = l->verbs;
		a->why = "its device was removed";
		break;
	case RDMA_CM_EVENT_ADDR_CHANGE:
		a->link_gone = l;
		break;
	default:
		break;
	}
}

static void cm_process(ProbeTransport *t) {
	for (unsigned n = 0; n < EVENTS_A_CALL; n++) {
		struct rdma_cm_event *ev;
		CmAction a = { 0 };
		IdKind *kind;

		if (rdma_get_cm_event(t->channel, &ev) < 0)
			return; /* EAGAIN: none left */
		kind = ev->id->context;
		if (kind && *kind == ID_PATH)
			path_event((ProbePath *) kind, ev, &a);
		else if (kind && *kind == ID_LINK)
			link_event((ProbeLink *) kind, ev, &a);
		else if (kind && *kind == ID_DEVICE && ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
			a.device_gone = ((ProbeDevice *) kind)->verbs;
			a.why = "its device was removed";
		}
		rdma_ack_cm_event(ev);
		if (a.request)
			(void) rdma_destroy_id(a.request);
		if (a.device_gone)
			probe_device_release(t, a.device_gone, a.why);
		if (a.link_gone && !a.link_gone->gone) {
			ProbeLink *l = a.link_gone;

			for (ProbePath *p = l->paths; p; p = p->next) {
				probe_path_release(p, true);
				probe_path_fail(p, PROBE_STEP_ADDRESS, -ENODEV);
			}
			probe_link_release(l, true);
			l->gone = "its address changed";
		}
	}
}

int probe_transport_process(ProbeTransport *t) {
	struct epoll_event evs[32];
	bool more = false;
	int n;

	if (t->more) {
		eventfd_t v;

		(void) eventfd_read(t->more_fd, &v);
		t->more = false;
	}
	n = epoll_wait(t->epoll_fd, evs, ELEMENTSOF(evs), 0);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		Watch *w = evs[i].data.ptr;

		if (w->kind == WATCH_CM)
			cm_process(t);
		else if (w->kind == WATCH_DEVICE && !((ProbeDevice *) w->owner)->gone)
			probe_device_process(w->owner, evs[i].events);
		else if (w->kind == WATCH_LINK) {
			ProbeLink *l = w->owner;

			if (!l->completions)
				continue; /* let go meanwhile */
			if (evs[i].events & (EPOLLERR | EPOLLHUP))
				probe_device_release(t, l->verbs, "its device was disassociated");
			else
				l->woken = true;
		}
	}
	for (ProbeLink *l = t->links; l; l = l->next) {
		if (l->cq && (l->woken || l->more))
			probe_link_work(l);
		more = more || l->more;
	}
	for (ProbeDevice **d = &t->devices; *d;)
		if ((*d)->gone) {
			ProbeDevice *gone = *d;

			*d = gone->next;
			probe_device_free(gone);
		} else
			d = &(*d)->next;
	if (more) {
		t->more = true;
		(void) eventfd_write(t->more_fd, 1);
	}
	return more ? 1 : 0;
}

/* ---- paths -------------------------------------------------------------------------------- */

int probe_path_new(ProbeLink *l, const struct sockaddr *dst, uint16_t port, int tos, uint32_t index,
		   ProbePath **ret) {
	_cleanup_(probe_path_freep) ProbePath *p = NULL;
	struct sockaddr_storage src, to;
	int r;

	if (!l->id)
		return -ENODEV; /* let go: its device or address went away */
	r = probe_sockaddr_copy(dst, port, &to);
	if (r >= 0) /* from the link's address, any port */
		r = probe_sockaddr_copy(rdma_get_local_addr(l->id), 0, &src);
	if (r < 0)
		return r;
	p = calloc(1, sizeof(ProbePath));
	if (!p)
		return -ENOMEM;
	p->kind = ID_PATH;
	p->l = l;
	p->index = index;
	p->tos = tos;
	p->next = l->paths;
	l->paths = p;
	if (rdma_create_id(l->t->channel, &p->id, p, RDMA_PS_UDP) < 0)
		return -errno;
	if (tos >= 0) {
		/* the route resolved with it (its path record's traffic class), so the SIDR
		 * exchange and the address handle of the reply carry it too */
		uint8_t v = (uint8_t) tos;

		if (tos > UINT8_MAX)
			return -EINVAL;
		if (rdma_set_option(p->id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &v, sizeof(v)) < 0)
			return -errno;
	}
	if (rdma_resolve_addr(p->id, (struct sockaddr *) &src, (struct sockaddr *) &to,
			      RESOLVE_TIMEOUT_MS) < 0)
		probe_path_fail(p, PROBE_STEP_ADDRESS, -errno);
	*ret = TAKE_PTR(p);
	return 0;
}

ProbePath *probe_path_free(ProbePath *p) {
	if (!p)
		return NULL;
	if (p->l)
		for (ProbePath **i = &p->l->paths; *i; i = &(*i)->next)
			if (*i == p) {
				*i = p->next;
				break;
			}
	probe_path_release(p, true);
	free(p);
	return NULL;
}

bool probe_path_ready(const ProbePath *p) {
	return p->ready;
}

int probe_path_set_tos(ProbePath *p, uint8_t tos) {
	struct ibv_ah_attr attr;
	struct ibv_ah *ah;

	if (p->failed)
		return p->error;
	if (!p->ready || !p->l)
		return -EAGAIN;
	if (p->ah_attr.grh.traffic_class == tos) {
		p->tos = tos;
		return 0;
	}
	attr = p->ah_attr;
	attr.grh.traffic_class = tos;
	ah = ibv_create_ah(p->l->pd, &attr);
	if (!ah)
		return errno > 0 ? -errno : -EIO;
	/* the one before kept until the next change or the path's end: a request posted through it
	 * may not have left yet (the next change comes a tick later at the soonest, long after) */
	if (p->old_ah)
		(void) ibv_destroy_ah(p->old_ah);
	p->old_ah = p->ah;
	p->ah = ah;
	p->ah_attr = attr;
	p->tos = tos;
	return 0;
}

int probe_path_tos(const ProbePath *p) {
	return p->ready ? p->ah_attr.grh.traffic_class : p->tos;
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
