/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* links: (soft RDMA devices, rxe and siw), system.netns-mode and counters.optional over RDMA
 * netlink (NLDEV; iproute2 `rdma link add`, `rdma link delete`, `rdma system set netns`,
 * `rdma statistic set link DEV/PORT optional-counters`). All are kernel-global: under a fixture
 * root nothing is sent. A device rdmad creates is recorded
 * (soft-device-record.c), and only a recorded one is ever deleted. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "apply-internal.h"
#include "soft-device-record.h"
#include "netlink-io.h"
#include "rdmanl-talk.h"
#include "strv.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_msg *, nlmsg_free)

/* Soft RDMA devices have one port. */
#define SOFT_DEVICE_PORT 1

static bool on_real_root(const Applier *a) {
	return streq(applier_root(a), "/");
}

static int not_here(const Applier *a, ActionOutcome *ret, const char *what) {
	return outcome_set(
		ret, APPLY_UNSUPPORTED, 0,
		"%s: RDMA netlink is kernel-global, not under a fixture root (--root %s)", what,
		applier_root(a));
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

/* ---- links ------------------------------------------------------------------------------ */

/* Why NEWLINK failed, in the words an administrator needs (nldev_newlink(), rxe_newlink(),
 * siw_newlink(), ib_register_device()). */
static const char *newlink_error_hint(int r, SoftDeviceType type, const char *ndev, char *buf,
				      size_t size) {
	const char *t = soft_device_type_to_string(type);

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
		if (type == SOFT_DEVICE_RXE)
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
			 t, soft_device_driver_to_string(type));
		break;
	case -EPERM:
		snprintf(buf, size,
			 "not permitted (needs CAP_NET_ADMIN; rdma_rxe also refuses VLAN devices)");
		break;
	case -ECHILD: /* the applier_newlink_t's helper, not the kernel */
		snprintf(buf, size,
			 "the helper that sends it from a cgroup of its own (systemd-run --scope) "
			 "gave no answer: see the journal");
		break;
	case -ETIMEDOUT: /* the same */
		snprintf(buf, size, "the helper that sends it did not answer in time");
		break;
	default:
		snprintf(buf, size, "%s", strerror(-r));
	}
	return buf;
}

