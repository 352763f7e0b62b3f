/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The host model: a snapshot of what the kernel says, per device, port and netdev. Filled by
 * host-sysfs.c (sysfs and configfs under a root) and host-netlink.c (IP addresses). Problems
 * with one device or port are recorded on it; they never stop the others from being read. */

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "acs-record.h"
#include "dcbnl.h"
#include "devlink-record.h"
#include "devlink.h"
#include "ethtool-pause.h"
#include "firewall.h"
#include "lldp-neighbor.h"
#include "profile.h"
#include "rail-record.h"
#include "rail.h"
#include "rdmanl.h"
#include "rdma-types.h"
#include "soft-device-record.h"

typedef struct Gid {
	uint32_t index;
	uint8_t raw[16];
	GidType type;
	char netdev[IF_NAMESIZE];
} Gid;

typedef struct HostPort {
	uint32_t port;
	PortState state;
	PortPhysState phys_state;
	LinkLayer link_layer;
	char *netdev; /* NULL when the port has none (IB without IPoIB) */
	Gid *gids;    /* populated slots only, by index */
	size_t n_gids;
	/* configfs rdma_cm: known only when the device's directory exists */
	bool has_roce_mode, has_roce_tos;
	RoceMode roce_mode;
	unsigned roce_tos;
	/* hw counters (RDMA netlink STAT_GET_STATUS, with HOST_OBSERVE_COUNTERS on the real root):
	 * valid when hw_counters_observed, else hw_counters_error says why not (0: not asked) */
	bool hw_counters_observed;
	int hw_counters_error;
	HwCounter *hw_counters;
	size_t n_hw_counters;
	char **errors; /* what could not be read or made sense of */
} HostPort;

typedef struct HostDevice {
	char *name;
	char *node_guid;
	char *node_type;
	char *fw_ver;
	char *node_desc; /* node_desc, as the kernel shows it (at most NODE_DESC_MAX bytes) */
	char *driver;	 /* parent device's driver; "rdma_rxe"/"siw" for software devices */
	char *pci;	 /* PCI address of the parent device, NULL if not PCI */
	char *parent;	 /* netdev a software device sits on */
	HostPort *ports;
	size_t n_ports;
	bool configfs_present; /* rdma_cm/<dev> exists */
	char **errors;
} HostDevice;

typedef struct HostNetdev {
	char *name;
	/* The ifindex the backends address it by: sysfs's, and with HOST_OBSERVE_ADDRESSES the
	 * one rtnetlink gives in this network namespace (0 when it has no such netdev: under a
	 * fixture root the stand-in's, never the fixture's, which may be another interface's). */
	int ifindex;
	char *driver; /* of its parent device (mlx5_core, virtio_net); NULL for virtual ones */
	char *pci;    /* PCI address of its parent device, NULL if not PCI */
	unsigned mtu;
	bool up; /* IFF_UP, administratively */
	char *operstate;
	Address *addresses; /* from rtnetlink; valid when addresses_known */
	size_t n_addresses;
	bool addresses_known;
	/* ECN (mlx5 OFED-style sysfs): bit per priority; valid when ecn_supported */
	bool ecn_supported;
	uint8_t ecn_roce_np, ecn_roce_rp;
	/* The DSCP and 802.1p priority of the CNPs the port sends as notification point (mlx5:
	 * ecn/roce_np/cnp_dscp, cnp_802p_prio): valid when cnp_supported */
	bool cnp_supported;
	unsigned cnp_dscp, cnp_prio;
	/* DCB (dcbnl IEEE_GET, with HOST_OBSERVE_DCB, for the netdevs of RDMA ports): dcb is valid
	 * when dcb_observed and dcb_error is 0; else dcb_error is why not (-EOPNOTSUPP: the driver
	 * has no dcbnl, as veth and VFs; -ENODEV: not in this network namespace). */
	bool dcb_observed;
	int dcb_error;
	DcbState dcb;
	/* Global (802.3x) pause (ethtool netlink PAUSE_GET, observed with the DCB state): pause is
	 * valid when pause_observed and pause_error is 0 (-EOPNOTSUPP: the driver has no pause
	 * parameters, as veth; -ENOENT: no ethtool netlink in the kernel). */
	bool pause_observed;
	int pause_error;
	PauseParams pause;
	/* net.ipv4.conf.<netdev>.{arp_ignore,arp_announce,rp_filter} under the root (with
	 * HOST_OBSERVE_RAILS): valid when rail_sysctls_observed, -1 each one not readable. */
	bool rail_sysctls_observed;
	int rail_sysctl[_RAIL_SYSCTL_MAX];
	/* The LLDP neighbours the local lldpd heard on it, through liblldpctl (HOST_OBSERVE_LLDP,
	 * the real root only, the netdevs of RDMA ports; host-lldp.c): NULL when not asked, else
	 * lldp->error says why nothing could be asked (lldp-neighbor.h) */
	HostLldp *lldp;
	char **errors; /* sysfs values that could not be read or made sense of */
} HostNetdev;

