/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* org.rdmad1.Link on /org/rdmad1/link/<escaped DEV/PORT> (link-bus.c): the bus face of a
 * port's status ("link" is the word users and rdma(8) have for a port). */

#include "manager.h"

int link_bus_register(Manager *m, sd_bus *bus);
/* After the status table was rebuilt: PropertiesChanged for what differs from old (the first
 * n_carried entries of the new table were moved over unchanged), InterfacesAdded/Removed for
 * ports that came or went. */
void link_bus_ports_changed(Manager *m, const PortStatus *old, size_t n_old, size_t n_carried);
/* PropertiesChanged for what changed of s in place (a bit per PortProperty). */
void link_bus_link_changed(Manager *m, const PortStatus *s, unsigned changes);
/* The signals not sent yet dropped (the manager goes). */
void link_bus_signals_done(Manager *m);
