/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* apply-rtnl in a private network namespace (needs root, as the fixture tier does): a netdev
 * is changed by the ifindex it was observed with, so a rename between observe and apply
 * changes the interface the plan was made for, never a new one that took its name. */
#include <net/if.h>
#include <errno.h>
#include <sched.h>

#include "apply.h"
#include "tests.h"

/* Through rtnetlink (ip), not sysfs: /sys shows the namespace it was mounted in. */
static unsigned mtu_of(const char *ifname) {
	char cmd[128], buf[512] = "", *m;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip -o link show dev %s 2>/dev/null", ifname);
	f = popen(cmd, "r");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	pclose(f);
	m = strstr(buf, " mtu ");
	return m ? (unsigned) strtoul(m + 5, NULL, 10) : 0;
}

static Action mtu_action(const char *netdev, int ifindex, unsigned mtu) {
	return (Action){
		.phase = PHASE_NETDEV,
		.key = KEY_NETDEV_MTU,
		.port_name = (char *) "rxe0/1",
		.device = (char *) "rxe0",
		.port = 1,
		.netdev = (char *) netdev,
		.ifindex = ifindex,
		.desired = (char *) "1400",
		.value = { .number = mtu },
	};
}

TEST(rename_between_observe_and_apply) {
	ActionOutcome o = { 0 };
	Applier *a = NULL;
	Action x;
	int ifindex;

	CHECK(system("ip link add t0 type veth peer name t1") == 0);
	ifindex = (int) if_nametoindex("t0");
	CHECK(ifindex > 0);
	x = mtu_action("t0", ifindex, 1400);
	/* observed; now renamed, and a new t0 appears */
	CHECK(system("ip link set t0 name t2 && ip link add t0 type veth peer name t3") == 0);
	CHECK_INTEQ(applier_new("/", "/tmp/rdmad-test-apply-rtnl-state", &a), 0);
	CHECK_INTEQ(action_apply(a, &x, &o), 0);
	CHECK_INTEQ(o.result, APPLY_CHANGED);
	CHECK_INTEQ(mtu_of("t2"), 1400);
	CHECK_INTEQ(mtu_of("t0"), 1500);
	action_outcome_done(&o);

	/* The observed interface is gone: a clear failure, nothing else touched. */
	CHECK(system("ip link del t2") == 0);
	CHECK_INTEQ(action_apply(a, &x, &o), 0);
	CHECK_INTEQ(o.result, APPLY_FAILED);
	CHECK_INTEQ(o.error, -ENODEV);
	printf("# %s\n", o.message);
	CHECK_INTEQ(mtu_of("t0"), 1500);
	action_outcome_done(&o);
	applier_free(a);
}

static void private_netns(void) {
	if (unshare(CLONE_NEWNET) < 0) {
		printf("Bail out! unshare(CLONE_NEWNET): %s (run as root)\n", strerror(errno));
		exit(1);
	}
}

TEST(netns) {
	private_netns();
}

TESTS_MAIN(TEST_ENTRY(netns), TEST_ENTRY(rename_between_observe_and_apply))
