/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* devlink device parameters (`devlink dev param`), as devlink.params declares them and the
 * kernel reports them: a name, a configuration mode, a typed value. Values travel as their
 * canonical text ("64", "true", "smfs"): a declared value is checked against its type (from the
 * table of parameters rdmad knows, or the type the device reports) and compared as text.
 *
 * The table of known parameters (devlink-param.c) is what `rdmactl check` can tell without a
 * device: the names and types of mlx5, ice and netdevsim (the kernel's
 * Documentation/networking/devlink/{mlx5,ice,netdevsim}.rst). The rest is checked by the
 * planner against what the device reports. */

#include <stdbool.h>
#include <stdint.h>

#include "string-table.h"

/* The kernel's limits: a param's name has no UAPI limit (the drivers' are under 32 bytes);
 * a string value is __DEVLINK_PARAM_MAX_STRING_VALUE (32) with its NUL. */
#define DEVLINK_PARAM_NAME_MAX	 64
#define DEVLINK_PARAM_STRING_MAX 32
/* Room for any value's text: a u32 in decimal, "false", a string. */
#define DEVLINK_VALUE_MAX 64

/* Numbered as the kernel's enum devlink_param_cmode: they go on the wire. */
typedef enum DevlinkCmode {
	DEVLINK_CMODE_RUNTIME,
	DEVLINK_CMODE_DRIVERINIT,
	DEVLINK_CMODE_PERMANENT,
	_DEVLINK_CMODE_MAX,
	_DEVLINK_CMODE_INVALID = -EINVAL,
} DevlinkCmode;
DECLARE_STRING_TABLE_LOOKUP(devlink_cmode, DevlinkCmode)

/* The value types devlink has (DEVLINK_ATTR_PARAM_TYPE carries the netlink attribute type:
 * NLA_U8 1, NLA_U16 2, NLA_U32 3, NLA_STRING 5, NLA_FLAG 6; devlink_param_type_to_nla()). */
typedef enum DevlinkParamType {
	DEVLINK_PARAM_TYPE_U8,
	DEVLINK_PARAM_TYPE_U16,
	DEVLINK_PARAM_TYPE_U32,
	DEVLINK_PARAM_TYPE_STRING,
	DEVLINK_PARAM_TYPE_BOOL,
	_DEVLINK_PARAM_TYPE_MAX,
	_DEVLINK_PARAM_TYPE_INVALID = -EINVAL,
} DevlinkParamType;
DECLARE_STRING_TABLE_LOOKUP(devlink_param_type, DevlinkParamType)
/* The attribute type on the wire, and back (-EPROTO for one devlink does not use). */
uint8_t devlink_param_type_to_nla(DevlinkParamType t) _const_;
DevlinkParamType devlink_param_type_from_nla(uint8_t nla) _const_;

/* devlink.reload: whether rdmad may run `devlink dev reload` (driver_reinit) to bring
 * driverinit parameters into effect. */
typedef enum DevlinkReload {
	DEVLINK_RELOAD_NEVER,
	DEVLINK_RELOAD_ALLOWED,
	_DEVLINK_RELOAD_MAX,
	_DEVLINK_RELOAD_INVALID = -EINVAL,
} DevlinkReload;
DECLARE_STRING_TABLE_LOOKUP(devlink_reload, DevlinkReload)

/* One declared parameter (devlink.params entry). */
typedef struct DevlinkParam {
	char name[DEVLINK_PARAM_NAME_MAX];
	char value[DEVLINK_VALUE_MAX]; /* canonical when its type is known, else as written */
	DevlinkCmode cmode;
	unsigned line, column; /* where it was declared */
} DevlinkParam;

/* A parameter rdmad knows: its driver (the bound driver's name), type and the one cmode the
 * driver offers it in; choices, for a string, "a|b|c" (NULL: any). */
typedef struct DevlinkKnownParam {
	const char *driver, *name;
	DevlinkParamType type;
	DevlinkCmode cmode;
	const char *choices;
} DevlinkKnownParam;

/* The known rows of name (any driver), up to n in ret; returns how many there are. */
size_t devlink_known_find(const char *name, const DevlinkKnownParam **ret, size_t n);
/* The row of driver's name, NULL if none. */
const DevlinkKnownParam *devlink_known_lookup(const char *driver, const char *name) _pure_;
/* Whether the table has rows for driver at all. */
bool devlink_known_driver(const char *driver) _pure_;
/* The names the table knows for driver, "a, b, c", into buf. */
void devlink_known_names(const char *driver, char *buf, size_t size);

/* text as a value of type t, canonical in ret (DEVLINK_VALUE_MAX): a u8/u16/u32 in decimal
 * (0x.. taken), bool true/false, a string of at most DEVLINK_PARAM_STRING_MAX - 1 bytes.
 * choices ("a|b|c", NULL: any) limits a string. -EINVAL, -ERANGE. */
int devlink_value_canonical(DevlinkParamType t, const char *choices, const char *text,
			    char ret[static DEVLINK_VALUE_MAX]);
