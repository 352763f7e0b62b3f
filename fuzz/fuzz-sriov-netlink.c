/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* libFuzzer target: the parsers of the function-level keys' and generic netlink replies on
 * arbitrary bytes: the PF's RTM_NEWLINK with its VF list (rtnl-vf.c), devlink's e-switch reply,
 * the generic netlink controller's family reply with its multicast groups (devlink.c,
 * ethtool-pause.c), ethtool's pause reply and notification (ethtool-pause.c), devlink's
 * parameter reply and notification, its port reply and any devlink message's handle
 * (devlink.c), and the
 * extended ACK of an NLMSG_ERROR (netlink-io.c). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devlink.h"
#include "ethtool-pause.h"
#include "netlink-io.h"
#include "rtnl-vf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
	SriovVf *vfs = NULL;
	char ifname[IFNAMSIZ];
	PauseParams pause;
	uint32_t group;
	EswitchMode mode;
	uint32_t num_vf;
	uint16_t id;
	size_t n = 0;
	int ifindex;
	void *buf;
	DevlinkParamInfo param;
	DevlinkPortInfo port;
	char bus[64], dev[64], extack[NETLINK_EXTACK_MAX];
	uint8_t cmd;

	/* A received buffer is aligned; copy so that the parser sees one. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	/* What parsed is what the kernel can say: VFs sorted by index, each once, a VLAN ID and
	 * priority in range, a mode rdmad has a name for, a family id past the controller's. */
	if (rtnl_vf_parse(buf, size, &ifindex, &num_vf, &vfs, &n) >= 0) {
		for (size_t i = 0; i < n; i++)
			if ((i > 0 && vfs[i - 1].index >= vfs[i].index) || vfs[i].vlan > 4095 ||
			    vfs[i].qos > 7 || (vfs[i].set >> _VF_FIELD_MAX) != 0)
				abort();
		free(vfs);
	}
	if (devlink_eswitch_parse(buf, size, &mode) >= 0 && (mode < 0 || mode >= _ESWITCH_MODE_MAX))
		abort();
	if (genl_family_parse(buf, size, &id) >= 0 && id == 0)
		abort();
	if (genl_mcast_group_parse(buf, size, "monitor", &group) >= 0 && group == 0)
		abort();
	/* a name the kernel can have: 1..15 bytes, NUL-terminated */
	if (ethtool_pause_parse(buf, size, ifname, &pause) >= 0 &&
	    (ifname[0] == 0 || strnlen(ifname, IFNAMSIZ) >= IFNAMSIZ))
		abort();
	/* a parameter of a type and cmodes rdmad has names for, each value's text terminated */
	if (devlink_param_parse(buf, size, &param) >= 0) {
		if (param.type < 0 || param.type >= _DEVLINK_PARAM_TYPE_MAX ||
		    (param.cmodes >> _DEVLINK_CMODE_MAX) != 0 || param.name[0] == 0 ||
		    strnlen(param.bus, sizeof(param.bus)) >= sizeof(param.bus))
			abort();
		for (int c = 0; c < _DEVLINK_CMODE_MAX; c++)
			if (strnlen(param.values[c], DEVLINK_VALUE_MAX) >= DEVLINK_VALUE_MAX)
				abort();
	}
	/* a port's netdev named only with its ifindex, in a name that fits a netdev's */
	if (devlink_port_parse(buf, size, &port) >= 0 &&
	    (strnlen(port.bus, sizeof(port.bus)) >= sizeof(port.bus) ||
	     strnlen(port.netdev, sizeof(port.netdev)) >= sizeof(port.netdev) ||
	     port.has_netdev != (port.netdev[0] != 0)))
		abort();
	if (devlink_message_handle(buf, size, bus, dev, &cmd) >= 0 &&
	    (strnlen(bus, sizeof(bus)) >= sizeof(bus) || strnlen(dev, sizeof(dev)) >= sizeof(dev)))
		abort();
	/* what the receive loop hands it: a whole message, its length within the datagram */
	if (size >= sizeof(struct nlmsghdr) && ((struct nlmsghdr *) buf)->nlmsg_len <= size &&
	    ((struct nlmsghdr *) buf)->nlmsg_type == NLMSG_ERROR) {
		netlink_extack_parse(buf, extack);
		if (strnlen(extack, sizeof(extack)) >= sizeof(extack))
			abort();
	}
	free(buf);
	return 0;
}
