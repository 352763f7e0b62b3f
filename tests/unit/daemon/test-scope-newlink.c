/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* daemon/scope-newlink.c with a stand-in for systemd-run that records its command line and runs
 * the real rdmad ($RDMAD) with what follows the binary: link names that start with '-' reach
 * `rdmad --newlink` as names, and its answer (the kernel's -errno for a netdev that does not
 * exist, or the RDMA netlink socket's where there is none) comes back. Taken as options, they
 * would end rdmad with a usage error and no answer (-ECHILD). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "macro.h"
#include "scope-newlink.h"
#include "tests.h"

/* systemd-run --scope ... -- SELF ARGS...: record the line, then run $RDMAD ARGS... */
static const char fake_systemd_run[] = "#!/bin/sh\n"
				       "printf '%s\\n' \"$@\" > \"$(dirname \"$0\")/argv\"\n"
				       "while [ $# -gt 0 ] && [ \"$1\" != -- ]; do shift; done\n"
				       "shift 2\n"
				       "exec \"$RDMAD\" \"$@\"\n";

TEST(dash_names_are_operands) {
	char dir[] = "/tmp/test-scope-newlink-XXXXXX", run[64], recorded[64], argv[4096] = "";
	_cleanup_free_ char *path = NULL;
	FILE *f;
	size_t n = 0;
	int r;

	CHECK(getenv("RDMAD")); /* the rdmad binary to run */
	CHECK(mkdtemp(dir));
	snprintf(run, sizeof(run), "%s/systemd-run", dir);
	snprintf(recorded, sizeof(recorded), "%s/argv", dir);
	f = fopen(run, "we");
	CHECK(f);
	if (!f || !getenv("RDMAD"))
		return;
	fputs(fake_systemd_run, f);
	fclose(f);
	CHECK(chmod(run, 0755) == 0);
	CHECK(asprintf(&path, "%s:%s", dir, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin") > 0);
	setenv("PATH", path, 1);

	r = scope_newlink("-rxe9", "rxe", "-nosuchnetdev", NULL);
	/* rdmad answered: a -errno from the kernel or the socket, not "no answer" */
	if (r == -ECHILD || r == -ETIMEDOUT)
		printf("#   rdmad --newlink gave no answer: %s\n", strerror(-r));
	CHECK(r < 0 && r != -ECHILD && r != -ETIMEDOUT);
	f = fopen(recorded, "re");
	CHECK(f);
	if (f) {
		n = fread(argv, 1, sizeof(argv) - 1, f);
		argv[n] = 0;
		fclose(f);
	}
	CHECK(strstr(argv, "\n--newlink\n--\n-rxe9\nrxe\n-nosuchnetdev\n"));
	for (char *c = argv; *c; c++)
		if (*c == '\n')
			*c = ' ';
	printf("# systemd-run %s\n# rdmad --newlink answered %d (%s)\n", argv, r, strerror(-r));
	unlink(recorded);
	unlink(run);
	rmdir(dir);
}

TESTS_MAIN(TEST_ENTRY(dash_names_are_operands))
