/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The network checks, per RDMA port: its state, its netdev, the RoCE MTU the netdev's MTU gives,
 * a GID for each address and the one jobs should use, the rdma_cm RoCE mode. They only read:
 * sysfs and configfs through the HostState. Multi-rail (netdevs sharing a subnet) is
 * preflight-multirail.c, whether a Soft-RoCE link's packets leave preflight-sends.c. */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "fileio.h"
#include "gid.h"
#include "preflight-internal.h"
#include "preflight.h"
#include "strv.h"

/* The bytes of headers a driver takes from the netdev MTU to get the RoCE (IB) MTU. Most
 * RoCE drivers (mlx4, mlx5, bnxt_re, hns, qedr) use the kernel's iboe_get_mtu()
 * (include/rdma/ib_addr.h): GRH 40 + UDP 8 + BTH 12 + XRC ETH 4 + AtomicETH 28 + ICRC 4
 * (include/rdma/ib_pack.h). rdma_rxe takes RXE_MAX_HDR_LENGTH (80, rxe_param.h
 * eth_mtu_int_to_enum()); irdma and erdma take none (ib_mtu_int_to_enum(netdev->mtu)). */
#define IBOE_HEADERS 96u

static unsigned roce_headers(const HostDevice *d) {
	if (streq_ptr(d->driver, "rdma_rxe"))
		return 80;
	if (streq_ptr(d->driver, "irdma") || streq_ptr(d->driver, "erdma"))
		return 0;
	return IBOE_HEADERS;
}

/* The largest IB MTU (256..4096) not above netdev_mtu - headers; 0 if none. */
static unsigned roce_mtu(unsigned netdev_mtu, unsigned headers) {
	for (unsigned m = 4096; m >= 256; m /= 2)
		if (netdev_mtu >= m + headers)
			return m;
	return 0;
}

/* The port's declared settings (nothing declared without a Config). */
static int port_settings(const PreflightInput *in, const HostDevice *d, const HostPort *port,
			 PortSettings *ret) {
	PortFacts f;

	if (!in->config) {
		*ret = (PortSettings){ 0 };
		return 0;
	}
	host_port_facts(d, port, &f);
	return config_settings_for_port(in->config, &f, ret, NULL);
}

static int check_port_state(Preflight *p, const char *subject, const HostPort *port,
			    const HostNetdev *n) {
	const char *state = strna(port_state_to_string(port->state));
	const char *phys = strna(port_phys_state_to_string(port->phys_state));
	_cleanup_free_ char *fix = NULL;
	const char *why = "";

	if (port->state == PORT_STATE_ACTIVE)
		return preflight_add(p, "network.port-state", subject, PREFLIGHT_OK, NULL,
				     "port is ACTIVE (physical state %s)", phys);
	if (n && !n->up) {
		why = ": its netdev is down";
		if (asprintf(&fix, "ip link set dev %s up", n->name) < 0)
			return -ENOMEM;
	} else if (port->link_layer == LINK_LAYER_INFINIBAND &&
		   port->phys_state == PORT_PHYS_STATE_LINK_UP &&
		   (port->state == PORT_STATE_INIT || port->state == PORT_STATE_ARMED)) {
		why = ": the link is up but no subnet manager has brought the port to ACTIVE";
		fix = strdup("run a subnet manager on the fabric (opensm, or the switch's)");
	} else if (port->phys_state == PORT_PHYS_STATE_POLLING) {
		why = ": no link partner";
		fix = strdup("check the cable, the transceiver and the switch port");
	} else if (port->phys_state == PORT_PHYS_STATE_DISABLED) {
		why = ": the port is disabled";
		fix = strdup("enable the port (ibportstate, or the NIC's port configuration)");
	} else
		fix = strdup("check the cable and the switch port; dmesg for the driver");
	if (!fix)
		return -ENOMEM;
	return preflight_add(p, "network.port-state", subject, PREFLIGHT_FAIL, fix,
			     "port is %s (physical state %s)%s", state, phys, why);
}

