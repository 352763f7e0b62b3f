/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Event sources. They only mark what to look at again; the reconcile re-reads everything it
 * needs (level-triggered), so a lost or reordered event costs a little latency, not state. */
#include <linux/netfilter/nfnetlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "contest.h"
#include "dcbnl.h"
#include "ethtool-pause-talk.h"
#include "fileio.h"
#include "netlink-io.h"
#include "log.h"
#include "manager-watch.h"
#include "manager.h"

#define CONTENDERS_MAX 64

static uint64_t now_usec(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t) ts.tv_sec * 1000000 + (uint64_t) ts.tv_nsec / 1000;
}

/* The process behind a netlink port, where it can be told: the kernel gives a socket the
 * process id as its port when it binds first (iproute2, lldpad), libnl the pid in the low 22
 * bits. rdmad's own sockets are rdmad's pid: NULL for those. */
static char *contender_describe(uint32_t portid) {
	char path[64], comm[64];
	pid_t pid = (pid_t) (portid & 0x3fffff);
	char *s;

	if (portid == 0 || portid >= 0x80000000u)
		return asprintf(&s, "netlink port %" PRIu32, portid) < 0 ? NULL : s;
	if (pid == getpid())
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int) pid);
	if (read_small_at(AT_FDCWD, path, comm, sizeof(comm)) > 0)
		return asprintf(&s, "%s, pid %d", comm, (int) pid) < 0 ? NULL : s;
	return asprintf(&s, "pid %d, exited", (int) pid) < 0 ? NULL : s;
}

/* A change to netdev sent by the process behind portid (0: the kernel does not say). */
static void contender_note(Manager *m, const char *netdev, ContenderKind kind, uint32_t portid) {
	_cleanup_free_ char *who = NULL;
	Contender *c = NULL;

	if (portid == 0 || !netdev || strlen(netdev) >= IF_NAMESIZE)
		return;
	who = contender_describe(portid);
	if (!who)
		return;
	for (size_t i = 0; i < m->n_contenders; i++)
		if (m->contenders[i].kind == kind && streq(m->contenders[i].netdev, netdev))
			c = &m->contenders[i];
	if (!c && m->n_contenders >= CONTENDERS_MAX) {
		c = &m->contenders[0]; /* the oldest note goes */
		for (size_t i = 1; i < m->n_contenders; i++)
			if (m->contenders[i].usec < c->usec)
				c = &m->contenders[i];
	}
	if (!c) {
		c = realloc(m->contenders, sizeof(Contender) * (m->n_contenders + 1));
		if (!c)
			return;
		m->contenders = c;
		c = &m->contenders[m->n_contenders++];
		*c = (Contender){ 0 };
	}
	free(c->who);
	c->who = TAKE_PTR(who);
	c->usec = now_usec();
	c->kind = kind;
	snprintf(c->netdev, sizeof(c->netdev), "%s", netdev);
}

static ContenderKind key_contender_kind(Key key) {
	if (KEY_BIT(key) & KEYS_QOS)
		return CONTENDER_DCB;
	if (key == KEY_NETDEV_ADDRESSES)
		return CONTENDER_ADDRESS;
	if (KEY_BIT(key) & KEYS_PAUSE)
		return CONTENDER_PAUSE;
	/* a VF's settings: the kernel announces a change with RTM_NEWLINK on the PF (while the
	 * PF is up; a change on a down PF is seen when it comes up) */
	if (key == KEY_NETDEV_UP || key == KEY_NETDEV_MTU || key == KEY_SRIOV_VF)
		return CONTENDER_LINK;
	return _CONTENDER_KIND_MAX; /* configfs, sysfs: no notification says who */
}

const char *manager_contender(const Manager *m, const char *netdev, Key key, uint64_t now) {
	ContenderKind kind = key_contender_kind(key);

	for (size_t i = 0; netdev && i < m->n_contenders; i++)
		if (m->contenders[i].kind == kind && streq(m->contenders[i].netdev, netdev) &&
		    m->contenders[i].usec + CONTEST_WINDOW_USEC > now)
			return m->contenders[i].who;
	return NULL;
}

