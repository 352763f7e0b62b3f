/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The planner: (Config, HostState) -> the ordered list of changes that would bring the host to
 * the declared state. Pure: no I/O, no clock. A converged host gives an empty plan. */

#include "host.h"
#include "profile.h"

/* Order of application. */
typedef enum ActionPhase {
	PHASE_MODULES,
	PHASE_SYSTEM,
	PHASE_LINKS,
	PHASE_FUNCTION,
	PHASE_DEVICE,
	PHASE_NETDEV,
	PHASE_ADDRESSES,
	PHASE_ROUTING,
	PHASE_CONFIGFS,
	PHASE_QOS,
	PHASE_ECN,
	PHASE_COUNTERS,
	PHASE_FIREWALL,
	_PHASE_MAX,
	_PHASE_INVALID = -EINVAL,
} ActionPhase;
DECLARE_STRING_TABLE_LOOKUP(action_phase, ActionPhase)

/* The declared DCB values of a link, for the qos.* actions. Each qos action carries all of them:
 * the ETS actions apply every declared ets key in one IEEE_SET (a driver checks prio-tc, tc-bw
 * and tsa together), and qos.trust needs to know whether a dscp-map is declared. */
typedef struct DcbDesired {
	KeySet set; /* KEY_BIT()s of the qos keys declared */
	QosOwner owner;
	QosTrust trust;
	uint8_t pfc; /* bit per priority */
	uint8_t ets_prio_tc[N_PRIO];
	uint8_t ets_tc_bw[N_TC];
	EtsTsa ets_tsa[N_TC];
	uint64_t maxrate[N_TC];	 /* kbit/s, 0: no limit */
	int8_t dscp_map[N_DSCP]; /* priority per DSCP, -1: no entry */
	uint16_t pfc_delay;	 /* ieee_pfc.delay */
	uint8_t buffer_prio[N_PRIO];
	uint32_t buffer_size[N_BUFFERS];
	uint8_t dcbx; /* DCB_CAP_DCBX_* */
} DcbDesired;

/* The desired value in typed form, for the apply backends; which field is meaningful depends
 * on the action's key. */
/* rdma.node-description's format expanded as rdma-ndd does: %h the host name (NULL: "%h" is
 * kept), %d the device name, %% a '%'; cut at NODE_DESC_MAX bytes. buf holds NODE_DESC_MAX + 1. */
void node_description_expand(const char *format, const char *hostname, const char *device,
			     char buf[static NODE_DESC_MAX + 1]);

/* What the profiles declare for function f (sriov.*, pci.*; plan-function.c): the merged
 * settings of the first of its netdevs that a profile with function keys matches, with the
 * facts of the RDMA port on it. 1 and *ret filled (port_settings_done()), 0 if none. */
int plan_function_settings(const Config *c, const HostState *h, const HostFunction *f,
			   PortSettings *ret);

/* The fields of want (its set) whose value have does not show: what a sriov.vf action writes,
 * and what its read-back must find. */
uint32_t sriov_vf_diff(const SriovVf *want, const SriovVf *have) _pure_;
/* What one write of VF want->index carries: the fields in diff, with those the kernel takes
 * together with them (vlan, qos and protocol in IFLA_VF_VLAN_LIST; min and max rate in
 * IFLA_VF_RATE) that want does not declare completed from have, what the kernel reports. The
 * apply backend calls it with what the kernel reports right before it writes. */
SriovVf sriov_vf_write(const SriovVf *want, const SriovVf *have, uint32_t diff) _pure_;