/* A PCI network function (class 0x02xx): what a driver binds before any RDMA device exists,
 * so that modules: can load the RDMA driver of hardware it knows. */
typedef struct HostPciFunction {
	char *address;	/* 0000:3b:00.0 */
	uint32_t class; /* 0x020000 Ethernet, 0x020700 InfiniBand */
	char *driver;	/* bound driver, NULL if none */
	char **netdevs; /* its netdevs (sorted), NULL if none */
	bool virtual_function;
	char *physfn; /* a VF's PF (its address), NULL otherwise */
	/* Bound to a driver other than vfio-pci, with a net/ directory that lists nothing: its
	 * netdev lives in another network namespace (a pod's). sysfs shows a netdev only to the
	 * namespace that mounted it; net/ itself stays while a netdev of the function exists in
	 * some namespace, and goes with the last one (the kernel's class glue directory). */
	bool netdev_elsewhere;
} HostPciFunction;

/* A PCIe port above a function (pci.upstream-acs): its ACS, from its config space. */
typedef struct PciBridgeState {
	char *address;
	int port_type; /* the PCIe capability's device/port type (pci-config.h), -1: not PCIe */
	bool has_acs;
	uint16_t acs_cap, acs_ctrl;
	int error; /* its config space could not be read: -errno (then nothing above is known) */
} PciBridgeState;

/* A PCI function bound to vfio-pci, of any class (a VF, a GPU or an NVMe drive handed to a VM
 * or a user-space driver), for pci.upstream-acs: where it sits, and the IOMMU group the kernel
 * isolates it in (with HOST_OBSERVE_PCIE, on full observations). */
typedef struct HostVfioFunction {
	char *address;
	char *host_bridge; /* its root complex's directory, "pci0000:00" */
	char **bridges;	   /* the ports above it, nearest first */
	int iommu_group;   /* -1: none (no IOMMU) */
	/* /sys/kernel/iommu_groups/N/type: "DMA", "DMA-FQ", "identity", "unknown" (no default
	 * domain, as vfio's no-IOMMU groups); NULL: not readable */
	char *iommu_type;
} HostVfioFunction;

/* A GPU (pci_nvidia_gpus()), one end of the peer-to-peer routes pci.upstream-acs shortens:
 * where it sits, and the ACS of the ports above it (with HOST_OBSERVE_PCIE). */
typedef struct HostGpu {
	char *address;
	char *host_bridge;
	PciBridgeState *bridges; /* nearest first */
	size_t n_bridges;
} HostGpu;

/* The device behind one or more netdevs (/sys/class/net/<nd>/device) that sriov.* and pci.*
 * act on, whether or not an RDMA device sits on it: a PCI function, or netdevsim's bus device,
 * which has sriov_numvfs too (host-function.c). With HOST_OBSERVE_SRIOV or HOST_OBSERVE_PCIE,
 * on full observations. */
