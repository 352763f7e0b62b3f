/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The status table: what rdmad knows of each port it manages (the unit "link" names on D-Bus
 * and in rdmactl) and of the host-level keys, after each reconcile. One typed structure, keyed
 * by port and Key, that D-Bus, rdmactl status, the journal and the status notification all
 * read. Built from one observation, plan and the outcomes of what was applied; ports a
 * partial reconcile did not look at keep theirs. */

#include "apply.h"
#include "contest.h"
#include "fabric-agree.h"
#include "host.h"
#include "plan.h"
#include "profile.h"
#include "roce-facts.h"
#include "status-gids.h"

/* Where a port (or the host-level keys) stands. */
typedef enum ConfigState {
	CONFIG_STATE_UNMANAGED, /* no profile declares anything for it */
	CONFIG_STATE_PENDING,	/* changes to make, or a readiness condition (gids.require) unmet */
	CONFIG_STATE_CONVERGED,
	CONFIG_STATE_DEGRADED, /* some declared settings are unsupported here, or contested */
	CONFIG_STATE_FAILED,   /* the last attempt to apply something failed */
	_CONFIG_STATE_MAX,
	_CONFIG_STATE_INVALID = -EINVAL,
} ConfigState;
DECLARE_STRING_TABLE_LOOKUP(config_state, ConfigState)

/* Where one declared setting stands. */
typedef enum SettingResult {
	SETTING_CONVERGED,
	SETTING_PENDING,
	SETTING_UNSUPPORTED,
	SETTING_FAILED,
	SETTING_CONTESTED, /* another agent keeps reverting it: rdmad holds off (contest.h) */
	_SETTING_RESULT_MAX,
	_SETTING_RESULT_INVALID = -EINVAL,
} SettingResult;
DECLARE_STRING_TABLE_LOOKUP(setting_result, SettingResult)

typedef struct SettingStatus {
	Key key;
	char *desired;
	char *current; /* NULL: not known */
	SettingResult result;
	char *error; /* why unsupported, failed or contested; what gids.require waits for */
} SettingStatus;

/* What rdmad wrote of one setting, across reconciles (for contest.h). */
typedef struct SettingHistory {
	Key key;
	ContestHistory contest;
	char *contender; /* who reverted it, where known */
} SettingHistory;

/* What rdmad did about one action in this reconcile (a failure, a write, a backend that found
 * it unsupported): keyed by port (device NULL: the host) and Key. */
typedef struct Outcome {
	char *device;
	char *function; /* sriov.*, pci.*: the action's function ("pci/0000:03:00.0") */
	uint32_t port;
	Key key;
	char *desired; /* the action's: one key can have several (addresses, modules) */
	ApplyResult result;
	int error;
	char *message;
} Outcome;

typedef struct Outcomes {
	Outcome *items;
	size_t n, n_alloc;
} Outcomes;

void outcomes_done(Outcomes *o);
int outcomes_add(Outcomes *o, const Action *a, const ActionOutcome *r);
/* The first outcome of that port (device NULL: the host) with that result, and with that key
 * unless key is _KEY_INVALID. */
const Outcome *outcomes_find(const Outcomes *o, const char *device, uint32_t port, Key key,
			     ApplyResult result);
/* The outcome of that very action (its port, key and desired value) with that result. */
const Outcome *outcomes_find_action(const Outcomes *o, const Action *a, ApplyResult result);

#define NEAREST_GPUS_UNKNOWN UINT16_MAX

/* The switch port at the other end of a link, as the LLDP lldpd heard on its netdev says
 * (host-lldp.c), against what the host does now (fabric-host.h, fabric_compare_switch()): only
 * for a link with an LLDP neighbour. */
typedef struct SwitchStatus {
	char *chassis, *port_id; /* LLDP chassis and port id, lldpd's words ("mac ...") */
	char *system_name;	 /* NULL: not sent */
	char *advertises;	 /* what it advertises, in words; NULL: no DCB TLV at all */
	FabricMismatch mismatches[FABRIC_MISMATCHES_MAX];
	size_t n_mismatches;
} SwitchStatus;

