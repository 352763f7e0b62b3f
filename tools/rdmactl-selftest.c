/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdio.h>
#include <stdlib.h>

#include "rdmactl.h"

int verb_selftest(const Options *o, int argc, char **argv) {
	fprintf(stderr, "rdmactl selftest: TODO(helper A)\n");
	return EXIT_FAILURE;
}
