/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The LLDP neighbours of the netdevs RDMA ports sit on, from the local lldpd through its client
 * library (liblldpctl, loaded with dlopen: lldpctl-dl.h). One connection to lldpd's control
 * socket, made here and driven through liblldpctl's I/O callbacks so that every read and write
 * is bounded in time: a wedged lldpd costs rdmad LLDP_TIMEOUT_MS, never its loop. What lldpd
 * hands over is turned into LldpNeighbor by lldp-neighbor.c (the pure half). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host.h"
#include "lldpctl-dl.h"
#include "strv.h"

#define LLDP_TIMEOUT_MS 2000

typedef struct LldpIo {
	int fd;
	int error; /* the first failure of a callback: -errno, -ETIMEDOUT, -ECONNRESET */
} LldpIo;

static ssize_t io_wait(LldpIo *io, short events) {
	struct pollfd p = { .fd = io->fd, .events = events };
	int r;

	do
		r = poll(&p, 1, LLDP_TIMEOUT_MS);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		return 0;
	if (io->error == 0)
		io->error = r == 0 ? -ETIMEDOUT : -errno;
	return LLDPCTL_ERR_CALLBACK_FAILURE;
}

static ssize_t io_send(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user_data) {
	LldpIo *io = user_data;
	ssize_t n;

	(void) conn;
	if (io_wait(io, POLLOUT) < 0)
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	n = send(io->fd, data, length, MSG_NOSIGNAL);
	if (n < 0) {
		if (io->error == 0)
			io->error = -errno;
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	}
	return n;
}

/* liblldpctl's buffer to fill comes as const (its header's type); lldpd's own callback casts
 * it away the same way. */
static ssize_t io_recv(lldpctl_conn_t *conn, const uint8_t *data, size_t length, void *user_data) {
	LldpIo *io = user_data;
	ssize_t n;

	(void) conn;
	if (io_wait(io, POLLIN) < 0)
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	n = recv(io->fd, (void *) data, length, 0);
	if (n == 0) {
		if (io->error == 0)
			io->error = -ECONNRESET;
		return LLDPCTL_ERR_EOF;
	}
	if (n < 0) {
		if (io->error == 0)
			io->error = -errno;
		return LLDPCTL_ERR_CALLBACK_FAILURE;
	}
	return n;
}

static int socket_connect(const char *path, int *ret) {
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*ret = fd;
	return 0;
}

static void atom_unref(lldpctl_atom_t **a) {
	if (*a)
		sym_lldpctl_atom_dec_ref(*a);
	*a = NULL;
}
#define _cleanup_atom_ _cleanup_(atom_unref)

/* lldpctl_atom_foreach() through the loaded symbols; a break must drop value itself */
#define ATOM_FOREACH(list, value)                                         \
	for (lldpctl_atom_iter_t *_it = sym_lldpctl_atom_iter(list);      \
	     _it && ((value) = sym_lldpctl_atom_iter_value((list), _it)); \
	     _it = sym_lldpctl_atom_iter_next((list), _it), sym_lldpctl_atom_dec_ref(value))

static int strdup_atom(lldpctl_atom_t *a, lldpctl_key_t key, char **ret) {
	const char *s = sym_lldpctl_atom_get_str(a, key);

	free(*ret);
	*ret = NULL;
	if (!s || !*s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

/* "mac 00:11:22:33:44:55": lldpd's name of the subtype, then the ID as it formats it */
static int id_atom(lldpctl_atom_t *a, lldpctl_key_t subtype, lldpctl_key_t id, char **ret) {
	const char *st = sym_lldpctl_atom_get_str(a, subtype), *s = sym_lldpctl_atom_get_str(a, id);

	free(*ret);
	*ret = NULL;
	if (!s)
		return 0;
	if (asprintf(ret, "%s%s%s", st ? st : "", st ? " " : "", s) < 0) {
		*ret = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int neighbor_read(lldpctl_atom_t *neighbor, LldpNeighbor *n) {
	_cleanup_atom_ lldpctl_atom_t *chassis =
		sym_lldpctl_atom_get(neighbor, lldpctl_k_port_chassis);
	_cleanup_atom_ lldpctl_atom_t *tlvs = NULL;
	lldpctl_atom_t *tlv;
	long mfs;
	int r;

	if (chassis) {
		r = id_atom(chassis, lldpctl_k_chassis_id_subtype, lldpctl_k_chassis_id,
			    &n->chassis_id);
		if (r < 0)
			return r;
		r = strdup_atom(chassis, lldpctl_k_chassis_name, &n->system_name);
		if (r < 0)
			return r;
	}
	r = id_atom(neighbor, lldpctl_k_port_id_subtype, lldpctl_k_port_id, &n->port_id);
	if (r < 0)
		return r;
	/* lldpd decodes the 802.3 Maximum Frame Size itself (0: not sent) */
	mfs = sym_lldpctl_atom_get_int(neighbor, lldpctl_k_port_dot3_mfs);
	if (mfs > 0 && mfs <= UINT16_MAX) {
		n->dcb.max_frame = (uint16_t) mfs;
		n->dcb.has_max_frame = true;
	}
	tlvs = sym_lldpctl_atom_get(neighbor, lldpctl_k_custom_tlvs);
	if (!tlvs)
		return 0;
	ATOM_FOREACH(tlvs, tlv) {
		const uint8_t *oui, *info;
		size_t oui_size = 0, size = 0;
		long subtype;

		oui = sym_lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui, &oui_size);
		subtype = sym_lldpctl_atom_get_int(tlv, lldpctl_k_custom_tlv_oui_subtype);
		info = sym_lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui_info_string,
						   &size);
		if (!oui)
			continue;
		r = lldp_neighbor_add_org_tlv(n, oui, oui_size, subtype, info ? info : oui,
					      info ? size : 0);
		if (r < 0) {
			sym_lldpctl_atom_dec_ref(tlv);
			return r;
		}
	}
	return 0;
}

/* The netdev of h named name that an RDMA port sits on and has not been read yet, or NULL. */
static HostNetdev *netdev_wanted(HostState *h, const char *name) {
	HostNetdev *n = (HostNetdev *) host_netdev_find(h, name);

	if (!n || n->lldp)
		return NULL;
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t j = 0; j < h->devices[i].n_ports; j++)
			if (streq_ptr(h->devices[i].ports[j].netdev, name))
				return n;
	return NULL;
}

/* Every wanted netdev not read yet gets error and message (copied). */
static int netdevs_fail(HostState *h, int error, const char *message) {
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t j = 0; j < h->devices[i].n_ports; j++) {
			const char *nd = h->devices[i].ports[j].netdev;
			HostNetdev *n = nd ? netdev_wanted(h, nd) : NULL;

			if (!n)
				continue;
			n->lldp = calloc(1, sizeof(*n->lldp));
			if (!n->lldp)
				return -ENOMEM;
			n->lldp->error = error;
			if (message && !(n->lldp->message = strdup(message)))
				return -ENOMEM;
		}
	return 0;
}

