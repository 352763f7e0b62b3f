/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The planner's function-level rules: sriov.* and pci.*, on the function behind a matched
 * netdev (a PCI function, or netdevsim's bus device), whether or not it has an RDMA device yet.
 * In the order they are applied: sriov.autoprobe (before VFs appear), sriov.vfs, sriov.eswitch,
 * sriov.vf, then pci.max-read-request and pci.upstream-acs. Actions of a function whose netdev
 * carries an RDMA port are that port's (its status rows); the others' subject is the function.
 *
 * Two guards keep what shares the device safe (DESIGN.md): a step that destroys VFs (a new
 * sriov.vfs through 0, an e-switch mode change) is refused while a VF is in use, naming each
 * one and what holds it; and pci.upstream-acs: off is refused on a port whose ACS still
 * isolates a function bound to vfio-pci (plan-acs.c). */
#include <linux/pci_regs.h>
#include <stdio.h>

#include "pci-config.h"
#include "plan-function.h"
#include "settings-format.h"
#include "strmap.h"
#include "strv.h"

int function_add(Plan *p, const PlanFunction *pf, Key key, const char *current, const char *desired,
		 const char *unsupported, const ActionValue *v) {
	return plan_add(p, &(ActionSpec){
				   .phase = PHASE_FUNCTION,
				   .key = key,
				   .port_name = pf->plink ? pf->plink->name : NULL,
				   .plink = pf->plink,
				   .netdev = pf->f->netdevs ? pf->f->netdevs[0] : NULL,
				   .ifindex = pf->f->ifindex,
				   .current = current,
				   .desired = desired,
				   .profile = pf->settings->origin[key],
				   .unsupported = unsupported,
				   .function = pf->handle,
				   .function_value = v,
			   });
}

static const char *netlink_reason(int error, const char *what, char *buf, size_t size) {
	if (error == -ENOTCONN)
		snprintf(buf, size, "%s: read over netlink, not under a fixture root", what);
	else if (error == -EMSGSIZE)
		snprintf(buf, size,
			 "%s: the kernel's list is shorter than its VF count (its 16-bit "
			 "length wraps past about 300 VFs)",
			 what);
	else if (error == -EOPNOTSUPP)
		snprintf(buf, size, "%s: the driver does not support it (EOPNOTSUPP)", what);
	else if (error == -EINPROGRESS)
		/* its driver may hold what a read needs until the write ends */
		snprintf(buf, size, "%s: not read while rdmad changes the function", what);
	else
		snprintf(buf, size, "%s: cannot be read (%s)", what, strerror(-error));
	return buf;
}

static int rule_autoprobe(Plan *p, const PlanFunction *pf) {
	const char *want = pf->settings->sriov_autoprobe ? "true" : "false";

	if (!pf->f->has_autoprobe)
		return function_add(p, pf, KEY_SRIOV_AUTOPROBE, NULL, want,
				    "the device has no sriov_drivers_autoprobe", NULL);
	if (pf->f->autoprobe == pf->settings->sriov_autoprobe)
		return 0;
	return function_add(p, pf, KEY_SRIOV_AUTOPROBE, pf->f->autoprobe ? "true" : "false", want,
			    NULL, &(ActionValue){ .flag = pf->settings->sriov_autoprobe });
}

/* Whether a is an address someone gave the netdev: the kernel's own IPv6 link-local one, on
 * every netdev that is up, is not. */
static bool address_assigned(const Address *a) {
	return !(a->family == AF_INET6 && a->addr[0] == 0xfe && (a->addr[1] & 0xc0) == 0x80);
}

/* Why VF vf is in use, in buf ("is bound to vfio-pci ..."), or NULL when it is not: bound to
 * vfio-pci (a VM or a user-space driver has it: removing it waits, uninterruptibly, until they
 * let go, vfio_unregister_group_dev()); its netdev in another network namespace (a pod's: the
 * function's net/ lists nothing here, host-pci.c); or its netdev up with an address. */
static const char *vf_holder(const HostState *h, const HostPciFunction *vf, char *buf,
			     size_t size) {
	if (streq_ptr(vf->driver, "vfio-pci"))
		return "is bound to vfio-pci (a VM's or a user-space driver's: removing it waits "
		       "for them)";
	if (vf->netdev_elsewhere) {
		snprintf(buf, size,
			 "has its netdev in another network namespace (a container's: bound to "
			 "%s, no netdev in this one)",
			 vf->driver);
		return buf;
	}
	STRV_FOREACH (name, vf->netdevs) {
		const HostNetdev *n = host_netdev_find(h, *name);

		if (!n || !n->up || !n->addresses_known)
			continue;
		for (size_t i = 0; i < n->n_addresses; i++) {
			_cleanup_free_ char *a = NULL;

			if (!address_assigned(&n->addresses[i]))
				continue;
			a = address_to_string(&n->addresses[i]);
			snprintf(buf, size, "has its netdev %s up with %s", *name,
				 a ? a : "an address");
			return buf;
		}
	}
	return NULL;
}

#define VF_HELD_NAMED 4
int vfs_in_use(const HostState *h, const HostFunction *f, const char *what, char **ret) {
	_cleanup_free_ char *text = NULL;
	size_t n = 0, size = 0;
	FILE *out;

	if (!streq(f->bus, "pci") || f->numvfs == 0) {
		*ret = NULL;
		return 0;
	}
	out = open_memstream(&text, &size);
	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_pci_functions; i++) {
		const HostPciFunction *vf = &h->pci_functions[i];
		const char *holder;
		char buf[160];

		if (!vf->virtual_function || !streq_ptr(vf->physfn, f->name))
			continue;
		holder = vf_holder(h, vf, buf, sizeof(buf));
		if (!holder)
			continue;
		if (n == 0)
			fprintf(out, "%s destroys the VFs in use: ", what);
		if (n < VF_HELD_NAMED)
			fprintf(out, "%sVF %s %s", n > 0 ? "; " : "", vf->address, holder);
		n++;
	}
	if (n > VF_HELD_NAMED)
		fprintf(out, "; and %zu more", n - VF_HELD_NAMED);
	if (n > 0)
		fputs(". Release them first (unbind vfio-pci, move the netdev back, take its "
		      "addresses away), then rdmactl reconcile",
		      out);
	if (fclose(out) != 0)
		return -ENOMEM;
	*ret = n > 0 ? TAKE_PTR(text) : NULL;
	return 0;
}

