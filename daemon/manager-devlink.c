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
#include "manager-watch.h"
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
	static const GenlWatchSpec spec = {
		.what = "devlink-config",
		.lost = "a changed devlink parameter is put back",
		.absent_level = LOG_DEBUG, /* a kernel without devlink has nothing of it to keep */
		.resolve = devlink_config_group_resolve,
		.on_message = on_devlink_message,
		.on_io = on_devlink_io,
	};
	uint16_t family = 0;
	int r;

	r = manager_genl_watch(m, &spec, &m->devlink_watch, &m->devlink_source, &family);
	if (r < 0 || !m->devlink_watch)
		return r;
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
