/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* sriov.* and pci.*, on the function behind a netdev (its devlink handle in the action,
 * "pci/0000:03:00.0"): sysfs's sriov_drivers_autoprobe and sriov_numvfs, devlink's e-switch
 * mode, rtnetlink's IFLA_VFINFO_LIST on the PF's netdev, and the config space through sysfs.
 * Each compared before it is written and read back after: a value the device does not keep
 * (qemu's emulated functions never take a Max_Read_Request write) is unsupported there, never
 * converged. */
#include <fcntl.h>
#include <stdio.h>

#include "acs-record.h"
#include "apply-internal.h"
#include "devlink-talk.h"
#include "fileio.h"
#include "netlink-io.h"
#include "pci-config.h"
#include "rtnl-vf-talk.h"
#include "settings-format.h"
#include "sysfs-value.h"

DEFINE_TRIVIAL_CLEANUP_FUNC(struct nl_sock *, nl_socket_free)

/* "pci/0000:03:00.0" into its bus and device name. */
static int function_split(const char *function, char bus[static 32], char name[static 64]) {
	const char *slash = function ? strchr(function, '/') : NULL;

	if (!slash || slash == function || (size_t) (slash - function) >= 32 ||
	    strlen(slash + 1) == 0 || strlen(slash + 1) >= 64 || strchr(slash + 1, '/'))
		return -EINVAL;
	memcpy(bus, function, (size_t) (slash - function));
	bus[slash - function] = 0;
	strcpy(name, slash + 1);
	return 0;
}

/* A decimal sysfs attribute of the function: compared, written, read back. */
static int function_attr_apply(Applier *a, const Action *x, const char *attr, unsigned want,
			       ActionOutcome *ret) {
	_cleanup_close_ int fd = -EBADF;
	char bus[32], name[64], path[192], buf[SYSFS_VALUE_MAX], text[16];
	int64_t have;
	ssize_t n;
	int r;

	if (function_split(x->function, bus, name) < 0)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "no function in the action");
	snprintf(path, sizeof(path), "sys/bus/%s/devices/%s/%s", bus, name, attr);
	n = sysfs_value_read_at(applier_rootfd(a), path, buf, sizeof(buf));
	if (n == -ENOENT)
		return outcome_set(ret, APPLY_FAILED, -ENODEV, "/%s does not exist (device gone?)",
				   path);
	if (n >= 0 && sysfs_int_parse(buf, (size_t) n, 0, 65535, &have) >= 0 && have == want)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	snprintf(text, sizeof(text), "%u", want);
	r = applier_write_fault(a, path);
	if (r == 0)
		r = applier_write_hold(a, path, text);
	if (r == 0) {
		fd = openat(applier_rootfd(a), path, O_WRONLY | O_CLOEXEC);
		if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t) strlen(text))
			r = negative_errno();
	}
	if (r == -EBUSY && streq(attr, "sriov_numvfs") && want > 0)
		/* the planner writes 0 first; VFs that appeared since make it refuse */
		return outcome_set(ret, APPLY_FAILED, r,
				   "write %u to /%s: %s (VFs exist: the kernel takes 0 first; the "
				   "next pass plans it)",
				   want, path, strerror(-r));
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "write %u to /%s: %s", want, path,
				   strerror(-r));
	n = sysfs_value_read_at(applier_rootfd(a), path, buf, sizeof(buf));
	if (n < 0 || sysfs_int_parse(buf, (size_t) n, 0, 65535, &have) < 0 || have != want)
		return outcome_set(ret, APPLY_FAILED, -EIO, "/%s does not read back %u", path,
				   want);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

static int apply_eswitch(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	EswitchMode have;
	char bus[32], name[64];
	uint16_t family;
	int r;

	if (function_split(x->function, bus, name) < 0)
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "no function in the action");
	r = netlink_open(NETLINK_GENERIC, &sk);
	if (r >= 0)
		r = devlink_family_resolve(sk, &family);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "devlink: %s", strerror(-r));
	r = devlink_eswitch_read(sk, family, bus, name, &have);
	if (r >= 0 && have == x->value.eswitch)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	r = devlink_eswitch_write(sk, family, bus, name, x->value.eswitch);
	if (r == -EOPNOTSUPP)
		return outcome_set(ret, APPLY_UNSUPPORTED, r,
				   "%s: the driver cannot change its e-switch mode", x->function);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "devlink dev eswitch set %s mode %s: %s",
				   x->function, eswitch_mode_to_string(x->value.eswitch),
				   strerror(-r));
	r = devlink_eswitch_read(sk, family, bus, name, &have);
	if (r < 0 || have != x->value.eswitch)
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "%s: the e-switch mode does not read back %s", x->function,
				   eswitch_mode_to_string(x->value.eswitch));
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

