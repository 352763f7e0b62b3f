/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devlink-param.h"
#include "macro.h"

static const char *const devlink_cmode_table[_DEVLINK_CMODE_MAX] = {
	[DEVLINK_CMODE_RUNTIME] = "runtime",
	[DEVLINK_CMODE_DRIVERINIT] = "driverinit",
	[DEVLINK_CMODE_PERMANENT] = "permanent",
};
DEFINE_STRING_TABLE_LOOKUP(devlink_cmode, DevlinkCmode)

static const char *const devlink_param_type_table[_DEVLINK_PARAM_TYPE_MAX] = {
	[DEVLINK_PARAM_TYPE_U8] = "u8",	    [DEVLINK_PARAM_TYPE_U16] = "u16",
	[DEVLINK_PARAM_TYPE_U32] = "u32",   [DEVLINK_PARAM_TYPE_STRING] = "string",
	[DEVLINK_PARAM_TYPE_BOOL] = "bool",
};
DEFINE_STRING_TABLE_LOOKUP(devlink_param_type, DevlinkParamType)

static const char *const devlink_reload_table[_DEVLINK_RELOAD_MAX] = {
	[DEVLINK_RELOAD_NEVER] = "never",
	[DEVLINK_RELOAD_ALLOWED] = "allowed",
};
DEFINE_STRING_TABLE_LOOKUP(devlink_reload, DevlinkReload)

/* NLA_U8, NLA_U16, NLA_U32, NLA_STRING, NLA_FLAG (include/net/netlink.h, which libnl numbers
 * the same): what the kernel's enum devlink_param_type holds. */
static const uint8_t nla_types[_DEVLINK_PARAM_TYPE_MAX] = {
	[DEVLINK_PARAM_TYPE_U8] = 1,   [DEVLINK_PARAM_TYPE_U16] = 2,
	[DEVLINK_PARAM_TYPE_U32] = 3,  [DEVLINK_PARAM_TYPE_STRING] = 5,
	[DEVLINK_PARAM_TYPE_BOOL] = 6,
};

uint8_t devlink_param_type_to_nla(DevlinkParamType t) {
	return t >= 0 && t < _DEVLINK_PARAM_TYPE_MAX ? nla_types[t] : 0;
}

DevlinkParamType devlink_param_type_from_nla(uint8_t nla) {
	for (size_t i = 0; i < ELEMENTSOF(nla_types); i++)
		if (nla_types[i] == nla)
			return (DevlinkParamType) i;
	return (DevlinkParamType) -EPROTO;
}

/* From the kernel's Documentation/networking/devlink/: mlx5.rst (flow_steering_mode runtime;
 * enable_roce, max_macs, io_eq_size, event_eq_size driverinit), ice.rst (enable_roce and
 * enable_iwarp runtime, one at a time), netdevsim.rst and drivers/net/netdevsim/dev.c
 * (max_macs, test1: driverinit only). */
/* clang-format off */
static const DevlinkKnownParam known_table[] = {
	{ "mlx5_core", "flow_steering_mode", DEVLINK_PARAM_TYPE_STRING, DEVLINK_CMODE_RUNTIME,    "dmfs|smfs|hmfs" },
	{ "mlx5_core", "enable_roce",        DEVLINK_PARAM_TYPE_BOOL,   DEVLINK_CMODE_DRIVERINIT, NULL },
	{ "mlx5_core", "max_macs",           DEVLINK_PARAM_TYPE_U32,    DEVLINK_CMODE_DRIVERINIT, NULL },
	{ "mlx5_core", "io_eq_size",         DEVLINK_PARAM_TYPE_U32,    DEVLINK_CMODE_DRIVERINIT, NULL },
	{ "mlx5_core", "event_eq_size",      DEVLINK_PARAM_TYPE_U32,    DEVLINK_CMODE_DRIVERINIT, NULL },
	{ "ice",       "enable_roce",        DEVLINK_PARAM_TYPE_BOOL,   DEVLINK_CMODE_RUNTIME,    NULL },
	{ "ice",       "enable_iwarp",       DEVLINK_PARAM_TYPE_BOOL,   DEVLINK_CMODE_RUNTIME,    NULL },
	{ "netdevsim", "max_macs",           DEVLINK_PARAM_TYPE_U32,    DEVLINK_CMODE_DRIVERINIT, NULL },
	{ "netdevsim", "test1",              DEVLINK_PARAM_TYPE_BOOL,   DEVLINK_CMODE_DRIVERINIT, NULL },
};
/* clang-format on */

