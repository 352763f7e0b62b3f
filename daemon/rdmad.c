/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* rdmad: keeps every RDMA link in the state its profiles declare. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "config.h"
#include "log.h"
#include "fileio.h"
#include "manager-bus.h"
#include "manager-trial.h"
#include "manager.h"
#include "rdmanl-talk.h"
#include "scope-newlink.h"
#include "strv.h"

static void help(void) {
	printf("Usage: rdmad [OPTIONS]\n\n"
	       "Bring every RDMA link into the state its profiles declare, and keep it there.\n\n"
	       "  --root DIR          Read and write sysfs/configfs under DIR (fixture trees;\n"
	       "                      no udev monitor then)\n"
	       "  --config-dir DIR    Read profiles from DIR instead of the drop-in dirs\n"
	       "                      (repeatable)\n"
	       "  --state-dir DIR     Where rdmad remembers what it created (default\n"
	       "                      " RDMAD_STATE_DIR ", under DIR with --root)\n"
	       "  --probe-state FILE  rdmad-probe's state, which a trial's probe gate reads\n"
	       "                      (default /run/rdmad-probe/state.json, under DIR with\n"
	       "                      --root)\n"
	       "  --bus               Own org.rdmad1 on the system bus (or "
	       "DBUS_SYSTEM_BUS_ADDRESS)\n"
	       "                      under --root too; without --root always\n"
	       "  --once              Reconcile once and exit: 0 converged, 2 not converged,\n"
	       "                      1 error (an invalid profile file is left out, the rest\n"
	       "                      applied)\n"
	       "  -v --log-level L    emerg..debug or 0..7 (-v alone: debug)\n"
	       "  -h --help           Show this help\n"
	       "     --version        Show the version\n");
}

/* rdmad --newlink -- NAME TYPE NETDEV: scope-newlink.c's child, in the scope systemd-run moved
 * it to. Sends the NEWLINK and prints the kernel's answer, 0 or -errno, for rdmad to read. The
 * "--" ends the options (getopt_long()), so that a name starting with '-' stays a name. */