static int check_netdev(Preflight *p, const char *subject, const HostPort *port,
			const HostNetdev *n) {
	_cleanup_free_ char *fix = NULL;
	const char *oper;

	if (!port->netdev)
		return 0; /* InfiniBand without IPoIB: nothing to say */
	if (!n)
		return preflight_add(p, "network.netdev", subject, PREFLIGHT_FAIL,
				     "dmesg (the driver has not created it, or it was removed)",
				     "netdev %s is not in /sys/class/net", port->netdev);
	oper = n->operstate ? n->operstate : "unknown";
	if (!n->up) {
		if (asprintf(&fix, "ip link set dev %s up (or the profile key netdev: {up: true})",
			     n->name) < 0)
			return -ENOMEM;
		return preflight_add(p, "network.netdev", subject, PREFLIGHT_FAIL, fix,
				     "%s is administratively down (operstate %s)", n->name, oper);
	}
	if (streq(oper, "up"))
		return preflight_add(p, "network.netdev", subject, PREFLIGHT_OK, NULL,
				     "%s is up (operstate up)", n->name);
	if (streq(oper, "unknown"))
		return preflight_add(p, "network.netdev", subject, PREFLIGHT_OK, NULL,
				     "%s is up (its driver reports no operstate)", n->name);
	if (streq(oper, "lowerlayerdown")) {
		if (asprintf(&fix, "bring up the netdev below %s (ip -d link show dev %s)", n->name,
			     n->name) < 0)
			return -ENOMEM;
	} else if (asprintf(&fix, "check the cable, the switch port or the peer of %s", n->name) <
		   0)
		return -ENOMEM;
	return preflight_add(p, "network.netdev", subject, PREFLIGHT_FAIL, fix,
			     "%s is up but its operstate is %s (no carrier)", n->name, oper);
}

static const VerbsPort *verbs_port_find(const VerbsDevice *v, uint32_t port) {
	for (size_t i = 0; v && i < v->n_ports; i++)
		if (v->ports[i].port == port)
			return &v->ports[i];
	return NULL;
}

static int check_mtu(Preflight *p, const PreflightInput *in, const char *subject,
		     const HostDevice *d, const HostPort *port, const HostNetdev *n) {
	unsigned headers = roce_headers(d), max = 4096, expect, best, need;
	const VerbsDevice *vd = NULL;
	const VerbsPort *vp = NULL;
	char active[160], fix[64];
	int r;

	if (!n || n->mtu == 0)
		return 0; /* network.netdev says why */
	if (in->verbs && !in->verbs->error) {
		vd = verbs_facts_find(in->verbs, d->name);
		vp = vd && !vd->error ? verbs_port_find(vd, port->port) : NULL;
	}
	if (vp && vp->max_mtu >= 256)
		max = vp->max_mtu;
	expect = roce_mtu(n->mtu, headers);
	if (expect > max)
		expect = max;
	best = max;
	need = best + headers;

	if (expect == 0)
		return preflight_add(p, "network.mtu", subject, PREFLIGHT_FAIL,
				     "netdev: {mtu: 1500}",
				     "netdev MTU %u of %s leaves no RoCE MTU (256 needs %u)",
				     n->mtu, n->name, 256 + headers);

	if (!in->verbs)
		snprintf(active, sizeof(active),
			 "the port's active MTU could not be read (no libibverbs facts)");
	else if (in->verbs->error)
		snprintf(active, sizeof(active),
			 "the port's active MTU could not be read (libibverbs: %s)",
			 strerror(-in->verbs->error));
	else if (!vd)
		snprintf(active, sizeof(active),
			 "the port's active MTU could not be read (libibverbs does not list %s)",
			 d->name);
	else if (vd->error)
		snprintf(active, sizeof(active),
			 "the port's active MTU could not be read (libibverbs: %s)",
			 strerror(-vd->error));
	else if (!vp)
		snprintf(active, sizeof(active),
			 "the port's active MTU could not be read (libibverbs has no port %" PRIu32
			 ")",
			 port->port);
	else if (vp->active_mtu != expect) {
		_cleanup_free_ char *again = NULL;

		if (streq_ptr(d->driver, "rdma_rxe"))
			r = asprintf(&again,
				     "rdma link delete %s; rdma link add %s type rxe netdev %s",
				     d->name, d->name, n->name);
		else
			r = asprintf(&again,
				     "reload the driver of %s (it reads the MTU when the "
				     "port comes up); dmesg",
				     d->name);
		if (r < 0)
			return -ENOMEM;
		return preflight_add(p, "network.mtu", subject, PREFLIGHT_WARN, again,
				     "active MTU %u, but netdev MTU %u of %s gives %u (%u bytes of "
				     "RoCE headers): the driver did not follow the netdev's MTU",
				     vp->active_mtu, n->mtu, n->name, expect, headers);
	} else
		snprintf(active, sizeof(active), "active MTU %u", vp->active_mtu);

	/* A jumbo MTU that stops short of the next step carries its extra bytes for nothing. */
	if (n->mtu > 1500 && expect < best) {
		snprintf(fix, sizeof(fix), "netdev: {mtu: %u}", need);
		return preflight_add(
			p, "network.mtu", subject, PREFLIGHT_WARN, fix,
			"%s; netdev MTU %u of %s gives RoCE MTU %u (%u bytes of "
			"RoCE headers): %u would give %u (the switch ports must carry it "
			"too)",
			active, n->mtu, n->name, expect, headers, need, best);
	}
	return preflight_add(p, "network.mtu", subject, PREFLIGHT_OK, NULL,
			     "%s; netdev MTU %u of %s gives RoCE MTU %u%s", active, n->mtu, n->name,
			     expect, expect < best ? " (jumbo frames would give more)" : "");
}