int apply_soft_device(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *name = x->value.name, *ndev = x->value.lower;
	const char *type = soft_device_type_to_string(x->value.link_type);
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

	r = applier_rdmanl(a, &sk);
	if (r < 0)
		return socket_failed(ret, "links", r);

	/* Look again: the plan is a snapshot. */
	r = rdmanl_dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "list RDMA devices (NLDEV GET): %s",
				   strerror(-r));
	if (r > 0) {
		r = rdmanl_port_netdev(sk, index, SOFT_DEVICE_PORT, have);
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
					   name, index, SOFT_DEVICE_PORT, strerror(-r));
		if (!streq(have, ndev))
			return outcome_set(ret, APPLY_FAILED, -EEXIST,
					   "RDMA device %s exists on %s, not on %s: rdmad does not "
					   "replace it",
					   name, have, ndev);
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}

	/* Recorded before it is made: rdmad killed between NEWLINK and the record (NEWLINK takes
	 * a while: rxe fills its GID table) would leave a link it made and does not know as its
	 * own, never to be removed. A record whose link is missing costs nothing: the link is made
	 * again while declared, and the record goes once it is not. */
	r = soft_device_record_write(applier_state_dir(a), name, x->value.link_type, ndev);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "cannot record RDMA link %s in %s/links/%s before adding it: %s",
				   name, applier_state_dir(a), name, strerror(-r));

	/* The type's module is a modules action of its own, planned before this one; NEWLINK also
	 * makes the kernel request_module("rdma-link-TYPE"). */
	r = applier_newlink(a, sk, name, type, ndev);
	if (r < 0)
		(void) soft_device_record_remove(applier_state_dir(a), name); /* not made */
	if (r == -ENOMEM)
		return r;
	if (r == -EEXIST || r == -ENFILE) {
		/* Someone else (an administrator's `rdma link add`) was quicker: fine if it is
		 * what was declared. It is not recorded: rdmad did not create it. */
		uint32_t other = 0;

		if (rdmanl_dev_find(sk, name, &other) > 0 &&
		    rdmanl_port_netdev(sk, other, SOFT_DEVICE_PORT, have) >= 0 && streq(have, ndev))
			return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}
	if (r < 0)
		return outcome_set(
			ret, APPLY_FAILED, r, "cannot add RDMA link %s (%s on %s): %s", name, type,
			ndev, newlink_error_hint(r, x->value.link_type, ndev, hint, sizeof(hint)));

	/* Read back. */
	r = rdmanl_dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r == 0)
		r = -EIO;
	if (r > 0)
		r = rdmanl_port_netdev(sk, index, SOFT_DEVICE_PORT, have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !streq(have, ndev))
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "RDMA link %s was added, but does not read back as %s on %s",
				   name, type, ndev);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int apply_soft_device_remove(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_(soft_device_record_done) SoftDeviceRecord rec = { 0 };
	const char *name = x->value.name, *recorded;
	char have[RDMANL_NDEV_NAME_MAX];
	struct nl_sock *sk = NULL;
	uint32_t index = 0;
	int r;

	if (!on_real_root(a))
		return not_here(a, ret, "links");
	if (!rdma_device_name_valid(name))
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "invalid RDMA link name '%s'",
				   strna(name));

	r = soft_device_record_read(applier_state_dir(a), name, &rec);
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
	recorded = rec.netdev;

	r = applier_rdmanl(a, &sk);
	if (r < 0)
		return socket_failed(ret, "links", r);

	r = rdmanl_dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "list RDMA devices (NLDEV GET): %s",
				   strerror(-r));
	if (r == 0) {
		/* gone already (its netdev went away, or someone deleted it) */
		r = soft_device_record_remove(applier_state_dir(a), name);
		if (r == -ENOMEM)
			return r;
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}

	r = rdmanl_port_netdev(sk, index, SOFT_DEVICE_PORT, have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 && r != -ENODATA)
		return outcome_set(ret, APPLY_FAILED, r,
				   "netdev of RDMA device %s (NLDEV PORT_GET %u/%u): %s", name,
				   index, SOFT_DEVICE_PORT, strerror(-r));
	if (r == -ENODATA || !streq(have, recorded)) {
		/* Not the device rdmad made: someone replaced it. Ours is gone, and theirs is
		 * left alone: only the record goes. */
		r = soft_device_record_remove(applier_state_dir(a), name);
		if (r == -ENOMEM)
			return r;
		return outcome_set(ret, APPLY_UNCHANGED, 0,
				   "RDMA device %s is not on %s, where rdmad created it: someone "
				   "else's, left alone",
				   name, recorded);
	}

	r = rdmanl_dellink_new(index, &m);
	if (r >= 0)
		r = netlink_transact(sk, m, NULL, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(
			ret, APPLY_FAILED, r, "cannot delete RDMA link %s (%s on %s, index %u): %s",
			name, strna(soft_device_type_to_string(rec.type)), recorded, index,
			r == -EINVAL ? "the kernel refused it (not a soft link?)" : strerror(-r));

	/* Read back. */
	r = rdmanl_dev_find(sk, name, &index);
	if (r == -ENOMEM)
		return r;
	if (r != 0)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "RDMA link %s is still listed after DELLINK", name);

	r = soft_device_record_remove(applier_state_dir(a), name);
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

	r = applier_rdmanl(a, &sk);
	if (r < 0)
		return socket_failed(ret, "system.netns-mode", r);

	r = rdmanl_netns_mode_read(sk, &have);
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
		r = netlink_transact(sk, m, NULL, NULL);
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

	r = rdmanl_netns_mode_read(sk, &have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || have != want)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "the RDMA netns mode reads %s after setting it to %s",
				   r < 0 ? strerror(-r) : netns_mode_to_string(have), w);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* ---- counters.optional ---------------------------------------------------------------------- */