typedef struct HostFunction {
	char *bus;	/* devlink's bus name: "pci", "netdevsim" */
	char *name;	/* "0000:03:00.0", "netdevsim1" */
	char *driver;	/* bound driver, NULL if none */
	char **netdevs; /* sorted; VF settings are read and written through netdevs[0] */
	int ifindex;	/* of netdevs[0] */
	bool virtual_function;
	/* sysfs: sriov_numvfs exists (has_sriov); sriov_totalvfs (0: not said, as netdevsim);
	 * sriov_drivers_autoprobe (has_autoprobe) */
	bool has_sriov, has_autoprobe, autoprobe;
	unsigned numvfs, totalvfs;
	/* netlink, the real root only: the VFs' settings (vfs_observed, else vfs_error says why
	 * not) and the e-switch mode (devlink) */
	bool vfs_observed, eswitch_observed;
	int vfs_error, eswitch_error;
	SriovVf *vfs; /* sorted by index */
	size_t n_vfs;
	EswitchMode eswitch;
	/* config space (HOST_OBSERVE_PCIE, PCI functions): max_read_request in bytes, valid when
	 * pcie_observed, else pcie_error; the ports above it, nearest first */
	bool pcie_observed;
	int pcie_error;
	unsigned max_read_request;
	char *host_bridge; /* its root complex's directory ("pci0000:00"), NULL: not known */
	PciBridgeState *bridges;
	size_t n_bridges;
	char **errors; /* sysfs values that could not be read or made sense of */
	/* rdmad is changing it elsewhere while it is observed (host_observer_set_writing()):
	 * what, in words ("writing 8 (started 12 s ago)"). Reading sriov_numvfs would block until
	 * that write ends (sriov_numvfs_show() takes the device lock the write holds), so numvfs
	 * is counted from the PF's virtfn links (numvfs_counted; PCI only, else not known), and
	 * the VFs' settings and the e-switch mode are not read (vfs_error and eswitch_error
	 * -EINPROGRESS). */
	char *writing;
	bool numvfs_counted;
	/* devlink parameters (HOST_OBSERVE_DEVLINK, the real root only), sorted by name: valid
	 * when params_observed, else params_error says why not */
	bool params_observed;
	int params_error;
	DevlinkParamInfo *params;
	size_t n_params;
	/* its devlink ports, read with the parameters (a reload re-creates them, and the netdev
	 * of each with them): by index, valid when ports_observed, else ports_error says why not.
	 * An Ethernet port without a netdev has it in another network namespace (DevlinkPortInfo)
	 */
	bool ports_observed;
	int ports_error;
	DevlinkPortInfo *ports;
	size_t n_ports;
} HostFunction;

typedef struct HostState {
	char *root;
	HostDevice *devices; /* sorted by name */
	size_t n_devices;
	HostNetdev *netdevs; /* sorted by name */
	size_t n_netdevs;
	HostPciFunction *pci_functions; /* sorted by address */
	size_t n_pci_functions;
	HostFunction *functions; /* by bus and name (HOST_OBSERVE_SRIOV, HOST_OBSERVE_PCIE) */
	size_t n_functions;
	/* With HOST_OBSERVE_PCIE, on full observations: the functions bound to vfio-pci and the
	 * GPUs, by address (host-function.c) */
	HostVfioFunction *vfio_functions;
	size_t n_vfio_functions;
	HostGpu *gpus;
	size_t n_gpus;
	char **modules; /* loaded (or built-in) modules, sorted */
	/* The soft devices rdmad recorded creating (host_records_observe()), by name. */
	SoftDeviceRecord *records;
	size_t n_records;
	/* The rail routing rdmad recorded setting up (host_records_observe()), by netdev. */
	RailRecord *rail_records;
	size_t n_rail_records;
	/* The ACS Control bits rdmad recorded clearing (host_records_observe()), by port. */
	AcsRecord *acs_records;
	size_t n_acs_records;
	/* The driverinit parameters rdmad wrote and has not reloaded (host_records_observe()),
	 * by function. */
	DevlinkRecord *devlink_records;
	size_t n_devlink_records;
	/* With HOST_OBSERVE_RAILS, over rtnetlink in this network namespace: the ip rules at
	 * RAIL_RULE_PRIORITY and the routes of protocol RAIL_ROUTE_PROTOCOL (rail.h); valid when
	 * rails_observed, else rails_error says why not. */
	RailRule *rail_rules;
	size_t n_rail_rules;
	RailRoute *rail_routes;
	size_t n_rail_routes;
	bool rails_observed;
	int rails_error;
	/* With HOST_OBSERVE_FIREWALL, over NETLINK_NETFILTER in this network namespace: rdmad's
	 * nftables table (firewall.h); valid when firewall_observed, else firewall_error says
	 * why not, and firewall_error_message in words where there are some (libnftables' own,
	 * or that libnftables is missing). */
	FirewallState firewall;
	bool firewall_observed;
	int firewall_error;
	char *firewall_error_message;
	bool configfs_mounted; /* rdma_cm's directory exists */
	/* <root>/proc/sys/kernel/hostname (rdma.node-description's %h), NULL if unreadable */
	char *hostname;
	/* rdma-ndd.service runs (/run/systemd/units/invocation:rdma-ndd.service): it writes
	 * node_desc from the host name too, and fights rdma.node-description */
	bool rdma_ndd_running;
	/* The kernel has no configfs at all (CONFIG_CONFIGFS_FS not set, as kernel-modules.c reads
	 * it; with HOST_OBSERVE_MODULES): roce.mode and roce.tos cannot be set on it. */
	bool configfs_absent;
	NetnsMode netns_mode; /* valid when has_netns_mode */
	/* Only some devices were observed (an event touched them): host-level keys (modules,
	 * links, system) cannot be planned from this, since what is absent here may exist. */
	bool partial;
	bool has_netns_mode;
} HostState;