static int vf_read_one(struct nl_sock *sk, int ifindex, uint32_t index, SriovVf *ret) {
	_cleanup_free_ SriovVf *vfs = NULL;
	uint32_t num_vf;
	size_t n = 0;
	int r;

	r = rtnl_vf_read(sk, ifindex, &num_vf, &vfs, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++)
		if (vfs[i].index == index) {
			*ret = vfs[i];
			return 0;
		}
	return -ENODEV;
}

/* The action carries the declared fields to write (its set). The ones the kernel takes with
 * them (vlan, qos and protocol; min and max rate) are completed from what the kernel reports
 * now, not when the plan was made: a VF made by the same plan did not exist then, and a driver
 * may keep a VF's settings across sriov_numvfs 0 (netdevsim does). */
static int apply_vf(Applier *a, const Action *x, ActionOutcome *ret) {
	_cleanup_(nl_socket_freep) struct nl_sock *sk = NULL;
	const SriovVf *want = &x->value.vf;
	_cleanup_free_ char *have_text = NULL;
	SriovVf have, w;
	uint32_t left;
	int r;

	if (x->ifindex <= 0)
		return outcome_set(ret, APPLY_FAILED, -ENODEV, "the PF's netdev %s is not known",
				   strna(x->netdev));
	r = netlink_open(NETLINK_ROUTE, &sk);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "rtnetlink: %s", strerror(-r));
	r = vf_read_one(sk, x->ifindex, want->index, &have);
	if (r == -ENODEV)
		return outcome_set(ret, APPLY_FAILED, r, "%s has no VF %u", strna(x->netdev),
				   want->index);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s VF %u cannot be read: %s",
				   strna(x->netdev), want->index, strerror(-r));
	left = sriov_vf_diff(want, &have);
	if (left == 0)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	w = sriov_vf_write(want, &have, left);
	if (w.max_rate && w.min_rate > w.max_rate)
		/* the kernel would refuse it (EINVAL): not something a retry changes */
		return outcome_set(ret, APPLY_UNSUPPORTED, -EINVAL,
				   "max-rate %u is below %s VF %u's min-rate %u: declare min-rate "
				   "too",
				   w.max_rate, strna(x->netdev), w.index, w.min_rate);
	r = rtnl_vf_write(sk, x->ifindex, &w);
	if (r == -EOPNOTSUPP)
		return outcome_set(
			ret, APPLY_UNSUPPORTED, r,
			"%s refuses %s (EOPNOTSUPP: its driver does not set that for a VF; "
			"in switchdev mode drivers refuse VF rates: shape on the "
			"representor)",
			strna(x->netdev), strna(x->desired));
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "ip link set %s vf %u (%s): %s",
				   strna(x->netdev), want->index, strna(x->desired), strerror(-r));
	r = vf_read_one(sk, x->ifindex, want->index, &have);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s VF %u cannot be read back: %s",
				   strna(x->netdev), want->index, strerror(-r));
	left = sriov_vf_diff(&w, &have);
	if (left) {
		have_text = setting_format_vf(&have, left);
		return outcome_set(ret, APPLY_FAILED, -EIO, "%s VF %u reads back %s",
				   strna(x->netdev), want->index, strna(have_text));
	}
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* A config space write the kernel refused: under lockdown (integrity or confidentiality,
 * which Secure Boot turns on) sysfs's config is read-only even to root, and a retry changes
 * nothing (pci_write_config(): EPERM). */
static int config_write_refused(ActionOutcome *ret, int error, const char *what) {
	return outcome_set(ret, APPLY_UNSUPPORTED, error,
			   "%s: the kernel refuses config space writes (EPERM: kernel lockdown, "
			   "see /sys/kernel/security/lockdown)",
			   what);
}

/* Max_Read_Request_Size: the Device Control register of the function's PCIe capability. */
static int apply_max_read_request(Applier *a, const Action *x, ActionOutcome *ret) {
	char bus[32], name[64];
	unsigned have;
	int r;

	if (function_split(x->function, bus, name) < 0 || !streq(bus, "pci"))
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "not a PCI function");
	r = pci_max_read_request_get(applier_root(a), name, &have);
	if (r >= 0 && have == x->value.number)
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	if (r >= 0)
		r = pci_max_read_request_set(applier_root(a), name, x->value.number);
	if (r == -EPERM)
		return config_write_refused(ret, r, name);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: Max_Read_Request_Size %u: %s", name,
				   x->value.number, strerror(-r));
	r = pci_max_read_request_get(applier_root(a), name, &have);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r,
				   "%s: Device Control cannot be read back: %s", name,
				   strerror(-r));
	/* Written, and the device keeps its own: not something a retry changes (qemu's
	 * emulated functions never take it), and never converged. */
	if (have != x->value.number)
		return outcome_set(
			ret, APPLY_UNSUPPORTED, -EIO,
			"%s: written, but Max_Read_Request_Size reads back %u: the device "
			"does not take %u",
			name, have, x->value.number);
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

