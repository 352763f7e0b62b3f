/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink's "config" multicast group, for devlink.params: the kernel multicasts a PARAM_NEW
 * after every parameter set (`devlink dev param set`, another agent's, rdmad's own, whose
 * reconcile then finds nothing to write), so a runtime parameter changed by another tool is put
 * back without polling. Functions are planned on full passes: a PARAM_NEW makes everything
 * dirty, while a profile declares devlink.* at all. The group carries the rest of devlink's
 * news too: each message is handed to manager-health.c (health reporters, a device's DEL). A reload in the device's own network
 * namespace sends no PARAM_NEW (its re-created netdevs are what rtnetlink announces). */
#include <linux/devlink.h>

#include "devlink-talk.h"
#include "log.h"
#include "manager-devlink.h"
#include "manager-health.h"
#include "netlink-io.h"

/* A burst of notifications that fills the socket is not read one by one again */
#define DEVLINK_READS_MAX 64

static int on_devlink_message(struct nl_msg *msg, void *userdata) {
	Manager *m = userdata;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	char bus[64], dev[64];
	uint8_t cmd;

	manager_health_message(m, nlh);
	if (devlink_message_handle(nlh, nlh->nlmsg_len, bus, dev, &cmd) < 0)
		return NL_OK;
	if (cmd != DEVLINK_CMD_PARAM_NEW || !m->config ||
	    !config_declares(m->config, KEY_DEVLINK_PARAMS))
		return NL_OK;
	log_debug("devlink: a parameter of %s/%s changed, looking again.", bus, dev);
	manager_mark_dirty_all(m);
	return NL_OK;
}

static int on_devlink_io(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
	Manager *m = userdata;
	int r;

	for (unsigned i = 0; i < DEVLINK_READS_MAX; i++) {
		r = nl_recvmsgs_default(m->devlink_watch);
		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		log_debug("devlink config socket: %s, looking again.", nl_geterror(r));
		manager_mark_dirty_all(m);
		manager_health_lost(m);
		break;
	}
	return 0;
}

int manager_watch_devlink(Manager *m) {
	struct nl_sock *resolver = NULL, *sk;
	uint16_t family;
	uint32_t group;
	int r;

	r = netlink_open(NETLINK_GENERIC, &resolver);
	if (r >= 0)
		r = devlink_config_group_resolve(resolver, &family, &group);
	if (resolver)
		nl_socket_free(resolver);
	if (r == -ENOMEM)
		return log_error_errno(-ENOMEM, "Failed to watch devlink notifications");
	if (r < 0) {
		/* Not fatal: a kernel without devlink has no parameters to keep either. */
		log_debug(
			"No devlink config group (%s): a changed devlink parameter is put back on "
			"the next reconcile only.",
			strerror(-r));
		return 0;
	}
	sk = nl_socket_alloc();
	if (!sk)
		return log_error_errno(-ENOMEM, "Failed to watch devlink notifications");
	m->devlink_watch = sk;
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_devlink_message, m);
	r = nl_connect(sk, NETLINK_GENERIC);
	if (r >= 0)
		r = nl_socket_add_memberships(sk, (int) group, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(sk);
	if (r < 0) {
		log_warning(
			"Failed to watch devlink notifications (%s), a changed devlink parameter "
			"is put back on the next reconcile only.",
			nl_geterror(r));
		nl_socket_free(sk);
		m->devlink_watch = NULL;
		return 0;
	}
	r = sd_event_add_io(m->event, &m->devlink_source, nl_socket_get_fd(sk), EPOLLIN,
			    on_devlink_io, m);
	if (r < 0)
		return log_error_errno(r, "Failed to watch the devlink config socket");
	(void) sd_event_source_set_description(m->devlink_source, "devlink-config");
	(void) nl_socket_set_buffer_size(sk, 256 * 1024, 0);
	/* the health reporters of the host's devices (none under a fixture root) */
	if (streq(m->root, "/"))
		return manager_health_start(m, family);
	return 0;
}

void manager_unwatch_devlink(Manager *m) {
	m->devlink_source = sd_event_source_unref(m->devlink_source);
	if (m->devlink_watch)
		nl_socket_free(m->devlink_watch);
	m->devlink_watch = NULL;
}
