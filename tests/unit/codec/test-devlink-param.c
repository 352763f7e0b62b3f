/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* devlink parameters and reload: the builders on their bytes, as iproute2's devlink/devlink.c
 * sends them (cmd_dev_param_set(): dl_opts_put() puts the handle, PARAM_NAME and
 * PARAM_VALUE_CMODE, then PARAM_TYPE and PARAM_VALUE_DATA; cmd_dev_reload(): RELOAD_ACTION u8),
 * and the parser on replies laid out as the kernel's devlink_nl_param_fill()
 * (net/devlink/param.c) lays them: the handle, then a DEVLINK_ATTR_PARAM nest of PARAM_NAME,
 * [PARAM_GENERIC], PARAM_TYPE and PARAM_VALUES_LIST, a nest of one PARAM_VALUE nest per cmode,
 * each a PARAM_VALUE_CMODE and the PARAM_VALUE_DATA (a bool's a flag, present when true). The
 * extended ACK parser on an NLMSG_ERROR as netlink_ack() lays it out. */
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "devlink.h"
#include "macro.h"
#include "netlink-io.h"
#include "tests.h"
#include "test-nlmsg.h"

TEST(uapi) {
	CHECK_INTEQ(DEVLINK_CMD_RELOAD, 37);
	CHECK_INTEQ(DEVLINK_CMD_PARAM_GET, 38);
	CHECK_INTEQ(DEVLINK_CMD_PARAM_SET, 39);
	CHECK_INTEQ(DEVLINK_CMD_PARAM_NEW, 40);
	CHECK_INTEQ(DEVLINK_ATTR_PORT_INDEX, 3);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM, 80);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_NAME, 81);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_GENERIC, 82);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_TYPE, 83);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_VALUES_LIST, 84);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_VALUE, 85);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_VALUE_DATA, 86);
	CHECK_INTEQ(DEVLINK_ATTR_PARAM_VALUE_CMODE, 87);
	CHECK_INTEQ(DEVLINK_ATTR_RELOAD_ACTION, 153);
	CHECK_INTEQ(DEVLINK_RELOAD_ACTION_DRIVER_REINIT, 1);
	CHECK_INTEQ(DEVLINK_PARAM_CMODE_RUNTIME, DEVLINK_CMODE_RUNTIME);
	CHECK_INTEQ(DEVLINK_PARAM_CMODE_DRIVERINIT, DEVLINK_CMODE_DRIVERINIT);
	CHECK_INTEQ(DEVLINK_PARAM_CMODE_PERMANENT, DEVLINK_CMODE_PERMANENT);
	/* the kernel's enum devlink_param_type is NLA_*: libnl numbers them the same */
	CHECK_INTEQ(devlink_param_type_to_nla(DEVLINK_PARAM_TYPE_U8), NLA_U8);
	CHECK_INTEQ(devlink_param_type_to_nla(DEVLINK_PARAM_TYPE_U16), NLA_U16);
	CHECK_INTEQ(devlink_param_type_to_nla(DEVLINK_PARAM_TYPE_U32), NLA_U32);
	CHECK_INTEQ(devlink_param_type_to_nla(DEVLINK_PARAM_TYPE_STRING), NLA_STRING);
	CHECK_INTEQ(devlink_param_type_to_nla(DEVLINK_PARAM_TYPE_BOOL), NLA_FLAG);
	CHECK_INTEQ(devlink_param_type_from_nla(NLA_U64), -EPROTO);
	CHECK_STREQ(DEVLINK_GENL_MCGRP_CONFIG_NAME, "config");
}