/* The kernel refuses to change a number of VFs into another (EBUSY, sriov_numvfs_store()): it
 * takes 0 first, which destroys the VFs that exist. That is its own action, so that the plan
 * says so before it happens; and it is refused while a VF is in use (vfs_in_use()), up or
 * down alike: 4 -> 8 destroys the 4 as 4 -> 2 does. */
static int rule_numvfs(Plan *p, PlanFunction *pf) {
	_cleanup_free_ char *held = NULL;
	unsigned want = pf->settings->sriov_vfs, have = pf->f->numvfs;
	char cur[16], des[96], why[192];
	int r;

	snprintf(des, sizeof(des), "%u", want);
	if (pf->f->totalvfs > 0 && want > pf->f->totalvfs) {
		snprintf(why, sizeof(why), "the device has at most %u VFs (sriov_totalvfs)",
			 pf->f->totalvfs);
		return function_add(p, pf, KEY_SRIOV_VFS, NULL, des, why, NULL);
	}
	if (pf->f->writing) {
		/* rdmad's own write, in progress: the file is not read until it ends (a read
		 * blocks meanwhile), so neither a difference nor convergence is known */
		snprintf(why, sizeof(why),
			 "in progress: %s; sriov_numvfs is not read until it ends", pf->f->writing);
		snprintf(cur, sizeof(cur), "%u so far", have);
		return function_add(p, pf, KEY_SRIOV_VFS, pf->f->numvfs_counted ? cur : NULL, des,
				    why, NULL);
	}
	if (have == want)
		return 0;
	snprintf(cur, sizeof(cur), "%u", have);
	r = vfs_in_use(pf->host, pf->f, have > 0 && want > 0 ? "going through 0" : "going to 0",
		       &held);
	if (r < 0)
		return r;
	if (held)
		return function_add(p, pf, KEY_SRIOV_VFS, cur, des, held, NULL);
	/* The kernel configures VFs through the PF's driver (sriov_numvfs_store()) */
	if (streq(pf->f->bus, "pci") && !pf->f->driver)
		return function_add(p, pf, KEY_SRIOV_VFS, cur, des,
				    "no driver is bound to the PF: the kernel makes VFs through it",
				    NULL);
	pf->vfs_made = true;
	if (have > 0 && want > 0) {
		snprintf(des, sizeof(des), "0 (first: destroys the %u VFs, to make %u)", have,
			 want);
		r = function_add(p, pf, KEY_SRIOV_VFS, cur, des, NULL,
				 &(ActionValue){ .number = 0 });
		if (r < 0)
			return r;
		snprintf(des, sizeof(des), "%u", want);
		return function_add(p, pf, KEY_SRIOV_VFS, "0", des, NULL,
				    &(ActionValue){ .number = want });
	}
	return function_add(p, pf, KEY_SRIOV_VFS, cur, des, NULL, &(ActionValue){ .number = want });
}

