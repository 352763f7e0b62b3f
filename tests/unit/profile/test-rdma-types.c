/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "plan.h"
#include "profile.h"
#include "rdma-types.h"
#include "tests.h"

/* Every value has a name, and the name maps back to the value. */
#define CHECK_TABLE(name, max)                                             \
	do {                                                               \
		for (int i = 0; i < (max); i++) {                          \
			const char *s = name##_to_string(i);               \
			CHECK(s != NULL);                                  \
			CHECK_INTEQ(name##_from_string(s), i);             \
		}                                                          \
		CHECK(name##_to_string(max) == NULL);                      \
		CHECK(name##_to_string(-1) == NULL);                       \
		CHECK_INTEQ(name##_from_string("no-such-value"), -EINVAL); \
		CHECK_INTEQ(name##_from_string(NULL), -EINVAL);            \
	} while (0)

TEST(round_trip) {
	CHECK_TABLE(roce_mode, _ROCE_MODE_MAX);
	CHECK_TABLE(roce_mode_configfs, _ROCE_MODE_MAX);
	CHECK_TABLE(gid_type, _GID_TYPE_MAX);
	CHECK_TABLE(gid_family, _GID_FAMILY_MAX);
	CHECK_TABLE(gid_requirement, _GID_REQUIREMENT_MAX);
	CHECK_TABLE(port_state, _PORT_STATE_MAX);
	CHECK_TABLE(port_phys_state, _PORT_PHYS_STATE_MAX);
	CHECK_TABLE(link_layer, _LINK_LAYER_MAX);
	CHECK_TABLE(qos_trust, _QOS_TRUST_MAX);
	CHECK_TABLE(qos_owner, _QOS_OWNER_MAX);
	CHECK_TABLE(ets_tsa, _ETS_TSA_MAX);
	CHECK_TABLE(netns_mode, _NETNS_MODE_MAX);
	CHECK_TABLE(soft_device_type, _SOFT_DEVICE_MAX);
	CHECK_TABLE(soft_device_driver, _SOFT_DEVICE_MAX);
	CHECK_TABLE(key, _KEY_MAX);
	CHECK_TABLE(action_phase, _PHASE_MAX);
}

/* The kernel's spellings, which configfs and sysfs use, are part of the contract. */
TEST(kernel_spellings) {
	CHECK_STREQ(roce_mode_configfs_to_string(ROCE_MODE_V1), "IB/RoCE v1");
	CHECK_STREQ(roce_mode_configfs_to_string(ROCE_MODE_V2), "RoCE v2");
	CHECK_STREQ(port_state_to_string(4), "ACTIVE");
	CHECK_STREQ(port_phys_state_to_string(5), "LINK_UP");
	CHECK_INTEQ(netns_mode_from_string("shared"), 1);
	CHECK_INTEQ(netns_mode_from_string("exclusive"), 0);
}

/* What rdmactl and GetLink accept as a link name. */
TEST(link_names) {
	char dev[8];
	uint32_t port = 99;

	CHECK_INTEQ(port_name_parse("mlx5_0/1", dev, sizeof(dev), &port), 0);
	CHECK_STREQ(dev, "mlx5_0");
	CHECK_INTEQ(port, 1);
	CHECK_INTEQ(port_name_parse("rxe0", dev, sizeof(dev), &port), 0);
	CHECK_STREQ(dev, "rxe0");
	CHECK_INTEQ(port, 0);
	CHECK_INTEQ(port_name_parse("mlx5_0/255", dev, sizeof(dev), &port), 0);
	CHECK_INTEQ(port, 255);
	static const char *const bad[] = { "",		 "/1",	      "mlx5_0/",    "mlx5_0/0",
					   "mlx5_0/256", "mlx5_0/ 1", "mlx5_0/+1",  "mlx5_0/1x",
					   "a/b/c",	 "mlx5_0/1/", "toolongname", "mlx5_0/01" };
	for (size_t i = 0; i < ELEMENTSOF(bad); i++)
		CHECK_INTEQ(port_name_parse(bad[i], dev, sizeof(dev), &port), -EINVAL);
}

TESTS_MAIN(TEST_ENTRY(round_trip), TEST_ENTRY(kernel_spellings), TEST_ENTRY(link_names))