typedef struct ActionValue {
	unsigned number;	  /* roce.tos, netdev.mtu */
	bool flag;		  /* netdev.up */
	RoceMode roce_mode;	  /* roce.mode */
	NetnsMode netns_mode;	  /* system.netns-mode */
	uint8_t priorities;	  /* ecn.*: bit per priority */
	Address address;	  /* netdev.addresses: one per action */
	SoftDeviceType link_type; /* links */
	char *name;	/* modules: the module; links: the device to create; rdma.node-description:
			 * the text to write */
	char *lower;	/* links: the netdev it sits on */
	bool remove;	/* links: delete the device (one rdmad created) */
	DcbDesired dcb; /* qos.* */
	PauseChange pause; /* netdev.pause.*: the declared fields, -1 the others */
	/* sriov.*, pci.*: number is sriov.vfs, pci.max-read-request (bytes) or the ACS Control
	 * value to write; flag sriov.autoprobe; name the bridge (pci.upstream-acs) */
	EswitchMode eswitch;
	SriovVf vf; /* sriov.vf: one VF, its set the fields to write */
	/* devlink.params: one parameter, its value canonical for param_type (what the device
	 * reports); devlink.reload: name is the pending set ("max_macs=64 test1=false") */
	DevlinkParam param;
	DevlinkParamType param_type;
	RailItem rail;	 /* netdev.rail-routing: one rule, route or sysctl */
	char **counters; /* counters.optional: the whole set to enable, by name */
	/* security.roce-allow-from: the chain as declared (the prefixes), or a removal */
	FirewallOp firewall_op;
	Address *allow;
	size_t n_allow;
} ActionValue;

typedef struct Action {
	ActionPhase phase;
	Key key;
	char *port_name; /* "mlx5_0/1"; NULL for host actions (modules, links, system) */
	char *device;	 /* NULL for host actions */
	uint32_t port;
	char *netdev; /* for netdev, address and ECN actions; sriov.vf: the PF's */
	/* sriov.*, pci.*: the function, as devlink names it ("pci/0000:03:00.0",
	 * "netdevsim/netdevsim1"); the subject of those that no RDMA port carries */
	char *function;
	int ifindex;   /* the netdev's, as observed (0: unknown): rtnetlink changes address it */
	char *current; /* NULL: absent or not known */
	char *desired;
	char *profile; /* the profile file name that declared it */
	/* Declared but cannot be carried out here: the reason. Such an action changes nothing
	 * and does not count as pending. */
	char *unsupported;
	ActionValue value;
} Action;

typedef struct Plan {
	Action *actions;
	size_t n_actions;
	size_t n_alloc;
} Plan;

Plan *plan_free(Plan *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(Plan *, plan_free)

/* For a partial host state (an event's devices only), host-level keys are not planned. */
int plan_compute(const Config *c, const HostState *h, Plan **ret);

/* The same in steps, for a caller that must not block for the whole of a plan of thousands of
 * links (the daemon's event loop): plan_builder_new() plans the host-level keys, each
 * plan_builder_step() one port (0 while ports remain, 1 when none does), plan_builder_finish()
 * orders the actions and hands the plan over (-EBUSY before the last step). c and h must stay
 * as they are until then. */
typedef struct PlanBuilder PlanBuilder;
int plan_builder_new(const Config *c, const HostState *h, PlanBuilder **ret);
int plan_builder_step(PlanBuilder *b);
int plan_builder_finish(PlanBuilder *b, Plan **ret);
PlanBuilder *plan_builder_free(PlanBuilder *b);
DEFINE_TRIVIAL_CLEANUP_FUNC(PlanBuilder *, plan_builder_free)
/* Orders the actions by phase, keeping the planned order within each (plan_builder_finish()). */
int plan_order(Plan *p);
/* Actions that would change something (not the unsupported ones). */
size_t plan_pending(const Plan *p) _pure_;
/* The plan as a JSON array of {link, setting, current, desired, profile[, unsupported]}
 * (plan-json.c): `rdmactl plan --json` and the daemon's Plan(). */
typedef struct json_object json_object;
int plan_to_json(const Plan *p, json_object **ret);
/* The "link" column: the port's name, else the function (sriov.*, pci.* of a function with no
 * RDMA device), else "host" for host actions. */
const char *action_subject(const Action *a) _pure_;
/* The "setting" column: "roce.mode", "modules", "netdev.addresses", ... */
const char *action_setting(const Action *a) _pure_;
