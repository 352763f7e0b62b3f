/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* SR-IOV VF exchanges on a NETLINK_ROUTE socket the caller opened (netlink_open(), with its
 * timeout): one GETLINK and its reply, or one SETLINK and its ACK. The messages, and what the
 * kernel does with them, are rtnl-vf.h's. */

#include <netlink/netlink.h>
#include <stddef.h>
#include <stdint.h>

#include "rtnl-vf.h"

/* The VFs of the PF ifindex as the kernel reports them (rtnl_vf_parse()): *ret_num_vf VFs
 * enabled, *ret_n of them reported in *ret (sorted by index; NULL when none; the caller frees
 * it). A netdev with no parent device or no ndo_get_vf_config reports none. -ENODEV when there
 * is no such netdev in this network namespace, -EBADMSG for a reply that does not parse (or is
 * about another netdev), -ENODATA when the kernel sent none, -ETIMEDOUT, -EIO when the socket
 * fails, -ENOMEM. */
int rtnl_vf_read(struct nl_sock *sk, int ifindex, uint32_t *ret_num_vf, SriovVf **ret,
		 size_t *ret_n);

/* Set the fields of vf->set on VF vf->index of the PF ifindex (rtnl_vf_set_new()), and return
 * the kernel's answer from the ACK: 0, -EOPNOTSUPP when the driver has no op for a field (or
 * a GUID on a netdev that is not InfiniBand), the driver's error (usually -EINVAL for a VF it
 * does not have or a value it refuses), -ENODEV, -EPERM without CAP_NET_ADMIN. On an error the
 * fields before the refused one may be set: read back. -EINVAL, without sending, for what
 * rtnl_vf_set_new() refuses. */
int rtnl_vf_write(struct nl_sock *sk, int ifindex, const SriovVf *vf);
