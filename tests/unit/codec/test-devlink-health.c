/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink health and info: the builders on their bytes against the UAPI (linux/devlink.h) and
 * what iproute2 sends (`devlink health show`, `devlink dev info`: a dump without a handle;
 * `devlink health set`), the parsers on messages laid out as the kernel's
 * devlink_nl_health_reporter_fill() and devlink_nl_info_fill() lay them: mlx5's four reporters
 * (fw, fw_fatal on the device; tx, rx on its port), netdevsim's dummy and its `dev info`
 * (fw.mgmt 10.20.30 running and stored, no PSID), a ConnectX's with a PSID. Then the dumps
 * against the running kernel, whatever devices it has. */
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <netlink/msg.h>

#include "devlink-health-talk.h"
#include "macro.h"
#include "netlink-io.h"
#include "tests.h"
#include "test-nlmsg.h"

#define FAMILY 0x15

TEST(uapi) {
	CHECK_INTEQ(DEVLINK_CMD_INFO_GET, 51);
	CHECK_INTEQ(DEVLINK_CMD_HEALTH_REPORTER_GET, 52);
	CHECK_INTEQ(DEVLINK_CMD_HEALTH_REPORTER_SET, 53);
	CHECK_INTEQ(DEVLINK_CMD_HEALTH_REPORTER_RECOVER, 54);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_INDEX, 3);
	CHECK_INTEQ(DEVLINK_ATTR_PAD, 61);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_DRIVER_NAME, 98);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_VERSION_FIXED, 100);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_VERSION_RUNNING, 101);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_VERSION_STORED, 102);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_VERSION_NAME, 103);
	CHECK_INTEQ(DEVLINK_ATTR_INFO_VERSION_VALUE, 104);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER, 114);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_NAME, 115);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_STATE, 116);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, 117);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, 118);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, 120);
	CHECK_INTEQ(DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, 121);
	CHECK_STREQ(DEVLINK_GENL_MCGRP_CONFIG_NAME, "config");
	/* the string table round-trips */
	for (HealthState s = 0; s < _HEALTH_STATE_MAX; s++)
		CHECK_INTEQ(health_state_from_string(health_state_to_string(s)), s);
	CHECK_STREQ(health_state_to_string(HEALTH_STATE_ERROR), "error");
	CHECK_INTEQ(health_state_from_string("broken"), _HEALTH_STATE_INVALID);
}

