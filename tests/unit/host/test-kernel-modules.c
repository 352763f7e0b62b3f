/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which modules a kernel has, from every kind of evidence (lib/host/kernel-modules.c): the
 * .config parser on its bytes, /proc/config.gz and /boot/config-<release>, and scratch roots
 * modelled on hosts unlike the test VM: a cloud image with the RDMA core built in and no
 * /lib/modules, a kernel without configfs, a module whose package is not installed. */
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "host.h"
#include "kernel-modules.h"
#include "strv.h"
#include "tests.h"
#include "test-util.h"

#define RELEASE "6.18.0-cloud"

static void put_gz(const char *root, const char *path, const char *text) {
	char full[600];
	gzFile gz;

	put_file(root, path, ""); /* the directories */
	snprintf(full, sizeof(full), "%s/%s", root, path);
	gz = gzopen(full, "wb");
	CHECK(gz != NULL);
	CHECK_INTEQ(gzputs(gz, text), (long long) strlen(text));
	CHECK_INTEQ(gzclose(gz), Z_OK);
}

/* root + "/" + rel, in a buffer of the caller's */
#define AT(root, rel) at((char[600]){ 0 }, root, rel)
static const char *at(char *buf, const char *root, const char *rel) {
	snprintf(buf, 600, "%s/%s", root, rel);
	return buf;
}

static int root_open(const char *root) {
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	CHECK(fd >= 0);
	return fd;
}

static bool presence_is(const KernelModules *k, const char *module, ModulePresence want,
			const char *evidence) {
	_cleanup_free_ char *e = NULL;
	ModulePresence p;

	CHECK_INTEQ(kernel_module_presence(k, module, &p, &e), 0);
	if (p != want || !strstr(e, evidence)) {
		printf("# %s: %s (%s), expected %s (%s)\n", module, module_presence_to_string(p), e,
		       module_presence_to_string(want), evidence);
		return false;
	}
	return true;
}

TEST(config_parse) {
	static const char text[] = "#\n# Automatically generated file; DO NOT EDIT.\n"
				   "CONFIG_A=y\n"
				   "CONFIG_A0=m\n"
				   "CONFIG_A_B=y\n"
				   "# CONFIG_C is not set\n"
				   "CONFIG_LOCALVERSION=\"-cloud\"\n"
				   "CONFIG_NR_CPUS=8192\n"
				   "CONFIG_D=n\n"
				   "CONFIG_bad=y\n"
				   "# CONFIG_E is not set, really\n"
				   "CONFIG_F=y"; /* no newline at the end */
	_cleanup_(kernel_config_freep) KernelConfig *c = NULL;

	CHECK_INTEQ(kernel_config_parse(text, strlen(text), "/t", &c), 0);
	CHECK_STREQ(c->source, "/t");
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_A"), 'y');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_A0"), 'm');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_A_B"), 'y');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_C"), 'n');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_D"), 'n');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_F"), 'y');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_LOCALVERSION"), 'n');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_E"), 'n');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_Z"), 'n');
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_"), 'n');
	/* strings and numbers are not tristates; "CONFIG_bad" is not an option name */
	CHECK_INTEQ(strv_length(c->values), 6);

	/* not a configuration at all */
	CHECK_INTEQ(kernel_config_parse("hello\n", 6, "/t", &c), -EBADMSG);
	CHECK_INTEQ(kernel_config_parse("", 0, "/t", &c), -EBADMSG);
}

