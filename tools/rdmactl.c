/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rdmactl.h"
#include "strv.h"

typedef enum VerbOption {
	VERB_ROOT = 1 << 0,
	VERB_JSON = 1 << 1,
	VERB_EXIT_CODE = 1 << 2,
	VERB_CONFIG_DIR = 1 << 3,
	VERB_GID_FILTER = 1 << 4,
	VERB_PAGER = 1 << 5,
	VERB_PID = 1 << 6,
	VERB_SELFTEST = 1 << 7,
	VERB_USER = 1 << 8,
	VERB_TIMEOUT = 1 << 9,
	VERB_WAIT = 1 << 10,
	VERB_WATCH = 1 << 11,
	VERB_OUTPUT = 1 << 12,
	VERB_SYSFS = 1 << 13,
	VERB_TRY = 1 << 14,
	VERB_TO = 1 << 15,
} VerbOption;

static const struct Verb {
	const char *name;
	const char *args;
	const char *help;
	unsigned options; /* VerbOption bits it accepts */
	int max_args;	  /* -1: any number */
	int (*run)(const Options *o, int argc, char **argv);
} verbs[] = {
	{ "status", "[LINK]", "Show rdmad's view: each link's state and why (daemon)",
	  VERB_JSON | VERB_PAGER, 1, verb_status },
	{ "reload", "", "Reload the profiles; fails with every error if invalid (daemon)",
	  VERB_PID | VERB_ROOT | VERB_CONFIG_DIR, 0, verb_reload },
	{ "reconcile", "", "Make rdmad look at every link now (daemon)", 0, 0, verb_reconcile },
	{ "monitor", "", "Follow rdmad's changes until ^C (daemon)", VERB_JSON, 0, verb_monitor },
	{ "wait-online", "", "Wait until the links are converged with a GID (daemon)",
	  VERB_TIMEOUT | VERB_WAIT, 0, verb_wait_online },
	{ "check", "[FILE...]", "Validate profiles (the given files, or every drop-in)",
	  VERB_ROOT | VERB_CONFIG_DIR, -1, verb_check },
	{ "plan", "", "Show what rdmad would change on this host",
	  VERB_ROOT | VERB_CONFIG_DIR | VERB_JSON | VERB_EXIT_CODE | VERB_PAGER, 0, verb_plan },
	{ "links", "", "List RDMA links, their netdev, state and profiles",
	  VERB_ROOT | VERB_CONFIG_DIR | VERB_JSON, 0, verb_links },
	{ "gids", "[DEV[/PORT]]", "List populated GID table entries",
	  VERB_ROOT | VERB_JSON | VERB_SYSFS, 1, verb_gids },
	{ "gid", "LINK", "Print the GID index RoCE jobs should use (ib_write_bw -x, NCCL)",
	  VERB_ROOT | VERB_JSON | VERB_GID_FILTER, 1, verb_gid },
	{ "preflight", "[LINK...]", "Check that RDMA is ready here: what fails and the fix",
	  VERB_ROOT | VERB_CONFIG_DIR | VERB_JSON | VERB_USER, -1, verb_preflight },
	{ "topology", "", "Show GPUs and RDMA links on PCIe: paths, NUMA, link widths, ACS",
	  VERB_ROOT | VERB_JSON, 0, verb_topology },
	{ "counters", "[LINK]", "Show the ports' counters; with --watch, rates and trouble",
	  VERB_ROOT | VERB_JSON | VERB_WATCH, 2, verb_counters },
	{ "metrics", "", "Print Prometheus metrics: counters and rdmad's state",
	  VERB_ROOT | VERB_OUTPUT, 0, verb_metrics },
	{ "selftest", "LINK [PEER]", "A real RDMA exchange on LINK: latency and bandwidth",
	  VERB_JSON | VERB_SELFTEST | VERB_TIMEOUT, 2, verb_selftest },
	{ "probe", "", "Show rdmad-probe's paths over the last minute: loss and latency",
	  VERB_ROOT | VERB_JSON | VERB_WATCH, 1, verb_probe },
	{ "try", "FILE...", "Apply profiles as a trial, rolled back unless confirmed (daemon)",
	  VERB_TIMEOUT | VERB_TRY, -1, verb_try },
	{ "confirm", "", "Keep the pending trial: its files become profiles (daemon)", VERB_TO, 0,
	  verb_confirm },
	{ "rollback", "", "Roll the pending trial back now (daemon)", 0, 0, verb_rollback },
};