/* nlmsghdr + genlmsghdr + "netdevsim"/"netdevsim1": the handle of netdevsim's device 1 */
static size_t nsim_prefix(uint8_t *buf, size_t total, uint8_t cmd, uint16_t flags) {
	static const uint8_t prefix[] = {
		0x00, 0x00, 0x00, 0x00, /* nlmsg_len */
		0x1a, 0x00,		/* the devlink family's id, as resolved */
		0x05, 0x00,		/* NLM_F_REQUEST | NLM_F_ACK */
		0x00, 0x00, 0x00, 0x00, /* seq */
		0x00, 0x00, 0x00, 0x00, /* pid */
		0x00, 0x01, 0x00, 0x00, /* genlmsghdr: cmd, DEVLINK_GENL_VERSION (1), reserved */
		0x0e, 0x00, 0x01, 0x00, /* nla_len 14, DEVLINK_ATTR_BUS_NAME */
		'n',  'e',  't',  'd',	'e', 'v', 's', 'i', 'm', 0x00, 0x00, 0x00, /* + 2 pad */
		0x0f, 0x00, 0x02, 0x00, /* nla_len 15, DEVLINK_ATTR_DEV_NAME */
		'n',  'e',  't',  'd',	'e', 'v', 's', 'i', 'm', '1',  0x00, 0x00, /* + 1 pad */
	};

	memset(buf, 0, total);
	memcpy(buf, prefix, sizeof(prefix));
	buf[0] = (uint8_t) total;
	buf[6] = (uint8_t) flags;
	buf[7] = (uint8_t) (flags >> 8);
	buf[16] = cmd;
	return sizeof(prefix);
}

TEST(param_dump_bytes) {
	/* `devlink dev param show` of one device: the handle as a dump's selector */
	uint8_t expected[52];
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;

	nsim_prefix(expected, sizeof(expected), DEVLINK_CMD_PARAM_GET,
		    NLM_F_REQUEST | NLM_F_ACK | NLM_F_DUMP);
	CHECK(devlink_param_dump_new(0x1a, "netdevsim", "netdevsim1", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
	CHECK(devlink_param_dump_new(0, "netdevsim", "netdevsim1", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(param_set_u32_bytes) {
	/* `devlink dev param set netdevsim/netdevsim1 name max_macs value 64 cmode driverinit` */
	uint8_t expected[52 + 16 + 8 + 8 + 8];
	struct nl_msg *m = NULL;
	size_t o;

	o = nsim_prefix(expected, sizeof(expected), DEVLINK_CMD_PARAM_SET,
			NLM_F_REQUEST | NLM_F_ACK);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x0d, 0x00, 0x51, 0x00, /* nla_len 13, PARAM_NAME (81) */
		       'm',  'a',  'x',	 '_',  'm',  'a',  'c',	 's', 0x00,
		       0x00, 0x00, 0x00, 0x05, 0x00, 0x57, 0x00, /* nla_len 5, PARAM_VALUE_CMODE
								    (87) */
		       0x01, 0x00, 0x00, 0x00,			 /* driverinit, 3 pad */
		       0x05, 0x00, 0x53, 0x00,			 /* nla_len 5, PARAM_TYPE (83) */
		       0x03, 0x00, 0x00, 0x00,			 /* NLA_U32 */
		       0x08, 0x00, 0x56, 0x00, /* nla_len 8, PARAM_VALUE_DATA (86) */
		       0x40, 0x00, 0x00, 0x00, /* u32 64 */
	       },
	       40);
	CHECK(devlink_param_set_new(0x1a, "netdevsim", "netdevsim1", "max_macs",
				    DEVLINK_PARAM_TYPE_U32, DEVLINK_CMODE_DRIVERINIT, "64",
				    &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

TEST(param_set_bool_bytes) {
	/* test1 true: the data a flag (nla_len 4); false: no data at all */
	uint8_t expected[52 + 12 + 8 + 8 + 4];
	struct nl_msg *m = NULL;
	size_t o;

	o = nsim_prefix(expected, sizeof(expected), DEVLINK_CMD_PARAM_SET,
			NLM_F_REQUEST | NLM_F_ACK);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x0a, 0x00, 0x51, 0x00, 't',  'e',  's',	 't',  '1',  0x00,
		       0x00, 0x00, 0x05, 0x00, 0x57, 0x00, 0x01, 0x00, 0x00, 0x00, /* driverinit */
		       0x05, 0x00, 0x53, 0x00, 0x06, 0x00, 0x00, 0x00,		   /* NLA_FLAG */
		       0x04, 0x00, 0x56, 0x00, /* PARAM_VALUE_DATA, empty */
	       },
	       32);
	CHECK(devlink_param_set_new(0x1a, "netdevsim", "netdevsim1", "test1",
				    DEVLINK_PARAM_TYPE_BOOL, DEVLINK_CMODE_DRIVERINIT, "true",
				    &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);

	expected[0] -= 4;
	m = NULL;
	CHECK(devlink_param_set_new(0x1a, "netdevsim", "netdevsim1", "test1",
				    DEVLINK_PARAM_TYPE_BOOL, DEVLINK_CMODE_DRIVERINIT, "false",
				    &m) == 0);
	check_bytes(m, expected, sizeof(expected) - 4);
	nlmsg_free(m);
}

static struct nlattr *attrdata(struct nl_msg *m) {
	return (struct nlattr *) ((char *) nlmsg_data(nlmsg_hdr(m)) + GENL_HDRLEN);
}

static int attrlen(struct nl_msg *m) {
	return nlmsg_datalen(nlmsg_hdr(m)) - GENL_HDRLEN;
}

TEST(param_set_string_and_refusals) {
	struct nl_msg *m = NULL, *untouched = (struct nl_msg *) 0x1;
	struct nlattr *tb[DEVLINK_ATTR_MAX + 1];

	/* mlx5's flow_steering_mode smfs, runtime: the data a NUL-terminated string */
	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "flow_steering_mode",
				    DEVLINK_PARAM_TYPE_STRING, DEVLINK_CMODE_RUNTIME, "smfs",
				    &m) == 0);
	CHECK(nla_parse(tb, DEVLINK_ATTR_MAX, attrdata(m), attrlen(m), NULL) >= 0);
	CHECK(tb[DEVLINK_ATTR_PARAM_VALUE_DATA] && nla_len(tb[DEVLINK_ATTR_PARAM_VALUE_DATA]) == 5);
	CHECK_STREQ((char *) nla_data(tb[DEVLINK_ATTR_PARAM_VALUE_DATA]), "smfs");
	CHECK_INTEQ(nla_get_u8(tb[DEVLINK_ATTR_PARAM_VALUE_CMODE]), 0);
	CHECK_INTEQ(nla_get_u8(tb[DEVLINK_ATTR_PARAM_TYPE]), NLA_STRING);
	nlmsg_free(m);

	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "max_macs", DEVLINK_PARAM_TYPE_U32,
				    DEVLINK_CMODE_DRIVERINIT, "many", &untouched) == -EINVAL);
	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "x", DEVLINK_PARAM_TYPE_U8,
				    DEVLINK_CMODE_RUNTIME, "256", &untouched) == -ERANGE);
	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "x", DEVLINK_PARAM_TYPE_BOOL,
				    DEVLINK_CMODE_RUNTIME, "1", &untouched) == -EINVAL);
	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "", DEVLINK_PARAM_TYPE_BOOL,
				    DEVLINK_CMODE_RUNTIME, "true", &untouched) == -EINVAL);
	CHECK(devlink_param_set_new(0x1a, "pci", "0000:03:00.0", "x", DEVLINK_PARAM_TYPE_BOOL,
				    _DEVLINK_CMODE_MAX, "true", &untouched) == -EINVAL);
	CHECK(untouched == (struct nl_msg *) 0x1);
}