TEST(config_read) {
	_cleanup_(kernel_config_freep) KernelConfig *c = NULL, *d = NULL;
	char *root = tree_new();
	int fd = root_open(root);

	CHECK_INTEQ(kernel_config_read(fd, RELEASE, &c), -ENOENT);
	/* /boot/config-<release> */
	put_file(root, "boot/config-" RELEASE, "CONFIG_INFINIBAND=m\n");
	CHECK_INTEQ(kernel_config_read(fd, RELEASE, &c), 0);
	CHECK_STREQ(c->source, "/boot/config-" RELEASE);
	CHECK_INTEQ(kernel_config_get(c, "CONFIG_INFINIBAND"), 'm');
	/* /proc/config.gz first: it is the running kernel's own */
	put_gz(root, "proc/config.gz", "CONFIG_INFINIBAND=y\n");
	CHECK_INTEQ(kernel_config_read(fd, RELEASE, &d), 0);
	CHECK_STREQ(d->source, "/proc/config.gz");
	CHECK_INTEQ(kernel_config_get(d, "CONFIG_INFINIBAND"), 'y');
	/* a config.gz that holds no configuration: the next source (zlib reads a file that is
	 * not gzip as it is) */
	put_gz(root, "proc/config.gz",
	       "\x7f"
	       "ELF garbage\n");
	d = kernel_config_free(d);
	CHECK_INTEQ(kernel_config_read(fd, RELEASE, &d), 0);
	CHECK_STREQ(d->source, "/boot/config-" RELEASE);
	/* a release with a slash names no file */
	d = kernel_config_free(d);
	unlink(AT(root, "proc/config.gz"));
	CHECK_INTEQ(kernel_config_read(fd, "../x", &d), -ENOENT);
	close(fd);
	tree_free(root);
}

/* The GPU cloud VM of issue 24: kernel 6.18 with the RDMA core, ib_uverbs, rdma_cm, rdma_ucm
 * and mlx5 built in, no /lib/modules, no configfs, no rdma_rxe. */
static void cloud_tree(const char *root) {
	put_file(root, "proc/sys/kernel/osrelease", RELEASE "\n");
	put_gz(root, "proc/config.gz",
	       "CONFIG_INFINIBAND=y\n"
	       "CONFIG_INFINIBAND_USER_MAD=y\n"
	       "CONFIG_INFINIBAND_USER_ACCESS=y\n"
	       "CONFIG_INFINIBAND_ADDR_TRANS=y\n"
	       "CONFIG_INFINIBAND_ADDR_TRANS_CONFIGFS=y\n"
	       "# CONFIG_CONFIGFS_FS is not set\n"
	       "CONFIG_MLX5_CORE=y\n"
	       "CONFIG_MLX5_INFINIBAND=y\n"
	       "# CONFIG_RDMA_RXE is not set\n"
	       "CONFIG_INFINIBAND_IPOIB=m\n");
	/* built in with a parameter: no initstate */
	put_file(root, "sys/module/mlx5_core/parameters/prof_sel", "2\n");
	put_file(root, "sys/module/ib_core/parameters/netns_mode", "Y\n");
	put_file(root, "sys/module/nvidia/initstate", "live\n");
	put_file(root, "sys/class/infiniband_verbs/abi_version", "6\n");
	put_file(root, "sys/class/misc/rdma_cm/dev", "10:58\n");
}

