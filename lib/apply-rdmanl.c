/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* links (rxe, siw) and system.netns-mode over RDMA netlink (NLDEV; iproute2 `rdma link add`,
 * `rdma link delete`, `rdma system set netns`). Both are kernel-global: under a fixture root
 * nothing is sent. A link rdmad creates is recorded in <state dir>/links/<name> as
 * "TYPE NETDEV", and only recorded links are ever deleted (soft_link_remove()). */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "apply-internal.h"
#include "apply-rdmanl.h"
#include "fileio.h"
#include "rdmanl.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* The kernel answers NLDEV requests synchronously; a stuck socket must not stall the daemon. */
#define RDMANL_TIMEOUT_SEC 5 /* well below the unit's WatchdogSec=30s */

/* Soft RDMA devices have one port. */
#define SOFT_LINK_PORT 1

static bool on_real_root(const Applier *a) {
	return streq(applier_root(a), "/");
}

static int not_here(const Applier *a, ActionOutcome *ret, const char *what) {
	return outcome_set(
		ret, APPLY_UNSUPPORTED, 0,
		"%s: RDMA netlink is kernel-global, not under a fixture root (--root %s)", what,
		applier_root(a));
}

/* The NETLINK_RDMA socket, opened on first use. -EPROTONOSUPPORT when ib_core is not loaded. */
static int rdmanl_socket(Applier *a, struct nl_sock **ret) {
	if (!a->rdmanl) {
		struct timeval tv = { .tv_sec = RDMANL_TIMEOUT_SEC };
		struct nl_sock *sk;
		int r;

		sk = nl_socket_alloc();
		if (!sk)
			return -ENOMEM;
		r = nl_connect(sk, NETLINK_RDMA);
		if (r < 0) {
			nl_socket_free(sk);
			return r == -NLE_PROTO_MISMATCH ? -EPROTONOSUPPORT : -EIO;
		}
		/* Send exactly what the builders made; read big dump replies whole. */
		nl_socket_disable_auto_ack(sk);
		nl_socket_enable_msg_peek(sk);
		if (setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) <
		    0) {
			r = -errno;
			nl_socket_free(sk);
			return r;
		}
		a->rdmanl = sk;
	}
	*ret = a->rdmanl;
	return 0;
}

static int socket_failed(ActionOutcome *ret, const char *what, int r) {
	if (r == -ENOMEM)
		return r;
	if (r == -EPROTONOSUPPORT)
		return outcome_set(ret, APPLY_FAILED, r,
				   "%s: no RDMA netlink (NETLINK_RDMA): ib_core is not loaded",
				   what);
	return outcome_set(ret, APPLY_FAILED, r, "%s: cannot open an RDMA netlink socket: %s", what,
			   strerror(-r));
}

typedef int (*reply_fn)(const struct nlmsghdr *nlh, void *userdata);

/* Send m and read the answers to it up to the kernel's last word: the NLMSG_ERROR of a request
 * with NLM_F_ACK (error 0: the ACK), NLMSG_DONE of a dump, the reply of a request with
 * neither. Every reply in between goes to fn (if any), and is read even after fn failed, so that
 * nothing of this exchange is left on the socket. Answers to earlier requests (another sequence
 * number) are skipped. Returns 0, the kernel's error, fn's first error, -ETIMEDOUT, -EIO, or
 * -ENOMEM. */
