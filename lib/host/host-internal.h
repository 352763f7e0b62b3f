/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by host.c, which puts one observation together, and the host-*.c observers. */

#include "host.h"

/* RDMA devices under <root>/sys/class/infiniband (only those named, when only is set). */
int host_devices_observe(HostState *h, int rootfd, HostObserveFlags flags, char *const *only);
void host_device_done(HostDevice *d);
/* Every netdev, or (h->partial) only those the observed ports sit on. */
int host_netdevs_observe(HostState *h, int rootfd);
void host_netdev_done(HostNetdev *n);
/* Loaded and built-in modules. */
int host_modules_observe(HostState *h, int rootfd);
/* PCI network functions (class 0x02xx). */
int host_pci_observe(HostState *h, int rootfd);
void host_pci_function_done(HostPciFunction *f);
/* The functions behind the observed netdevs (sriov.*, pci.*; host-function.c). */
int host_functions_observe(HostState *h, int rootfd, HostObserveFlags flags);
void host_function_done(HostFunction *f);