static int interface_read(HostNetdev *nd, lldpctl_atom_t *iface) {
	_cleanup_atom_ lldpctl_atom_t *port = sym_lldpctl_get_port(iface);
	_cleanup_atom_ lldpctl_atom_t *neighbors = NULL;
	lldpctl_atom_t *neighbor;
	int r;

	nd->lldp = calloc(1, sizeof(*nd->lldp));
	if (!nd->lldp)
		return -ENOMEM;
	if (!port) {
		nd->lldp->error = -EPROTO;
		return 0;
	}
	neighbors = sym_lldpctl_atom_get(port, lldpctl_k_port_neighbors);
	if (!neighbors)
		return 0;
	ATOM_FOREACH(neighbors, neighbor) {
		LldpNeighbor *n;

		r = host_lldp_add_neighbor(nd->lldp, &n);
		if (r >= 0)
			r = neighbor_read(neighbor, n);
		if (r < 0) {
			sym_lldpctl_atom_dec_ref(neighbor);
			return r;
		}
	}
	return 0;
}

int host_lldp_observe(HostState *h, const char *socket_path) {
	_cleanup_free_ char *error = NULL;
	_cleanup_atom_ lldpctl_atom_t *ifaces = NULL;
	lldpctl_conn_t *conn = NULL;
	lldpctl_atom_t *iface;
	LldpIo io = { .fd = -1 };
	int r;

	/* lldpd first: a host without it never maps liblldpctl (nor libbsd, which it pulls in) */
	if (!socket_path)
		socket_path = LLDPD_SOCKET;
	r = socket_connect(socket_path, &io.fd);
	if (r < 0) {
		_cleanup_free_ char *words = NULL;

		if (asprintf(&words, "%s: %s", socket_path, strerror(-r)) < 0)
			return -ENOMEM;
		return netdevs_fail(h, r, words);
	}
	r = dlopen_lldpctl(&error);
	if (r < 0) {
		close(io.fd);
		return r == -ENOMEM ? r : netdevs_fail(h, r, error);
	}
	conn = sym_lldpctl_new(io_send, io_recv, &io);
	if (!conn) {
		close(io.fd);
		return -ENOMEM;
	}
	ifaces = sym_lldpctl_get_interfaces(conn);
	if (!ifaces) {
		r = io.error < 0 ? io.error : -EPROTO;
		r = netdevs_fail(h, r,
				 io.error < 0 ? NULL
					      : sym_lldpctl_strerror(sym_lldpctl_last_error(conn)));
		goto finish;
	}
	r = 0;
	ATOM_FOREACH(ifaces, iface) {
		const char *name = sym_lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
		HostNetdev *nd = name ? netdev_wanted(h, name) : NULL;

		if (!nd)
			continue;
		r = interface_read(nd, iface);
		if (r >= 0 && io.error < 0) /* lldpd stopped answering: the rest cannot be asked */
			r = -ECANCELED;
		if (r < 0) {
			sym_lldpctl_atom_dec_ref(iface);
			break;
		}
	}
	if (r == -ENOMEM)
		goto finish;
	/* the ones lldpd does not list: it does not run on them (its -I, its interface
	 * pattern, or a kind of netdev it skips) */
	r = netdevs_fail(h, io.error < 0 ? io.error : -ENODEV, NULL);
finish:
	atom_unref(&ifaces);
	sym_lldpctl_release(conn);
	close(io.fd);
	return r;
}
