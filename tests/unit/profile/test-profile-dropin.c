/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Drop-in discovery: masking across /usr/lib, /run and /etc, and the order files apply in. */
#include <fcntl.h>
#include <sys/stat.h>

#include "profile.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

static char root[] = "/tmp/rdmad-test-dropin-XXXXXX";

static void link_to(const char *path, const char *target) {
	char full[512];

	snprintf(full, sizeof(full), "%s%s", root, path);
	CHECK(symlink(target, full) == 0);
}

/* File names relative to root, comma-separated, for compact expectations. */
static char *found(void) {
	char **l = NULL, *s;
	size_t n = strlen(root);

	CHECK(profile_dropins_find(root, NULL, NULL, &l) == 0);
	STRV_FOREACH (f, l)
		memmove(*f, *f + n, strlen(*f + n) + 1);
	s = strv_join(l, ",");
	strv_free(l);
	return s;
}

TEST(mask_and_order) {
	char *s;

	CHECK(mkdtemp(root) != NULL);
	put_file(root, "/usr/lib/rdmad/00-defaults.yaml", "modules: [ib_uverbs]\n");
	put_file(root, "/usr/lib/rdmad/50-vendor.yaml", "roce: {tos: 1}\n");
	put_file(root, "/usr/lib/rdmad/60-masked-by-empty.yaml", "roce: {tos: 2}\n");
	put_file(root, "/usr/lib/rdmad/70-masked-by-null.yml", "roce: {tos: 3}\n");
	put_file(root, "/usr/lib/rdmad/README", "not a profile\n");
	put_file(root, "/usr/lib/rdmad/.hidden.yaml", "roce: {tos: 4}\n");
	put_file(root, "/run/rdmad/50-vendor.yaml", "roce: {tos: 5}\n");
	put_file(root, "/run/rdmad/10-runtime.yaml", "roce: {tos: 6}\n");
	put_file(root, "/usr/local/lib/rdmad/20-local.yaml", "roce: {tos: 9}\n");
	put_file(root, "/usr/local/lib/rdmad/50-vendor.yaml", "roce: {tos: 10}\n");
	put_file(root, "/usr/local/lib/rdmad/00-defaults.yaml", "roce: {tos: 11}\n");
	put_file(root, "/etc/rdmad/50-vendor.yaml", "roce: {tos: 7}\n");
	put_file(root, "/etc/rdmad/60-masked-by-empty.yaml", "");
	put_file(root, "/etc/rdmad/99-local.yml", "roce: {tos: 8}\n");
	link_to("/etc/rdmad/70-masked-by-null.yml", "/dev/null");

	s = found();
	CHECK_STREQ(s, "/usr/local/lib/rdmad/00-defaults.yaml,/run/rdmad/10-runtime.yaml,"
		       "/usr/local/lib/rdmad/20-local.yaml,/etc/rdmad/50-vendor.yaml,"
		       "/etc/rdmad/99-local.yml");
	free(s);
}

/* /run masks /usr/local/lib and /usr/lib; /etc wins over all. */
TEST(run_masks_usr_lib) {
	char *s;

	put_file(root, "/run/rdmad/00-defaults.yaml", "modules: []\n");
	s = found();
	CHECK_STREQ(s, "/run/rdmad/00-defaults.yaml,/run/rdmad/10-runtime.yaml,"
		       "/usr/local/lib/rdmad/20-local.yaml,/etc/rdmad/50-vendor.yaml,"
		       "/etc/rdmad/99-local.yml");
	free(s);
}

/* The loaded Config keeps that order, and the later file's value wins. */
TEST(config_order) {
	Diagnostics d = { 0 };
	Config *c = NULL;
	PortSettings s;
	PortFacts f = { .device = "mlx5_0", .port = 1 };

	CHECK(config_load(root, NULL, &d, &c) == 0);
	CHECK_INTEQ(d.n, 0);
	if (!c)
		return;
	CHECK_INTEQ(c->n_profiles, 5);
	CHECK_INTEQ(config_settings_for_port(c, &f, &s, NULL), 5);
	CHECK_INTEQ(s.roce_tos, 8);
	CHECK_STREQ(s.origin[KEY_ROCE_TOS], "99-local.yml");
	port_settings_done(&s);
	config_free(c);
}

/* A broken file makes the whole load fail, with every problem named. */
TEST(broken_file) {
	Diagnostics d = { 0 };
	Config *c = NULL;
	char *e;

	put_file(root, "/etc/rdmad/80-broken.yaml", "roce:\n  tos: 999\n");
	put_file(root, "/etc/rdmad/81-broken.yaml", "netdev: {mtu: 1}\n");
	CHECK(config_load(root, NULL, &d, &c) == -EINVAL);
	CHECK(c == NULL);
	CHECK_INTEQ(d.n, 2);
	e = diagnostic_format(&d.items[0]);
	CHECK(strstr(e, "/etc/rdmad/80-broken.yaml:2:8: error: 'roce.tos' must be in 0..255") !=
	      NULL);
	free(e);
	diagnostics_done(&d);
}

/* At start the daemon leaves an invalid file out and loads the others. */
TEST(skip_invalid) {
	char **files = NULL;
	Diagnostics d = { 0 };
	Config *c = NULL;
	size_t skipped = 0;

	CHECK(profile_dropins_find(root, NULL, NULL, &files) == 0);
	CHECK(config_load_files_skip_invalid(files, &d, &c, &skipped) == 0);
	CHECK_INTEQ(skipped, 2);
	CHECK_INTEQ(d.n, 2);
	if (c) {
		CHECK_INTEQ(c->n_profiles, 5);
		CHECK_INTEQ(strv_length(c->files), 5);
		STRV_FOREACH (f, c->files)
			CHECK(strstr(*f, "broken") == NULL);
	}
	config_free(c);
	diagnostics_done(&d);
	strv_free(files);
}

TEST(no_dirs) {
	char **l = NULL;

	CHECK(profile_dropins_find("/nonexistent-root", NULL, NULL, &l) == 0);
	CHECK_INTEQ(strv_length(l), 0);
	strv_free(l);
}

TEST(cleanup) {
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

TESTS_MAIN(TEST_ENTRY(mask_and_order), TEST_ENTRY(run_masks_usr_lib), TEST_ENTRY(config_order),
	   TEST_ENTRY(broken_file), TEST_ENTRY(skip_invalid), TEST_ENTRY(no_dirs),
	   TEST_ENTRY(cleanup))