static void help(FILE *f) {
	int name_width = 0, args_width = 0;

	/* the columns as wide as the table's longest name and arguments */
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++) {
		if ((int) strlen(verbs[i].name) > name_width)
			name_width = (int) strlen(verbs[i].name);
		if ((int) strlen(verbs[i].args) > args_width)
			args_width = (int) strlen(verbs[i].args);
	}
	fprintf(f, "Usage: rdmactl [OPTIONS] COMMAND [ARGS]\n\n"
		   "Declarative RDMA configuration: inspect, plan, and drive rdmad.\n\n"
		   "plan and gid ask rdmad when it runs, and read the host directly when it does\n"
		   "not or when --root/--config-dir name another host.\n\nCommands:\n");
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		fprintf(f, "  %-*s %-*s  %s\n", name_width, verbs[i].name, args_width,
			verbs[i].args, verbs[i].help);
	fprintf(f, "\nOptions:\n"
		   "  --root DIR        Read sysfs, configfs and profiles under DIR (default /)\n"
		   "  --config-dir DIR  Read profiles from DIR instead of the drop-in dirs\n"
		   "                    (repeatable; not relative to --root)\n"
		   "  --json            Print JSON\n"
		   "  --exit-code       plan: exit 2 when changes are pending\n"
		   "  --family F        gid: ipv4, ipv6 or link-local (default: IPv4, else IPv6)\n"
		   "  --roce V          gid: v1 or v2 (default v2)\n"
		   "  --sysfs           gids: read sysfs, not one verbs query per device\n"
		   "  --no-pager        status, plan: do not pipe into a pager\n"
		   "  --pid PID         reload: rdmad's PID; when rdmad is not on the bus (early\n"
		   "                    boot), check the profiles and send it SIGHUP instead\n"
		   "  --user USER       preflight: judge device node access for USER (name or\n"
		   "                    UID), not for the caller\n"
		   "  --listen          selftest: serve a remote `rdmactl selftest LINK HOST`\n"
		   "  --port N          selftest: rdma_cm port (default 7472)\n"
		   "  --size BYTES      selftest: message size (default 65536)\n"
		   "  --iters N         selftest: round trips measured (default 1000)\n"
		   "  --timeout S       selftest: give up when nothing progresses for S seconds\n"
		   "                    (default 10); wait-online: give up after S (default 120);\n"
		   "                    try: roll back unless confirmed within S (default 120)\n"
		   "  --wait            try: wait until the gates held 10 s (exit 0) or the\n"
		   "                    trial was rolled back (exit 1)\n"
		   "  --to DIR          confirm: write the files to DIR (/etc/rdmad, the default,\n"
		   "                    or /run/rdmad: until reboot)\n"
		   "  --deadline S      selftest: give up after S seconds in all (default: none)\n"
		   "  --gid-index N     selftest: use this GID index, not the one rdmad publishes\n"
		   "  --link LINK       wait-online: wait for LINK (repeatable; default: every\n"
		   "                    managed link)\n"
		   "  --any             wait-online: one ready link is enough\n"
		   "  --gid F           wait-online: the link must have an ipv4 (or ipv6) GID\n"
		   "  --watch [SECS]    counters: rates over each SECS (default 1) until ^C\n"
		   "  --output FILE     metrics: write FILE atomically instead of stdout\n"
		   "  -h --help         Show this help\n  --version         Show the version\n");
}