TEST(reload_bytes) {
	/* `devlink dev reload netdevsim/netdevsim1 action driver_reinit` */
	uint8_t expected[52 + 8];
	struct nl_msg *m = NULL;
	size_t o;

	o = nsim_prefix(expected, sizeof(expected), DEVLINK_CMD_RELOAD, NLM_F_REQUEST | NLM_F_ACK);
	memcpy(expected + o,
	       (const uint8_t[]){
		       0x05, 0x00, 0x99, 0x00, /* nla_len 5, RELOAD_ACTION (153) */
		       0x01, 0x00, 0x00, 0x00, /* driver_reinit, 3 pad */
	       },
	       8);
	CHECK(devlink_reload_new(0x1a, "netdevsim", "netdevsim1", &m) == 0);
	check_bytes(m, expected, sizeof(expected));
	nlmsg_free(m);
}

/* A reply as devlink_nl_param_fill() builds it, for cmd, with the values given (cmode, data);
 * a bool's len 0 for true, -1 for false. */
typedef struct Value {
	uint8_t cmode;
	const void *data;
	int len;
} Value;

static struct nl_msg *param_reply(uint8_t cmd, const char *dev, bool port, const char *name,
				  uint8_t type, const Value *values, size_t n) {
	struct nl_msg *m = nlmsg_alloc();
	struct genlmsghdr g = { .cmd = cmd, .version = 1 };
	struct nlattr *param, *list, *value;

	CHECK(m);
	CHECK(nlmsg_put(m, 0, 0, 0x1a, 0, NLM_F_MULTI));
	CHECK(nlmsg_append(m, &g, sizeof(g), NLMSG_ALIGNTO) == 0);
	nla_put_string(m, DEVLINK_ATTR_BUS_NAME, "pci");
	nla_put_string(m, DEVLINK_ATTR_DEV_NAME, dev);
	if (port)
		nla_put_u32(m, DEVLINK_ATTR_PORT_INDEX, 1);
	param = nla_nest_start(m, DEVLINK_ATTR_PARAM);
	nla_put_string(m, DEVLINK_ATTR_PARAM_NAME, name);
	nla_put_flag(m, DEVLINK_ATTR_PARAM_GENERIC);
	nla_put_u8(m, DEVLINK_ATTR_PARAM_TYPE, type);
	list = nla_nest_start(m, DEVLINK_ATTR_PARAM_VALUES_LIST);
	for (size_t i = 0; i < n; i++) {
		value = nla_nest_start(m, DEVLINK_ATTR_PARAM_VALUE);
		nla_put_u8(m, DEVLINK_ATTR_PARAM_VALUE_CMODE, values[i].cmode);
		/* a bool: len 0 the flag (true), -1 none (false) */
		if (values[i].len >= 0)
			nla_put(m, DEVLINK_ATTR_PARAM_VALUE_DATA, values[i].len, values[i].data);
		nla_nest_end(m, value);
	}
	nla_nest_end(m, list);
	nla_nest_end(m, param);
	return m;
}