static int on_udev(sd_device_monitor *mon, sd_device *dev, void *userdata) {
	Manager *m = userdata;
	const char *subsystem = NULL, *sysname = NULL, *ibdev = NULL;

	if (sd_device_get_subsystem(dev, &subsystem) < 0 ||
	    sd_device_get_sysname(dev, &sysname) < 0)
		return 0;
	log_debug("udev: %s %s", subsystem, sysname);
	if (streq(subsystem, "infiniband")) {
		sd_device_action_t action;

		/* A device added (a driver reload, rdma link add) starts with the kernel's
		 * defaults: that is not another agent reverting rdmad, never a contest. */
		if (sd_device_get_action(dev, &action) >= 0 && action == SD_DEVICE_ADD)
			manager_forget_contests(m, sysname);
		manager_mark_device(m, sysname);
	} else if (streq(subsystem, "infiniband_verbs") &&
		   sd_device_get_sysattr_value(dev, "ibdev", &ibdev) >= 0)
		manager_mark_device(m, ibdev);
	else if (streq(subsystem, "net"))
		manager_mark_netdev(m, sysname);
	else
		manager_mark_dirty_all(m); /* a verbs device that is gone: look at everything */
	return 0;
}

int manager_watch_udev(Manager *m) {
	static const char *const subsystems[] = { "infiniband", "infiniband_verbs", "net" };
	int r;

	r = sd_device_monitor_new(&m->udev);
	if (r < 0)
		return log_error_errno(r, "Failed to create the udev monitor");
	for (size_t i = 0; i < ELEMENTSOF(subsystems); i++) {
		r = sd_device_monitor_filter_add_match_subsystem_devtype(m->udev, subsystems[i],
									 NULL);
		if (r < 0)
			return log_error_errno(r, "Failed to filter udev events on %s",
					       subsystems[i]);
	}
	/* sd-device drops what overruns its socket without telling us (unlike rtnetlink's
	 * ENOBUFS below): a large buffer, as networkd's, so that a storm of uevents (a driver
	 * reload with many VFs) is not lost. SO_RCVBUFFORCE needs CAP_NET_ADMIN: best effort. */
	r = sd_device_monitor_set_receive_buffer_size(m->udev, 128 * 1024 * 1024);
	if (r < 0)
		log_debug("Could not enlarge the udev monitor's buffer: %s", strerror(-r));
	r = sd_device_monitor_attach_event(m->udev, m->event);
	if (r >= 0)
		r = sd_device_monitor_start(m->udev, on_udev, m);
	if (r < 0)
		return log_error_errno(r, "Failed to start the udev monitor");
	return 0;
}

/* rtnetlink: link and address changes, and DCB (RTNLGRP_DCB: every dcbnl SET or DEL, by anyone,
 * is multicast with the netdev's whole state). The netdev's name is all we take from a message.
 * rdmad's own DCB writes come back here too: the reconcile they cause re-reads (IEEE_GET, which
 * is not multicast), finds the port as declared and writes nothing, so it ends there. */
