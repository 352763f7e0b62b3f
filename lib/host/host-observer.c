/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* One observation of the host, put together from what host-sysfs.c (RDMA devices),
 * host-netdev.c, host-netlink.c (rtnetlink, RDMA netlink), host-dcb.c, host-firewall.c,
 * host-modules.c, host-function.c and host-pci.c read: one object per step (host.h), so that a
 * daemon serves its bus between them while it observes thousands of links. */
#include <fcntl.h>
#include <sys/stat.h>

#include "dcbnl-talk.h"
#include "dir-names.h"
#include "ethtool-pause-talk.h"
#include "fileio.h"
#include "host-internal.h"
#include "netlink-io.h"
#include "strv.h"

typedef enum ObserveStage {
	STAGE_START,
	STAGE_DEVICES_LIST, /* a piece of /sys/class/infiniband per step */
	STAGE_DEVICES,	    /* one device per step */
	STAGE_NETDEVS_LIST, /* a piece of /sys/class/net per step */
	STAGE_NETDEVS,	    /* one netdev per step */
	STAGE_ADDRESSES,
	STAGE_RAILS,
	STAGE_FIREWALL,
	STAGE_DCB,
	STAGE_LLDP,
	STAGE_SYSTEM,
	STAGE_COUNTERS,
	STAGE_MODULES,
	STAGE_FUNCTIONS,
	STAGE_PCI,
	STAGE_DONE,
} ObserveStage;

struct HostObserver {
	HostState *h;
	HostObserveFlags flags;
	char **only; /* NULL: every device */
	ObserveStage stage;
	int rootfd, classfd, cmfd, netfd;
	DirNames *dir; /* the directory a _LIST stage reads */
	char **names;  /* of the stage's objects, and the next one's index */
	size_t next;
	size_t port; /* STAGE_DCB: the next port of device next */
	size_t n_alloc;
	AddressesObserver *addresses; /* STAGE_ADDRESSES of a full observation */
	struct nl_sock *dcb;	      /* STAGE_DCB's socket, or the error opening it gave */
	int dcb_error;
	struct nl_sock *ethtool; /* STAGE_DCB's pause: generic netlink, the family, or the error */
	uint16_t ethtool_family;
	int ethtool_error;
	bool stage_begun;
	char *writing, *writing_what; /* host_observer_set_writing() */
};

#define OBSERVE_NETDEV_FLAGS                                                                     \
	(HOST_OBSERVE_NETDEVS | HOST_OBSERVE_ADDRESSES | HOST_OBSERVE_DCB | HOST_OBSERVE_RAILS | \
	 HOST_OBSERVE_SRIOV | HOST_OBSERVE_PCIE | HOST_OBSERVE_DEVLINK)

HostObserver *host_observer_free(HostObserver *o) {
	if (!o)
		return NULL;
	host_state_free(o->h);
	strv_free(o->only);
	dir_names_free(o->dir);
	strv_free(o->names);
	safe_close(o->rootfd);
	safe_close(o->classfd);
	safe_close(o->cmfd);
	safe_close(o->netfd);
	if (o->dcb)
		nl_socket_free(o->dcb);
	if (o->ethtool)
		nl_socket_free(o->ethtool);
	addresses_observer_free(o->addresses);
	free(o->writing);
	free(o->writing_what);
	free(o);
	return NULL;
}

int host_observer_set_writing(HostObserver *o, const char *function, const char *what) {
	char *f = NULL, *w = NULL;

	if (function) {
		f = strdup(function);
		w = strdup(what ? what : "being changed");
		if (!f || !w) {
			free(f);
			free(w);
			return -ENOMEM;
		}
	}
	free(o->writing);
	free(o->writing_what);
	o->writing = f;
	o->writing_what = w;
	return 0;
}

int host_observer_new(const char *root, HostObserveFlags flags, char *const *devices,
		      HostObserver **ret) {
	_cleanup_(host_observer_freep) HostObserver *o = NULL;

	if (!root)
		root = "/";
	o = calloc(1, sizeof(HostObserver));
	if (!o)
		return -ENOMEM;
	o->rootfd = o->classfd = o->cmfd = o->netfd = -EBADF;
	o->flags = flags;
	o->h = calloc(1, sizeof(HostState));
	if (!o->h)
		return -ENOMEM;
	o->h->root = strdup(root);
	if (!o->h->root)
		return -ENOMEM;
	if (devices) {
		o->only = strv_copy(devices);
		if (!o->only)
			return -ENOMEM;
	}
	o->h->partial = devices != NULL;
	o->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->rootfd < 0)
		return -errno;
	*ret = TAKE_PTR(o);
	return 0;
}

