/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by host.c, which puts one observation together, and the host-*.c observers. */

#include "host.h"

/* The observation is made one object at a time (host.c's HostObserver), so that a caller can
 * serve other work between them: */
/* the names under <root>/sys/class/infiniband (classfd; only those named, when only is set),
 * sorted; */
int host_devices_list(int classfd, char *const *only, char ***ret);
/* one device and its ports, appended to h->devices (a device gone meanwhile is recorded with
 * the error, not failed: device_observe()); cmfd: configfs rdma_cm, or -1; */
int host_device_add(HostState *h, int classfd, int cmfd, const char *name, HostObserveFlags flags,
		    size_t *n_alloc);
void host_devices_sort(HostState *h);
void host_device_done(HostDevice *d);
/* every netdev under <root>/sys/class/net (netfd), or (h->partial) only those the observed
 * ports sit on, each once, sorted; */
int host_netdevs_list(const HostState *h, int netfd, char ***ret);
/* one netdev, appended to h->netdevs. */
int host_netdev_add(HostState *h, int netfd, const char *name, size_t *n_alloc);
void host_netdevs_sort(HostState *h);
void host_netdev_done(HostNetdev *n);
/* Loaded and built-in modules. */
int host_modules_observe(HostState *h, int rootfd);
/* PCI network functions (class 0x02xx). */
int host_pci_observe(HostState *h, int rootfd);
void host_pci_function_done(HostPciFunction *f);
/* The functions behind the observed netdevs (sriov.*, pci.*; host-function.c). */
int host_functions_observe(HostState *h, int rootfd, HostObserveFlags flags);
void host_function_done(HostFunction *f);