TEST(dump_bytes) {
	static const uint8_t health[] = {
		0x14,	0x00, 0x00, 0x00, /* nlmsg_len 20: the headers alone */
		FAMILY, 0x00,		  /* the family's id */
		0x01,	0x03,		  /* NLM_F_REQUEST | NLM_F_DUMP */
		0x00,	0x00, 0x00, 0x00, /* seq */
		0x00,	0x00, 0x00, 0x00, /* pid */
		52,	0x01, 0x00, 0x00, /* HEALTH_REPORTER_GET, version 1 */
	};
	uint8_t info[sizeof(health)];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK_INTEQ(devlink_health_dump_new(FAMILY, &m), 0);
	check_bytes(m, health, sizeof(health));
	nlmsg_free(m);
	memcpy(info, health, sizeof(info));
	info[16] = 51; /* INFO_GET */
	CHECK_INTEQ(devlink_info_dump_new(FAMILY, &m), 0);
	check_bytes(m, info, sizeof(info));
	nlmsg_free(m);
	CHECK_INTEQ(devlink_health_dump_new(0, &untouched), -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(set_bytes) {
	/* `devlink health set netdevsim/netdevsim1 reporter dummy grace_period 500
	 * auto_recover false` */
	static const uint8_t
		expected[] = {
			0x54,	0x00, 0x00, 0x00, /* nlmsg_len 84 */
			FAMILY, 0x00, 0x05, 0x00, /* NLM_F_REQUEST | NLM_F_ACK */
			0x00,	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 53,
			0x01,	0x00, 0x00, /* HEALTH_REPORTER_SET,
					       version
					       1 */
			0x0e,	0x00, 0x01, 0x00, 'n',	'e',  't',  'd',  'e',
			'v',	's',  'i',  'm',  0x00, 0x00, 0x00, /* BUS_NAME "netdevsim", padded
								     */
			0x0f,	0x00, 0x02, 0x00, 'n',	'e',  't',  'd',  'e',
			'v',	's',  'i',  'm',  '1',	0x00, 0x00, /* DEV_NAME "netdevsim1", padded
								     */
			0x0a,	0x00, 115,  0x00, 'd',	'u',  'm',  'm',  'y',
			0x00,	0x00, 0x00, /* NAME */
			0x0c,	0x00, 120,  0x00, 0xf4, 0x01, 0x00, 0x00, 0x00,
			0x00,	0x00, 0x00,				  /* 500 */
			0x05,	0x00, 121,  0x00, 0x00, 0x00, 0x00, 0x00, /* AUTO_RECOVER 0 */
		};
	HealthReporterChange c = { .set_grace_period = true,
				   .grace_period_ms = 500,
				   .set_auto_recover = true };
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	CHECK_INTEQ(devlink_health_set_new(FAMILY, "netdevsim", "netdevsim1", "dummy", &c, &m), 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	/* the auto-recover flag alone: no period sent */
	c = (HealthReporterChange){ .set_auto_recover = true, .auto_recover = true };
	CHECK_INTEQ(devlink_health_set_new(FAMILY, "pci", "0000:03:00.0", "tx", &c, &m), 0);
	CHECK(nlmsg_find_attr(nlmsg_hdr(m), GENL_HDRLEN,
			      DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD) == NULL);
	CHECK(nlmsg_find_attr(nlmsg_hdr(m), GENL_HDRLEN,
			      DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER) != NULL);
	nlmsg_free(m);

	c = (HealthReporterChange){ 0 };
	CHECK_INTEQ(devlink_health_set_new(FAMILY, "pci", "0000:03:00.0", "tx", &c, &untouched),
		    -EINVAL);
	c.set_auto_recover = true;
	CHECK_INTEQ(devlink_health_set_new(FAMILY, "pci", "0000:03:00.0", "", &c, &untouched),
		    -EINVAL);
	CHECK_INTEQ(devlink_health_set_new(FAMILY, "pci/x", "0000:03:00.0", "tx", &c, &untouched),
		    -EINVAL);
	CHECK_INTEQ(devlink_health_set_new(0, "pci", "0000:03:00.0", "tx", &c, &untouched),
		    -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

/* A message from the kernel: the family's type, a genlmsghdr of cmd, then the handle. */
static struct nl_msg *reply_new(uint8_t cmd, const char *bus, const char *dev) {
	struct genlmsghdr g = { .cmd = cmd, .version = DEVLINK_GENL_VERSION };
	struct nl_msg *m = nlmsg_alloc();

	CHECK(m && nlmsg_put(m, 0, 1, FAMILY, 0, NLM_F_MULTI));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	if (bus)
		CHECK(nla_put_string(m, DEVLINK_ATTR_BUS_NAME, bus) == 0);
	if (dev)
		CHECK(nla_put_string(m, DEVLINK_ATTR_DEV_NAME, dev) == 0);
	return m;
}

/* devlink_nl_health_reporter_fill(): the port index of a port's reporter, then the nest; the
 * period and auto-recover only for a reporter that can recover; a PAD before each u64 as
 * nla_put_u64_64bit() puts one where unaligned access is slow. */
static struct nl_msg *reporter_new(uint8_t cmd, const char *dev, int port, const char *name,
				   uint8_t state, uint64_t errors, uint64_t recoveries,
				   bool recover, uint64_t grace, bool auto_recover) {
	struct nl_msg *m = reply_new(cmd, "pci", dev);
	struct nlattr *nest;

	if (port >= 0)
		CHECK(nla_put_u32(m, DEVLINK_ATTR_PORT_INDEX, (uint32_t) port) == 0);
	nest = nla_nest_start(m, DEVLINK_ATTR_HEALTH_REPORTER);
	CHECK(nest != NULL);
	CHECK(nla_put_string(m, DEVLINK_ATTR_HEALTH_REPORTER_NAME, name) == 0);
	CHECK(nla_put_u8(m, DEVLINK_ATTR_HEALTH_REPORTER_STATE, state) == 0);
	CHECK(nla_put_flag(m, DEVLINK_ATTR_PAD) == 0);
	CHECK(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_ERR_COUNT, errors) == 0);
	CHECK(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_RECOVER_COUNT, recoveries) == 0);
	if (recover) {
		CHECK(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_GRACEFUL_PERIOD, grace) == 0);
		CHECK(nla_put_u8(m, DEVLINK_ATTR_HEALTH_REPORTER_AUTO_RECOVER, auto_recover) == 0);
	}
	CHECK(nla_put_u64(m, DEVLINK_ATTR_HEALTH_REPORTER_DUMP_TS, 12345) == 0);
	nla_nest_end(m, nest);
	return m;
}

static int parse(struct nl_msg *m, HealthReporter *ret) {
	struct nlmsghdr *h = nlmsg_hdr(m);

	return devlink_health_parse(h, h->nlmsg_len, ret);
}

TEST(health_parse_mlx5) {
	/* `devlink health show` on a ConnectX-6 Dx: fw and fw_fatal on the device (fw has no
	 * recover op on some kernels: no period, no auto-recover), tx and rx on its port 65535 */
	struct {
		const char *name;
		int port;
		uint8_t state;
		uint64_t errors, recoveries;
		bool recover;
	} rows[] = {
		{ "fw", -1, 0, 0, 0, false },
		{ "fw_fatal", -1, 1, 3, 2, true },
		{ "tx", 65535, 0, 7, 7, true },
		{ "rx", 65535, 0, 0, 0, true },
	};

	for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
		struct nl_msg *m = reporter_new(DEVLINK_CMD_HEALTH_REPORTER_GET, "0000:08:00.0",
						rows[i].port, rows[i].name, rows[i].state,
						rows[i].errors, rows[i].recoveries, rows[i].recover,
						rows[i].recover ? 500 : 0, true);
		HealthReporter h;

		CHECK_INTEQ(parse(m, &h), 0);
		CHECK_STREQ(h.device, "pci/0000:08:00.0");
		CHECK_STREQ(h.name, rows[i].name);
		CHECK_INTEQ(h.has_port, rows[i].port >= 0);
		if (rows[i].port >= 0)
			CHECK_INTEQ(h.port, rows[i].port);
		CHECK_INTEQ(h.state, rows[i].state);
		CHECK_INTEQ(h.errors, rows[i].errors);
		CHECK_INTEQ(h.recoveries, rows[i].recoveries);
		CHECK_INTEQ(h.has_recover, rows[i].recover);
		CHECK_INTEQ(h.grace_period_ms, rows[i].recover ? 500 : 0);
		CHECK_INTEQ(h.auto_recover, rows[i].recover);
		nlmsg_free(m);
	}
}

TEST(health_parse_notification) {
	/* netdevsim's dummy after break_health with fail_recover: the error's notification */
	struct nl_msg *m = reporter_new(DEVLINK_CMD_HEALTH_REPORTER_RECOVER, "netdevsim1", -1,
					"dummy", 1, 1, 0, true, 0, true);
	HealthReporter h;

	CHECK_INTEQ(parse(m, &h), 0);
	CHECK_STREQ(h.device, "pci/netdevsim1");
	CHECK_INTEQ(h.state, HEALTH_STATE_ERROR);
	CHECK_INTEQ(h.errors, 1);
	CHECK_INTEQ(h.recoveries, 0);
	nlmsg_free(m);
}

TEST(health_parse_refused) {
	HealthReporter h = { .errors = 42 };
	struct nl_msg *m;
	struct nlattr *nest;

	/* a state rdmad has no name for */
	m = reporter_new(DEVLINK_CMD_HEALTH_REPORTER_GET, "0000:08:00.0", -1, "fw", 2, 0, 0, false,
			 0, false);
	CHECK_INTEQ(parse(m, &h), -EPROTO);
	nlmsg_free(m);
	/* another command (a PARAM_NEW on the same group) */
	m = reporter_new(DEVLINK_CMD_PARAM_NEW, "0000:08:00.0", -1, "fw", 0, 0, 0, false, 0, false);
	CHECK_INTEQ(parse(m, &h), -EBADMSG);
	nlmsg_free(m);
	/* no handle */
	m = reply_new(DEVLINK_CMD_HEALTH_REPORTER_GET, NULL, NULL);
	nest = nla_nest_start(m, DEVLINK_ATTR_HEALTH_REPORTER);
	CHECK(nla_put_string(m, DEVLINK_ATTR_HEALTH_REPORTER_NAME, "fw") == 0);
	nla_nest_end(m, nest);
	CHECK_INTEQ(parse(m, &h), -EBADMSG);
	nlmsg_free(m);
	/* no counts */
	m = reply_new(DEVLINK_CMD_HEALTH_REPORTER_GET, "pci", "0000:08:00.0");
	nest = nla_nest_start(m, DEVLINK_ATTR_HEALTH_REPORTER);
	CHECK(nla_put_string(m, DEVLINK_ATTR_HEALTH_REPORTER_NAME, "fw") == 0);
	CHECK(nla_put_u8(m, DEVLINK_ATTR_HEALTH_REPORTER_STATE, 0) == 0);
	nla_nest_end(m, nest);
	CHECK_INTEQ(parse(m, &h), -EBADMSG);
	/* truncated */
	CHECK_INTEQ(devlink_health_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len - 1, &h), -EBADMSG);
	nlmsg_free(m);
	CHECK_INTEQ(h.errors, 42); /* untouched */
}