HostState *host_state_free(HostState *h);
DEFINE_TRIVIAL_CLEANUP_FUNC(HostState *, host_state_free)

typedef enum HostObserveFlags {
	HOST_OBSERVE_GIDS = 1 << 0,	 /* read the GID tables */
	HOST_OBSERVE_NETDEVS = 1 << 1,	 /* read /sys/class/net */
	HOST_OBSERVE_ADDRESSES = 1 << 2, /* ask rtnetlink for IP addresses (implies NETDEVS) */
	HOST_OBSERVE_MODULES = 1 << 3,	 /* read /sys/module */
	HOST_OBSERVE_CONFIGFS = 1 << 4,	 /* read configfs rdma_cm */
	HOST_OBSERVE_SYSTEM = 1 << 5,	 /* RDMA netlink system settings (root "/" only) */
	HOST_OBSERVE_DETAILS = 1 << 6,	 /* device attributes, driver, port state and netdev */
	HOST_OBSERVE_DCB = 1 << 7, /* dcbnl IEEE state of the ports' netdevs (implies NETDEVS) */
	HOST_OBSERVE_PCI = 1 << 8, /* PCI network functions (full observations only) */
	/* rail routing: rdmad's ip rules and routes (rtnetlink), the netdevs' sysctls (root) */
	HOST_OBSERVE_RAILS = 1 << 9,
	/* the ports' hw counters and which optional ones are enabled (RDMA netlink, root "/") */
	HOST_OBSERVE_COUNTERS = 1 << 10,
	/* rdmad's nftables table (security.roce-allow-from), through libnftables */
	HOST_OBSERVE_FIREWALL = 1 << 11,
	/* the functions behind netdevs: sriov sysfs, VF settings (rtnetlink), e-switch (devlink) */
	HOST_OBSERVE_SRIOV = 1 << 12,
	/* the functions' PCIe config space and the ports above them (pci.*) */
	HOST_OBSERVE_PCIE = 1 << 13,
	/* the global pause of the ports' netdevs (ethtool netlink; with HOST_OBSERVE_DCB) */
	HOST_OBSERVE_PAUSE = 1 << 14,
	/* the ports' netdevs' LLDP neighbours, from lldpd through liblldpctl (root "/") */
	HOST_OBSERVE_LLDP = 1 << 15,
	/* the functions' devlink parameters (devlink.*; root "/") */
	HOST_OBSERVE_DEVLINK = 1 << 16,
	HOST_OBSERVE_ALL = (1 << 17) - 1,
} HostObserveFlags;

/* Read the RDMA devices, their netdevs and the loaded modules under root ("/" for the real
 * host). Returns -errno only when nothing can be read at all (out of memory); per-device and
 * per-port problems are recorded in their .errors. */