static int on_rtnl_message(struct nl_msg *msg, void *userdata) {
	Manager *m = userdata;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	char name[IF_NAMESIZE];
	int ifindex;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK: {
		struct nlattr *tb[IFLA_MAX + 1];

		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
			return NL_OK;
		/* The name is in the message: a deleted link has no ifindex to look up. */
		if (nlmsg_parse(nlh, sizeof(struct ifinfomsg), tb, IFLA_MAX, NULL) >= 0 &&
		    tb[IFLA_IFNAME] && nla_len(tb[IFLA_IFNAME]) <= IF_NAMESIZE &&
		    memchr(nla_data(tb[IFLA_IFNAME]), 0, nla_len(tb[IFLA_IFNAME]))) {
			/* 6.1 sends a SETLINK's notification without the sender's port (0: not
			 * known); kept for a kernel that names it. */
			contender_note(m, nla_get_string(tb[IFLA_IFNAME]), CONTENDER_LINK,
				       nlh->nlmsg_pid);
			manager_mark_netdev(m, nla_get_string(tb[IFLA_IFNAME]));
			return NL_OK;
		}
		ifindex = ((struct ifinfomsg *) NLMSG_DATA(nlh))->ifi_index;
		break;
	}
	case RTM_GETDCB:
	case RTM_SETDCB:
		if (dcbnl_ifname_parse(nlh, nlh->nlmsg_len, name) >= 0) {
			/* The kernel multicasts a SET without its sender's port (0): kept for
			 * a kernel that names it. */
			contender_note(m, name, CONTENDER_DCB, nlh->nlmsg_pid);
			manager_mark_netdev(m, name);
		} else
			manager_mark_dirty_all(m);
		return NL_OK;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifaddrmsg)))
			return NL_OK;
		ifindex = (int) ((struct ifaddrmsg *) NLMSG_DATA(nlh))->ifa_index;
		break;
	default:
		return NL_OK;
	}
	/* A netdev that is already gone: its name is lost, look at everything. */
	if (if_indextoname((unsigned) ifindex, name)) {
		/* Address changes name the sender's port too. */
		if (nlh->nlmsg_type == RTM_NEWADDR || nlh->nlmsg_type == RTM_DELADDR)
			contender_note(m, name, CONTENDER_ADDRESS, nlh->nlmsg_pid);
		manager_mark_netdev(m, name);
	} else
		manager_mark_dirty_all(m);
	return NL_OK;
}

/* Messages read per dispatch: a storm of thousands (rdmad's own MTU writes on 4,096 links come
 * back as as many RTM_NEWLINK) is read over several, the loop serving the bus between them; the
 * source is level-triggered, so what is left wakes it again at once. */
#define RTNL_READS_MAX 256

static int on_rtnl_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Manager *m = userdata;
	int r;

	for (unsigned i = 0; i < RTNL_READS_MAX; i++) {
		r = nl_recvmsgs_default(m->rtnl_watch);
		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		if (r == -NLE_NOMEM) {
			/* ENOBUFS (libnl says NOMEM): the kernel dropped events, so what is
			 * queued is a partial picture. Resynchronise from scratch: every device
			 * and netdev observed again. */
			m->n_overruns++;
			log_full(LOG_WARNING, ENOBUFS,
				 &(LogFields){ .message_id = MESSAGE_ID_EVENTS_LOST },
				 "rtnetlink socket overrun (ENOBUFS, %u so far): events were lost, "
				 "looking at every link again.",
				 m->n_overruns);
			manager_mark_dirty_all(m);
			break;
		}
		log_warning("rtnetlink receive failed (%s), resynchronising.", nl_geterror(r));
		manager_mark_dirty_all(m);
		break;
	}
	return 0;
}