size_t devlink_known_find(const char *name, const DevlinkKnownParam **ret, size_t n) {
	size_t k = 0;

	for (size_t i = 0; i < ELEMENTSOF(known_table); i++)
		if (streq(known_table[i].name, name)) {
			if (k < n)
				ret[k] = &known_table[i];
			k++;
		}
	return k;
}

const DevlinkKnownParam *devlink_known_lookup(const char *driver, const char *name) {
	for (size_t i = 0; i < ELEMENTSOF(known_table); i++)
		if (streq_ptr(known_table[i].driver, driver) && streq(known_table[i].name, name))
			return &known_table[i];
	return NULL;
}

bool devlink_known_driver(const char *driver) {
	for (size_t i = 0; i < ELEMENTSOF(known_table); i++)
		if (streq_ptr(known_table[i].driver, driver))
			return true;
	return false;
}

void devlink_known_names(const char *driver, char *buf, size_t size) {
	size_t len = 0;

	if (size > 0)
		buf[0] = 0;
	for (size_t i = 0; i < ELEMENTSOF(known_table) && len < size; i++) {
		int n;

		if (!streq(known_table[i].driver, driver))
			continue;
		n = snprintf(buf + len, size - len, "%s%s", len ? ", " : "", known_table[i].name);
		if (n < 0)
			return;
		len += (size_t) n;
	}
}

static bool choice_ok(const char *choices, const char *s) {
	size_t len = strlen(s);

	for (const char *p = choices; p && *p;) {
		const char *bar = strchr(p, '|');
		size_t n = bar ? (size_t) (bar - p) : strlen(p);

		if (n == len && strncmp(p, s, n) == 0)
			return true;
		p = bar ? bar + 1 : NULL;
	}
	return !choices;
}

int devlink_value_canonical(DevlinkParamType t, const char *choices, const char *text,
			    char ret[static DEVLINK_VALUE_MAX]) {
	static const unsigned long long max[] = {
		[DEVLINK_PARAM_TYPE_U8] = UINT8_MAX,
		[DEVLINK_PARAM_TYPE_U16] = UINT16_MAX,
		[DEVLINK_PARAM_TYPE_U32] = UINT32_MAX,
	};
	unsigned long long v;
	char *end;

	if (!text)
		return -EINVAL;
	switch (t) {
	case DEVLINK_PARAM_TYPE_U8:
	case DEVLINK_PARAM_TYPE_U16:
	case DEVLINK_PARAM_TYPE_U32:
		if (text[0] < '0' || text[0] > '9')
			return -EINVAL;
		errno = 0;
		v = strtoull(text, &end, 0);
		if (*end || end == text)
			return -EINVAL;
		if (errno == ERANGE || v > max[t])
			return -ERANGE;
		snprintf(ret, DEVLINK_VALUE_MAX, "%llu", v);
		return 0;
	case DEVLINK_PARAM_TYPE_BOOL:
		if (!streq(text, "true") && !streq(text, "false"))
			return -EINVAL;
		snprintf(ret, DEVLINK_VALUE_MAX, "%s", text);
		return 0;
	case DEVLINK_PARAM_TYPE_STRING:
		if (strlen(text) >= DEVLINK_PARAM_STRING_MAX)
			return -ERANGE;
		if (!choice_ok(choices, text))
			return -EINVAL;
		snprintf(ret, DEVLINK_VALUE_MAX, "%s", text);
		return 0;
	default:
		return -EINVAL;
	}
}