/* A mode change flushes the e-switch's FDB and, from switchdev, deletes the VFs'
 * representors: refused while a VF is in use, as a new count is. */
static int rule_eswitch(Plan *p, const PlanFunction *pf) {
	_cleanup_free_ char *held = NULL;
	const char *want = eswitch_mode_to_string(pf->settings->sriov_eswitch);
	const char *have;
	char why[160];
	int r;

	if (!pf->f->eswitch_observed)
		return function_add(p, pf, KEY_SRIOV_ESWITCH, NULL, want,
				    netlink_reason(pf->f->eswitch_error,
						   "the e-switch mode (devlink)", why, sizeof(why)),
				    NULL);
	if (pf->f->eswitch == pf->settings->sriov_eswitch)
		return 0;
	have = eswitch_mode_to_string(pf->f->eswitch);
	r = vfs_in_use(pf->host, pf->f,
		       "the e-switch mode change (it flushes the FDB, and from switchdev deletes "
		       "the representors)",
		       &held);
	if (r < 0)
		return r;
	if (held)
		return function_add(p, pf, KEY_SRIOV_ESWITCH, have, want, held, NULL);
	return function_add(p, pf, KEY_SRIOV_ESWITCH, have, want, NULL,
			    &(ActionValue){ .eswitch = pf->settings->sriov_eswitch });
}

static const SriovVf *vf_find(const HostFunction *f, uint32_t index) {
	for (size_t i = 0; i < f->n_vfs; i++)
		if (f->vfs[i].index == index)
			return &f->vfs[i];
	return NULL;
}

uint32_t sriov_vf_diff(const SriovVf *want, const SriovVf *have) {
	uint32_t d = 0;

	if ((want->set & VF_BIT(VF_MAC)) && memcmp(want->mac, have->mac, 6) != 0)
		d |= VF_BIT(VF_MAC);
	if ((want->set & VF_BIT(VF_VLAN)) && want->vlan != have->vlan)
		d |= VF_BIT(VF_VLAN);
	if ((want->set & VF_BIT(VF_QOS)) && want->qos != have->qos)
		d |= VF_BIT(VF_QOS);
	/* a VF without a VLAN has no protocol to compare */
	if ((want->set & VF_BIT(VF_VLAN_PROTO)) && want->vlan != 0 &&
	    want->vlan_proto != have->vlan_proto)
		d |= VF_BIT(VF_VLAN_PROTO);
	if ((want->set & VF_BIT(VF_TRUST)) && want->trust != have->trust)
		d |= VF_BIT(VF_TRUST);
	if ((want->set & VF_BIT(VF_SPOOF_CHECK)) && want->spoof_check != have->spoof_check)
		d |= VF_BIT(VF_SPOOF_CHECK);
	if ((want->set & VF_BIT(VF_LINK_STATE)) && want->link_state != have->link_state)
		d |= VF_BIT(VF_LINK_STATE);
	if ((want->set & VF_BIT(VF_MAX_RATE)) && want->max_rate != have->max_rate)
		d |= VF_BIT(VF_MAX_RATE);
	if ((want->set & VF_BIT(VF_MIN_RATE)) && want->min_rate != have->min_rate)
		d |= VF_BIT(VF_MIN_RATE);
	if ((want->set & VF_BIT(VF_NODE_GUID)) && want->node_guid != have->node_guid)
		d |= VF_BIT(VF_NODE_GUID);
	if ((want->set & VF_BIT(VF_PORT_GUID)) && want->port_guid != have->port_guid)
		d |= VF_BIT(VF_PORT_GUID);
	return d;
}