int host_observe(const char *root, HostObserveFlags flags, HostState **ret);

/* The same for the named devices only, and the netdevs their ports sit on (h->partial). */
int host_observe_devices_only(const char *root, HostObserveFlags flags, char *const *devices,
			      HostState **ret);

/* The same observation made one object at a time (a device with its ports, a netdev, one
 * netlink dump of a kind), for a caller that must serve other work between them: an event loop
 * observing thousands of links. host_observer_step() returns 0 while there is more to read, 1
 * when the observation is complete (then host_observer_finish() hands it over), -errno as
 * host_observe(). What changes between steps is seen as it is when its step reads it. */
typedef struct HostObserver HostObserver;
int host_observer_new(const char *root, HostObserveFlags flags, char *const *devices,
		      HostObserver **ret);
int host_observer_step(HostObserver *o);
/* -EBUSY before the last step. */
int host_observer_finish(HostObserver *o, HostState **ret);
HostObserver *host_observer_free(HostObserver *o);
DEFINE_TRIVIAL_CLEANUP_FUNC(HostObserver *, host_observer_free)
/* The function (as devlink names it, "pci/0000:03:00.0") that a worker of the caller is
 * changing (sriov_numvfs, the e-switch mode), and what it does, in words; NULL, NULL: none. Its
 * steps from then on read nothing of it that blocks while the kernel carries that out
 * (HostFunction.writing). */
int host_observer_set_writing(HostObserver *o, const char *function, const char *what);

/* The VFs a PCI function has now: its virtfn links, which the kernel adds as each VF is made.
 * Never blocks, unlike sriov_numvfs during a write. -EOPNOTSUPP for another bus (netdevsim's
 * VFs are not devices), -ENOENT when there is no such function. */
int host_function_count_vfs(int rootfd, const char *bus, const char *name, unsigned *ret);

/* Read one port of an open device directory: exposed for the fuzzer and unit tests. */
int host_port_observe(int devfd, uint32_t port, HostObserveFlags flags, HostPort *ret);
void host_port_done(HostPort *p);
/* The GID tables of d's ports (each replaced) from <root>/sys/class/infiniband/<d->name>,
 * as host_observe() reads them with HOST_OBSERVE_GIDS; what cannot be read is recorded in
 * d->errors and the ports' errors. Returns -ENOMEM only. */
int host_device_gids_observe(const char *root, HostDevice *d);

/* Fill netdevs' addresses, MTU and up flag from rtnetlink, in the current network namespace
 * (netdevs not found there keep what sysfs said, and addresses_known false). */
int host_addresses_observe(HostState *h);
/* The DCB state of the netdev port p sits on, once per netdev, over dcbnl in the current
 * network namespace (host-dcb.c): sk a dcbnl socket (dcbnl_socket_open()), or the error that
 * opening one gave. A netdev that cannot be read records why in dcb_error. */
int host_dcb_observe_port(HostState *h, struct nl_sock *sk, int open_error, const HostPort *p);
/* The global pause of p's netdev (ethtool PAUSE_GET on sk, the ethtool family's id), once. */
int host_pause_observe_port(HostState *h, struct nl_sock *sk, uint16_t family, int open_error,
			    const HostPort *p);
/* The LLDP neighbours of the netdevs the ports sit on, each once (host-lldp.c), from the lldpd
 * listening on socket (NULL: /run/lldpd.socket, liblldpctl's default); liblldpctl is loaded only
 * once lldpd answers there: one connection, one
 * question per netdev. What cannot be asked is recorded in each netdev's lldp->error; returns
 * -ENOMEM only. */
int host_lldp_observe(HostState *h, const char *socket);
/* The RDMA netns mode, from RDMA netlink. Only for the real root: the mode is global. */
int host_netns_mode_observe(HostState *h);
/* The hw counters of every port, over RDMA netlink (host-counters.c). Only for the real root.
 * A port that cannot be read records why in hw_counters_error. */
int host_hw_counters_observe(HostState *h);