static void version_put(struct nl_msg *m, int type, const char *name, const char *value) {
	struct nlattr *nest = nla_nest_start(m, type);

	CHECK(nest != NULL);
	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_VERSION_NAME, name) == 0);
	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_VERSION_VALUE, value) == 0);
	nla_nest_end(m, nest);
}

static int info_parse(struct nl_msg *m, DevlinkInfo *ret) {
	return devlink_info_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, ret);
}

TEST(info_parse_netdevsim) {
	/* nsim_dev_info_get(): "fw.mgmt" 10.20.30, running and stored; no PSID, no serial */
	struct nl_msg *m = reply_new(DEVLINK_CMD_INFO_GET, "netdevsim", "netdevsim1");
	DevlinkInfo i;

	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_DRIVER_NAME, "netdevsim") == 0);
	version_put(m, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.mgmt", "10.20.30");
	version_put(m, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.mgmt", "10.20.30");
	CHECK_INTEQ(info_parse(m, &i), 0);
	CHECK_STREQ(i.device, "netdevsim/netdevsim1");
	CHECK_STREQ(i.driver, "netdevsim");
	CHECK_STREQ(i.psid, "");
	CHECK_STREQ(i.fw_name, "fw.mgmt");
	CHECK_STREQ(i.running, "10.20.30");
	CHECK_STREQ(i.stored, "10.20.30");
	nlmsg_free(m);
}

TEST(info_parse_mlx5) {
	/* mlx5_devlink_info_get(): fixed fw.psid; running and stored "fw.version" and "fw"; an
	 * update flashed and waiting for a reset */
	struct nl_msg *m = reply_new(DEVLINK_CMD_INFO_GET, "pci", "0000:08:00.0");
	DevlinkInfo i;

	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_DRIVER_NAME, "mlx5_core") == 0);
	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_SERIAL_NUMBER, "MT2116X09299") == 0);
	version_put(m, DEVLINK_ATTR_INFO_VERSION_FIXED, "fw.psid", "MT_0000000359");
	version_put(m, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw", "22.36.1010");
	version_put(m, DEVLINK_ATTR_INFO_VERSION_RUNNING, "fw.version", "22.36.1010");
	version_put(m, DEVLINK_ATTR_INFO_VERSION_STORED, "fw", "22.39.1002");
	version_put(m, DEVLINK_ATTR_INFO_VERSION_STORED, "fw.version", "22.39.1002");
	CHECK_INTEQ(info_parse(m, &i), 0);
	CHECK_STREQ(i.device, "pci/0000:08:00.0");
	CHECK_STREQ(i.driver, "mlx5_core");
	CHECK_STREQ(i.psid, "MT_0000000359");
	CHECK_STREQ(i.fw_name, "fw.version");
	CHECK_STREQ(i.running, "22.36.1010");
	CHECK_STREQ(i.stored, "22.39.1002");
	nlmsg_free(m);
}