static int rdmanl_transact(struct nl_sock *sk, struct nl_msg *m, reply_fn fn, void *userdata) {
	struct nlmsghdr *req = nlmsg_hdr(m);
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	bool ack = req->nlmsg_flags & NLM_F_ACK;
	int result = 0, r;
	uint32_t seq;

	r = nl_send_auto(sk, m); /* fills nlmsg_pid and nlmsg_seq */
	if (r < 0)
		return r == -NLE_NOMEM ? -ENOMEM : -EIO;
	seq = req->nlmsg_seq;

	for (;;) {
		_cleanup_free_ unsigned char *buf = NULL;
		struct sockaddr_nl peer = { 0 };
		struct nlmsghdr *h;
		int n;

		n = nl_recv(sk, &peer, &buf, NULL);
		if (n == -NLE_AGAIN)
			return -ETIMEDOUT;
		if (n == -NLE_NOMEM)
			return -ENOMEM;
		if (n <= 0)
			return -EIO;
		if (peer.nl_pid != 0) /* only the kernel speaks NLDEV */
			continue;

		for (h = (struct nlmsghdr *) buf; nlmsg_ok(h, n); h = nlmsg_next(h, &n)) {
			if (h->nlmsg_seq != seq || h->nlmsg_type == NLMSG_NOOP)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e; /* struct nlmsgerr's error: all we need of it */

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(e)))
					return -EBADMSG;
				memcpy(&e, nlmsg_data(h), sizeof(e));
				if (e > 0)
					return -EBADMSG;
				return e < 0 ? e : result;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				int e = 0;

				if (!dump)
					continue;
				/* a dump that failed on the way says why after NLMSG_DONE */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&e, nlmsg_data(h), sizeof(e));
				return e < 0 ? e : result;
			}
			if (h->nlmsg_type == NLMSG_OVERRUN)
				return -EIO;
			if (fn && result >= 0) {
				r = fn(h, userdata);
				if (r < 0)
					result = r;
			}
			if (!dump && !ack)
				return result;
		}
	}
}

typedef struct DevLookup {
	const char *name;
	bool found;
	uint32_t index;
} DevLookup;

static int dev_lookup_reply(const struct nlmsghdr *nlh, void *userdata) {
	char name[RDMANL_DEV_NAME_MAX];
	DevLookup *l = userdata;
	uint32_t index;

	/* A reply we cannot read is not the device we look for. */
	if (rdmanl_dev_parse(nlh, nlh->nlmsg_len, &index, name) < 0 || !streq(name, l->name))
		return 0;
	l->found = true;
	l->index = index;
	return 0;
}

/* Look the RDMA device NAME up (NLDEV GET dump): 1 and its index if it exists, 0 if not. */
static int dev_find(struct nl_sock *sk, const char *name, uint32_t *ret_index) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	DevLookup l = { .name = name };
	int r;

	r = rdmanl_dev_get_dump_new(&m);
	if (r < 0)
		return r;
	r = rdmanl_transact(sk, m, dev_lookup_reply, &l);
	if (r < 0)
		return r;
	if (!l.found)
		return 0;
	*ret_index = l.index;
	return 1;
}

typedef struct PortLookup {
	int r;
	char ndev[RDMANL_NDEV_NAME_MAX];
} PortLookup;

static int port_reply(const struct nlmsghdr *nlh, void *userdata) {
	PortLookup *p = userdata;

	p->r = rdmanl_port_parse(nlh, nlh->nlmsg_len, NULL, NULL, p->ndev);
	return 0;
}

/* The netdev under the soft device's port (NLDEV PORT_GET). -ENODATA if it has none in this
 * network namespace. */
static int dev_netdev(struct nl_sock *sk, uint32_t index, char ret[static RDMANL_NDEV_NAME_MAX]) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	PortLookup p = { .r = -EBADMSG };
	int r;

	r = rdmanl_port_get_new(index, SOFT_LINK_PORT, &m);
	if (r < 0)
		return r;
	r = rdmanl_transact(sk, m, port_reply, &p);
	if (r < 0)
		return r;
	if (p.r < 0)
		return p.r;
	memcpy(ret, p.ndev, strlen(p.ndev) + 1);
	return 0;
}

/* ---- the record of links rdmad created ---------------------------------------------------- */

static char *link_record_path(const Applier *a, const char *name) {
	char *p;

	if (asprintf(&p, "%s/links/%s", applier_state_dir(a), name) < 0)
		return NULL;
	return p;
}

