/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What rdmad knows about one link after a reconcile: its state for the daemon's own decisions
 * (backoff, GID waits) and the facts status shows (D-Bus properties, rdmactl status). Built
 * from one observation and plan; links a partial reconcile did not look at keep theirs. */

#include "host.h"
#include "plan.h"
#include "profile.h"

typedef enum LinkState {
	LINK_STATE_UNMANAGED, /* no profile declares anything for it */
	LINK_STATE_PENDING,   /* changes to make, or a readiness condition (gids.require) unmet */
	LINK_STATE_CONVERGED,
	LINK_STATE_DEGRADED, /* converged, but some declared settings are unsupported here */
	LINK_STATE_FAILED,   /* the last attempt to apply something failed */
	_LINK_STATE_MAX,
	_LINK_STATE_INVALID = -EINVAL,
} LinkState;
DECLARE_STRING_TABLE_LOOKUP(link_state, LinkState)

/* One declared setting of a link. */
typedef struct LinkSetting {
	char *setting; /* "roce.tos" */
	char *desired;
	char *current; /* NULL: not known */
	char *result;  /* converged, pending, unsupported, failed */
	char *error;   /* why unsupported, or the last error */
} LinkSetting;

typedef struct LinkStatus {
	char *name; /* "mlx5_0/1", or "host" for modules, links and system */
	char *device;
	uint32_t port;
	char *netdev;
	LinkState state;
	char *last_error;
	unsigned n_failed;   /* consecutive failed attempts, for the backoff */
	uint64_t retry_usec; /* CLOCK_MONOTONIC: a failed link is not tried again before this */
	bool waiting_gids;   /* pending only because gids.require is unmet */

	/* Observed facts, for status. */
	char *driver;
	char **profiles; /* names of the profiles that match, in the order they apply */
	LinkLayer link_layer;
	bool has_roce_mode, has_roce_tos;
	RoceMode roce_mode;
	unsigned roce_tos;
	Gid *gids;
	size_t n_gids;
	LinkSetting *settings;
	size_t n_settings;
} LinkStatus;

void link_status_done(LinkStatus *s);

/* Fill the observed facts and the per-setting results (converged, pending, unsupported) of the
 * link d/port from the final observation and plan p. ls: what its profiles declare (NULL when
 * none matches); *profiles (their names) is taken. */
int link_status_describe(LinkStatus *s, const HostDevice *d, const HostPort *port,
			 const PortSettings *ls, char ***profiles, const Plan *p);
LinkSetting *link_status_setting(LinkStatus *s, const char *setting);
/* "qos.pfc unsupported (DCBX is managed by ...); ..." for the settings that are not converged
 * and say why; NULL when none does. */
char *link_status_reasons(const LinkStatus *s);

/* The GID a job should use (gid.h's gid_preferred() on the remembered table). */
int link_status_gid_preferred(const LinkStatus *s, GidType type, GidFamily family, const Gid **ret);

/* Which status facts differ, for PropertiesChanged: a bit per LinkProperty. */
typedef enum LinkProperty {
	LINK_PROPERTY_NETDEV,
	LINK_PROPERTY_DRIVER,
	LINK_PROPERTY_STATE,
	LINK_PROPERTY_PROFILES,
	LINK_PROPERTY_ROCE_MODE,
	LINK_PROPERTY_ROCE_TOS,
	LINK_PROPERTY_GIDS,
	LINK_PROPERTY_PREFERRED_GID_INDEX,
	LINK_PROPERTY_SETTINGS,
	LINK_PROPERTY_LAST_ERROR,
	_LINK_PROPERTY_MAX,
} LinkProperty;
unsigned link_status_changes(const LinkStatus *a, const LinkStatus *b) _pure_;
