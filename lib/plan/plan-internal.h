/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the planner's rule files: plan.c (plan_compute(), the port rule table, netdev,
 * RoCE, ECN), plan-qos.c (the dcbnl rules), plan-host.c (host-level keys), plan-rail.c and
 * plan-firewall.c; what they share is plan-action.c, which calls none of them. Not part of
 * librdmad's interface. */

#include "plan.h"

/* One link as the planner rules see it. */
typedef struct PlanPort {
	const Config *config;
	const HostState *host;
	const HostDevice *device;
	const HostPort *port;
	const HostNetdev *netdev; /* NULL: the port has none, or it is not in sysfs */
	bool netdev_shared;	  /* another observed port sits on the same netdev */
	const PortSettings *settings;
	char name[80];
} PlanPort;

typedef struct ActionSpec {
	ActionPhase phase;
	Key key;
	const char *port_name; /* NULL for host actions */
	const PlanPort *plink; /* NULL for host actions */
	const char *current;
	const char *desired;
	const char *profile;
	const char *unsupported;
	/* links: the soft device to create, or (remove) to delete */
	const char *device_name;
	const char *lower;
	SoftDeviceType device_type;
	bool remove;
	NetnsMode netns_mode; /* system.netns-mode */
	/* netdev.rail-routing: what to do, and (host actions: the removals) on which netdev */
	const RailItem *rail;
	const char *netdev;
	int ifindex;
	FirewallOp firewall_op; /* security.roce-allow-from */
	/* sriov.*, pci.*: the function ("pci/0000:03:00.0") and the value to carry out */
	const char *function;
	const ActionValue *function_value;
} ActionSpec;

/* Add an action as spec describes it (strings copied). */
int plan_add(Plan *p, const ActionSpec *spec);
/* Host-level keys (plan-host.c): modules, system, links: (soft devices, and the deletion of
 * those rdmad created that no profile declares any more). Full observations only. */
int plan_host(Plan *p, const Config *c, const HostState *h);

/* Add a link-scoped action for key, declared by the link's settings. */
int plan_port_add(Plan *p, const PlanPort *l, ActionPhase phase, Key key, const char *current,
		  const char *desired, const char *unsupported);
/* Another link on the same netdev already plans this value for key. */
bool plan_has_netdev_action(const Plan *p, const PlanPort *l, Key key, const char *desired);
/* Why the link's netdev cannot be changed (none, or not in sysfs), or NULL. */
const char *netdev_missing(const PlanPort *l);
/* Another link on the same netdev wants a different value for key: the reason in buf, or NULL. */
const char *netdev_conflict(const PlanPort *l, Key key, char *buf, size_t size);

/* plan-rail.c: the rail routing a link declares, and (full observations) the removal of what
 * rdmad set up that no profile declares any more. */
int rule_rail_routing(Plan *p, const PlanPort *l, Key key);
int plan_rails_removed(Plan *p, const Config *c, const HostState *h);

/* plan-firewall.c: a Soft-RoCE link's chain in rdmad's nftables table, and (full observations)
 * the removal of the chains (or the table) no profile declares any more. */
int rule_roce_allow_from(Plan *p, const PlanPort *l, Key key);
/* plan-function.c: sriov.* and pci.* on the functions behind netdevs (full observations). */
int plan_functions(Plan *p, const Config *c, const HostState *h);
/* plan-device.c: rdma.node-description */
int rule_node_description(Plan *p, const PlanPort *l, Key key);
int plan_firewall_removed(Plan *p, const Config *c, const HostState *h);

/* plan-qos.c */
int rule_qos_pfc(Plan *p, const PlanPort *l, Key key);
int rule_qos_buffer(Plan *p, const PlanPort *l, Key key);
int rule_qos_dcbx(Plan *p, const PlanPort *l, Key key);
int rule_netdev_pause(Plan *p, const PlanPort *l, Key key);
int rule_qos_ets(Plan *p, const PlanPort *l, Key key);
int rule_qos_maxrate(Plan *p, const PlanPort *l, Key key);
int rule_qos_dscp_map(Plan *p, const PlanPort *l, Key key);
int rule_qos_trust(Plan *p, const PlanPort *l, Key key);
