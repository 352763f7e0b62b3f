/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The kernel-global apply backends (apply-kmod.c, apply-rdmanl.c) against a real kernel. Not in
 * meson's suites: it loads modules, creates and deletes RDMA devices and flips the RDMA netns
 * mode, so it runs as root in a throwaway VM only (tests/vm), on a host where rdma_rxe and
 * crc32_generic are modules that are not loaded yet and veth0/veth1 exist, up, without an rxe
 * device on them. Build it by hand against a build directory:
 *
 *   cc -std=gnu11 -D_GNU_SOURCE $(printf ' -Ilib/%s' basic profile codec host plan apply) \
 *      -Itests/unit -I$BUILD -I/usr/include/libnl3 -I/usr/include/json-c \
 *      tests/unit/apply/test-apply-kernel.c $BUILD/lib/librdmad.a \
 *      -lnl-route-3 -lnl-3 -lyaml -ljson-c -lz -o test-apply-kernel
 *
 * (libkmod and libnftables are loaded at run time, not linked) and run it in the VM, e.g. with
 * a scenario that creates the veth pair and then runs it (tests/vm/run-vm.sh --bin
 * test-apply-kernel SCENARIO). Output is TAP. */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "apply.h"
#include "fileio.h"
#include "tests.h"

#define STATE_DIR "/run/rdmad-test-apply-kernel"

static Applier *applier;

static Action link_action(const char *name, const char *lower) {
	return (Action){
		.phase = PHASE_LINKS,
		.key = KEY_LINKS,
		.value = { .name = (char *) name,
			   .lower = (char *) lower,
			   .link_type = SOFT_DEVICE_RXE },
	};
}

/* Delete name (rdmad's own only), through action_apply() as a planned removal. */
static int remove_device(Applier *a, const char *name, ActionOutcome *o) {
	Action x = {
		.phase = PHASE_LINKS,
		.key = KEY_LINKS,
		.value = { .name = (char *) name, .remove = true },
	};

	return action_apply(a, &x, o);
}

static Action module_action(const char *name) {
	return (Action){
		.phase = PHASE_MODULES,
		.key = KEY_MODULES,
		.value = { .name = (char *) name },
	};
}

static Action netns_action(NetnsMode mode) {
	return (Action){
		.phase = PHASE_SYSTEM,
		.key = KEY_SYSTEM_NETNS_MODE,
		.value = { .netns_mode = mode },
	};
}

/* Apply, print the outcome as a TAP diagnostic, check the result (and the error if nonzero). */
static void expect(const char *what, int r, ActionOutcome *o, ApplyResult result, int error) {
	printf("#   %s: %s, error %d, \"%s\"\n", what, strna(apply_result_to_string(o->result)),
	       o->error, strna(o->message));
	CHECK_INTEQ(r, 0);
	CHECK_STREQ(apply_result_to_string(o->result), apply_result_to_string(result));
	if (error != 0)
		CHECK_INTEQ(o->error, error);
	action_outcome_done(o);
}

static bool exists(const char *path) {
	return access(path, F_OK) >= 0;
}

static int run(const char *cmd) {
	int r;

	fflush(stdout);
	r = system(cmd);

	printf("#   $ %s: exit %d\n", cmd, WIFEXITED(r) ? WEXITSTATUS(r) : -1);
	return WIFEXITED(r) ? WEXITSTATUS(r) : -1;
}

TEST(setup) {
	CHECK(getuid() == 0);
	CHECK(exists("/sys/class/net/veth0"));
	CHECK(exists("/sys/class/net/veth1"));
	CHECK(applier_new("/", STATE_DIR, &applier) == 0);
}

static void write_file(const char *path, const char *content) {
	FILE *f;

	CHECK(mkdir("/etc/modprobe.d", 0755) == 0 || errno == EEXIST);
	f = fopen(path, "we");
	CHECK(f);
	if (f) {
		fputs(content, f);
		fclose(f);
	}
}

/* rdma_rxe without a crc32 shash provider: the kernel's own request_module("crypto-crc32") at
 * `rdma link add` time honours the blacklist too, and NEWLINK fails with ENOENT. */