/* ACS Control of a port: worked out again from the live register (the kernel or an admin may
 * have changed other bits since the plan). off: only the P2P redirect bits cleared, those
 * recorded first (acs-record.h) and checked after. on (the action's flag): the bits recorded
 * set again, and the record dropped once they read back. */
static int apply_acs(Applier *a, const Action *x, ActionOutcome *ret) {
	const char *bridge = x->value.name;
	_cleanup_free_ char *config = NULL;
	uint16_t want, have, recorded = 0;
	PciFunctionConfig c;
	int r;

	if (!bridge || !pci_address_valid(bridge))
		return outcome_set(ret, APPLY_FAILED, -EINVAL, "no bridge in the action");
	r = pci_function_config_read(applier_root(a), bridge, &c);
	if (r >= 0 && !c.has_acs)
		r = -ENOENT;
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: ACS capability: %s", bridge,
				   strerror(-r));
	r = acs_record_read(applier_state_dir(a), bridge, &recorded);
	if (r < 0 && r != -ENOENT)
		return outcome_set(ret, APPLY_FAILED, r, "%s/acs/%s: %s", applier_state_dir(a),
				   bridge, strerror(-r));
	if (x->value.flag)
		want = c.acs_ctrl | recorded;
	else
		want = pci_acs_ctrl_p2p_off(c.acs_cap, c.acs_ctrl);
	if (want == c.acs_ctrl) {
		if (x->value.flag && recorded) /* set again by someone else: nothing to put back */
			(void) acs_record_write(applier_state_dir(a), bridge, 0);
		return outcome_set(ret, APPLY_UNCHANGED, 0, NULL);
	}
	if (!x->value.flag) {
		/* what was set before, recorded before it is cleared: on puts back only that */
		r = acs_record_write(applier_state_dir(a), bridge,
				     recorded | (c.acs_ctrl & (uint16_t) ~want));
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r,
					   "%s: cannot record the ACS Control bits it clears in "
					   "%s/acs: %s",
					   bridge, applier_state_dir(a), strerror(-r));
	}
	if (asprintf(&config, "sys/bus/pci/devices/%s/config", bridge) < 0)
		return -ENOMEM;
	r = applier_write_fault(a, config);
	if (r >= 0)
		r = pci_acs_ctrl_set(applier_root(a), bridge, want);
	if (r < 0 && !x->value.flag) /* nothing cleared: the record as it was */
		(void) acs_record_write(applier_state_dir(a), bridge, recorded);
	if (r == -EPERM)
		return config_write_refused(ret, r, bridge);
	if (r < 0)
		return outcome_set(ret, APPLY_FAILED, r, "%s: ACS Control 0x%04x: %s", bridge, want,
				   strerror(-r));
	r = pci_acs_ctrl_get(applier_root(a), bridge, &have);
	if (r < 0 || (x->value.flag ? (have & recorded) != recorded
				    : (have & c.acs_cap & PCI_CONFIG_ACS_P2P_BITS) != 0))
		return outcome_set(ret, APPLY_FAILED, r < 0 ? r : -EIO,
				   "%s: ACS Control does not read back 0x%04x", bridge, want);
	if (x->value.flag) {
		r = acs_record_write(applier_state_dir(a), bridge, 0);
		if (r < 0)
			return outcome_set(ret, APPLY_FAILED, r, "%s/acs/%s: %s",
					   applier_state_dir(a), bridge, strerror(-r));
	}
	return outcome_set(ret, APPLY_CHANGED, 0, NULL);
}

int apply_function(Applier *a, const Action *x, ActionOutcome *ret) {
	switch (x->key) {
	case KEY_SRIOV_AUTOPROBE:
		return function_attr_apply(a, x, "sriov_drivers_autoprobe", x->value.flag, ret);
	case KEY_SRIOV_VFS:
		return function_attr_apply(a, x, "sriov_numvfs", x->value.number, ret);
	case KEY_SRIOV_ESWITCH:
		return apply_eswitch(a, x, ret);
	case KEY_SRIOV_VF:
		return apply_vf(a, x, ret);
	case KEY_PCI_MAX_READ_REQUEST:
		return apply_max_read_request(a, x, ret);
	case KEY_PCI_UPSTREAM_ACS:
		return apply_acs(a, x, ret);
	default:
		return outcome_set(ret, APPLY_UNSUPPORTED, 0, "not a function setting");
	}
}
