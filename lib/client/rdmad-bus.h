/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Where rdmad is on D-Bus (docs/dbus-api.md, org.rdmad1(5)), as its clients (rdmactl,
 * rdmad-probe) reach it. */

#include <systemd/sd-bus.h>

#define RDMAD_BUS_NAME	    "org.rdmad1"
#define RDMAD_MANAGER_PATH  "/org/rdmad1"
#define RDMAD_MANAGER_IFACE "org.rdmad1.Manager"
#define RDMAD_LINK_PREFIX   "/org/rdmad1/link"
#define RDMAD_LINK_IFACE    "org.rdmad1.Link"

/* The system bus ($DBUS_SYSTEM_BUS_ADDRESS for tests) in *ret; returns 1 when rdmad is on it, 0
 * when it is not, -errno without a bus. Never starts rdmad. On a terminal, polkit may ask the
 * user to authenticate. */
int rdmad_bus_open(sd_bus **ret);