SriovVf sriov_vf_write(const SriovVf *want, const SriovVf *have, uint32_t diff) {
	const uint32_t vlan = VF_BIT(VF_VLAN) | VF_BIT(VF_QOS) | VF_BIT(VF_VLAN_PROTO),
		       rate = VF_BIT(VF_MAX_RATE) | VF_BIT(VF_MIN_RATE);
	SriovVf w = *want;

	w.set = diff;
	if (diff & vlan) {
		w.set |= vlan;
		if (!(want->set & VF_BIT(VF_QOS)))
			w.qos = have->qos;
		if (!(want->set & VF_BIT(VF_VLAN_PROTO)))
			w.vlan_proto = have->vlan_proto ? have->vlan_proto : 0x8100;
		if (!(want->set & VF_BIT(VF_VLAN)))
			w.vlan = have->vlan;
	}
	if (diff & rate) {
		w.set |= rate;
		if (!(want->set & VF_BIT(VF_MAX_RATE)))
			w.max_rate = have->max_rate;
		if (!(want->set & VF_BIT(VF_MIN_RATE)))
			w.min_rate = have->min_rate;
	}
	return w;
}

/* VF index is made by the sriov.vfs this plan writes: a new one, or every one when the count
 * goes through 0 (the VFs that exist are destroyed and made again). */
static bool vf_created(const PlanFunction *pf, uint32_t index) {
	return pf->vfs_made && index < pf->settings->sriov_vfs;
}

/* Each action carries the declared fields to write (its set); the apply backend completes the
 * ones the kernel takes with them (sriov_vf_write()) from what the kernel reports then: the VF
 * may not exist yet, or have changed since this plan looked. */
static int rule_vf(Plan *p, const PlanFunction *pf) {
	const PortSettings *s = pf->settings;
	char why[192];
	int r;

	for (size_t i = 0; i < s->n_sriov_vf; i++) {
		const SriovVf *want = &s->sriov_vf[i], *have;
		_cleanup_free_ char *des = NULL, *cur = NULL;
		uint32_t diff, unreported;
		const char *reason = NULL;
		SriovVf w;

		des = setting_format_vf(want, want->set);
		if (!des)
			return -ENOMEM;
		have = vf_find(pf->f, want->index);
		if (!pf->f->vfs_observed)
			reason = netlink_reason(pf->f->vfs_error, "the VFs' settings (rtnetlink)",
						why, sizeof(why));
		else if (vf_created(pf, want->index)) {
			/* made by this plan's sriov.vfs, before its settings are written: what
			 * it starts with is known only then */
			r = function_add(p, pf, KEY_SRIOV_VF, NULL, des, NULL,
					 &(ActionValue){ .vf = *want });
			if (r < 0)
				return r;
			continue;
		} else if (!have) {
			snprintf(why, sizeof(why), "VF %u does not exist (sriov_numvfs is %u)",
				 want->index, pf->f->numvfs);
			reason = why;
		} else if ((unreported = want->set & ~have->set &
					 ~(VF_BIT(VF_VLAN_PROTO) | VF_BIT(VF_QOS)))) {
			/* a field the driver leaves out of its report (spoof check or trust it
			 * answers -1 for, GUIDs of an Ethernet VF) cannot be known converged */
			_cleanup_free_ char *f = setting_format_vf(want, unreported);

			snprintf(why, sizeof(why), "the driver does not report %s for its VFs",
				 f ? f : "some fields");
			reason = why;
		}
		if (reason) {
			r = function_add(p, pf, KEY_SRIOV_VF, NULL, des, reason, NULL);
			if (r < 0)
				return r;
			continue;
		}
		diff = sriov_vf_diff(want, have);
		if (diff == 0)
			continue;
		free(des);
		des = setting_format_vf(want, diff);
		cur = setting_format_vf(have, diff);
		if (!des || !cur)
			return -ENOMEM;
		w = sriov_vf_write(want, have, diff);
		if (w.max_rate && w.min_rate > w.max_rate) {
			/* the kernel takes both at once: the undeclared one is the VF's now */
			snprintf(why, sizeof(why),
				 "max-rate %u is below VF %u's min-rate %u: declare min-rate too",
				 w.max_rate, w.index, w.min_rate);
			r = function_add(p, pf, KEY_SRIOV_VF, cur, des, why, NULL);
		} else {
			w = *want;
			w.set = diff;
			r = function_add(p, pf, KEY_SRIOV_VF, cur, des, NULL,
					 &(ActionValue){ .vf = w });
		}
		if (r < 0)
			return r;
	}
	return 0;
}