static bool gid_of_address(const HostPort *port, const Address *a) {
	uint8_t raw[16] = { 0 };

	if (a->family == AF_INET) {
		raw[10] = raw[11] = 0xff;
		memcpy(raw + 12, a->addr, 4);
	} else
		memcpy(raw, a->addr, 16);
	for (size_t i = 0; i < port->n_gids; i++)
		if (gid_satisfies(&port->gids[i], a->family == AF_INET
							  ? GID_REQUIREMENT_ROCE_V2_IPV4
							  : GID_REQUIREMENT_ROCE_V2_IPV6) &&
		    memcmp(port->gids[i].raw, raw, 16) == 0)
			return true;
	return false;
}

/* A RoCE v2 GID for each IPv4 and global IPv6 address of the netdev. */
static int check_gids(Preflight *p, const char *subject, const HostPort *port,
		      const HostNetdev *n) {
	_cleanup_strv_free_ char **missing = NULL;
	_cleanup_free_ char *list = NULL, *fix = NULL;
	size_t total = 0;
	int r;

	if (!n)
		return 0;
	if (!n->addresses_known)
		return preflight_add(
			p, "network.gid", subject, PREFLIGHT_WARN,
			"run where the netdev is (its network namespace)",
			"the addresses of %s could not be read (rtnetlink: not in this "
			"network namespace)",
			n->name);
	for (size_t i = 0; i < n->n_addresses; i++) {
		const Address *a = &n->addresses[i];
		char buf[INET6_ADDRSTRLEN];

		if (address_link_local(a))
			continue;
		total++;
		if (gid_of_address(port, a))
			continue;
		r = strv_extend(&missing, address_ntop(a, buf, sizeof(buf)));
		if (r < 0)
			return r;
	}
	if (total == 0)
		return preflight_add(p, "network.gid", subject, PREFLIGHT_OK, NULL,
				     "%s has no IPv4 or global IPv6 address to need a GID for",
				     n->name);
	if (!missing)
		return total == 1
			       ? preflight_add(p, "network.gid", subject, PREFLIGHT_OK, NULL,
					       "a RoCE v2 GID for the address of %s", n->name)
			       : preflight_add(p, "network.gid", subject, PREFLIGHT_OK, NULL,
					       "a RoCE v2 GID for each of the %zu addresses of %s",
					       total, n->name);
	list = strv_join(missing, ", ");
	if (!list)
		return -ENOMEM;
	if (asprintf(&fix,
		     "ip address del ADDRESS dev %s && ip address add ADDRESS dev %s (the kernel "
		     "adds GIDs on address events); dmesg",
		     n->name, n->name) < 0)
		return -ENOMEM;
	return preflight_add(p, "network.gid", subject, PREFLIGHT_FAIL, fix,
			     "no RoCE v2 GID for %s (of the %zu address%s of %s)", list, total,
			     total == 1 ? "" : "es", n->name);
}

/* The GID a job should use: the rule `rdmactl gid` follows (gid_preferred(), RoCE v2, IPv4
 * else global IPv6). */
static int check_gid_index(Preflight *p, const char *subject, const HostPort *port) {
	char text[GID_STRING_MAX + 8], fix[128];
	const Gid *g;

	if (gid_preferred(port, GID_TYPE_ROCE_V2, _GID_FAMILY_INVALID, &g) < 0) {
		snprintf(fix, sizeof(fix),
			 "ip address add ADDRESS/PREFIX dev %s (or the profile key netdev: "
			 "{addresses: [...]})",
			 port->netdev ? port->netdev : "NETDEV");
		return preflight_add(p, "network.gid-index", subject, PREFLIGHT_FAIL, fix,
				     "no RoCE v2 GID with an IPv4 or global IPv6 address: RoCE v2 "
				     "jobs have no GID to use");
	}
	if (gid_to_ipv4(g->raw, text + 7, sizeof(text) - 7))
		memcpy(text, "::ffff:", 7);
	else
		gid_format(g->raw, text);
	return preflight_add(p, "network.gid-index", subject, PREFLIGHT_OK, NULL,
			     "use GID index %" PRIu32 " (%s): NCCL_IB_GID_INDEX=%" PRIu32, g->index,
			     text, g->index);
}