TEST(presence_cloud) {
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL;
	_cleanup_strv_free_ char **present = NULL;
	char *root = tree_new();
	int fd;

	cloud_tree(root);
	fd = root_open(root);
	CHECK_INTEQ(kernel_modules_read(fd, KERNEL_MODULES_ALL, &k), 0);
	close(fd);
	CHECK(!k->dep_read && !k->builtin_read);
	CHECK(presence_is(k, "ib_core", MODULE_BUILTIN, "/sys/module/ib_core without initstate"));
	CHECK(presence_is(k, "ib_uverbs", MODULE_BUILTIN,
			  "CONFIG_INFINIBAND_USER_ACCESS=y in /proc/config.gz"));
	CHECK(presence_is(k, "rdma_cm", MODULE_BUILTIN, "CONFIG_INFINIBAND=y in /proc/config.gz"));
	CHECK(presence_is(k, "rdma-ucm", MODULE_BUILTIN,
			  "CONFIG_INFINIBAND_USER_ACCESS=y in /proc/config.gz"));
	CHECK(presence_is(k, "nvidia", MODULE_LOADED, "/sys/module/nvidia/initstate"));
	CHECK(presence_is(k, "configfs", MODULE_ABSENT,
			  "CONFIG_CONFIGFS_FS is not set in /proc/config.gz"));
	CHECK(presence_is(k, "rdma_rxe", MODULE_ABSENT,
			  "CONFIG_RDMA_RXE is not set in /proc/config.gz"));
	CHECK(presence_is(k, "ib_ipoib", MODULE_AVAILABLE,
			  "CONFIG_INFINIBAND_IPOIB=m in /proc/config.gz, and no "
			  "/lib/modules/" RELEASE "/modules.dep"));
	/* an option the kernel does not know of at all: not set */
	CHECK(presence_is(k, "siw", MODULE_ABSENT, "CONFIG_RDMA_SIW is not set"));
	/* a module rdmad has no option for: nothing tells */
	CHECK(presence_is(k, "nvidia_peermem", MODULE_UNKNOWN, "no kernel option known for it"));

	/* What the planner takes as there: what is built in by the configuration too. */
	CHECK_INTEQ(kernel_modules_present(k, &present), 0);
	CHECK(strv_contains(present, "ib_uverbs") && strv_contains(present, "rdma_ucm") &&
	      strv_contains(present, "mlx5_ib") && strv_contains(present, "nvidia"));
	CHECK(!strv_contains(present, "rdma_rxe") && !strv_contains(present, "ib_ipoib") &&
	      !strv_contains(present, "configfs"));
	tree_free(root);
}

/* No configuration to read: the objects a module makes tell. */
TEST(presence_objects) {
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL, *l = NULL;
	char *root = tree_new();
	int fd;

	cloud_tree(root);
	unlink(AT(root, "proc/config.gz"));
	fd = root_open(root);
	CHECK_INTEQ(kernel_modules_read(fd, KERNEL_MODULES_ALL, &k), 0);
	CHECK(!k->config);
	CHECK(presence_is(k, "ib_uverbs", MODULE_BUILTIN,
			  "/sys/class/infiniband_verbs/abi_version exists, and no loaded module"));
	CHECK(presence_is(k, "rdma_ucm", MODULE_BUILTIN, "/sys/class/misc/rdma_cm exists"));
	CHECK(presence_is(k, "rdma_cm", MODULE_BUILTIN, "/sys/class/misc/rdma_cm exists"));
	CHECK(presence_is(k, "ib_umad", MODULE_UNKNOWN,
			  "/proc/config.gz and /boot/config-* (none), "
			  "/sys/class/infiniband_mad/abi_version (missing)"));
	CHECK(presence_is(k, "rdma_rxe", MODULE_UNKNOWN, "modules.builtin (cannot be read)"));
	close(fd);

	/* No /sys/module to read (a container without sysfs's module tree): there, loaded or
	 * built in, which is all the planner needs. */
	{
		char cmd[700];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s/sys/module'", root);
		CHECK(system(cmd) == 0);
	}
	fd = root_open(root);
	CHECK_INTEQ(kernel_modules_read(fd, KERNEL_MODULES_ALL, &l), 0);
	close(fd);
	CHECK(presence_is(l, "ib_uverbs", MODULE_LOADED,
			  "/sys/class/infiniband_verbs/abi_version exists"));
	tree_free(root);
}

/* A Debian host: /lib/modules answers first; a module built as =m whose file is missing (Ubuntu
 * ships rdma_rxe in linux-modules-extra) is absent, not loadable. */
