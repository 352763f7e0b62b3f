/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Who may change rdmad's state: root, or whom polkit authorizes for the method's action
 * (units/org.rdmad1.policy). polkitd is asked asynchronously, the way networkd does
 * (bus_verify_polkit_async): the method call waits in a registry while the event loop goes
 * on, then is dispatched again and finds polkit's verdict. */

#include <stdbool.h>
#include <systemd/sd-bus.h>
#include <sys/types.h>

/* Outstanding checks, bounded so that a local user cannot pile them up. */
#define POLKIT_QUERIES_MAX	   32
#define POLKIT_QUERIES_PER_UID_MAX 4

typedef struct PolkitQuery PolkitQuery;

typedef struct PolkitRegistry {
	PolkitQuery *queries; /* a list, newest first */
	size_t n_queries;
} PolkitRegistry;

/* Whether the caller of msg may do action. Returns 1 when it may (now), 0 when polkit has
 * been asked (the handler returns 1 and is called again with msg once polkit answers), or a
 * negative errno with error set: AccessDenied naming the action (also when polkitd is absent
 * or fails), org.rdmad1.Error.Busy when too many checks are outstanding. */
int bus_verify_polkit_async(PolkitRegistry *reg, sd_bus_message *msg, const char *action,
			    sd_bus_error *error);

/* Whether the caller is root (over dbus-daemon: UID 0; bus-polkit.c says why). */
bool bus_sender_is_root(sd_bus_message *msg);

/* Drops every outstanding check (the bus connection went, rdmad stops): their callers get no
 * answer from this connection. */
void polkit_registry_clear(PolkitRegistry *reg);
