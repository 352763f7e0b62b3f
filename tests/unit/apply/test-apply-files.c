/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The file-based apply backends (configfs rdma_cm, ECN sysfs) on a scratch root: compare before
 * writing, read back, and say what is missing. */
#include <fcntl.h>
#include <sys/stat.h>

#include "apply.h"
#include "fileio.h"
#include "tests.h"
#include "test-util.h"

static char root[] = "/tmp/rdmad-test-apply-XXXXXX";
static char state[600];

static char *get(const char *path) {
	char full[600], buf[64];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	if (read_small_at(AT_FDCWD, full, buf, sizeof(buf)) < 0)
		return strdup("(missing)");
	return strdup(buf);
}

static Action action(Key key, const char *device, const char *netdev) {
	return (Action){
		.key = key,
		.port_name = (char *) "mlx5_0/1",
		.device = (char *) device,
		.port = 1,
		.netdev = (char *) netdev,
		.desired = (char *) "x",
	};
}

#define TOS  "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"
#define MODE "sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_mode"

TEST(configfs) {
	Applier *a = NULL;
	ActionOutcome o = { 0 };
	Action x;
	char *s;

	CHECK(mkdtemp(root) != NULL);
	snprintf(state, sizeof(state), "%s/run/rdmad", root);
	put_file(root, TOS, "0\n");
	put_file(root, MODE, "RoCE v2\n");
	CHECK(applier_new(root, state, &a) == 0);

	x = action(KEY_ROCE_TOS, "mlx5_0", NULL);
	x.value.number = 106;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "changed");
	s = get(TOS);
	CHECK_STREQ(s, "106");
	free(s);
	action_outcome_done(&o);

	/* Again: nothing to write. */
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unchanged");
	action_outcome_done(&o);

	x = action(KEY_ROCE_MODE, "mlx5_0", NULL);
	x.value.roce_mode = ROCE_MODE_V1;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "changed");
	s = get(MODE);
	CHECK_STREQ(s, "IB/RoCE v1");
	free(s);
	action_outcome_done(&o);

	/* A device whose ports/ never appears (gone, or not a configfs): a clear failure. */
	put_file(root, "sys/kernel/config/rdma_cm/.keep", "");
	x = action(KEY_ROCE_TOS, "mlx5_9", NULL);
	x.value.number = 1;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "failed");
	CHECK(o.message && strstr(o.message, "rdma_cm/mlx5_9/ports/1/default_roce_tos") != NULL);
	action_outcome_done(&o);
	applier_free(a);
}

#define NP(p) "sys/class/net/eth0/ecn/roce_np/enable/" #p

TEST(ecn) {
	Applier *a = NULL;
	ActionOutcome o = { 0 };
	Action x;
	char *s;

	put_file(root, NP(0), "0\n");
	put_file(root, NP(1), "0\n");
	put_file(root, NP(2), "0\n");
	put_file(root, NP(3), "0\n");
	put_file(root, NP(4), "0\n");
	put_file(root, NP(5), "1\n");
	put_file(root, NP(6), "0\n");
	put_file(root, NP(7), "0\n");
	CHECK(applier_new(root, state, &a) == 0);
	x = action(KEY_ECN_ROCE_NP, "mlx5_0", "eth0");
	x.value.priorities = 1u << 3;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "changed");
	s = get(NP(3));
	CHECK_STREQ(s, "1");
	free(s);
	s = get(NP(5));
	CHECK_STREQ(s, "0");
	free(s);
	action_outcome_done(&o);
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unchanged");
	action_outcome_done(&o);

	x = action(KEY_ECN_ROCE_RP, "mlx5_0", "eth0"); /* no roce_rp/ */
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unsupported");
	action_outcome_done(&o);
	applier_free(a);
}

#define CNP(f) "sys/class/net/eth0/ecn/roce_np/" f

/* ecn.cnp-dscp and ecn.cnp-prio: compared, written, read back; a driver's refusal (through the
 * fault file: EINVAL) fails with the file and the error. */
TEST(ecn_cnp) {
	char faults[sizeof(root) + 16];
	Applier *a = NULL;
	ActionOutcome o = { 0 };
	Action x;
	char *s;

	put_file(root, CNP("cnp_dscp"), "26\n");
	put_file(root, CNP("cnp_802p_prio"), "3\n");
	CHECK(applier_new(root, state, &a) == 0);
	x = action(KEY_ECN_CNP_DSCP, "mlx5_0", "eth0");
	x.value.number = 48;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "changed");
	s = get(CNP("cnp_dscp"));
	CHECK_STREQ(s, "48");
	free(s);
	action_outcome_done(&o);
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unchanged");
	action_outcome_done(&o);

	put_file(root, "faults", "/" CNP("cnp_802p_prio") " EINVAL\n");
	snprintf(faults, sizeof(faults), "%s/faults", root);
	CHECK(applier_set_fault_file(a, faults) == 0);
	x = action(KEY_ECN_CNP_PRIO, "mlx5_0", "eth0");
	x.value.number = 6;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "failed");
	CHECK_INTEQ(o.error, -EINVAL);
	CHECK(o.message && strstr(o.message, "cnp_802p_prio: Invalid argument"));
	s = get(CNP("cnp_802p_prio"));
	CHECK_STREQ(s, "3"); /* nothing written */
	free(s);
	action_outcome_done(&o);
	applier_free(a);

	/* no such file on this driver */
	CHECK(applier_new(root, state, &a) == 0);
	x = action(KEY_ECN_CNP_DSCP, "mlx5_0", "eth9");
	x.value.number = 48;
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unsupported");
	action_outcome_done(&o);
	applier_free(a);
}

/* What the planner marked unsupported is not attempted. */
TEST(unsupported_passthrough) {
	Applier *a = NULL;
	ActionOutcome o = { 0 };
	Action x = action(KEY_QOS_PFC, "mlx5_0", "eth0");

	x.unsupported = (char *) "DCB is not applied by this version";
	CHECK(applier_new(root, state, &a) == 0);
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unsupported");
	CHECK_STREQ(o.message, "DCB is not applied by this version");
	action_outcome_done(&o);
	applier_free(a);
}

/* DCB on netdevs without dcbnl is unsupported with the errno, not a failure: loopback has no
 * dcbnl ops (EOPNOTSUPP), and a netdev that does not exist here is ENODEV. Reads only. */
TEST(dcb_unsupported) {
	Applier *a = NULL;
	ActionOutcome o = { 0 };
	Action x = action(KEY_QOS_PFC, "mlx5_0", "lo");

	x.value.dcb.pfc = 1u << 3;
	x.value.dcb.set = KEY_BIT(KEY_QOS_PFC);
	CHECK(applier_new(root, state, &a) == 0);
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unsupported");
	CHECK_STREQ(o.message, "no DCB (dcbnl) on lo: Operation not supported");
	action_outcome_done(&o);

	x.key = KEY_QOS_DSCP_MAP;
	x.netdev = (char *) "rdmad-nodev0";
	CHECK(action_apply(a, &x, &o) == 0);
	CHECK_STREQ(apply_result_to_string(o.result), "unsupported");
	CHECK_STREQ(o.message, "no DCB (dcbnl) on rdmad-nodev0: No such device");
	action_outcome_done(&o);
	applier_free(a);
}

TEST(cleanup) {
	char cmd[700];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

TESTS_MAIN(TEST_ENTRY(configfs), TEST_ENTRY(ecn), TEST_ENTRY(ecn_cnp),
	   TEST_ENTRY(unsupported_passthrough), TEST_ENTRY(dcb_unsupported), TEST_ENTRY(cleanup))
