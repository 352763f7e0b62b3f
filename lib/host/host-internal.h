/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by host.c, which puts one observation together, and the host-*.c observers. */

#include "host.h"

/* The observation is made one object at a time (host.c's HostObserver), so that a caller can
 * serve other work between them: */
/* the names of <root>/sys/class/infiniband (dir-names.h) without those only does not name,
 * when it is set; the order kept; */
int host_devices_filter(char **names, char *const *only);
/* one device and its ports, appended to h->devices (a device gone meanwhile is recorded with
 * the error, not failed: device_observe()); cmfd: configfs rdma_cm, or -1; */
int host_device_add(HostState *h, int classfd, int cmfd, const char *name, HostObserveFlags flags,
		    size_t *n_alloc);
void host_devices_sort(HostState *h);
void host_device_done(HostDevice *d);
/* (h->partial) the names of the netdevs the observed ports sit on, each once, sorted, there or
 * not (a full observation reads <root>/sys/class/net with dir-names.h); */
int host_netdevs_of_ports(const HostState *h, char ***ret);
/* one netdev, appended to h->netdevs (h->partial: nothing when it is not there). */
int host_netdev_add(HostState *h, int netfd, const char *name, size_t *n_alloc);
void host_netdevs_sort(HostState *h);
void host_netdev_done(HostNetdev *n);
/* Loaded and built-in modules. */
int host_modules_observe(HostState *h, int rootfd);
/* PCI network functions (class 0x02xx). */
int host_pci_observe(HostState *h, int rootfd);
void host_pci_function_done(HostPciFunction *f);
/* The functions behind the observed netdevs (sriov.*, pci.*; host-function.c); writing: the one
 * being changed meanwhile (host_observer_set_writing()), NULL if none. */
int host_functions_observe(HostState *h, int rootfd, HostObserveFlags flags, const char *writing,
			   const char *writing_what);
void host_function_done(HostFunction *f);
/* The vfio-pci functions and the GPUs (host-function.c), freed and forgotten. */
void host_pcie_peers_done(HostState *h);
/* An observation's rtnetlink part in steps (a full one, or a partial one of more netdevs than
 * host_addresses_by_name() takes): every netdev's index, MTU and state from one link dump, then
 * their addresses from an IPv4 and an IPv6 address dump, a batch of messages per step (at 8,192
 * netdevs the dumps took 90 ms in one piece). A netdev the link dump does not name keeps
 * addresses_known false. h must outlive the observer. A step returns 0 while more is to read, 1
 * when done, or -errno (then no netdev's addresses are known). */
typedef struct AddressesObserver AddressesObserver;
/* Whether a partial observation asks for its few netdevs by name, one round trip each, in one
 * step, rather than read the dumps: up to ADDRESSES_BY_NAME_MAX of them. */
#define ADDRESSES_BY_NAME_MAX 16
bool host_addresses_by_name(const HostState *h) _pure_;
int host_addresses_observe_begin(HostState *h, AddressesObserver **ret);
int host_addresses_observe_step(AddressesObserver *a);
AddressesObserver *addresses_observer_free(AddressesObserver *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(AddressesObserver *, addresses_observer_free)
