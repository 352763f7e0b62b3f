/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Helpers shared by lib/verbs: cleanup of libibverbs objects, socket addresses. */

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* The port of an IPv4 or IPv6 address. */
static inline void sockaddr_set_port(struct sockaddr_storage *ss, uint16_t port) {
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *) ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *) ss)->sin6_port = htons(port);
}

static inline void ibv_close_devicep(struct ibv_context **c) {
	if (*c)
		(void) ibv_close_device(*c);
}

static inline void ibv_free_device_listp(struct ibv_device ***l) {
	if (*l)
		ibv_free_device_list(*l);
}