int manager_watch_rtnl(Manager *m) {
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return log_error_errno(-ENOMEM, "Failed to allocate the rtnetlink socket");
	m->rtnl_watch = sk;
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_rtnl_message, m);
	r = nl_connect(sk, NETLINK_ROUTE);
	if (r >= 0)
		r = nl_socket_add_memberships(sk, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR,
					      RTNLGRP_IPV6_IFADDR, RTNLGRP_DCB, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(sk);
	if (r < 0)
		return log_error_errno(-EIO, "Failed to watch rtnetlink: %s", nl_geterror(r));
	(void) nl_socket_set_buffer_size(sk, 1024 * 1024, 0);
	r = sd_event_add_io(m->event, &m->rtnl_source, nl_socket_get_fd(sk), EPOLLIN, on_rtnl_io,
			    m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the rtnetlink socket");
	(void) sd_event_source_set_description(m->rtnl_source, "rtnetlink");
	return 0;
}

/* nftables: every change to the ruleset, by anyone, is multicast on NFNLGRP_NFTABLES. The
 * message is not read: any change makes the netdevs whose links declare
 * security.roce-allow-from dirty, and their reconcile reads rdmad's table again (an
 * administrator's `nft flush ruleset` or `nft delete table inet rdmad` puts it back). rdmad's
 * own transactions come back here too: that reconcile finds the table as declared and writes
 * nothing, so it ends there. */
static void firewall_changed(Manager *m) {
	for (size_t i = 0; i < m->n_ports; i++)
		if (m->ports[i].netdev &&
		    port_status_setting(&m->ports[i], KEY_SECURITY_ROCE_ALLOW_FROM))
			manager_mark_netdev(m, m->ports[i].netdev);
}

/* The host name changed (sethostname(), hostnamectl): the devices whose rdma.node-description
 * has %h get it again. The kernel's /proc/sys/kernel/hostname wakes a poller with EPOLLPRI
 * when the UTS name changes (proc_sys_poll), and the poll itself takes the change as seen. */
static int on_hostname(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Manager *m = userdata;

	log_debug("the host name changed");
	for (size_t i = 0; i < m->n_ports; i++)
		if (port_status_setting(&m->ports[i], KEY_RDMA_NODE_DESCRIPTION))
			manager_mark_device(m, m->ports[i].device);
	return 0;
}

int manager_watch_hostname(Manager *m) {
	_cleanup_close_ int fd = -EBADF;
	_cleanup_free_ char *path = NULL;
	int r;

	path = root_path(m->root, "/proc/sys/kernel/hostname");
	if (!path)
		return log_error_errno(-ENOMEM, "Failed to watch the host name");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		log_warning_errno(-errno,
				  "Failed to open %s, a host name change is seen on the next "
				  "reconcile only",
				  path);
		return 0;
	}
	r = sd_event_add_io(m->event, &m->hostname_source, fd, EPOLLPRI, on_hostname, m);
	if (r < 0) { /* a fixture root's regular file cannot be polled */
		log_debug("Not watching the host name: %s cannot be polled (%s)", path,
			  strerror(-r));
		return 0;
	}
	(void) sd_event_source_set_io_fd_own(m->hostname_source, true);
	TAKE_FD(fd);
	(void) sd_event_source_set_description(m->hostname_source, "hostname");
	return 0;
}

static int on_nft_message(struct nl_msg *msg, void *userdata) {
	firewall_changed(userdata);
	return NL_OK;
}

static int on_nft_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Manager *m = userdata;
	int r;

	for (;;) {
		r = nl_recvmsgs_default(m->nft_watch);
		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		/* ENOBUFS (changes dropped) or another error: look again all the same */
		log_debug("nftables notification socket: %s, looking again.", nl_geterror(r));
		firewall_changed(m);
		break;
	}
	return 0;
}

