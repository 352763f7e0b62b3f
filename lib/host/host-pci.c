/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCI network functions (class 0x02xx: Ethernet 0x0200, InfiniBand 0x0207, ...) from
 * <root>/sys/bus/pci/devices: the hardware an RDMA driver binds to, whether or not an RDMA
 * device exists for it yet. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "host-internal.h"
#include "strv.h"

#define PCI_CLASS_NETWORK 0x02 /* the base class, the class file's top byte */

void host_pci_function_done(HostPciFunction *f) {
	free(f->address);
	free(f->driver);
	free(f->physfn);
	strv_free(f->netdevs);
}

static int function_compare(const void *a, const void *b) {
	return strcmp(((const HostPciFunction *) a)->address,
		      ((const HostPciFunction *) b)->address);
}

/* Its netdevs: the net/ directory of the function, sorted. 1 when the function has that
 * directory (even empty), 0 when not. */
static int function_netdevs(int fnfd, char ***ret) {
	_cleanup_close_ int fd = -EBADF;
	DIR *dir;
	int r = 0;

	fd = openat(fnfd, "net", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return -errno;
	for (struct dirent *de; r >= 0 && (de = readdir(dir));)
		if (de->d_name[0] != '.')
			r = strv_extend(ret, de->d_name);
	closedir(dir);
	strv_sort(*ret);
	return r < 0 ? r : 1;
}

/* One function, if it is a network one: 1 and *ret filled, 0 if not (or unreadable). */
static int function_observe(int devicesfd, const char *address, HostPciFunction *ret) {
	_cleanup_close_ int fnfd = -EBADF;
	HostPciFunction f = { 0 };
	unsigned long class;
	char buf[32], *end;
	struct stat st;
	int r;

	fnfd = openat(devicesfd, address, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fnfd < 0)
		return 0; /* gone since readdir */
	if (read_small_at(fnfd, "class", buf, sizeof(buf)) <= 0)
		return 0;
	class = strtoul(buf, &end, 16);
	if (*end || class > 0xffffff || (class >> 16) != PCI_CLASS_NETWORK)
		return 0;
	f.address = strdup(address);
	if (!f.address)
		return -ENOMEM;
	f.class = (uint32_t) class;
	r = readlink_basename_at(fnfd, "driver", &f.driver);
	if (r == -ENOMEM) {
		host_pci_function_done(&f);
		return r;
	}
	f.virtual_function = fstatat(fnfd, "physfn", &st, 0) >= 0;
	if (f.virtual_function && readlink_basename_at(fnfd, "physfn", &f.physfn) == -ENOMEM) {
		host_pci_function_done(&f);
		return -ENOMEM;
	}
	r = function_netdevs(fnfd, &f.netdevs);
	if (r < 0) {
		host_pci_function_done(&f);
		return r;
	}
	/* net/ is there, and shows none: its netdev is in another network namespace */
	f.netdev_elsewhere = r > 0 && !f.netdevs && f.driver && !streq(f.driver, "vfio-pci");
	*ret = f;
	return 1;
}

int host_pci_observe(HostState *h, int rootfd) {
	_cleanup_close_ int fd = -EBADF;
	size_t n_alloc = 0;
	DIR *dir;
	int r = 0;

	fd = openat(rootfd, "sys/bus/pci/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno; /* no PCI bus (a fixture, an s390) */
	dir = fdopendir_consume(TAKE_FD(fd));
	if (!dir)
		return -errno;
	for (struct dirent *de; (de = readdir(dir));) {
		HostPciFunction f;

		if (de->d_name[0] == '.')
			continue;
		r = function_observe(dirfd(dir), de->d_name, &f);
		if (r <= 0) {
			if (r < 0)
				break;
			continue;
		}
		r = GREEDY_REALLOC(h->pci_functions, n_alloc, h->n_pci_functions + 1);
		if (r < 0) {
			host_pci_function_done(&f);
			break;
		}
		h->pci_functions[h->n_pci_functions++] = f;
	}
	closedir(dir);
	if (h->n_pci_functions > 1)
		qsort(h->pci_functions, h->n_pci_functions, sizeof(HostPciFunction),
		      function_compare);
	return r < 0 ? r : 0;
}