TEST(rxe_without_crc32) {
	_cleanup_(applier_freep) Applier *b = NULL;
	ActionOutcome o = { 0 };
	Action m = module_action("rdma_rxe"), l = link_action("rxe0", "veth0");

	CHECK(!exists("/sys/module/rdma_rxe"));
	CHECK(!exists("/sys/module/crc32_generic"));
	CHECK(!exists("/sys/module/crc32_pclmul"));
	/* kmod reads modprobe.d when its context is made: a fresh applier */
	write_file("/etc/modprobe.d/rdmad-test-crc32.conf",
		   "blacklist crc32_generic\nblacklist crc32_pclmul\n");
	CHECK(applier_new("/", STATE_DIR, &b) == 0);

	CHECK(apply_module(b, &m, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "failed");
	CHECK_INTEQ(o.error, -EPERM);
	CHECK_STREQ(o.message,
		    "module crc32_generic (for rdma_rxe) is blacklisted (modprobe.d): not loaded");
	action_outcome_done(&o);
	CHECK(exists("/sys/module/rdma_rxe"));
	CHECK(!exists("/sys/module/crc32_generic"));

	CHECK(apply_soft_device(b, &l, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "failed");
	CHECK_INTEQ(o.error, -ENOENT);
	CHECK_STREQ(o.message, "cannot add RDMA link rxe0 (rxe on veth0): rdma_rxe could not add "
			       "veth0: is crc32_generic available? (rxe needs the crypto crc32 "
			       "shash)");
	printf("#   %s\n", strna(o.message));
	action_outcome_done(&o);
	CHECK(!exists("/sys/class/infiniband/rxe0"));
	CHECK(!exists(STATE_DIR "/links/rxe0"));

	unlink("/etc/modprobe.d/rdmad-test-crc32.conf");
}

TEST(module_rdma_rxe) {
	ActionOutcome o = { 0 };
	Action x = module_action("rdma_rxe");

	/* rdma_rxe is loaded already: crc32_generic is what changes */
	expect("rdma_rxe", apply_module(applier, &x, &o), &o, APPLY_CHANGED, 0);
	CHECK(exists("/sys/module/rdma_rxe"));
	/* the crc32 shash rxe needs at `rdma link add` time, not in modules.dep */
	CHECK(exists("/sys/module/crc32_generic"));

	expect("rdma_rxe again", apply_module(applier, &x, &o), &o, APPLY_UNCHANGED, 0);
}

TEST(module_errors) {
	ActionOutcome o = { 0 };
	Action x = module_action("rdmad_no_such_module");
	char want[256];
	struct utsname u;

	CHECK(apply_module(applier, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "failed");
	CHECK_INTEQ(o.error, -ENOENT);
	CHECK(uname(&u) == 0);
	snprintf(want, sizeof(want), "module rdmad_no_such_module not found in /lib/modules/%s",
		 u.release);
	CHECK_STREQ(o.message, want);
	action_outcome_done(&o);

	/* A blacklisted module is not loaded (kmod reads modprobe.d at context creation: a fresh
	 * applier). dummy is in the VM's module set and not loaded. */
	{
		_cleanup_(applier_freep) Applier *b = NULL;
		Action d = module_action("dummy");

		write_file("/etc/modprobe.d/rdmad-test.conf", "blacklist dummy\n");
		CHECK(applier_new("/", STATE_DIR, &b) == 0);
		expect("blacklisted dummy", apply_module(b, &d, &o), &o, APPLY_FAILED, -EPERM);
		CHECK(!exists("/sys/module/dummy"));
		unlink("/etc/modprobe.d/rdmad-test.conf");
	}
}

TEST(soft_device_add) {
	ActionOutcome o = { 0 };
	Action x = link_action("rxe0", "veth0");
	char buf[64] = "";

	CHECK(!exists("/sys/class/infiniband/rxe0"));
	expect("rxe0 on veth0", apply_soft_device(applier, &x, &o), &o, APPLY_CHANGED, 0);
	CHECK(exists("/sys/class/infiniband/rxe0"));
	CHECK(read_small_at(AT_FDCWD, STATE_DIR "/links/rxe0", buf, sizeof(buf)) > 0);
	CHECK_STREQ(buf, "rxe veth0");

	/* converged: reads only */
	expect("rxe0 on veth0 again", apply_soft_device(applier, &x, &o), &o, APPLY_UNCHANGED, 0);
}

TEST(soft_device_errors) {
	ActionOutcome o = { 0 };
	Action other_netdev = link_action("rxe0", "veth1");
	Action taken_netdev = link_action("rxe1", "veth0");
	Action no_netdev = link_action("rxe2", "rdmadnone0");

	expect("rxe0 on veth1", apply_soft_device(applier, &other_netdev, &o), &o, APPLY_FAILED,
	       -EEXIST);
	expect("rxe1 on veth0 (veth0 has rxe0)", apply_soft_device(applier, &taken_netdev, &o), &o,
	       APPLY_FAILED, -EEXIST);
	CHECK(!exists("/sys/class/infiniband/rxe1"));
	expect("rxe2 on a missing netdev", apply_soft_device(applier, &no_netdev, &o), &o,
	       APPLY_FAILED, -ENODEV);
	CHECK(!exists(STATE_DIR "/links/rxe1"));
	CHECK(!exists(STATE_DIR "/links/rxe2"));
}

TEST(soft_device_remove_only_own) {
	ActionOutcome o = { 0 };

	/* a link rdmad did not create */
	CHECK(run("rdma link add rxe1 type rxe netdev veth1") == 0);
	CHECK(exists("/sys/class/infiniband/rxe1"));
	expect("remove rxe1 (not rdmad's)", remove_device(applier, "rxe1", &o), &o,
	       APPLY_UNSUPPORTED, 0);
	CHECK(exists("/sys/class/infiniband/rxe1"));
	CHECK(run("rdma link delete rxe1") == 0);

	expect("remove rxe0", remove_device(applier, "rxe0", &o), &o, APPLY_CHANGED, 0);
	CHECK(!exists("/sys/class/infiniband/rxe0"));
	CHECK(!exists(STATE_DIR "/links/rxe0"));
	expect("remove rxe0 again", remove_device(applier, "rxe0", &o), &o, APPLY_UNSUPPORTED,
	       0);
}

TEST(soft_device_gone_behind_our_back) {
	ActionOutcome o = { 0 };
	Action x = link_action("rxe0", "veth0");

	expect("rxe0 on veth0", apply_soft_device(applier, &x, &o), &o, APPLY_CHANGED, 0);
	CHECK(run("rdma link delete rxe0") == 0);
	expect("remove rxe0 (already gone)", remove_device(applier, "rxe0", &o), &o,
	       APPLY_UNCHANGED, 0);
	CHECK(!exists(STATE_DIR "/links/rxe0"));

	/* recorded, then replaced by someone else's device of that name on another netdev */
	expect("rxe0 on veth0", apply_soft_device(applier, &x, &o), &o, APPLY_CHANGED, 0);
	CHECK(run("rdma link delete rxe0") == 0);
	CHECK(run("rdma link add rxe0 type rxe netdev veth1") == 0);
	/* ours is gone: only the record goes, theirs stays */
	expect("remove rxe0 (now someone else's)", remove_device(applier, "rxe0", &o), &o,
	       APPLY_UNCHANGED, 0);
	CHECK(exists("/sys/class/infiniband/rxe0"));
	CHECK(!exists(STATE_DIR "/links/rxe0"));
	CHECK(run("rdma link delete rxe0") == 0);
}

TEST(netns_mode) {
	ActionOutcome o = { 0 };
	Action shared = netns_action(NETNS_MODE_SHARED);
	Action exclusive = netns_action(NETNS_MODE_EXCLUSIVE);

	expect("shared (the default)", apply_netns_mode(applier, &shared, &o), &o, APPLY_UNCHANGED,
	       0);
	expect("exclusive", apply_netns_mode(applier, &exclusive, &o), &o, APPLY_CHANGED, 0);
	CHECK(run("rdma system show | grep -q 'netns exclusive'") == 0);
	expect("exclusive again", apply_netns_mode(applier, &exclusive, &o), &o, APPLY_UNCHANGED,
	       0);
	expect("shared", apply_netns_mode(applier, &shared, &o), &o, APPLY_CHANGED, 0);
	CHECK(run("rdma system show | grep -q 'netns shared'") == 0);
}

TEST(netns_mode_busy) {
	ActionOutcome o = { 0 };
	Action exclusive = netns_action(NETNS_MODE_EXCLUSIVE);
	int p[2];
	pid_t pid;
	char c;

	/* another network namespace exists: the kernel refuses the change */
	CHECK(pipe(p) == 0);
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (unshare(CLONE_NEWNET) < 0)
			_exit(1);
		(void) !read(p[0], &c, 1); /* until the parent closes its end */
		_exit(0);
	}
	close(p[0]);
	usleep(200 * 1000);
	expect("exclusive while another netns exists", apply_netns_mode(applier, &exclusive, &o),
	       &o, APPLY_FAILED, -EBUSY);
	close(p[1]);
	CHECK(waitpid(pid, NULL, 0) == pid);
}

TEST(fixture_root) {
	_cleanup_(applier_freep) Applier *b = NULL;
	ActionOutcome o = { 0 };
	Action m = module_action("rdma_rxe"), l = link_action("rxe0", "veth0");
	Action n = netns_action(NETNS_MODE_EXCLUSIVE);

	CHECK(applier_new("/tmp", STATE_DIR, &b) == 0);
	expect("module under /tmp", apply_module(b, &m, &o), &o, APPLY_UNSUPPORTED, 0);
	expect("link under /tmp", apply_soft_device(b, &l, &o), &o, APPLY_UNSUPPORTED, 0);
	expect("netns mode under /tmp", apply_netns_mode(b, &n, &o), &o, APPLY_UNSUPPORTED, 0);
	expect("remove under /tmp", remove_device(b, "rxe0", &o), &o, APPLY_UNSUPPORTED, 0);
	CHECK(!exists("/sys/class/infiniband/rxe0"));
}

TEST(teardown) {
	applier = applier_free(applier);
}

TESTS_MAIN(TEST_ENTRY(setup), TEST_ENTRY(rxe_without_crc32), TEST_ENTRY(module_rdma_rxe),
	   TEST_ENTRY(module_errors), TEST_ENTRY(soft_device_add), TEST_ENTRY(soft_device_errors),
	   TEST_ENTRY(soft_device_remove_only_own), TEST_ENTRY(soft_device_gone_behind_our_back),
	   TEST_ENTRY(netns_mode), TEST_ENTRY(netns_mode_busy), TEST_ENTRY(fixture_root),
	   TEST_ENTRY(teardown))
