/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Preflight: is RDMA ready on this host, and if not, why and what fixes it. A list of rows,
 * one per check and subject, each ok/warn/fail with what was seen and the fix. The checks only
 * read (sysfs, configfs, /proc, rtnetlink, dcbnl, nftables); they never change the host.
 *
 * Each family of checks has its file: preflight-hardware.c (PCI functions, drivers, PCIe link,
 * firmware), preflight-kernel.c (modules, configfs, lockdown), preflight-userspace.c
 * (libibverbs providers, device nodes), preflight-memlock.c (services, logins),
 * preflight-network.c (port and netdev state, MTU, GIDs, RoCE mode), preflight-multirail.c
 * (netdevs sharing a subnet), preflight-qos.c (PFC, trust, DCB owners), preflight-fabric.c
 * (the switch port's DCB in LLDP against the host's), preflight-security.c
 * (the Soft-RoCE firewall, offloaded RoCE), preflight-gpu.c (GPUDirect RDMA: the NVIDIA driver,
 * peer memory or dma-buf, the GPU-NIC PCIe path, ACS, the IOMMU), preflight-rdmad.c (the
 * daemon's view). What libibverbs itself sees
 * comes from the caller (lib/verbs/verbs-facts.c: librdmad does not link libibverbs). */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "device-health.h"
#include "host.h"
#include "macro.h"
#include "profile.h"
#include "string-table.h"
#include "topology.h"

typedef struct json_object json_object;

typedef enum PreflightStatus {
	PREFLIGHT_OK,
	PREFLIGHT_WARN,
	PREFLIGHT_FAIL,
	_PREFLIGHT_STATUS_MAX,
	_PREFLIGHT_STATUS_INVALID = -EINVAL,
} PreflightStatus;
/* "ok", "warn", "fail" */
DECLARE_STRING_TABLE_LOOKUP(preflight_status, PreflightStatus)

typedef struct PreflightRow {
	char *check;   /* stable id: "kernel.module", "userspace.provider" */
	char *subject; /* "host", a PCI address, a link "rxe0/1", a netdev */
	PreflightStatus status;
	char *seen; /* what was found, one sentence */
	char *fix;  /* a command or the profile key that fixes it; NULL when ok */
} PreflightRow;

typedef struct Preflight {
	PreflightRow *rows;
	size_t n_rows;
} Preflight;

void preflight_done(Preflight *p);
/* Add a row; fix may be NULL. -ENOMEM only. */
int preflight_add(Preflight *p, const char *check, const char *subject, PreflightStatus status,
		  const char *fix, const char *seen_format, ...) _printf_(6, 7);
/* The worst status of all rows (PREFLIGHT_OK for none). */
PreflightStatus preflight_worst(const Preflight *p);
/* Rows sorted by check id, then subject, so output is stable. */
void preflight_sort(Preflight *p);

/* What libibverbs sees (filled by lib/verbs/verbs-facts.c, outside librdmad). */
typedef struct VerbsPort {
	uint32_t port;
	int state;	     /* enum ibv_port_state */
	unsigned active_mtu; /* bytes: 256..4096 */
	unsigned max_mtu;
} VerbsPort;

typedef struct VerbsDevice {
	char *name;
	VerbsPort *ports;
	size_t n_ports;
	int error; /* -errno when ibv_open_device or ibv_query_port failed */
	/* Whether the provider registers dma-buf MRs (GPUDirect RDMA without nvidia_peermem),
	 * probed as NCCL probes it: 1 yes, 0 no, -1 not known (no PD) */
	int dmabuf;
} VerbsDevice;

typedef struct VerbsFacts {
	int error; /* ibv_get_device_list() failed: -errno */
	VerbsDevice *devices;
	size_t n_devices;
} VerbsFacts;

void verbs_facts_done(VerbsFacts *v);
const VerbsDevice *verbs_facts_find(const VerbsFacts *v, const char *device);

/* RLIMIT_MEMLOCK below this is a warning: RDMA pins every buffer it registers (a job's
 * buffers, NCCL's, a GPU's memory with GPUDirect). Debian's default since Linux 5.16 is
 * 8 MiB; rdma-core's documentation and every MPI/NCCL guide ask for unlimited. */
#define PREFLIGHT_MEMLOCK_MIN (UINT64_C(1) << 30)

typedef struct PreflightInput {
	const char *root;      /* "/" for this host; a fixture tree in tests */
	const HostState *host; /* host_observe(HOST_OBSERVE_ALL) */
	const Config *config;  /* the profiles; NULL when none could be loaded */
	char *const *links;    /* the links asked about (dev/port, dev or netdev); NULL: all */
	/* What libibverbs sees; NULL when not known (another --root): the checks that need it
	 * say so in their row. */
	const VerbsFacts *verbs;
	/* The GPU/NIC topology when the caller has read it already (topology_read() of root and
	 * host); NULL: the gpu checks read it. */
	const Topology *topology;
	/* devlink's health reporters and firmware versions when the caller has read them
	 * (device_health_read(), or a test's); NULL: read on the real root, none elsewhere. */
	const DeviceHealth *device_health;
	/* The memlock limit systemd gives services (DefaultLimitMEMLOCKSoft and
	 * DefaultLimitMEMLOCK, from the manager over D-Bus: what it runs with, not only what its
	 * files say); UINT64_MAX for infinity. Login sessions start from it too (their login
	 * service's), before pam_limits. */
	bool has_service_memlock;
	uint64_t service_memlock;      /* soft: RLIMIT_MEMLOCK as a service starts */
	uint64_t service_memlock_hard; /* what it may raise it to */
	/* Who is asking: device node permissions are judged for this user. */
	uid_t uid;
	gid_t gid;
} PreflightInput;

/* Whether link (device d, port p) is one the input asks about. */
bool preflight_wants_port(const PreflightInput *in, const HostDevice *d, const HostPort *p);
/* A family's check of one port (link), with the caller's userdata. */
typedef int (*preflight_port_check_t)(Preflight *p, const PreflightInput *in, const HostDevice *d,
				      const HostPort *port, void *userdata);
/* check on each port the input asks about, in the host's order: the first error ends it. */
int preflight_each_port(Preflight *p, const PreflightInput *in, preflight_port_check_t check,
			void *userdata);
/* "rxe0/1" */
char *preflight_port_subject(const HostDevice *d, const HostPort *p);

int preflight_hardware(Preflight *p, const PreflightInput *in);
/* The hardware.health and hardware.firmware-pending rows of devlink's facts h
 * (preflight-health.c; preflight_hardware() calls it). -ENOMEM only. */
int preflight_device_health(Preflight *p, const PreflightInput *in, const DeviceHealth *h);
int preflight_kernel(Preflight *p, const PreflightInput *in);
int preflight_userspace(Preflight *p, const PreflightInput *in);
int preflight_memlock(Preflight *p, const PreflightInput *in);
int preflight_network(Preflight *p, const PreflightInput *in);
int preflight_qos(Preflight *p, const PreflightInput *in);
/* does the switch port agree (LLDP's 802.1Qaz TLVs, through lldpd): preflight-fabric.c */
int preflight_fabric(Preflight *p, const PreflightInput *in);
int preflight_security(Preflight *p, const PreflightInput *in);
int preflight_gpu(Preflight *p, const PreflightInput *in);

/* The first line of /proc/driver/nvidia/version: whether it is the open kernel module, and
 * its version ("580.95.05"). -EBADMSG: not such a line; -ENOMEM. */
int nvidia_version_parse(const char *line, bool *ret_open, char **ret_version);

/* The judgements of preflight-network.c and preflight-security.c on facts given rather than
 * read from the kernel: preflight_network() and preflight_security() call them with what they
 * read, unit tests with what they build. */

/* One `ip rule` (RTM_GETRULE): traffic from src/src_len is looked up in table. */
typedef struct PreflightRule {
	int family;
	uint8_t src[16];
	uint8_t src_len;
	uint32_t table;
} PreflightRule;

/* One route (RTM_GETROUTE) of a table, by the netdev it leaves by. */
typedef struct PreflightRoute {
	int family;
	uint32_t table;
	int oif;
} PreflightRoute;

/* The source routing rules and routes; error -errno when they could not be read
 * (-EOPNOTSUPP: another root, whose rules the running kernel does not have). */
typedef struct PreflightRouting {
	int error;
	PreflightRule *rules;
	size_t n_rules;
	PreflightRoute *routes;
	size_t n_routes;
} PreflightRouting;

/* The network.multi-rail rows: RDMA netdevs with addresses in one subnet, judged on routing
 * and on the arp and rp_filter sysctls under in->root. */
int preflight_multi_rail(Preflight *p, const PreflightInput *in, const PreflightRouting *routing);

/* Whether an nftables ruleset (libnftables' JSON of "list ruleset") lets UDP 4791 (RoCE v2)
 * reach this host on netdev from every source: PREFLIGHT_OK when something restricts it,
 * PREFLIGHT_WARN when nothing does or when it cannot be told; *ret_seen says which and
 * where. -EBADMSG when json is not such a ruleset, -ENOMEM. */
int preflight_firewall_judge(const char *json, const char *netdev, PreflightStatus *ret_status,
			     char **ret_seen);

/* The rdmad checks (preflight-rdmad.c), from the daemon's Describe() JSON; describe NULL:
 * rdmad is not running, why_not says how that was found (may be NULL). Not part of
 * preflight_run(): the caller asks the daemon. */
int preflight_rdmad(Preflight *p, const PreflightInput *in, json_object *describe,
		    const char *why_not);

/* The degraded-link judgements of preflight-link-speed.c on facts given rather than read. */
typedef struct LinkSpeedFacts {
	const char *netdev;
	uint32_t speed;	 /* Mb/s now (sysfs speed); 0: no link */
	uint32_t lanes;	 /* 0: not known */
	uint32_t expect; /* netdev.expect-speed; 0: none declared */
	/* the fastest link mode the port supports (ethtool); 0: not known */
	uint32_t max_speed, max_lanes;
	char max_mode[40];
} LinkSpeedFacts;
/* network.link-speed: fails below the profile's speed, warns below the port's fastest mode. */
int preflight_link_speed_judge(Preflight *p, const char *subject, const LinkSpeedFacts *f);

typedef struct IbLinkFacts {
	PortState state;
	PortPhysState phys_state;
	const char *rate; /* sysfs rate: "100 Gb/sec (4X EDR)"; NULL: not read */
	unsigned sm_lid;
	const char *pci_id; /* "15b3:1017"; NULL: not PCI */
} IbLinkFacts;
/* network.ib-link: fails without a subnet manager, warns at 1X or below the HCA's speed. */
int preflight_ib_link_judge(Preflight *p, const char *subject, const IbLinkFacts *f);
/* network.link-speed and network.ib-link of every port the input asks about (rdmactl metrics'
 * rdmad_link_degraded; preflight_network() has them among its rows). -ENOMEM. */
int preflight_links_speed(Preflight *p, const PreflightInput *in);
/* The fastest InfiniBand lane speed ("EDR") of an HCA by PCI id, and its model; NULL when not
 * known. */
const char *ib_hca_speed(const char *pci_id, const char **ret_model);

/* All of the above, in that order, sorted. -ENOMEM only: a check that cannot read what it
 * needs says so in its row. */
int preflight_run(const PreflightInput *in, Preflight *ret);

/* The JSON array of row objects {check, subject, status, seen, fix} (rdmactl --json, D-Bus). */
int preflight_to_json(const Preflight *p, json_object **ret);