typedef struct PortStatus {
	/* "mlx5_0/1": one allocation that holds device, netdev and driver too (a chunk rather
	 * than four for each of thousands of links); only name is freed */
	char *name;
	char *device; /* in name's allocation */
	uint32_t port;
	char *netdev; /* in name's allocation */
	ConfigState state;
	char *last_error;
	unsigned n_failed;   /* consecutive failed attempts, for the backoff */
	uint64_t retry_usec; /* CLOCK_MONOTONIC: a failed port is not tried again before this */
	bool waiting_gids;   /* pending only because gids.require or gids.publish is unmet */
	/* The GPUs nearest to it (manager-gpus.c): 1 + an index into the manager's lists; 0 none,
	 * NEAREST_GPUS_UNKNOWN not read yet */
	uint16_t nearest_gpus;
	GidChoice publish; /* which GID it publishes: gids.publish, or the default */

	/* Observed facts. */
	char *driver;	 /* in name's allocation */
	char **profiles; /* names of the profiles that match, in the order they apply */
	LinkLayer link_layer;
	bool has_roce_mode, has_roce_tos;
	RoceMode roce_mode;
	unsigned roce_tos;
	GidTable gids;		 /* the port's netdev is `netdev` */
	RoceFacts facts;	 /* its RoCE settings as observed, whoever set them */
	SettingStatus *settings; /* one per declared key, in Key order */
	size_t n_settings;
	SettingHistory *history; /* settings rdmad wrote */
	size_t n_history;
	/* What the observation could not read or make sense of (the device's, the port's and
	 * its netdev's sysfs and configfs values, each naming its file): a managed link with any
	 * is degraded, never converged, since its picture of the kernel is incomplete. */
	char **observe_errors;
	SwitchStatus *sw; /* NULL: no LLDP neighbour heard (or lldpd not there to ask) */
} PortStatus;

/* Modules, soft devices and the netns mode. */
typedef struct HostStatus {
	bool observed; /* a full reconcile has looked at the host-level keys */
	ConfigState state;
	char *last_error;
	unsigned n_failed;
	uint64_t retry_usec;
} HostStatus;

void port_status_done(PortStatus *s);
void host_status_done(HostStatus *s);

/* Fill the observed facts and the per-setting results of port p of d (on netdev nd, or NULL)
 * from the final plan, the outcomes of this reconcile, and old (the port's previous status, or
 * NULL; its history is copied). ls: what its profiles declare (NULL when none matches);
 * *profiles is taken. h: the host (host-wide facts: another agent that owns a setting). */
int port_status_build(PortStatus *s, const HostState *h, const HostDevice *d, const HostPort *p,
		      const HostNetdev *nd, const PortSettings *ls, char ***profiles,
		      const Plan *plan, const Outcomes *outcomes, PortStatus *old, uint64_t now);

SettingStatus *port_status_setting(PortStatus *s, Key key);
SettingHistory *port_status_history(PortStatus *s, Key key, bool create);
/* A failed port waiting for its next attempt. */
bool port_status_held(const PortStatus *s, uint64_t now) _pure_;
/* "qos.pfc unsupported (DCBX is managed by ...); ..." for the settings that are not converged
 * and say why; NULL when none does. */
char *port_status_reasons(const PortStatus *s);

/* The GID a job should use (gid.h's gid_preferred() on the remembered table). */
int port_status_gid_preferred(const PortStatus *s, GidType type, GidFamily family, Gid *ret);

/* Which facts differ, for PropertiesChanged: a bit per PortProperty. */
typedef enum PortProperty {
	PORT_PROPERTY_NETDEV,
	PORT_PROPERTY_DRIVER,
	PORT_PROPERTY_STATE,
	PORT_PROPERTY_PROFILES,
	PORT_PROPERTY_ROCE_MODE,
	PORT_PROPERTY_ROCE_TOS,
	PORT_PROPERTY_GIDS,
	PORT_PROPERTY_PREFERRED_GID_INDEX,
	PORT_PROPERTY_SETTINGS,
	PORT_PROPERTY_LAST_ERROR,
	PORT_PROPERTY_OBSERVE_ERRORS,
	PORT_PROPERTY_ROCE_FACTS,
	_PORT_PROPERTY_MAX,
} PortProperty;
unsigned port_status_changes(const PortStatus *a, const PortStatus *b) _pure_;
/* Whether both say the same of the switch port (Describe() only: no property of its own). */
bool port_status_switch_equal(const PortStatus *a, const PortStatus *b) _pure_;
