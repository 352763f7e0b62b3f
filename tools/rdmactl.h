/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>

typedef struct Options {
	const char *root;   /* --root, "/" by default */
	char **config_dirs; /* --config-dir, NULL: the drop-in dirs under root */
	bool json;
	bool exit_code;
	const char *family; /* gid: --family ipv4|ipv6|link-local */
	const char *roce;   /* gid: --roce v1|v2 */
} Options;

/* Exit codes: 0 fine, 1 error (bad arguments, invalid profiles), 2 changes pending (--exit-code).
 */
#define EXIT_PENDING 2

int verb_check(const Options *o, int argc, char **argv);
int verb_plan(const Options *o, int argc, char **argv);
int verb_links(const Options *o, int argc, char **argv);
int verb_gids(const Options *o, int argc, char **argv);
int verb_gid(const Options *o, int argc, char **argv);
