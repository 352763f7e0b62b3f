/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "host.h"

typedef struct Options {
	const char *root;   /* --root, "/" by default */
	char **config_dirs; /* --config-dir, NULL: the drop-in dirs under root */
	bool json;
	bool exit_code;
	const char *family; /* gid: --family ipv4|ipv6|link-local */
	const char *roce;   /* gid: --roce v1|v2 */
	bool sysfs;	    /* gids: --sysfs, not one verbs query per device */
	bool no_pager;
	pid_t pid;	  /* reload: rdmad's PID, for a SIGHUP when it is not on the bus */
	const char *user; /* preflight: --user, whose access to the device nodes is judged */
	/* selftest */
	bool listen;		/* --listen: the passive side for a remote client */
	unsigned long port;	/* rdma_cm port */
	unsigned long size;	/* bytes per message */
	unsigned long iters;	/* round trips measured */
	unsigned long timeout;	/* seconds without progress (wait-online: in all) */
	unsigned long deadline; /* --deadline: seconds for the whole test, 0: none */
	int gid_index;		/* --gid-index, -1: the one rdmad publishes */
	bool timeout_given;	/* --timeout (selftest, wait-online) */
	/* wait-online */
	char **links;	    /* --link, NULL: every managed link */
	bool any;	    /* --any: one ready link is enough */
	bool watch;	    /* counters: --watch, rates */
	const char *output; /* metrics: --output FILE */
	bool try_wait;	    /* try: --wait, until the gates held or the trial ended */
	const char *to;	    /* confirm: --to DIR */
} Options;

/* Exit codes: 0 fine, 1 error (bad arguments, invalid profiles), 2 changes pending (--exit-code).
 */
#define EXIT_PENDING 2

/* Online commands ask rdmad over D-Bus (rdmactl-online.c); plan and gid fall back to reading
 * the host directly when it does not run, or when --root/--config-dir say which host. */
int verb_status(const Options *o, int argc, char **argv);
int verb_reload(const Options *o, int argc, char **argv);
int verb_reconcile(const Options *o, int argc, char **argv);
int verb_monitor(const Options *o, int argc, char **argv);
int verb_wait_online(const Options *o, int argc, char **argv);
int verb_counters(const Options *o, int argc, char **argv);
int verb_metrics(const Options *o, int argc, char **argv);
int verb_probe(const Options *o, int argc, char **argv);
/* rdmactl-trial.c */
int verb_try(const Options *o, int argc, char **argv);
int verb_confirm(const Options *o, int argc, char **argv);
int verb_rollback(const Options *o, int argc, char **argv);
/* The pending and the last trial, for `rdmactl status`. */
#include <systemd/sd-bus.h>
int trial_status_print(sd_bus *bus, FILE *f);

int verb_check(const Options *o, int argc, char **argv);
int verb_plan(const Options *o, int argc, char **argv);
int verb_links(const Options *o, int argc, char **argv);
int verb_gids(const Options *o, int argc, char **argv);
int verb_gid(const Options *o, int argc, char **argv);
int verb_preflight(const Options *o, int argc, char **argv);
int verb_selftest(const Options *o, int argc, char **argv);
int verb_topology(const Options *o, int argc, char **argv);
/* The profile files --root/--config-dir name (rdmactl-offline.c). */
int options_profile_files(const Options *o, char ***ret);
int offline_plan(const Options *o);
int offline_gid(const Options *o, int argc, char **argv);

/* LINK: "dev/port", "dev" (a one-port device) or the link's netdev. -EINVAL when it is none
 * of these, -EADDRNOTAVAIL for a device with several ports, -ENODEV when there is none. */
int link_find(const HostState *h, const char *name, const HostDevice **ret_dev,
	      const HostPort **ret_port);
/* The GID `rdmactl gid` answers from the host (type and family _INVALID: what the profiles
 * of o publish, gids.publish), or -ENODATA and in *ret_why what it says instead. */
int offline_gid_find(const Options *o, const HostDevice *d, const HostPort *p, GidType type,
		     GidFamily family, const Gid **ret, char **ret_why);
/* What the profiles of o (--root, --config-dir) declare in gids.publish for the port, or the
 * default. */
GidChoice offline_gid_choice(const Options *o, const HostDevice *d, const HostPort *p);
/* The GID index jobs should use on LINK, as `rdmactl gid LINK [--family F]` finds it: rdmad's
 * (ResolveGid) when it runs and o names this host, else the host's (h). Returns 0 and the
 * index, or -errno and in *ret_why what `rdmactl gid` would say. family may be NULL. */
int link_gid_index(const Options *o, const HostState *h, const char *link, const char *family,
		   uint32_t *ret_index, char **ret_why);

/* plan-print.c: a plan's JSON array as text (or JSON); the exit code for --exit-code. */
typedef struct json_object json_object;
int plan_print(json_object *plan, const Options *o);
