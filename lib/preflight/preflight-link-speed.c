/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Degraded links that stay UP (issue 46), the network family's rows of them:
 * - network.link-speed: an Ethernet port's netdev against the fastest link mode its port
 *   supports (ethtool's LINKMODES, on this host only: a fixture has no ethtool) and against the
 *   speed a profile expects (netdev.expect-speed);
 * - network.ib-link: an InfiniBand port's rate against its width (4X; 1X is three lanes lost)
 *   and the fastest speed its HCA does (by its PCI id: sysfs tells no port capability, and
 *   PortInfo's LinkSpeedSupported needs a MAD as root), and whether a subnet manager answered
 *   (sm_lid 0: none has).
 * The judgements take facts (preflight_link_speed_judge(), preflight_ib_link_judge()), so that
 * tests give them what no test host has. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ethtool-linkmodes.h"
#include "ethtool-pause-talk.h"
#include "fileio.h"
#include "netlink-io.h"
#include "preflight-internal.h"
#include "preflight.h"

int preflight_link_speed_judge(Preflight *p, const char *subject, const LinkSpeedFacts *f) {
	_cleanup_free_ char *fix = NULL;
	char lanes[32] = "";

	if (f->speed == 0)
		return 0; /* no link: the port-state and netdev rows say so */
	if (f->lanes > 0)
		snprintf(lanes, sizeof(lanes), " on %u lane%s", f->lanes, f->lanes == 1 ? "" : "s");
	if (asprintf(&fix,
		     "the cable or transceiver, and the switch port's configured speed; "
		     "ethtool %s shows what the port supports and what its partner advertises",
		     f->netdev) < 0)
		return -ENOMEM;
	if (f->expect > 0 && f->speed < f->expect)
		return preflight_add(p, "network.link-speed", subject, PREFLIGHT_FAIL, fix,
				     "%s runs at %u Mb/s%s, the profile expects %u Mb/s "
				     "(netdev.expect-speed)",
				     f->netdev, f->speed, lanes, f->expect);
	if (f->max_speed > 0 && f->speed < f->max_speed)
		return preflight_add(
			p, "network.link-speed", subject, PREFLIGHT_WARN, fix,
			"link degraded: %s runs at %u Mb/s%s, its port supports %u Mb/s "
			"(%s)",
			f->netdev, f->speed, lanes, f->max_speed, f->max_mode);
	if (f->max_speed > 0)
		return preflight_add(p, "network.link-speed", subject, PREFLIGHT_OK, NULL,
				     "%s runs at %u Mb/s%s, the fastest its port supports%s",
				     f->netdev, f->speed, lanes,
				     f->expect > 0 ? " (as the profile expects)" : "");
	if (f->expect > 0)
		return preflight_add(p, "network.link-speed", subject, PREFLIGHT_OK, NULL,
				     "%s runs at %u Mb/s%s, as the profile expects (%u Mb/s)",
				     f->netdev, f->speed, lanes, f->expect);
	return 0; /* nothing to judge it by (veth, virtio: no link modes) */
}

/* The speeds of an InfiniBand lane, slowest first, as the kernel's rate file names them
 * (ib_rate_to_mbps(), sysfs rate_show()). */
static const char *const ib_speeds[] = { "SDR", "DDR", "QDR", "FDR10", "FDR",
					 "EDR", "HDR", "NDR", "XDR" };

static int ib_speed_rank(const char *s) {
	for (size_t i = 0; i < ELEMENTSOF(ib_speeds); i++)
		if (streq(ib_speeds[i], s))
			return (int) i;
	return -1;
}

/* The fastest lane speed of Mellanox/NVIDIA HCAs by PCI device id (PFs and VFs). */
static const struct {
	const char *id, *model, *speed;
} ib_hcas[] = {
	{ "15b3:1013", "ConnectX-4", "EDR" },	 { "15b3:1014", "ConnectX-4 VF", "EDR" },
	{ "15b3:1017", "ConnectX-5", "EDR" },	 { "15b3:1018", "ConnectX-5 VF", "EDR" },
	{ "15b3:1019", "ConnectX-5 Ex", "EDR" }, { "15b3:101a", "ConnectX-5 Ex VF", "EDR" },
	{ "15b3:101b", "ConnectX-6", "HDR" },	 { "15b3:101c", "ConnectX-6 VF", "HDR" },
	{ "15b3:1021", "ConnectX-7", "NDR" },	 { "15b3:1023", "ConnectX-8", "XDR" },
	{ "15b3:a2d6", "BlueField-2", "HDR" },	 { "15b3:a2dc", "BlueField-3", "NDR" },
};

const char *ib_hca_speed(const char *pci_id, const char **ret_model) {
	for (size_t i = 0; pci_id && i < ELEMENTSOF(ib_hcas); i++)
		if (streq(ib_hcas[i].id, pci_id)) {
			if (ret_model)
				*ret_model = ib_hcas[i].model;
			return ib_hcas[i].speed;
		}
	return NULL;
}

int preflight_ib_link_judge(Preflight *p, const char *subject, const IbLinkFacts *f) {
	unsigned gbps = 0, width = 0;
	char speed[16] = "";
	const char *model = NULL, *best;
	int rank, best_rank;

	if (f->phys_state != PORT_PHYS_STATE_LINK_UP)
		return 0; /* no link: network.port-state says why */
	if (f->sm_lid == 0 || f->state == PORT_STATE_INIT || f->state == PORT_STATE_ARMED)
		return preflight_add(
			p, "network.ib-link", subject, PREFLIGHT_FAIL,
			"run a subnet manager on the fabric (opensm, or the switch's); "
			"sminfo shows whether one answers",
			"no subnet manager has answered (sm_lid 0x%x, port %s): the "
			"link is up but carries no traffic",
			f->sm_lid, strna(port_state_to_string(f->state)));
	/* "100 Gb/sec (4X EDR)" */
	if (!f->rate || sscanf(f->rate, "%u Gb/sec (%uX %15[A-Z0-9])", &gbps, &width, speed) != 3)
		return preflight_add(p, "network.ib-link", subject, PREFLIGHT_OK, NULL,
				     "rate '%s' cannot be judged; subnet manager at LID 0x%x",
				     strna(f->rate), f->sm_lid);
	if (width == 1)
		return preflight_add(
			p, "network.ib-link", subject, PREFLIGHT_WARN,
			"the cable or the switch port (a lane down): ibportstate, "
			"ibstat; reseat or replace the cable",
			"link degraded: %s, trained at 1X: three of its four lanes lost", f->rate);
	best = ib_hca_speed(f->pci_id, &model);
	rank = ib_speed_rank(speed);
	best_rank = best ? ib_speed_rank(best) : -1;
	if (rank >= 0 && best_rank > rank)
		return preflight_add(p, "network.ib-link", subject, PREFLIGHT_WARN,
				     "the cable (its rating), and the switch port's speed: "
				     "ibportstate, ibstat",
				     "link degraded: %s, the HCA (%s) does %s", f->rate, model,
				     best);
	return preflight_add(p, "network.ib-link", subject, PREFLIGHT_OK, NULL,
			     "%s%s%s%s; subnet manager at LID 0x%x", f->rate,
			     width == 2 ? ", a split port (2X)" : "",
			     best ? ", the fastest the HCA does: " : "", best ? best : "",
			     f->sm_lid);
}

/* "0x1" */
static unsigned hex_read(int rootfd, const char *path) {
	char buf[32];

	if (read_small_at(rootfd, path, buf, sizeof(buf)) < 0)
		return 0;
	return (unsigned) strtoul(buf, NULL, 16);
}

static int ib_link(Preflight *p, const PreflightInput *in, int rootfd, const HostDevice *d,
		   const HostPort *port, const char *subject) {
	char path[300], rate[64], vendor[16], device[16], id[32] = "";
	IbLinkFacts f = { .phys_state = port->phys_state, .state = port->state };

	snprintf(path, sizeof(path), "sys/class/infiniband/%s/ports/%u/rate", d->name, port->port);
	if (read_small_at(rootfd, path, rate, sizeof(rate)) >= 0)
		f.rate = rate;
	snprintf(path, sizeof(path), "sys/class/infiniband/%s/ports/%u/sm_lid", d->name,
		 port->port);
	f.sm_lid = hex_read(rootfd, path);
	if (d->pci) {
		snprintf(path, sizeof(path), "sys/bus/pci/devices/%s/vendor", d->pci);
		if (read_small_at(rootfd, path, vendor, sizeof(vendor)) >= 6) {
			snprintf(path, sizeof(path), "sys/bus/pci/devices/%s/device", d->pci);
			if (read_small_at(rootfd, path, device, sizeof(device)) >= 6)
				snprintf(id, sizeof(id), "%s:%s", vendor + 2, device + 2);
		}
	}
	f.pci_id = id[0] ? id : NULL;
	return preflight_ib_link_judge(p, subject, &f);
}

static int eth_link(Preflight *p, const PreflightInput *in, int rootfd, const HostDevice *d,
		    const HostPort *port, const char *subject) {
	_cleanup_(port_settings_done) PortSettings s = { 0 };
	LinkSpeedFacts f = { .netdev = port->netdev };
	char path[300], buf[32];
	long speed;
	int r;

	snprintf(path, sizeof(path), "sys/class/net/%s/speed", port->netdev);
	/* reading speed fails with EINVAL while the link is down; -1 is SPEED_UNKNOWN */
	if (read_small_at(rootfd, path, buf, sizeof(buf)) < 0 ||
	    (speed = strtol(buf, NULL, 10)) <= 0)
		return 0;
	f.speed = (uint32_t) speed;
	if (in->config) {
		PortFacts pf;

		host_port_facts(d, port, &pf);
		r = config_settings_for_port(in->config, &pf, &s, NULL);
		if (r < 0)
			return r;
		if (s.set & KEY_BIT(KEY_NETDEV_EXPECT_SPEED))
			f.expect = s.netdev_expect_speed;
	}
	/* the port's link modes: this host's netdevs only (a fixture's are stand-ins) */
	if (streq(in->root, "/")) {
		struct nl_sock *sk = NULL;
		uint16_t family;
		LinkModes l;

		if (netlink_open(NETLINK_GENERIC, &sk) >= 0 &&
		    ethtool_family_resolve(sk, &family, NULL) >= 0 &&
		    ethtool_linkmodes_read(sk, family, port->netdev, &l) >= 0 &&
		    l.n_supported > 0) {
			f.lanes = l.lanes;
			f.max_speed = l.max_speed;
			f.max_lanes = l.max_lanes;
			snprintf(f.max_mode, sizeof(f.max_mode), "%s", l.max_mode);
		}
		if (sk)
			nl_socket_free(sk);
	}
	return preflight_link_speed_judge(p, subject, &f);
}

int preflight_link_speed(Preflight *p, const PreflightInput *in, const HostDevice *d,
			 const HostPort *port, const char *subject) {
	_cleanup_close_ int rootfd = -EBADF;

	rootfd = open(in->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return 0;
	if (port->link_layer == LINK_LAYER_INFINIBAND)
		return ib_link(p, in, rootfd, d, port, subject);
	if (port->link_layer == LINK_LAYER_ETHERNET && port->netdev)
		return eth_link(p, in, rootfd, d, port, subject);
	return 0;
}

static int port_check(Preflight *p, const PreflightInput *in, const HostDevice *d,
		      const HostPort *port, void *userdata) {
	_cleanup_free_ char *subject = preflight_port_subject(d, port);

	if (!subject)
		return -ENOMEM;
	return preflight_link_speed(p, in, d, port, subject);
}

int preflight_links_speed(Preflight *p, const PreflightInput *in) {
	return preflight_each_port(p, in, port_check, NULL);
}