const char *pcie_reason(int error, char *buf, size_t size) {
	if (error == -EPERM || error == -EACCES)
		return "its config space past 64 bytes reads only with CAP_SYS_ADMIN";
	snprintf(buf, size, "its config space cannot be read (%s)", strerror(-error));
	return buf;
}

static int rule_max_read_request(Plan *p, const PlanFunction *pf) {
	unsigned want = pf->settings->pci_max_read_request;
	char cur[16], des[16], why[128];

	snprintf(des, sizeof(des), "%u", want);
	if (!streq(pf->f->bus, "pci"))
		return function_add(p, pf, KEY_PCI_MAX_READ_REQUEST, NULL, des,
				    "not a PCI function", NULL);
	if (pf->f->virtual_function)
		return function_add(p, pf, KEY_PCI_MAX_READ_REQUEST, NULL, des,
				    "a VF: its Max_Read_Request_Size is its PF's (the field is "
				    "reserved in a VF)",
				    NULL);
	if (!pf->f->pcie_observed)
		return function_add(p, pf, KEY_PCI_MAX_READ_REQUEST, NULL, des,
				    pcie_reason(pf->f->pcie_error, why, sizeof(why)), NULL);
	if (pf->f->max_read_request == 0)
		return function_add(p, pf, KEY_PCI_MAX_READ_REQUEST, NULL, des,
				    "not a PCI Express function (no PCIe capability)", NULL);
	if (pf->f->max_read_request == want)
		return 0;
	snprintf(cur, sizeof(cur), "%u", pf->f->max_read_request);
	return function_add(p, pf, KEY_PCI_MAX_READ_REQUEST, cur, des, NULL,
			    &(ActionValue){ .number = want });
}

/* The RDMA ports by their netdev and their device's PCI address ("" for none): built once per
 * plan, so that finding a function's port is one lookup, not a scan of every port (a host with
 * 4,096 VF ports and sriov.* declared would scan them 4,096 times). Value: device << 8 | port
 * index (a device has at most 255 ports). */
static int port_key(const char *netdev, const char *pci, char buf[static 64]) {
	int n = snprintf(buf, 64, "%s%c%s", netdev, 0, pci ? pci : "");

	return n > 0 && n < 64 ? n : -ENAMETOOLONG;
}

static int port_index_build(const HostState *h, StrMap *ret) {
	for (size_t i = 0; i < h->n_devices; i++)
		for (size_t k = 0; k < h->devices[i].n_ports && k < 256; k++) {
			const HostPort *port = &h->devices[i].ports[k];
			char key[64];
			int n, r;

			if (!port->netdev ||
			    (n = port_key(port->netdev, h->devices[i].pci, key)) < 0)
				continue;
			r = strmap_add(ret, key, (size_t) n, i << 8 | k, NULL);
			if (r < 0 && r != -EEXIST)
				return r;
		}
	return 0;
}

/* The port on netdev nd of a device at pci, through the index. */
static const HostPort *port_find(const HostState *h, const StrMap *index, const char *nd,
				 const char *pci, const HostDevice **ret_device) {
	char key[64];
	size_t v;
	int n;

	n = port_key(nd, pci, key);
	if (n < 0 || !strmap_get(index, key, (size_t) n, &v))
		return NULL;
	*ret_device = &h->devices[v >> 8];
	return &h->devices[v >> 8].ports[v & 0xff];
}