/* The rail routing of the netdevs (host-rail.c): one netdev's sysctls under the root; rdmad's
 * ip rules and routes over rtnetlink in the current network namespace, a failure of which is
 * recorded in rails_error. */
int host_rail_sysctls_observe(HostState *h, HostNetdev *n);
int host_rail_routing_observe(HostState *h);
/* The pieces, for the apply backend (apply-rail.c), which reads the live state again right
 * before it writes: a NETLINK_ROUTE socket with strict dump checking where the kernel has it;
 * rdmad's rules and routes into h->rail_rules and h->rail_routes; one sysctl under root (-1:
 * not readable). */
struct nl_sock;
int rail_socket_open(struct nl_sock **ret);
int rail_routing_read(struct nl_sock *sk, HostState *h);
int rail_sysctl_read(const char *root, const char *netdev, RailSysctl s);

/* rdmad's nftables table (host-firewall.c), into h->firewall; a failure to read it (no
 * CAP_NET_ADMIN, no nf_tables, no libnftables) is recorded in firewall_error and
 * firewall_error_message. libnftables is loaded only when the table exists. */
int host_firewall_observe(HostState *h);
/* The pieces, for the apply backend (apply-firewall.c): libnftables loaded (-EOPNOTSUPP or
 * -ELIBBAD without it, "security.roce-allow-from needs libnftables.so.1: <the dynamic
 * loader's words>" in *ret_error); the table as the host has it now (absent: ret->table
 * false); and one batch of JSON commands sent as one transaction. On failure *ret_error, when
 * there are words, holds libnftables' error text (first line) or firewall_dlopen()'s; it stays
 * NULL when the kernel said no more than an errno. */
int firewall_dlopen(char **ret_error);
int firewall_read(FirewallState *ret, char **ret_error);
int firewall_write(const char *batch, char **ret_error);

/* The soft devices rdmad created (soft-device-record.c) and the rail routing it set up
 * (rail-record.c), from its state directory. */
int host_records_observe(HostState *h, const char *state_dir);
/* The devlink record of function ("pci/0000:03:00.0"), NULL if none. */
const DevlinkRecord *host_devlink_record_find(const HostState *h, const char *function) _pure_;
const RailRecord *host_rail_record_find(const HostState *h, const char *netdev);
const AcsRecord *host_acs_record_find(const HostState *h, const char *port);

/* What sits below netdev nd (a VLAN's or macvlan's parent, a bond's ports): its sysfs lower_*
 * links, added to *ret when not in it yet. A netdev that is gone adds nothing. */
int host_netdev_lowers(const char *root, const char *nd, char ***ret);
/* Whether netdev nd has a parent device (a function pci.* can act on), and whether that can
 * have VFs (sriov_numvfs: a PF, netdevsim). */
bool host_netdev_has_device(const char *root, const char *nd);
bool host_netdev_has_vfs(const char *root, const char *nd);
/* Whether netdev nd is an e-switch representor of a VF or SF (phys_port_name pf0vf3). */
bool host_netdev_is_representor(const char *root, const char *nd);
/* Whether netdev nd belongs to an RDMA device (its parent device has infiniband/). */
bool host_netdev_has_rdma(const char *root, const char *nd);

const HostDevice *host_device_find(const HostState *h, const char *name);
/* The function netdev sits on (sriov.*, pci.*), NULL if none was observed. */
const HostFunction *host_function_of_netdev(const HostState *h, const char *netdev);
const SoftDeviceRecord *host_record_find(const HostState *h, const char *name);
const HostNetdev *host_netdev_find(const HostState *h, const char *name);
bool host_module_loaded(const HostState *h, const char *module);

/* The facts a profile matches on, pointing into h. */
void host_port_facts(const HostDevice *d, const HostPort *p, PortFacts *ret);
/* Whether p matches hardware that has no RDMA device yet: a PCI network function (with each
 * of its netdevs, or none) or a netdev, on the facts they have (driver, pci, netdev; never
 * device or port). A profile without match keys matches none of them: "every RDMA link"
 * says nothing about hardware. For modules: (loading the RDMA driver creates the device). */
bool host_hardware_matches(const HostState *h, const Profile *p);