/* Write <state dir>/links/NAME = "TYPE NETDEV\n", atomically. */
static int link_record_write(const Applier *a, const char *name, const char *type,
			     const char *ndev) {
	_cleanup_free_ char *dir = NULL, *path = NULL, *tmp = NULL, *line = NULL;
	_cleanup_close_ int fd = -EBADF;
	ssize_t n;
	int len;

	path = link_record_path(a, name);
	if (!path || asprintf(&dir, "%s/links", applier_state_dir(a)) < 0 ||
	    asprintf(&tmp, "%s/.#%sXXXXXX", dir, name) < 0)
		return -ENOMEM;
	len = asprintf(&line, "%s %s\n", type, ndev);
	if (len < 0)
		return -ENOMEM;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, line, (size_t) len);
	if (n != len || fchmod(fd, 0644) < 0) {
		int r = n < 0 || n == len ? negative_errno() : -EIO;

		(void) unlink(tmp);
		return r;
	}
	if (rename(tmp, path) < 0) {
		int r = -errno;

		(void) unlink(tmp);
		return r;
	}
	return 0;
}

/* Read the record of NAME: -ENOENT if rdmad did not create it, -EBADMSG if unreadable. */
static int link_record_read(const Applier *a, const char *name, SoftLinkType *ret_type,
			    char ret_ndev[static RDMANL_NDEV_NAME_MAX]) {
	_cleanup_free_ char *path = NULL;
	char buf[128], *sep;
	SoftLinkType type;
	ssize_t n;

	path = link_record_path(a, name);
	if (!path)
		return -ENOMEM;
	n = read_small_at(AT_FDCWD, path, buf, sizeof(buf));
	if (n == -EFBIG)
		return -EBADMSG;
	if (n < 0)
		return (int) n;
	sep = strchr(buf, ' ');
	if (!sep)
		return -EBADMSG;
	*sep++ = 0;
	type = soft_link_type_from_string(buf);
	if (type < 0 || !netdev_name_valid(sep))
		return -EBADMSG;
	*ret_type = type;
	memcpy(ret_ndev, sep, strlen(sep) + 1);
	return 0;
}