TEST(info_parse_refused) {
	DevlinkInfo i = { .running = "untouched" };
	struct nl_msg *m = reply_new(DEVLINK_CMD_INFO_GET, "pci", "0000:08:00.0");
	struct nlattr *nest;

	/* a version without a name */
	nest = nla_nest_start(m, DEVLINK_ATTR_INFO_VERSION_RUNNING);
	CHECK(nla_put_string(m, DEVLINK_ATTR_INFO_VERSION_VALUE, "1.2") == 0);
	nla_nest_end(m, nest);
	CHECK_INTEQ(info_parse(m, &i), -EBADMSG);
	nlmsg_free(m);
	m = reply_new(DEVLINK_CMD_INFO_GET, "pci", NULL);
	CHECK_INTEQ(info_parse(m, &i), -EBADMSG);
	nlmsg_free(m);
	CHECK_STREQ(i.running, "untouched");
}

TEST(device_parse) {
	char device[DEVLINK_HANDLE_MAX] = "untouched";
	struct nl_msg *m;

	/* devlink_notify(): the handle, then the reload stats nest (not looked into) */
	m = reply_new(DEVLINK_CMD_DEL, "netdevsim", "netdevsim1");
	CHECK(nla_put_u8(m, DEVLINK_ATTR_RELOAD_FAILED, 0) == 0);
	CHECK_INTEQ(devlink_device_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, device),
		    DEVLINK_CMD_DEL);
	CHECK_STREQ(device, "netdevsim/netdevsim1");
	nlmsg_free(m);
	m = reply_new(DEVLINK_CMD_NEW, "pci", "0000:08:00.0");
	CHECK_INTEQ(devlink_device_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, device),
		    DEVLINK_CMD_NEW);
	CHECK_STREQ(device, "pci/0000:08:00.0");
	nlmsg_free(m);
	/* a reporter's notification is not a device's */
	m = reporter_new(DEVLINK_CMD_HEALTH_REPORTER_RECOVER, "0000:08:00.0", -1, "fw", 0, 0, 0,
			 false, 0, false);
	CHECK_INTEQ(devlink_device_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, device), -EBADMSG);
	nlmsg_free(m);
	CHECK_STREQ(device, "pci/0000:08:00.0");
}