int manager_watch_nft(Manager *m) {
	struct nl_sock *sk;
	int r;

	sk = nl_socket_alloc();
	if (!sk)
		return log_error_errno(-ENOMEM, "Failed to allocate the nftables socket");
	m->nft_watch = sk;
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_nft_message, m);
	r = nl_connect(sk, NETLINK_NETFILTER);
	if (r >= 0)
		r = nl_socket_add_memberships(sk, NFNLGRP_NFTABLES, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(sk);
	if (r < 0) {
		/* Not fatal: without nf_tables there is no table to keep either. */
		log_warning(
			"Failed to watch nftables changes (%s), a changed "
			"security.roce-allow-from table is put back on the next reconcile only.",
			nl_geterror(r));
		nl_socket_free(sk);
		m->nft_watch = NULL;
		return 0;
	}
	(void) nl_socket_set_buffer_size(sk, 256 * 1024, 0);
	r = sd_event_add_io(m->event, &m->nft_source, nl_socket_get_fd(sk), EPOLLIN, on_nft_io, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the nftables socket");
	(void) sd_event_source_set_description(m->nft_source, "nftables");
	return 0;
}

/* ethtool's "monitor" group: the kernel multicasts a PAUSE_NTF after every pause change that
 * reached a driver (`ethtool -A`, or rdmad's own, whose reconcile then finds nothing to write),
 * and none for a SET that changed nothing. Other ethtool notifications are not ours. */
static int on_ethtool_message(struct nl_msg *msg, void *userdata) {
	Manager *m = userdata;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	char name[IFNAMSIZ];
	PauseParams p;

	if (ethtool_pause_parse(nlh, nlh->nlmsg_len, name, &p) >= 0) {
		contender_note(m, name, CONTENDER_PAUSE, nlh->nlmsg_pid);
		manager_mark_netdev(m, name);
	}
	return NL_OK;
}

static int on_ethtool_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Manager *m = userdata;
	int r;

	for (unsigned i = 0; i < RTNL_READS_MAX; i++) {
		r = nl_recvmsgs_default(m->ethtool_watch);
		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		/* ENOBUFS (notifications dropped) or another error: look at everything again */
		log_debug("ethtool monitor socket: %s, looking again.", nl_geterror(r));
		manager_mark_dirty_all(m);
		break;
	}
	return 0;
}

int manager_genl_watch(Manager *m, const GenlWatchSpec *spec, struct nl_sock **ret_sk,
		       sd_event_source **ret_source, uint16_t *ret_family) {
	struct nl_sock *resolver = NULL, *sk;
	uint16_t family;
	uint32_t group;
	int r;

	*ret_sk = NULL;
	r = netlink_open(NETLINK_GENERIC, &resolver);
	if (r >= 0)
		r = spec->resolve(resolver, &family, &group);
	if (resolver)
		nl_socket_free(resolver);
	if (r == -ENOMEM)
		return log_error_errno(-ENOMEM, "Failed to watch %s notifications", spec->what);
	if (r < 0) {
		/* Not fatal: a kernel without the family has none of its settings to keep either */
		log_full(r == -ENOENT ? spec->absent_level : LOG_WARNING, 0, NULL,
			 "No %s multicast group (%s): %s on the next reconcile only.", spec->what,
			 strerror(-r), spec->lost);
		return 0;
	}
	sk = nl_socket_alloc();
	if (!sk)
		return log_error_errno(-ENOMEM, "Failed to watch %s notifications", spec->what);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, spec->on_message, m);
	r = nl_connect(sk, NETLINK_GENERIC);
	if (r >= 0)
		r = nl_socket_add_memberships(sk, (int) group, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(sk);
	if (r < 0) {
		log_warning("Failed to watch %s notifications (%s): %s on the next reconcile only.",
			    spec->what, nl_geterror(r), spec->lost);
		nl_socket_free(sk);
		return 0;
	}
	/* a group carries every notification of its family: room for a burst of them before
	 * ENOBUFS makes everything dirty */
	(void) nl_socket_set_buffer_size(sk, 256 * 1024, 0);
	r = sd_event_add_io(m->event, ret_source, nl_socket_get_fd(sk), EPOLLIN, spec->on_io, m);
	if (r < 0) {
		nl_socket_free(sk);
		return log_error_errno(r, "Failed to watch the %s socket", spec->what);
	}
	(void) sd_event_source_set_description(*ret_source, spec->what);
	*ret_sk = sk;
	if (ret_family)
		*ret_family = family;
	return 0;
}

int manager_watch_ethtool(Manager *m) {
	static const GenlWatchSpec spec = {
		.what = "ethtool-monitor",
		.lost = "a changed netdev.pause is put back",
		.absent_level = LOG_WARNING,
		.resolve = ethtool_family_resolve,
		.on_message = on_ethtool_message,
		.on_io = on_ethtool_io,
	};

	return manager_genl_watch(m, &spec, &m->ethtool_watch, &m->ethtool_source, NULL);
}