int main(int argc, char **argv) {
	enum {
		ARG_ROOT = 0x100,
		ARG_CONFIG_DIR,
		ARG_JSON,
		ARG_EXIT_CODE,
		ARG_FAMILY,
		ARG_ROCE,
		ARG_NO_PAGER,
		ARG_PID,
		ARG_USER,
		ARG_LISTEN,
		ARG_PORT,
		ARG_SIZE,
		ARG_ITERS,
		ARG_TIMEOUT,
		ARG_DEADLINE,
		ARG_GID_INDEX,
		ARG_LINK,
		ARG_ANY,
		ARG_GID,
		ARG_WATCH,
		ARG_OUTPUT,
		ARG_SYSFS,
		ARG_WAIT,
		ARG_TO,
		ARG_VERSION
	};
	static const struct option options[] = {
		{ "root", required_argument, NULL, ARG_ROOT },
		{ "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
		{ "json", no_argument, NULL, ARG_JSON },
		{ "exit-code", no_argument, NULL, ARG_EXIT_CODE },
		{ "family", required_argument, NULL, ARG_FAMILY },
		{ "roce", required_argument, NULL, ARG_ROCE },
		{ "no-pager", no_argument, NULL, ARG_NO_PAGER },
		{ "pid", required_argument, NULL, ARG_PID },
		{ "user", required_argument, NULL, ARG_USER },
		{ "listen", no_argument, NULL, ARG_LISTEN },
		{ "port", required_argument, NULL, ARG_PORT },
		{ "size", required_argument, NULL, ARG_SIZE },
		{ "iters", required_argument, NULL, ARG_ITERS },
		{ "timeout", required_argument, NULL, ARG_TIMEOUT },
		{ "deadline", required_argument, NULL, ARG_DEADLINE },
		{ "gid-index", required_argument, NULL, ARG_GID_INDEX },
		{ "link", required_argument, NULL, ARG_LINK },
		{ "any", no_argument, NULL, ARG_ANY },
		{ "gid", required_argument, NULL, ARG_GID },
		{ "watch", no_argument, NULL, ARG_WATCH },
		{ "output", required_argument, NULL, ARG_OUTPUT },
		{ "sysfs", no_argument, NULL, ARG_SYSFS },
		{ "wait", no_argument, NULL, ARG_WAIT },
		{ "to", required_argument, NULL, ARG_TO },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ 0 },
	};
	_cleanup_strv_free_ char **config_dirs = NULL, **links = NULL;
	Options o = { .root = "/",
		      .port = 7472,
		      .size = 65536,
		      .iters = 1000,
		      .timeout = 10,
		      .gid_index = -1 };
	unsigned given = 0;
	const struct Verb *verb = NULL;
	int c, r;

	while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
		switch (c) {
		case ARG_ROOT:
			o.root = optarg;
			given |= VERB_ROOT;
			break;
		case ARG_CONFIG_DIR:
			r = strv_extend(&config_dirs, optarg);
			if (r < 0) {
				fprintf(stderr, "rdmactl: out of memory\n");
				return EXIT_FAILURE;
			}
			given |= VERB_CONFIG_DIR;
			break;
		case ARG_JSON:
			o.json = true;
			given |= VERB_JSON;
			break;
		case ARG_EXIT_CODE:
			o.exit_code = true;
			given |= VERB_EXIT_CODE;
			break;
		case ARG_FAMILY:
			o.family = optarg;
			given |= VERB_GID_FILTER;
			break;
		case ARG_ROCE:
			o.roce = optarg;
			given |= VERB_GID_FILTER;
			break;
		case ARG_PID: {
			char *end;
			long pid = strtol(optarg, &end, 10);

			if (*end || pid <= 1 || pid > INT32_MAX) {
				fprintf(stderr, "rdmactl: --pid wants a process ID, got '%s'\n",
					optarg);
				return EXIT_FAILURE;
			}
			o.pid = (pid_t) pid;
			given |= VERB_PID;
			break;
		}
		case ARG_LINK:
			if (strv_extend(&links, optarg) < 0) {
				fprintf(stderr, "rdmactl: out of memory\n");
				return EXIT_FAILURE;
			}
			given |= VERB_WAIT;
			break;
		case ARG_ANY:
			o.any = true;
			given |= VERB_WAIT;
			break;
		case ARG_GID:
			o.family = optarg; /* the family, as gid's --family */
			given |= VERB_WAIT;
			break;
		case ARG_WATCH:
			o.watch = true;
			given |= VERB_WATCH;
			break;
		case ARG_OUTPUT:
			o.output = optarg;
			given |= VERB_OUTPUT;
			break;
		case ARG_SYSFS:
			o.sysfs = true;
			given |= VERB_SYSFS;
			break;
		case ARG_WAIT:
			o.try_wait = true;
			given |= VERB_TRY;
			break;
		case ARG_TO:
			o.to = optarg;
			given |= VERB_TO;
			break;
		case ARG_USER:
			o.user = optarg;
			given |= VERB_USER;
			break;
		case ARG_LISTEN:
			o.listen = true;
			given |= VERB_SELFTEST;
			break;
		case ARG_PORT:
		case ARG_SIZE:
		case ARG_ITERS:
		case ARG_TIMEOUT:
		case ARG_DEADLINE:
		case ARG_GID_INDEX: {
			static const struct {
				const char *name;
				unsigned long min, max;
			} limits[] = {
				[ARG_PORT - ARG_PORT] = { "--port", 1, 65535 },
				[ARG_SIZE - ARG_PORT] = { "--size", 1, 1UL << 30 },
				[ARG_ITERS - ARG_PORT] = { "--iters", 1, 10000000 },
				[ARG_TIMEOUT - ARG_PORT] = { "--timeout", 1, 3600 },
				[ARG_DEADLINE - ARG_PORT] = { "--deadline", 1, 86400 },
				[ARG_GID_INDEX - ARG_PORT] = { "--gid-index", 0, 65535 },
			};
			unsigned long v, *dest[] = { &o.port,	 &o.size,     &o.iters,
						     &o.timeout, &o.deadline, NULL };
			char *end;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' ||
			    v < limits[c - ARG_PORT].min || v > limits[c - ARG_PORT].max) {
				fprintf(stderr,
					"rdmactl: %s wants a number from %lu to %lu, got '%s'\n",
					limits[c - ARG_PORT].name, limits[c - ARG_PORT].min,
					limits[c - ARG_PORT].max, optarg);
				return EXIT_FAILURE;
			}
			if (c == ARG_GID_INDEX)
				o.gid_index = (int) v;
			else
				*dest[c - ARG_PORT] = v;
			o.timeout_given |= c == ARG_TIMEOUT;
			given |= c == ARG_TIMEOUT ? VERB_TIMEOUT : VERB_SELFTEST;
			break;
		}
		case ARG_NO_PAGER:
			o.no_pager = true;
			given |= VERB_PAGER;
			break;
		case 'h':
			help(stdout);
			return EXIT_SUCCESS;
		case ARG_VERSION:
			printf("rdmactl %s\n", PACKAGE_VERSION);
			return EXIT_SUCCESS;
		default:
			fprintf(stderr, "Try 'rdmactl --help'.\n");
			return EXIT_FAILURE;
		}
	o.config_dirs = config_dirs;
	o.links = links;

	if (optind >= argc) {
		help(stderr);
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < ELEMENTSOF(verbs); i++)
		if (streq(verbs[i].name, argv[optind]))
			verb = &verbs[i];
	if (!verb) {
		fprintf(stderr, "rdmactl: unknown command '%s'. Try 'rdmactl --help'.\n",
			argv[optind]);
		return EXIT_FAILURE;
	}
	if (given & ~verb->options) {
		fprintf(stderr,
			"rdmactl %s: an option given does not apply to this command. "
			"Try 'rdmactl --help'.\n",
			verb->name);
		return EXIT_FAILURE;
	}
	if (verb->max_args >= 0 && argc - optind - 1 > verb->max_args) {
		fprintf(stderr, "rdmactl %s: too many arguments.\n", verb->name);
		return EXIT_FAILURE;
	}
	return verb->run(&o, argc - optind - 1, argv + optind + 1);
}