TEST(param_parse) {
	uint32_t v32 = 64;
	DevlinkParamInfo info = { 0 };
	struct nl_msg *m;

	/* mlx5's max_macs, driverinit only */
	m = param_reply(DEVLINK_CMD_PARAM_GET, "0000:03:00.0", false, "max_macs", NLA_U32,
			(const Value[]){ { 1, &v32, 4 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), 0);
	CHECK_STREQ(info.bus, "pci");
	CHECK_STREQ(info.dev, "0000:03:00.0");
	CHECK_STREQ(info.name, "max_macs");
	CHECK_INTEQ(info.type, DEVLINK_PARAM_TYPE_U32);
	CHECK_INTEQ(info.cmodes, 1u << DEVLINK_CMODE_DRIVERINIT);
	CHECK_STREQ(info.values[DEVLINK_CMODE_DRIVERINIT], "64");
	nlmsg_free(m);

	/* mlx5's flow_steering_mode, runtime, as a notification (PARAM_NEW) */
	m = param_reply(DEVLINK_CMD_PARAM_NEW, "0000:03:00.0", false, "flow_steering_mode",
			NLA_STRING, (const Value[]){ { 0, "smfs", 5 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), 0);
	CHECK_INTEQ(info.type, DEVLINK_PARAM_TYPE_STRING);
	CHECK_STREQ(info.values[DEVLINK_CMODE_RUNTIME], "smfs");
	nlmsg_free(m);

	/* a bool in two cmodes: runtime true (the flag), driverinit false (no data) */
	m = param_reply(DEVLINK_CMD_PARAM_GET, "0000:03:00.0", false, "enable_roce", NLA_FLAG,
			(const Value[]){ { 0, NULL, 0 }, { 1, NULL, -1 } }, 2);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), 0);
	CHECK_INTEQ(info.cmodes, 3);
	CHECK_STREQ(info.values[DEVLINK_CMODE_RUNTIME], "true");
	CHECK_STREQ(info.values[DEVLINK_CMODE_DRIVERINIT], "false");
	nlmsg_free(m);

	/* a port's parameter: not the device's */
	m = param_reply(DEVLINK_CMD_PARAM_GET, "0000:03:00.0", true, "max_macs", NLA_U32,
			(const Value[]){ { 1, &v32, 4 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EAGAIN);
	nlmsg_free(m);

	/* a type rdmad has no name for (NLA_U64, newer kernels) */
	m = param_reply(DEVLINK_CMD_PARAM_GET, "0000:03:00.0", false, "big", NLA_U64,
			(const Value[]){ { 0, &v32, 4 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EPROTO);
	nlmsg_free(m);

	/* a u32 with two bytes of data: malformed */
	m = param_reply(DEVLINK_CMD_PARAM_GET, "0000:03:00.0", false, "max_macs", NLA_U32,
			(const Value[]){ { 1, &v32, 2 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	nlmsg_free(m);

	/* another command's reply */
	m = param_reply(DEVLINK_CMD_ESWITCH_GET, "0000:03:00.0", false, "max_macs", NLA_U32,
			(const Value[]){ { 1, &v32, 4 } }, 1);
	CHECK_INTEQ(devlink_param_parse(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, &info), -EBADMSG);
	nlmsg_free(m);
}

TEST(message_handle) {
	uint32_t v32 = 1;
	char bus[64], dev[64];
	uint8_t cmd = 0;
	struct nl_msg *m;

	m = param_reply(DEVLINK_CMD_PARAM_NEW, "0000:03:00.1", false, "max_macs", NLA_U32,
			(const Value[]){ { 1, &v32, 4 } }, 1);
	CHECK_INTEQ(devlink_message_handle(nlmsg_hdr(m), nlmsg_hdr(m)->nlmsg_len, bus, dev, &cmd),
		    0);
	CHECK_STREQ(bus, "pci");
	CHECK_STREQ(dev, "0000:03:00.1");
	CHECK_INTEQ(cmd, DEVLINK_CMD_PARAM_NEW);
	nlmsg_free(m);
}

/* netlink_ack() with NETLINK_EXT_ACK: struct nlmsgerr, the request echoed whole (no
 * NETLINK_CAP_ACK) and the TLVs, NLM_F_ACK_TLVS set */
TEST(extack_parse) {
	static const char msg[] = "netdevsim: User forbid the reload for testing purposes";
	struct nl_msg *req = NULL, *m = nlmsg_alloc();
	struct nlmsgerr e = { .error = -EOPNOTSUPP };
	char buf[NETLINK_EXTACK_MAX];
	struct nlmsghdr *h;

	CHECK(devlink_reload_new(0x1a, "netdevsim", "netdevsim1", &req) == 0);
	e.msg = *nlmsg_hdr(req);
	CHECK(nlmsg_put(m, 0, 1, NLMSG_ERROR, 0, NLM_F_ACK_TLVS));
	CHECK(nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO) == 0);
	CHECK(nlmsg_append(m, nlmsg_data(nlmsg_hdr(req)), nlmsg_datalen(nlmsg_hdr(req)),
			   NLMSG_ALIGNTO) == 0);
	nla_put_string(m, NLMSGERR_ATTR_MSG, msg);
	h = nlmsg_hdr(m);
	netlink_extack_parse(h, buf);
	CHECK_STREQ(buf, msg);

	/* without the flag, nothing is read */
	h->nlmsg_flags = 0;
	netlink_extack_parse(h, buf);
	CHECK_STREQ(buf, "");
	nlmsg_free(m);

	/* capped: the request's header only, the TLVs after */
	m = nlmsg_alloc();
	CHECK(nlmsg_put(m, 0, 1, NLMSG_ERROR, 0, NLM_F_ACK_TLVS | NLM_F_CAPPED));
	CHECK(nlmsg_append(m, &e, sizeof(e), NLMSG_ALIGNTO) == 0);
	nla_put_string(m, NLMSGERR_ATTR_MSG, "short");
	netlink_extack_parse(nlmsg_hdr(m), buf);
	CHECK_STREQ(buf, "short");
	nlmsg_free(m);
	nlmsg_free(req);
}

TESTS_MAIN(TEST_ENTRY(uapi), TEST_ENTRY(param_dump_bytes), TEST_ENTRY(param_set_u32_bytes),
	   TEST_ENTRY(param_set_bool_bytes), TEST_ENTRY(param_set_string_and_refusals),
	   TEST_ENTRY(reload_bytes), TEST_ENTRY(param_parse), TEST_ENTRY(message_handle),
	   TEST_ENTRY(extack_parse))
