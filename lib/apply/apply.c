/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The dispatcher: each action to the backend of its key (apply-backends.h). It only calls down:
 * the backends share the Applier (applier.c), never this file. */
#include "apply-backends.h"
#include "apply.h"

int action_apply(Applier *a, const Action *x, ActionOutcome *ret) {
	*ret = (ActionOutcome){ 0 };

	if (x->unsupported)
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s", x->unsupported);

	switch (x->key) {
	case KEY_MODULES:
		return apply_module(a, x, ret);
	case KEY_LINKS:
		if (x->value.remove)
			return apply_soft_device_remove(a, x, ret);
		return apply_soft_device(a, x, ret);
	case KEY_SYSTEM_NETNS_MODE:
		return apply_netns_mode(a, x, ret);
	case KEY_NETDEV_UP:
	case KEY_NETDEV_MTU:
	case KEY_NETDEV_ADDRESSES:
		return apply_netdev(a, x, ret);
	case KEY_NETDEV_RAIL_ROUTING:
		return apply_rail(a, x, ret);
	case KEY_ROCE_MODE:
	case KEY_ROCE_TOS:
		return apply_configfs(a, x, ret);
	case KEY_QOS_TRUST:
	case KEY_QOS_PFC:
	case KEY_QOS_DSCP_MAP:
	case KEY_QOS_ETS_PRIO_TC:
	case KEY_QOS_ETS_TC_BW:
	case KEY_QOS_ETS_TSA:
	case KEY_QOS_MAXRATE:
	case KEY_QOS_PFC_DELAY:
	case KEY_QOS_BUFFER_PRIO:
	case KEY_QOS_BUFFER_SIZE:
	case KEY_QOS_DCBX:
		return apply_dcb(a, x, ret);
	case KEY_NETDEV_PAUSE_AUTONEG:
	case KEY_NETDEV_PAUSE_RX:
	case KEY_NETDEV_PAUSE_TX:
		return apply_pause(a, x, ret);
	case KEY_ECN_ROCE_NP:
	case KEY_ECN_ROCE_RP:
		return apply_ecn(a, x, ret);
	case KEY_ECN_CNP_DSCP:
	case KEY_ECN_CNP_PRIO:
		return apply_ecn_cnp(a, x, ret);
	case KEY_COUNTERS_OPTIONAL:
		return apply_counters_optional(a, x, ret);
	case KEY_RDMA_NODE_DESCRIPTION:
		return apply_node_description(a, x, ret);
	case KEY_SRIOV_VFS:
	case KEY_SRIOV_AUTOPROBE:
	case KEY_SRIOV_ESWITCH:
	case KEY_SRIOV_VF:
	case KEY_PCI_MAX_READ_REQUEST:
	case KEY_PCI_UPSTREAM_ACS:
		return apply_function(a, x, ret);
	case KEY_DEVLINK_PARAMS:
	case KEY_DEVLINK_RELOAD:
		return apply_devlink(a, x, ret);
	case KEY_SECURITY_ROCE_ALLOW_FROM:
		return apply_firewall(a, x, ret);
	default:
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s is not applied by this version",
				   key_to_string(x->key));
	}
}

bool action_blocks(const Action *x) {
	return !x->unsupported && (x->key == KEY_SRIOV_VFS || x->key == KEY_SRIOV_ESWITCH ||
				   x->key == KEY_DEVLINK_RELOAD);
}