static int link_record_remove(const Applier *a, const char *name) {
	_cleanup_free_ char *path = link_record_path(a, name);

	if (!path)
		return -ENOMEM;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* ---- links ------------------------------------------------------------------------------ */

/* Why NEWLINK failed, in the words an administrator needs (nldev_newlink(), rxe_newlink(),
 * siw_newlink(), ib_register_device()). */
static const char *newlink_error_hint(int r, SoftLinkType type, const char *ndev, char *buf,
				      size_t size) {
	const char *t = soft_link_type_to_string(type);

	switch (r) {
	case -ENODEV:
		snprintf(buf, size, "no netdev %s", ndev);
		break;
	case -EEXIST:
		snprintf(buf, size, "%s already has an %s device", ndev, t);
		break;
	case -ENFILE:
		snprintf(buf, size, "another RDMA device has that name");
		break;
	case -ENOENT:
		if (type == SOFT_LINK_RXE)
			snprintf(
				buf, size,
				"rdma_rxe could not add %s: is crc32_generic available? (rxe needs "
				"the crypto crc32 shash)",
				ndev);
		else
			snprintf(buf, size, "%s", strerror(-r));
		break;
	case -EOPNOTSUPP:
		snprintf(buf, size, "this kernel cannot create %s links", t);
		break;
	case -EINVAL:
		snprintf(buf, size,
			 "invalid argument: no %s link type (is %s loaded?), or a name the "
			 "kernel refuses",
			 t, soft_link_driver_to_string(type));
		break;
	case -EPERM:
		snprintf(buf, size,
			 "not permitted (needs CAP_NET_ADMIN; rdma_rxe also refuses VLAN devices)");
		break;
	default:
		snprintf(buf, size, "%s", strerror(-r));
	}
	return buf;
}

int apply_soft_link(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	const char *name = x->value.name, *ndev = x->value.lower;
	const char *type = soft_link_type_to_string(x->value.link_type);
	char have[RDMANL_NDEV_NAME_MAX], hint[256];
	struct nl_sock *sk = NULL;
	uint32_t index = 0;
	int r;

	if (!on_real_root(a))
		return not_here(a, ret, "links");
	if (!type || !rdma_device_name_valid(name) || !netdev_name_valid(ndev))
		return outcome_set(ret, APPLY_FAILED, -EINVAL,
				   "invalid RDMA link: name '%s', type %s, netdev '%s'",
				   strna(name), strna(type), strna(ndev));

	r = rdmanl_socket(a, &sk);
	if (r < 0)
		return socket_failed(ret, "links", r);

	/* Look again: the plan is a snapshot. */
	r = dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "list RDMA devices (NLDEV GET): %s",
				   strerror(-r));
	if (r > 0) {
		r = dev_netdev(sk, index, have);
		if (r == -ENOMEM)
			return r;
		if (r == -ENODATA)
			return outcome_set(
				ret, APPLY_FAILED, -EEXIST,
				"RDMA device %s exists, but on no netdev in this network "
				"namespace, not on %s: rdmad does not replace it",
				name, ndev);
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r,
					   "netdev of RDMA device %s (NLDEV PORT_GET %u/%u): %s",
					   name, index, SOFT_LINK_PORT, strerror(-r));
		if (!streq(have, ndev))
			return outcome_set(ret, APPLY_FAILED, -EEXIST,
					   "RDMA device %s exists on %s, not on %s: rdmad does not "
					   "replace it",
					   name, have, ndev);
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}

	/* The type's module is a modules action of its own, planned before this one; NEWLINK also
	 * makes the kernel request_module("rdma-link-TYPE"). */
	r = rdmanl_newlink_new(name, type, ndev, &m);
	if (r >= 0)
		r = rdmanl_transact(sk, m, NULL, NULL);
	if (r == -ENOMEM)
		return r;
	if (r == -EEXIST || r == -ENFILE) {
		/* Someone else (an administrator's `rdma link add`) was quicker: fine if it is
		 * what was declared. It is not recorded: rdmad did not create it. */
		uint32_t other = 0;

		if (dev_find(sk, name, &other) > 0 && dev_netdev(sk, other, have) >= 0 &&
		    streq(have, ndev))
			return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}
	if (r < 0)
		return outcome_set(
			ret, APPLY_FAILED, r, "cannot add RDMA link %s (%s on %s): %s", name, type,
			ndev, newlink_error_hint(r, x->value.link_type, ndev, hint, sizeof(hint)));

	/* Read back. */
	r = dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r == 0)
		r = -EIO;
	if (r > 0)
		r = dev_netdev(sk, index, have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !streq(have, ndev))
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "RDMA link %s was added, but does not read back as %s on %s",
				   name, type, ndev);

	r = link_record_write(a, name, type, ndev);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "RDMA link %s was added, but cannot be recorded in %s/links/%s "
				   "(rdmad will not remove it): %s",
				   name, applier_state_dir(a), name, strerror(-r));
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int soft_link_remove(Applier *a, const char *name, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	char recorded[RDMANL_NDEV_NAME_MAX], have[RDMANL_NDEV_NAME_MAX];
	SoftLinkType type = _SOFT_LINK_INVALID;
	struct nl_sock *sk = NULL;
	uint32_t index = 0;
	int r;

	*ret = (ActionOutcome){ 0 };

	if (!on_real_root(a))
		return not_here(a, ret, "links");
	if (!rdma_device_name_valid(name))
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "invalid RDMA link name '%s'",
				   strna(name));

	r = link_record_read(a, name, &type, recorded);
	if (r == -ENOMEM)
		return r;
	if (r == -ENOENT)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "RDMA link %s was not created by rdmad (no %s/links/%s): left "
				   "alone",
				   name, applier_state_dir(a), name);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "cannot read %s/links/%s: %s",
				   applier_state_dir(a), name, strerror(-r));

	r = rdmanl_socket(a, &sk);
	if (r < 0)
		return socket_failed(ret, "links", r);

	r = dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "list RDMA devices (NLDEV GET): %s",
				   strerror(-r));
	if (r == 0) {
		/* gone already (its netdev went away, or someone deleted it) */
		r = link_record_remove(a, name);
		if (r == -ENOMEM)
			return r;
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}

	r = dev_netdev(sk, index, have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && r != -ENODATA)
		return outcome_set(ret, APPLY_FAILED, r,
				   "netdev of RDMA device %s (NLDEV PORT_GET %u/%u): %s", name,
				   index, SOFT_LINK_PORT, strerror(-r));
	if (r == -ENODATA || !streq(have, recorded)) {
		/* Not the device rdmad made: someone replaced it. Ours is gone. */
		r = link_record_remove(a, name);
		if (r == -ENOMEM)
			return r;
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "RDMA device %s is not on %s, where rdmad created it: someone "
				   "else's, left alone",
				   name, recorded);
	}

	r = rdmanl_dellink_new(index, &m);
	if (r >= 0)
		r = rdmanl_transact(sk, m, NULL, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(
			ret, APPLY_FAILED, r, "cannot delete RDMA link %s (%s on %s, index %u): %s",
			name, strna(soft_link_type_to_string(type)), recorded, index,
			r == -EINVAL ? "the kernel refused it (not a soft link?)" : strerror(-r));

	/* Read back. */
	r = dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r != 0)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "RDMA link %s is still listed after DELLINK", name);

	r = link_record_remove(a, name);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(
			ret, APPLY_FAILED, r,
			"RDMA link %s was deleted, but %s/links/%s cannot be removed: %s", name,
			applier_state_dir(a), name, strerror(-r));
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* ---- system.netns-mode -------------------------------------------------------------------- */