TEST(presence_lists) {
	_cleanup_(kernel_modules_freep) KernelModules *k = NULL, *l = NULL;
	char *root = tree_new();
	int fd;

	put_file(root, "proc/sys/kernel/osrelease", RELEASE "\n");
	put_file(root, "lib/modules/" RELEASE "/modules.builtin",
		 "kernel/drivers/infiniband/core/ib_core.ko\n");
	put_file(root, "lib/modules/" RELEASE "/modules.dep",
		 "kernel/drivers/infiniband/core/ib_uverbs.ko.xz: "
		 "kernel/drivers/infiniband/core/ib_core.ko.xz\n"
		 "updates/dkms/mlx5_ib.ko: \n");
	put_file(root, "sys/module/ib_uverbs/initstate", "live\n");
	put_file(root, "boot/config-" RELEASE,
		 "CONFIG_INFINIBAND=y\nCONFIG_INFINIBAND_USER_ACCESS=m\nCONFIG_RDMA_RXE=m\n");
	fd = root_open(root);
	/* the planner's read: no modules.dep; the configuration not needed */
	CHECK_INTEQ(kernel_modules_read(fd, 0, &l), 0);
	CHECK(l->builtin_read && !l->dep_read && !l->config);
	CHECK_INTEQ(kernel_modules_read(fd, KERNEL_MODULES_ALL, &k), 0);
	close(fd);
	CHECK(k->builtin_read && k->dep_read && k->config);
	CHECK(presence_is(k, "ib_core", MODULE_BUILTIN,
			  "/lib/modules/" RELEASE "/modules.builtin"));
	CHECK(presence_is(k, "ib_uverbs", MODULE_LOADED, "/sys/module/ib_uverbs/initstate"));
	CHECK(presence_is(k, "mlx5_ib", MODULE_AVAILABLE, "modules.dep"));
	CHECK(strv_contains(k->out_of_tree, "mlx5_ib"));
	CHECK(presence_is(k, "rdma_rxe", MODULE_ABSENT,
			  "CONFIG_RDMA_RXE=m in /boot/config-" RELEASE
			  ", but not in /lib/modules/" RELEASE "/modules.dep: its file is not "
			  "installed"));
	/* rdma_ucm needs CONFIG_INFINIBAND_ADDR_TRANS, which this configuration lacks */
	CHECK(presence_is(k, "rdma_ucm", MODULE_ABSENT,
			  "CONFIG_INFINIBAND_ADDR_TRANS is not set in /boot/config-" RELEASE));
	CHECK(presence_is(k, "nvidia_peermem", MODULE_ABSENT,
			  "neither in modules.dep nor in modules.builtin of " RELEASE));
	tree_free(root);
}

/* The planner asks no module load for a module the kernel has built in (host_observe() reads the
 * same evidence as preflight). */
TEST(plan_builtin) {
	static const char profile[] = "match: {driver: mlx5_core}\nmodules: [ib_uverbs, rdma_ucm, "
				      "rdma_rxe]\n";
	char *root = tree_new();
	HostState *h = NULL;
	Plan *p;
	size_t n = 0;

	cloud_tree(root);
	/* a ConnectX function with mlx5_core bound, no RDMA device yet */
	put_file(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/class", "0x020000\n");
	put_file(root, "sys/bus/pci/drivers/mlx5_core/.keep", "");
	CHECK(symlink("../../../../bus/pci/drivers/mlx5_core",
		      AT(root, "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/driver")) == 0);
	put_file(root, "sys/bus/pci/devices/.keep", "");
	CHECK(symlink("../../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0",
		      AT(root, "sys/bus/pci/devices/0000:3b:00.0")) == 0);
	CHECK_INTEQ(host_observe(root, HOST_OBSERVE_ALL, &h), 0);
	CHECK(host_module_loaded(h, "ib_uverbs") && host_module_loaded(h, "rdma_ucm"));
	CHECK(!host_module_loaded(h, "rdma_rxe"));
	p = plan_of(profile, h);
	for (size_t i = 0; p && i < p->n_actions; i++)
		if (p->actions[i].key == KEY_MODULES) {
			printf("# planned: modules %s\n", p->actions[i].desired);
			CHECK_STREQ(p->actions[i].desired, "rdma_rxe");
			n++;
		}
	CHECK_INTEQ(n, 1);
	plan_free(p);
	host_state_free(h);
	tree_free(root);
}

TESTS_MAIN(TEST_ENTRY(config_parse), TEST_ENTRY(config_read), TEST_ENTRY(presence_cloud),
	   TEST_ENTRY(presence_objects), TEST_ENTRY(presence_lists), TEST_ENTRY(plan_builtin))