/* Whether the link of a soft device (rxe, siw) on a PCI function's netdev shows the function's
 * keys in its status rows: the profiles its own facts match (no PCI address, its driver, its
 * name) declare them all. Then the function's actions are that port's, so that its rows carry
 * the plan's outcome; the function's own facts (its PCI address and driver) still pick the
 * values, so where a profile matching the function by pci: declares another value than one
 * matching the soft device, the row's desired value and the action's can differ. */
static int soft_port_shows(const Config *c, const HostDevice *dev, const HostPort *port,
			   KeySet keys) {
	PortFacts facts;
	PortSettings s;
	int r;

	host_port_facts(dev, port, &facts);
	r = config_settings_for_port(c, &facts, &s, NULL);
	if (r < 0)
		return r;
	r = r > 0 && (s.set & keys) == keys;
	port_settings_done(&s);
	return r;
}

/* The settings of the first of the function's netdevs a profile with function keys matches:
 * with the facts of the RDMA port on it, where one is, so that match.device works too (a soft
 * device's port carries the actions when it shows them, soft_port_shows()). */
static int function_settings(const Config *c, const HostState *h, const StrMap *index,
			     const HostFunction *f, PortSettings *ret, PlanPort *ret_port) {
	STRV_FOREACH (nd, f->netdevs) {
		const HostDevice *dev = NULL;
		const HostPort *port, *soft = NULL;
		PortFacts facts = {
			.driver = f->driver,
			.netdev = *nd,
			.pci = streq(f->bus, "pci") ? f->name : NULL,
		};
		PortSettings s;
		int r;

		port = port_find(h, index, *nd, facts.pci, &dev);
		if (port)
			host_port_facts(dev, port, &facts);
		else if (facts.pci)
			soft = port_find(h, index, *nd, NULL, &dev);
		r = config_settings_for_port(c, &facts, &s, NULL);
		if (r < 0)
			return r;
		if (r == 0 || !(s.set & KEYS_FUNCTION)) {
			port_settings_done(&s);
			continue;
		}
		if (soft) {
			r = soft_port_shows(c, dev, soft, s.set & KEYS_FUNCTION);
			if (r < 0) {
				port_settings_done(&s);
				return r;
			}
			if (r > 0)
				port = soft;
			else
				dev = NULL;
		}
		*ret = s;
		if (ret_port) {
			*ret_port =
				(PlanPort){ .config = c, .host = h, .device = dev, .port = port };
			if (port) {
				ret_port->netdev = host_netdev_find(h, *nd);
				snprintf(ret_port->name, sizeof(ret_port->name), "%s/%u", dev->name,
					 port->port);
			}
		}
		return 1;
	}
	return 0;
}

int plan_function_settings(const Config *c, const HostState *h, const HostFunction *f,
			   PortSettings *ret) {
	_cleanup_(strmap_done) StrMap index = { 0 };
	int r;

	r = port_index_build(h, &index);
	return r < 0 ? r : function_settings(c, h, &index, f, ret, NULL);
}