/* The indices of the named optional counters (in the order named), or -ENOENT with the first
 * name that is not one in *ret_missing. */
static int optional_indices(const HwCounter *l, size_t n, char *const *names, uint32_t **ret,
			    size_t *ret_n, const char **ret_missing) {
	_cleanup_free_ uint32_t *idx = NULL;
	size_t k = 0, want = strv_length(names);

	idx = malloc(sizeof(uint32_t) * (want ? want : 1));
	if (!idx)
		return -ENOMEM;
	STRV_FOREACH (w, names) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			if (l[i].optional && streq(l[i].name, *w)) {
				idx[k++] = l[i].index;
				found = true;
			}
		if (!found) {
			*ret_missing = *w;
			return -ENOENT;
		}
	}
	*ret = TAKE_PTR(idx);
	*ret_n = k;
	return 0;
}

/* Whether exactly the named optional counters are enabled. */
static bool optional_enabled_equal(const HwCounter *l, size_t n, char *const *names) {
	for (size_t i = 0; i < n; i++)
		if (l[i].optional && l[i].enabled != strv_contains(names, l[i].name))
			return false;
	return true;
}

int apply_counters_optional(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nlmsg_freep) struct nl_msg *m = NULL;
	_cleanup_free_ uint32_t *indices = NULL;
	HwCounter *have = NULL;
	struct nl_sock *sk = NULL;
	const char *missing = NULL;
	size_t n_have = 0, n = 0;
	uint32_t index = 0;
	int r;

	if (!on_real_root(a))
		return not_here(a, ret, "counters.optional");
	if (!x->device || !x->value.counters)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "counters.optional without a link");

	r = applier_rdmanl(a, &sk);
	if (r < 0)
		return socket_failed(ret, "counters.optional", r);
	r = rdmanl_dev_find(sk, x->device, &index);
	if (r == -ENOMEM)
		return r;
	if (r <= 0)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -ENODEV,
				   "RDMA device %s is not listed by NLDEV GET%s%s", x->device,
				   r < 0 ? ": " : "", r < 0 ? strerror(-r) : "");

	/* Look again: the plan is a snapshot. */
	r = rdmanl_hw_counters_read(sk, index, x->port, &have, &n_have);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "read the hw counters of %s/%u (NLDEV STAT_GET_STATUS): %s",
				   x->device, x->port, strerror(-r));
	r = optional_indices(have, n_have, x->value.counters, &indices, &n, &missing);
	if (r == -ENOENT)
		r = outcome_set(ret, APPLY_UNSUPPORTED, 0, "%s/%u has no optional counter %s",
				x->device, x->port, missing);
	else if (r >= 0 && optional_enabled_equal(have, n_have, x->value.counters))
		r = outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	else if (r >= 0)
		r = 1;
	hw_counters_free(have, n_have);
	have = NULL;
	if (r <= 0)
		return r;

	/* The whole set: the kernel disables every optional counter not in it. */
	r = rdmanl_stat_set_optional_new(index, x->port, indices, n, &m);
	if (r >= 0)
		r = netlink_transact(sk, m, NULL, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "cannot set the optional counters of %s/%u (NLDEV STAT_SET): %s",
				   x->device, x->port,
				   r == -EPERM ? "not permitted (needs CAP_NET_ADMIN)"
					       : strerror(-r));

	/* Read back. */
	r = rdmanl_hw_counters_read(sk, index, x->port, &have, &n_have);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || !optional_enabled_equal(have, n_have, x->value.counters)) {
		hw_counters_free(have, n_have);
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "the optional counters of %s/%u do not read back as %s%s%s",
				   x->device, x->port, strna(x->desired), r < 0 ? ": " : "",
				   r < 0 ? strerror(-r) : "");
	}
	hw_counters_free(have, n_have);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}