typedef struct SysLookup {
	int r;
	NetnsMode mode;
} SysLookup;

static int sys_reply(const struct nlmsghdr *nlh, void *userdata) {
	SysLookup *s = userdata;

	s->r = rdmanl_sys_parse(nlh, nlh->nlmsg_len, &s->mode);
	return 0;
}

static int netns_mode_get(struct nl_sock *sk, NetnsMode *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	SysLookup s = { .r = -EBADMSG };
	int r;

	r = rdmanl_sys_get_new(&m);
	if (r < 0)
		return r;
	r = rdmanl_transact(sk, m, sys_reply, &s);
	if (r < 0)
		return r;
	if (s.r < 0)
		return s.r;
	*ret = s.mode;
	return 0;
}

int apply_netns_mode(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	NetnsMode want = x->value.netns_mode, have;
	const char *w = netns_mode_to_string(want);
	struct nl_sock *sk = NULL;
	int r;

	if (!on_real_root(a))
		return not_here(a, ret, "system.netns-mode");
	if (!w)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "invalid RDMA netns mode %d",
				   (int) want);

	r = rdmanl_socket(a, &sk);
	if (r < 0)
		return socket_failed(ret, "system.netns-mode", r);

	r = netns_mode_get(sk, &have);
	if (r == -ENOMEM)
		return r;
	if (r == -ENODATA)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0,
				   "this kernel has no RDMA netns mode (NLDEV SYS_GET without "
				   "NETNS_MODE; Linux < 5.2)");
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "read the RDMA netns mode (NLDEV SYS_GET): %s", strerror(-r));
	if (have == want)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);

	r = rdmanl_sys_set_netns_new(want, &m);
	if (r >= 0)
		r = rdmanl_transact(sk, m, NULL, NULL);
	if (r == -ENOMEM)
		return r;
	if (r == -EBUSY)
		return outcome_set(
			ret, APPLY_FAILED, r,
			"cannot set the RDMA netns mode to %s: the kernel allows the change "
			"only while no network namespace but the initial one exists",
			w);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "cannot set the RDMA netns mode to %s (NLDEV SYS_SET): %s", w,
				   r == -EPERM ? "not permitted (needs CAP_NET_ADMIN)"
					       : strerror(-r));

	r = netns_mode_get(sk, &have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || have != want)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "the RDMA netns mode reads %s after setting it to %s",
				   r < 0 ? strerror(-r) : netns_mode_to_string(have), w);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