static int plan_function(Plan *p, const Config *c, const HostState *h, const StrMap *index,
			 const AcsContext *acs, const HostFunction *f) {
	PortSettings s;
	PlanPort l;
	PlanFunction pf = { .host = h, .f = f, .acs = acs };
	const KeySet sriov = KEY_BIT(KEY_SRIOV_VFS) | KEY_BIT(KEY_SRIOV_AUTOPROBE) |
			     KEY_BIT(KEY_SRIOV_ESWITCH) | KEY_BIT(KEY_SRIOV_VF);
	int r;

	r = function_settings(c, h, index, f, &s, &l);
	if (r <= 0)
		return r;
	l.settings = &s;
	pf.settings = &s;
	pf.plink = l.port ? &l : NULL;
	snprintf(pf.handle, sizeof(pf.handle), "%s/%s", f->bus, f->name);

	if ((s.set & sriov) && (f->virtual_function || !f->has_sriov)) {
		/* the VFs of a profile matching PFs and VFs alike, or a function without SR-IOV */
		const char *why = f->virtual_function
					  ? "a virtual function: SR-IOV settings act on its PF "
					    "(match the PFs by pci or netdev)"
					  : "no SR-IOV here (no sriov_numvfs: not a PF, or SR-IOV "
					    "is off in the firmware)";

		for (Key k = KEY_SRIOV_VFS; k <= KEY_SRIOV_VF && r >= 0; k++)
			if (s.set & KEY_BIT(k)) {
				_cleanup_free_ char *des = NULL;

				r = port_setting_format(&s, k, &des);
				if (r >= 0)
					r = function_add(p, &pf, k, NULL, des, why, NULL);
			}
	} else {
		if (r >= 0 && (s.set & KEY_BIT(KEY_SRIOV_AUTOPROBE)))
			r = rule_autoprobe(p, &pf);
		if (r >= 0 && (s.set & KEY_BIT(KEY_SRIOV_VFS)))
			r = rule_numvfs(p, &pf);
		if (r >= 0 && (s.set & KEY_BIT(KEY_SRIOV_ESWITCH)))
			r = rule_eswitch(p, &pf);
		if (r >= 0 && (s.set & KEY_BIT(KEY_SRIOV_VF)))
			r = rule_vf(p, &pf);
	}
	if (r >= 0 && (s.set & KEY_BIT(KEY_PCI_MAX_READ_REQUEST)))
		r = rule_max_read_request(p, &pf);
	if (r >= 0 && (s.set & KEY_BIT(KEY_PCI_UPSTREAM_ACS)))
		r = rule_upstream_acs(p, &pf);
	/* last: a reload re-creates the function's ports */
	if (r >= 0 && (s.set & KEY_BIT(KEY_DEVLINK_PARAMS)))
		r = rule_devlink(p, &pf);
	port_settings_done(&s);
	return r < 0 ? r : 0;
}

static void acs_context_done(AcsContext *acs) {
	free(acs->modes);
	strv_free(acs->off_ports);
}

/* What each function declares for pci.upstream-acs, and the ports the offs clear. */
static int acs_context_build(const Config *c, const HostState *h, const StrMap *index,
			     AcsContext *ret) {
	_cleanup_(acs_context_done) AcsContext acs = { 0 };
	int r;

	acs.modes = calloc(h->n_functions, sizeof(PciAcs));
	acs.off_ports = calloc(1, sizeof(char *));
	if (!acs.modes || !acs.off_ports)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_functions; i++) {
		PortSettings s;

		r = function_settings(c, h, index, &h->functions[i], &s, NULL);
		if (r < 0)
			return r;
		if (r > 0 && (s.set & KEY_BIT(KEY_PCI_UPSTREAM_ACS)))
			acs.modes[i] = s.pci_upstream_acs;
		if (r > 0)
			port_settings_done(&s);
	}
	for (size_t i = 0; i < h->n_functions; i++) {
		_cleanup_strv_free_ char **route = NULL;
		size_t n;

		if (acs.modes[i] != PCI_ACS_OFF)
			continue;
		r = acs_route(h, &acs, i, PCI_ACS_OFF, &route, &n);
		if (r >= 0)
			r = strv_extend_strv(&acs.off_ports, route, true);
		if (r < 0)
			return r;
	}
	*ret = acs;
	acs = (AcsContext){ 0 };
	return 0;
}

int plan_functions(Plan *p, const Config *c, const HostState *h) {
	_cleanup_(strmap_done) StrMap index = { 0 };
	_cleanup_(acs_context_done) AcsContext acs = { 0 };
	int r;

	if (h->n_functions == 0)
		return 0;
	r = port_index_build(h, &index);
	if (r >= 0 && config_declares(c, KEY_PCI_UPSTREAM_ACS))
		r = acs_context_build(c, h, &index, &acs);
	for (size_t i = 0; r >= 0 && i < h->n_functions; i++)
		r = plan_function(p, c, h, &index, acs.modes ? &acs : NULL, &h->functions[i]);
	return r < 0 ? r : 0;
}