static int observe_start(HostObserver *o) {
	HostState *h = o->h;
	int r;

	if (o->flags & HOST_OBSERVE_DETAILS) {
		struct stat st;

		r = read_line_at(o->rootfd, "proc/sys/kernel/hostname", &h->hostname);
		if (r == -ENOMEM)
			return r;
		h->rdma_ndd_running =
			fstatat(o->rootfd, "run/systemd/units/invocation:rdma-ndd.service", &st,
				AT_SYMLINK_NOFOLLOW) >= 0;
	}
	o->classfd = openat(o->rootfd, "sys/class/infiniband", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->classfd < 0)
		return errno == ENOENT ? 0 : -errno; /* no RDMA devices at all */
	o->cmfd =
		openat(o->rootfd, "sys/kernel/config/rdma_cm", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	h->configfs_mounted = o->cmfd >= 0;
	return dir_names_new(o->classfd, &o->dir);
}

/* A piece of the directory o->dir reads: 1 when the names are in o->names. */
static int observe_list_step(HostObserver *o) {
	int r;

	if (!o->dir) /* no such directory, or names of another source */
		return 1;
	r = dir_names_step(o->dir);
	if (r <= 0)
		return r;
	strv_free(o->names);
	o->names = NULL;
	r = dir_names_take(o->dir, &o->names);
	o->dir = dir_names_free(o->dir);
	return r < 0 ? r : 1;
}

static int observe_netdevs_begin(HostObserver *o) {
	HostState *h = o->h;

	host_devices_sort(h);
	strv_free(o->names);
	o->names = NULL;
	o->next = 0;
	o->n_alloc = 0;
	if (!(o->flags & OBSERVE_NETDEV_FLAGS))
		return 0;
	o->netfd = openat(o->rootfd, "sys/class/net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o->netfd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (h->partial) /* only the ports' netdevs: no directory to read */
		return host_netdevs_of_ports(h, &o->names);
	return dir_names_new(o->netfd, &o->dir);
}

static void observe_netdevs_done(HostObserver *o) {
	HostState *h = o->h;

	host_netdevs_sort(h);
	/* A fixture's ifindexes are another namespace's: never address anything by them.
	 * rtnetlink gives the live ones (STAGE_ADDRESSES). */
	if (!streq(h->root, "/"))
		for (size_t i = 0; i < h->n_netdevs; i++)
			h->netdevs[i].ifindex = 0;
	strv_free(o->names);
	o->names = NULL;
	o->next = 0;
}

/* The stage after one that is done, skipping those the flags leave out. */
static ObserveStage stage_next(const HostObserver *o, ObserveStage s) {
	const HostState *h = o->h;
	bool real = streq(h->root, "/");

	for (;;) {
		s++;
		switch (s) {
		case STAGE_ADDRESSES:
			if (o->flags & HOST_OBSERVE_ADDRESSES)
				return s;
			break;
		case STAGE_RAILS:
			if (o->flags & HOST_OBSERVE_RAILS)
				return s;
			break;
		case STAGE_FIREWALL:
			if (o->flags & HOST_OBSERVE_FIREWALL)
				return s;
			break;
		case STAGE_DCB:
			if (o->flags & HOST_OBSERVE_DCB)
				return s;
			break;
		case STAGE_LLDP:
			if ((o->flags & HOST_OBSERVE_LLDP) && real)
				return s;
			break;
		case STAGE_SYSTEM:
			if ((o->flags & HOST_OBSERVE_SYSTEM) && real)
				return s;
			break;
		case STAGE_COUNTERS:
			if ((o->flags & HOST_OBSERVE_COUNTERS) && real)
				return s;
			break;
		case STAGE_MODULES:
			if (o->flags & HOST_OBSERVE_MODULES)
				return s;
			break;
		case STAGE_FUNCTIONS:
			if ((o->flags &
			     (HOST_OBSERVE_SRIOV | HOST_OBSERVE_PCIE | HOST_OBSERVE_DEVLINK)) &&
			    !h->partial)
				return s;
			break;
		case STAGE_PCI:
			if ((o->flags & HOST_OBSERVE_PCI) && !h->partial)
				return s;
			break;
		default:
			return s;
		}
	}
}

int host_observer_step(HostObserver *o) {
	HostState *h = o->h;
	int r = 0;

	switch (o->stage) {
	case STAGE_START:
		r = observe_start(o);
		if (r < 0)
			return r;
		o->stage = STAGE_DEVICES_LIST;
		return 0;
	case STAGE_DEVICES_LIST:
		r = observe_list_step(o);
		if (r <= 0)
			return r;
		r = host_devices_filter(o->names, o->only);
		if (r < 0)
			return r;
		/* room for them all now, not a copy of thousands of devices in some step later */
		r = GREEDY_REALLOC(h->devices, o->n_alloc, strv_length(o->names));
		if (r < 0)
			return r;
		o->next = 0;
		o->stage = STAGE_DEVICES;
		return 0;
	case STAGE_DEVICES:
		if (o->names && o->names[o->next]) {
			r = host_device_add(h, o->classfd, o->cmfd, o->names[o->next], o->flags,
					    &o->n_alloc);
			if (r < 0)
				return r;
			o->next++;
			return 0;
		}
		r = observe_netdevs_begin(o);
		if (r < 0)
			return r;
		o->stage = STAGE_NETDEVS_LIST;
		return 0;
	case STAGE_NETDEVS_LIST:
		r = observe_list_step(o);
		if (r <= 0)
			return r;
		r = GREEDY_REALLOC(h->netdevs, o->n_alloc, strv_length(o->names));
		if (r < 0)
			return r;
		o->next = 0;
		o->stage = STAGE_NETDEVS;
		return 0;
	case STAGE_NETDEVS:
		if (o->names && o->names[o->next]) {
			r = host_netdev_add(h, o->netfd, o->names[o->next], &o->n_alloc);
			if (r < 0)
				return r;
			o->next++;
			return 0;
		}
		observe_netdevs_done(o);
		break;
	case STAGE_ADDRESSES:
		/* Not fatal: a host without rtnetlink access still has everything else. */
		if (host_addresses_by_name(h)) {
			/* a few netdevs, each asked for by name */
			(void) host_addresses_observe(h);
			break;
		}
		if (!o->stage_begun) {
			o->stage_begun = true;
			r = host_addresses_observe_begin(h, &o->addresses);
			if (r == -ENOMEM)
				return r;
			if (r >= 0)
				return 0;
		} else {
			r = host_addresses_observe_step(o->addresses);
			if (r == -ENOMEM)
				return r;
			if (r == 0)
				return 0;
		}
		o->addresses = addresses_observer_free(o->addresses);
		o->stage_begun = false;
		r = 0;
		break;
	case STAGE_RAILS:
		/* each netdev's sysctls, then rdmad's rules and routes */
		if (o->next < h->n_netdevs)
			return host_rail_sysctls_observe(h, &h->netdevs[o->next++]);
		r = host_rail_routing_observe(h);
		o->next = 0;
		break;
	case STAGE_FIREWALL:
		r = host_firewall_observe(h);
		break;
	case STAGE_DCB:
		/* the netdev of each port, once: its DCB state and its global pause */
		if (!o->stage_begun) {
			o->dcb_error = dcbnl_socket_open(&o->dcb);
			if (o->dcb_error == -ENOMEM)
				return o->dcb_error;
			o->ethtool_error = (o->flags & HOST_OBSERVE_PAUSE)
						   ? netlink_open(NETLINK_GENERIC, &o->ethtool)
						   : -ECANCELED;
			if (o->ethtool_error >= 0)
				o->ethtool_error = ethtool_family_resolve(o->ethtool,
									  &o->ethtool_family, NULL);
			if (o->ethtool_error == -ENOMEM)
				return o->ethtool_error;
			o->stage_begun = true;
			o->next = o->port = 0;
		}
		while (o->next < h->n_devices && o->port >= h->devices[o->next].n_ports) {
			o->next++;
			o->port = 0;
		}
		if (o->next < h->n_devices) {
			const HostPort *port = &h->devices[o->next].ports[o->port++];

			r = host_dcb_observe_port(h, o->dcb, o->dcb_error, port);
			if (r < 0 || !(o->flags & HOST_OBSERVE_PAUSE))
				return r;
			return host_pause_observe_port(h, o->ethtool, o->ethtool_family,
						       o->ethtool_error, port);
		}
		o->stage_begun = false;
		o->next = 0;
		break;
	case STAGE_LLDP:
		/* one step: a local lldpd answers each netdev's question in well under a
		 * millisecond */
		r = host_lldp_observe(h, NULL);
		break;
	case STAGE_SYSTEM:
		(void) host_netns_mode_observe(h); /* unknown stays unknown: the plan says so */
		break;
	case STAGE_COUNTERS:
		r = host_hw_counters_observe(h);
		break;
	case STAGE_MODULES:
		r = host_modules_observe(h, o->rootfd);
		break;
	case STAGE_FUNCTIONS:
		r = host_functions_observe(h, o->rootfd, o->flags, o->writing, o->writing_what);
		break;
	case STAGE_PCI:
		r = host_pci_observe(h, o->rootfd);
		break;
	case STAGE_DONE:
		return 1;
	}
	if (r < 0)
		return r;
	o->stage = stage_next(o, o->stage);
	return o->stage == STAGE_DONE;
}

int host_observer_finish(HostObserver *o, HostState **ret) {
	if (o->stage != STAGE_DONE)
		return -EBUSY;
	*ret = TAKE_PTR(o->h);
	return 0;
}

int host_observe_devices_only(const char *root, HostObserveFlags flags, char *const *devices,
			      HostState **ret) {
	_cleanup_(host_observer_freep) HostObserver *o = NULL;
	int r;

	r = host_observer_new(root, flags, devices, &o);
	if (r < 0)
		return r;
	do
		r = host_observer_step(o);
	while (r == 0);
	if (r < 0)
		return r;
	return host_observer_finish(o, ret);
}

int host_observe(const char *root, HostObserveFlags flags, HostState **ret) {
	return host_observe_devices_only(root, flags, NULL, ret);
}