static int newlink_main(char **args) {
	struct nl_sock *sk = NULL;
	int r;

	r = rdmanl_socket_open(&sk);
	if (r >= 0) {
		r = rdmanl_newlink(sk, args[0], args[1], args[2]);
		nl_socket_free(sk);
	}
	printf("%d\n", r);
	return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv) {
	enum {
		ARG_ROOT = 0x100,
		ARG_CONFIG_DIR,
		ARG_STATE_DIR,
		ARG_BUS,
		ARG_PROBE_STATE,
		ARG_ONCE,
		ARG_VERSION,
		ARG_NEWLINK
	};
	static const struct option options[] = {
		{ "root", required_argument, NULL, ARG_ROOT },
		{ "config-dir", required_argument, NULL, ARG_CONFIG_DIR },
		{ "state-dir", required_argument, NULL, ARG_STATE_DIR },
		{ "bus", no_argument, NULL, ARG_BUS },
		{ "probe-state", required_argument, NULL, ARG_PROBE_STATE },
		{ "once", no_argument, NULL, ARG_ONCE },
		{ "log-level", optional_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, ARG_VERSION },
		{ "newlink", no_argument, NULL, ARG_NEWLINK }, /* internal: scope-newlink.c */
		{ 0 },
	};
	_cleanup_strv_free_ char **config_dirs = NULL;
	_cleanup_(manager_freep) Manager *m = NULL;
	_cleanup_free_ char *root_state_dir = NULL;
	const char *root = "/", *state_dir = NULL, *probe_state = NULL;
	bool once = false, bus = false, newlink = false;
	int c, r;

	log_setup();
	/* Big buffers (a Describe() of thousands of links is megabytes, twice: the document and
	 * the bus message) from mmap() and back to the kernel when freed. glibc would otherwise
	 * raise this threshold after the first such free, serve the next ones from the heap,
	 * and keep the peak resident: RSS grew by 9 MB after Describe() at 4,096 links.
	 * Setting it turns that adjustment off. */
	(void) mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	while ((c = getopt_long(argc, argv, "hv::", options, NULL)) >= 0)
		switch (c) {
		case ARG_ROOT:
			root = optarg;
			break;
		case ARG_CONFIG_DIR:
			if (strv_extend(&config_dirs, optarg) < 0)
				return EXIT_FAILURE;
			break;
		case ARG_STATE_DIR:
			state_dir = optarg;
			break;
		case ARG_BUS:
			bus = true;
			break;
		case ARG_PROBE_STATE:
			probe_state = optarg;
			break;
		case ARG_ONCE:
			once = true;
			break;
		case 'v':
			r = optarg ? log_level_from_string(optarg) : LOG_DEBUG;
			if (r < 0) {
				log_error("Unknown log level '%s'.", optarg);
				return EXIT_FAILURE;
			}
			log_set_max_level(r);
			break;
		case 'h':
			help();
			return EXIT_SUCCESS;
		case ARG_NEWLINK:
			newlink = true;
			break;
		case ARG_VERSION:
			printf("rdmad %s\n", PACKAGE_VERSION);
			return EXIT_SUCCESS;
		default:
			return EXIT_FAILURE;
		}
	if (newlink) {
		if (argc - optind != 3) {
			log_error("--newlink takes -- NAME TYPE NETDEV.");
			return EXIT_FAILURE;
		}
		return newlink_main(argv + optind);
	}
	if (optind < argc) {
		log_error("Unexpected argument '%s'.", argv[optind]);
		return EXIT_FAILURE;
	}

	/* Under a fixture root, rdmad's record of what it created lives in that root too. */
	if (!state_dir) {
		if (streq(root, "/"))
			state_dir = RDMAD_STATE_DIR;
		else if (asprintf(&root_state_dir, "%s%s", root, RDMAD_STATE_DIR) < 0)
			return EXIT_FAILURE;
		else
			state_dir = root_state_dir;
	}

	r = manager_new(root, config_dirs, state_dir, !streq(root, "/"), &m);
	if (r < 0) {
		log_error_errno(r, "Failed to set up");
		return EXIT_FAILURE;
	}
	/* Under systemd, Soft-RoCE links are made from a cgroup of their own (scope-newlink.c). */
	if (streq(root, "/") && scope_newlink_wanted())
		applier_set_newlink(m->applier, scope_newlink, m->event);
	/* A fixture root is hermetic: the host's bus name only when asked for. */
	m->use_bus = bus || streq(root, "/");
	/* Tests only: writes made to fail on purpose (apply.h). Never on the real root. */
	if (!streq(root, "/") && getenv("RDMAD_TEST_FAULTS")) {
		r = applier_set_fault_file(m->applier, getenv("RDMAD_TEST_FAULTS"));
		if (r < 0) {
			log_error_errno(r, "Failed to set up fault injection");
			return EXIT_FAILURE;
		}
		log_notice("Injecting write faults listed in %s (RDMAD_TEST_FAULTS).",
			   getenv("RDMAD_TEST_FAULTS"));
	}
	/* Tests only: the unprivileged counter reads' window, so long that a test counts exactly
	 * COUNTERS_RATELIMIT_BURST answers however slowly its calls come. Never on the real root.
	 */
	if (!streq(root, "/") && getenv("RDMAD_TEST_RATELIMIT_INTERVAL_USEC")) {
		unsigned long long usec;

		if (sscanf(getenv("RDMAD_TEST_RATELIMIT_INTERVAL_USEC"), "%llu", &usec) != 1 ||
		    usec == 0) {
			log_error("RDMAD_TEST_RATELIMIT_INTERVAL_USEC is not a positive number.");
			return EXIT_FAILURE;
		}
		m->counters_ratelimit.interval_usec = usec;
	}
	/* Tests only: the profiles' settle time from a file the test writes (manager.h). */
	if (!streq(root, "/") && getenv("RDMAD_TEST_SETTLE_FILE")) {
		m->test_settle_file = strdup(getenv("RDMAD_TEST_SETTLE_FILE"));
		if (!m->test_settle_file) {
			log_error_errno(-ENOMEM, "Failed to set up");
			return EXIT_FAILURE;
		}
	}
	/* rdmad-probe's state, for a trial's probe gate (manager-trial.h) */
	m->probe_state_path =
		probe_state ? strdup(probe_state) : root_path(root, "/run/rdmad-probe/state.json");
	if (!m->probe_state_path)
		return EXIT_FAILURE;
	/* A trial pending when rdmad stopped is rolled back by the first reconcile: its layer
	 * is in the first load. */
	r = manager_trial_resume(m);
	if (r < 0)
		return EXIT_FAILURE;
	/* Invalid files are left out (and reported); only running out of memory stops us. */
	r = manager_load_config(m);
	if (r < 0)
		return EXIT_FAILURE;
	(void) manager_gpus_read(m); /* logs what fails, and goes on without GPUs */
	if (once) {
		r = manager_reconcile(m);
		if (r < 0) {
			log_error_errno(r, "Reconcile failed");
			return EXIT_FAILURE;
		}
		/* The valid profiles were applied; a file left out is an error all the same. */
		if (m->config_errors.n > 0)
			return EXIT_FAILURE;
		return r == 0 ? EXIT_SUCCESS : 2;
	}
	r = manager_start(m);
	if (r < 0)
		return EXIT_FAILURE;
	if (m->use_bus) {
		r = manager_connect_bus(m);
		if (r < 0) {
			log_error_errno(r, "Failed to connect to the system bus");
			return EXIT_FAILURE;
		}
	}
	r = manager_run(m);
	if (r < 0) {
		log_error_errno(r, "Event loop failed");
		return EXIT_FAILURE;
	}
	return EXIT_SUCCESS;
}