/* The dumps on the running kernel: whatever devices it has (none in a container). */
TEST(live) {
	struct nl_sock *sk = NULL;
	HealthReporter *h = NULL;
	DevlinkInfo *info = NULL;
	size_t n = 0, skipped = 0;
	uint16_t family;
	uint32_t group;
	int r;

	CHECK_INTEQ(netlink_open(NETLINK_GENERIC, &sk), 0);
	r = devlink_config_group_resolve(sk, &family, &group);
	printf("# devlink config group: %d, family %u group %u\n", r, family, group);
	CHECK(r == 0 || r == -ENOENT);
	if (r == 0) {
		CHECK(group > 0);
		CHECK_INTEQ(devlink_health_read_all(sk, family, &h, &n, &skipped), 0);
		printf("# %zu reporters, %zu skipped\n", n, skipped);
		CHECK_INTEQ(skipped, 0);
		free(h);
		CHECK_INTEQ(devlink_info_read_all(sk, family, &info, &n, &skipped), 0);
		printf("# %zu devices with info\n", n);
		free(info);
	}
	nl_socket_free(sk);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(dump_bytes), TEST_ENTRY(set_bytes),
	   TEST_ENTRY(health_parse_mlx5), TEST_ENTRY(health_parse_notification),
	   TEST_ENTRY(health_parse_refused), TEST_ENTRY(info_parse_netdevsim),
	   TEST_ENTRY(info_parse_mlx5), TEST_ENTRY(info_parse_refused), TEST_ENTRY(device_parse),
	   TEST_ENTRY(live))