static bool port_has_v2_gid(const HostPort *port) {
	for (size_t i = 0; i < port->n_gids; i++)
		if (port->gids[i].type == GID_TYPE_ROCE_V2)
			return true;
	return false;
}

/* rdma_cm's default RoCE mode for the port (configfs default_roce_mode). Without a configfs
 * directory it is the kernel's: RoCE v2 where the port supports it, else the first type it
 * supports (cma_add_one(), CMA_PREFERRED_ROCE_GID_TYPE). */
static int check_roce_mode(Preflight *p, const PreflightInput *in, const char *subject,
			   const HostDevice *d, const HostPort *port) {
	_cleanup_(port_settings_done) PortSettings s = { 0 };
	bool declared;
	int r;

	r = port_settings(in, d, port, &s);
	if (r < 0)
		return r;
	declared = s.set & KEY_BIT(KEY_ROCE_MODE);

	if (!port->has_roce_mode) {
		const char *where =
			in->host->configfs_absent ? "this kernel has no configfs, so no rdma_cm "
						    "directory to set it in"
			: !in->host->configfs_mounted
				? "configfs rdma_cm is not there (configfs not mounted, "
				  "or rdma_cm not loaded)"
			: !d->configfs_present
				? "not set: configfs has no rdma_cm directory for the device"
				: "default_roce_mode could not be read";

		if (port_has_v2_gid(port))
			return preflight_add(p, "network.roce-mode", subject, PREFLIGHT_OK, NULL,
					     "%s; rdma_cm uses the kernel's default, RoCE v2 for "
					     "a port with RoCE v2 GIDs",
					     where);
		return preflight_add(
			p, "network.roce-mode", subject, PREFLIGHT_WARN, "roce: {mode: v2}",
			"%s; the port lists no RoCE v2 GID, so the kernel's default is "
			"RoCE v1 (not routable)",
			where);
	}
	if (port->roce_mode == ROCE_MODE_V2)
		return preflight_add(p, "network.roce-mode", subject, PREFLIGHT_OK, NULL,
				     "rdma_cm default RoCE mode is RoCE v2");
	if (declared && s.roce_mode == ROCE_MODE_V1)
		return preflight_add(p, "network.roce-mode", subject, PREFLIGHT_OK, NULL,
				     "rdma_cm default RoCE mode is RoCE v1, as %s declares (not "
				     "routable: one L2 domain only)",
				     strna(s.origin[KEY_ROCE_MODE]));
	return preflight_add(p, "network.roce-mode", subject, PREFLIGHT_WARN,
			     declared ? "rdmactl reconcile" : "roce: {mode: v2}",
			     "rdma_cm default RoCE mode is RoCE v1: rdma_cm connections are not "
			     "routable and miss RoCE v2 peers%s",
			     declared ? " (a profile declares v2: rdmad has not applied it)" : "");
}

static int check_port(Preflight *p, const PreflightInput *in, const HostDevice *d,
		      const HostPort *port, void *userdata) {
	_cleanup_free_ char *subject = preflight_port_subject(d, port);
	const HostNetdev *n = port->netdev ? host_netdev_find(in->host, port->netdev) : NULL;
	int r;

	if (!subject)
		return -ENOMEM;
	r = check_port_state(p, subject, port, n);
	if (r < 0)
		return r;
	r = check_netdev(p, subject, port, n);
	if (r < 0)
		return r;
	r = preflight_link_speed(p, in, d, port, subject);
	if (r < 0)
		return r;
	if (port->link_layer != LINK_LAYER_ETHERNET)
		return 0;
	r = check_mtu(p, in, subject, d, port, n);
	if (r < 0)
		return r;
	r = check_gids(p, subject, port, n);
	if (r < 0)
		return r;
	r = check_gid_index(p, subject, port);
	if (r < 0)
		return r;
	r = preflight_send_errors(p, in, d, port, subject);
	if (r < 0)
		return r;
	return check_roce_mode(p, in, subject, d, port);
}

int preflight_network(Preflight *p, const PreflightInput *in) {
	int r = preflight_each_port(p, in, check_port, NULL);

	return r < 0 ? r : preflight_rails(p, in);
}
