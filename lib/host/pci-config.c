/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCI configuration space through sysfs: capability walks over a copy of it, the reads and
 * 16-bit writes of the config file, and the bridges above a function (pci-config.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "pci-config.h"
#include "strv.h"

/* The standard capabilities live in 0x40..0xff, 4-byte aligned: 48 places, so a walk of more
 * entries than that has met one twice (the kernel's PCI_FIND_CAP_TTL). The same for the
 * extended ones in 0x100..0xfff; each is 4 bytes at least. */
#define CAP_TTL	    ((PCI_CFG_SPACE_SIZE - PCI_STD_HEADER_SIZEOF) / 4)
#define EXT_CAP_TTL ((PCI_CFG_SPACE_EXP_SIZE - PCI_CFG_SPACE_SIZE) / 4)

#define HEADER_TYPE_MASK 0x7f /* bit 7: multi-function */
#define MRRS_MIN	 128u
#define MRRS_MAX	 4096u
/* The ACS capability's fixed part: header, Capability, Control. The Egress Control Vector that
 * follows when EC is implemented is not read. */
#define ACS_SIZEOF 8

static uint16_t get16(const uint8_t *buf, size_t offset) {
	return (uint16_t) (buf[offset] | buf[offset + 1] << 8);
}

static uint32_t get32(const uint8_t *buf, size_t offset) {
	return (uint32_t) get16(buf, offset) | (uint32_t) get16(buf, offset + 2) << 16;
}

int pci_config_find_cap(const uint8_t *buf, size_t len, uint8_t id) {
	size_t pos;

	if (len < PCI_STD_HEADER_SIZEOF)
		return -ENODATA;
	if (!(get16(buf, PCI_STATUS) & PCI_STATUS_CAP_LIST))
		return -ENOENT;
	if ((buf[PCI_HEADER_TYPE] & HEADER_TYPE_MASK) == PCI_HEADER_TYPE_CARDBUS)
		pos = buf[PCI_CB_CAPABILITY_LIST];
	else
		pos = buf[PCI_CAPABILITY_LIST];

	for (unsigned ttl = CAP_TTL; ttl > 0; ttl--) {
		pos &= ~(size_t) 3; /* bits 1:0 are reserved */
		if (pos == 0)
			return -ENOENT;
		if (pos < PCI_STD_HEADER_SIZEOF)
			return -EBADMSG;
		if (pos + 2 > len)
			return -ENODATA;
		if (buf[pos + PCI_CAP_LIST_ID] == 0xff)
			return -ENOENT; /* what a read of a missing function gives: the end */
		if (buf[pos + PCI_CAP_LIST_ID] == id)
			return (int) pos;
		pos = buf[pos + PCI_CAP_LIST_NEXT];
	}
	return (pos & ~(size_t) 3) == 0 ? -ENOENT : -EBADMSG;
}

int pci_config_find_ext_cap(const uint8_t *buf, size_t len, uint16_t id) {
	size_t pos = PCI_CFG_SPACE_SIZE;

	for (unsigned ttl = EXT_CAP_TTL; ttl > 0; ttl--) {
		uint32_t header;

		if (pos + 4 > len)
			return -ENODATA;
		header = get32(buf, pos);
		/* 0 at 0x100: no extended capabilities; all ones: no extended space at all (the
		 * read of a conventional PCI function's). Either ends the walk further on too. */
		if (header == 0 || header == UINT32_MAX)
			return -ENOENT;
		if (PCI_EXT_CAP_ID(header) == id)
			return (int) pos;
		pos = PCI_EXT_CAP_NEXT(header);
		if (pos == 0)
			return -ENOENT;
		if (pos < PCI_CFG_SPACE_SIZE)
			return -EBADMSG;
	}
	return -EBADMSG;
}

/* The PCIe capability, with the registers up to Device Control inside the 256 bytes. */
static int pcie_cap(const uint8_t *buf, size_t len) {
	int pos = pci_config_find_cap(buf, len, PCI_CAP_ID_EXP);

	if (pos < 0)
		return pos;
	if (pos + PCI_EXP_DEVCTL + 2 > PCI_CFG_SPACE_SIZE)
		return -EBADMSG;
	if ((size_t) pos + PCI_EXP_DEVCTL + 2 > len)
		return -ENODATA;
	return pos;
}

int pci_config_port_type(const uint8_t *buf, size_t len) {
	int pos = pcie_cap(buf, len);

	if (pos < 0)
		return pos;
	return (get16(buf, (size_t) pos + PCI_EXP_FLAGS) & PCI_EXP_FLAGS_TYPE) >> 4;
}

int pci_config_max_read_request(const uint8_t *buf, size_t len, unsigned *ret) {
	int pos = pcie_cap(buf, len);

	if (pos < 0)
		return pos;
	*ret = MRRS_MIN << ((get16(buf, (size_t) pos + PCI_EXP_DEVCTL) & PCI_EXP_DEVCTL_READRQ) >>
			    12);
	return 0;
}

int pci_devctl_with_max_read_request(uint16_t devctl, unsigned bytes, uint16_t *ret) {
	unsigned field = 0;

	if (bytes < MRRS_MIN || bytes > MRRS_MAX || (bytes & (bytes - 1)) != 0)
		return -EINVAL;
	while ((MRRS_MIN << field) < bytes)
		field++;
	/* Bit 15 is Initiate Function Level Reset in an endpoint: it always reads 0, so the 0
	 * written back from the read never starts one. */
	*ret = (uint16_t) ((devctl & ~PCI_EXP_DEVCTL_READRQ) | field << 12);
	return 0;
}

int pci_config_acs(const uint8_t *buf, size_t len, uint16_t *ret_cap, uint16_t *ret_ctrl) {
	int pos = pci_config_find_ext_cap(buf, len, PCI_EXT_CAP_ID_ACS);

	if (pos < 0)
		return pos;
	if (pos + ACS_SIZEOF > PCI_CFG_SPACE_EXP_SIZE)
		return -EBADMSG;
	if ((size_t) pos + ACS_SIZEOF > len)
		return -ENODATA;
	*ret_cap = get16(buf, (size_t) pos + PCI_ACS_CAP);
	*ret_ctrl = get16(buf, (size_t) pos + PCI_ACS_CTRL);
	return pos;
}

uint16_t pci_acs_ctrl_p2p_off(uint16_t cap, uint16_t ctrl) {
	return (uint16_t) (ctrl & ~(cap & PCI_CONFIG_ACS_P2P_BITS));
}

int pci_function_config_parse(const uint8_t *buf, size_t len, PciFunctionConfig *ret) {
	PciFunctionConfig c = { .port_type = -1 };
	int r;

	if (len < PCI_STD_HEADER_SIZEOF)
		return -ENODATA;
	if (get16(buf, PCI_VENDOR_ID) == 0xffff)
		return -ENODEV;

	r = pci_config_port_type(buf, len);
	if (r >= 0) {
		c.port_type = r;
		r = pci_config_max_read_request(buf, len, &c.max_read_request);
	}
	if (r < 0 && r != -ENOENT)
		return r;

	r = pci_config_acs(buf, len, &c.acs_cap, &c.acs_ctrl);
	if (r < 0 && r != -ENOENT && r != -ENODATA)
		return r;
	c.has_acs = r >= 0;

	*ret = c;
	return 0;
}

static bool hex_run(const char *s, size_t n) {
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

bool pci_address_valid(const char *s) {
	size_t domain;

	if (!s)
		return false;
	domain = strspn(s, "0123456789abcdef");
	if (domain < 4 || domain > 8)
		return false;
	s += domain;
	/* ":bb:dd.f", nothing after */
	return strlen(s) == 8 && s[0] == ':' && hex_run(s + 1, 2) && s[3] == ':' &&
	       hex_run(s + 4, 2) && s[4] <= '1' && s[6] == '.' && s[7] >= '0' && s[7] <= '7';
}

static int config_path(const char *root, const char *address, char **ret) {
	_cleanup_free_ char *rel = NULL;
	char *p;

	if (!pci_address_valid(address))
		return -EINVAL;
	if (asprintf(&rel, "/sys/bus/pci/devices/%s/config", address) < 0)
		return -ENOMEM;
	p = root_path(root, rel);
	if (!p)
		return -ENOMEM;
	*ret = p;
	return 0;
}

int pci_config_read(const char *root, const char *address, uint8_t *buf, size_t size,
		    size_t *ret_len) {
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	size_t n = 0;
	int r;

	r = config_path(root, address, &path);
	if (r < 0)
		return r;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* sysfs hands out at most a page per read: read until EOF or size. */
	while (n < size) {
		ssize_t k = pread(fd, buf + n, size - n, (off_t) n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		n += (size_t) k;
	}
	/* Every function has 256 bytes: fewer is the kernel's cut for a reader without
	 * CAP_SYS_ADMIN (64, or 128 for a CardBus bridge) or a file that is not a config space. */
	if (n < size && n < PCI_CFG_SPACE_SIZE)
		return n == PCI_STD_HEADER_SIZEOF || n == 2 * PCI_STD_HEADER_SIZEOF ? -EPERM : -EIO;
	*ret_len = n;
	return 0;
}

int pci_config_write16(const char *root, const char *address, size_t offset, uint16_t value) {
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -EBADF;
	/* The file is the space byte for byte, and the space is little endian. */
	const uint8_t bytes[2] = { (uint8_t) (value & 0xff), (uint8_t) (value >> 8) };
	ssize_t k;
	int r;

	/* An odd offset would make the kernel split the write into two byte writes. */
	if (offset % 2 != 0 || offset >= PCI_CFG_SPACE_EXP_SIZE)
		return -EINVAL;
	r = config_path(root, address, &path);
	if (r < 0)
		return r;
	/* No O_TRUNC: a fixture's file is the space, and sysfs ignores it anyway. */
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	do
		k = pwrite(fd, bytes, sizeof(bytes), (off_t) offset);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -errno;
	if (k != (ssize_t) sizeof(bytes))
		return -EIO; /* past the end of the function's space: the kernel cuts it */
	return 0;
}

int sysfs_link_components(const char *root, const char *rel, char ***ret) {
	_cleanup_free_ char *link = NULL, *path = NULL;
	_cleanup_strv_free_ char **l = NULL;
	char *c, *save = NULL;
	int r;

	link = root_path(root, rel);
	if (!link)
		return -ENOMEM;
	/* sysfs's links are relative in the kernel's layout: realpath() resolves them alike under
	 * / and under a fixture root */
	path = realpath(link, NULL);
	if (!path)
		return -errno;
	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	for (c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		r = strv_extend(&l, c);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

int pci_bridges_from_components(char *const *components, char ***ret) {
	_cleanup_strv_free_ char **l = NULL;
	size_t n = strv_length(components);
	int r;

	l = calloc(1, sizeof(char *));
	if (!l)
		return -ENOMEM;
	/* Drop the function itself, then take its PCI parents up to the first that is not one. */
	for (size_t i = n > 0 ? n - 1 : 0; i > 0 && pci_address_valid(components[i - 1]); i--) {
		r = strv_extend(&l, components[i - 1]);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

const char *pci_root_complex_from_components(char *const *components) {
	for (size_t i = 0; components && components[i]; i++)
		if (pci_address_valid(components[i]))
			return i > 0 ? components[i - 1] : NULL;
	return NULL;
}

int pci_function_components(const char *root, const char *address, char ***ret) {
	_cleanup_free_ char *rel = NULL;

	if (!pci_address_valid(address))
		return -EINVAL;
	if (asprintf(&rel, "/sys/bus/pci/devices/%s", address) < 0)
		return -ENOMEM;
	return sysfs_link_components(root, rel, ret);
}

int pci_upstream_bridges(const char *root, const char *address, char ***ret) {
	_cleanup_strv_free_ char **components = NULL;
	int r;

	r = pci_function_components(root, address, &components);
	if (r < 0)
		return r;
	return pci_bridges_from_components(components, ret);
}

int pci_function_config_read(const char *root, const char *address, PciFunctionConfig *ret) {
	uint8_t buf[PCI_CFG_SPACE_EXP_SIZE];
	size_t len;
	int r;

	r = pci_config_read(root, address, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	return pci_function_config_parse(buf, len, ret);
}

/* The offset of Device Control and its value, live. */
static int devctl_read(const char *root, const char *address, size_t *ret_offset,
		       uint16_t *ret_devctl) {
	uint8_t buf[PCI_CFG_SPACE_SIZE];
	size_t len;
	int pos, r;

	r = pci_config_read(root, address, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	pos = pcie_cap(buf, len);
	if (pos == -ENOENT)
		return -EOPNOTSUPP;
	if (pos < 0)
		return pos;
	*ret_offset = (size_t) pos + PCI_EXP_DEVCTL;
	*ret_devctl = get16(buf, *ret_offset);
	return 0;
}

int pci_max_read_request_get(const char *root, const char *address, unsigned *ret) {
	size_t offset;
	uint16_t devctl;
	int r;

	r = devctl_read(root, address, &offset, &devctl);
	if (r < 0)
		return r;
	*ret = MRRS_MIN << ((devctl & PCI_EXP_DEVCTL_READRQ) >> 12);
	return 0;
}

int pci_max_read_request_set(const char *root, const char *address, unsigned bytes) {
	size_t offset;
	uint16_t devctl, want;
	int r;

	r = pci_devctl_with_max_read_request(0, bytes, &want); /* refused before any I/O */
	if (r < 0)
		return r;
	r = devctl_read(root, address, &offset, &devctl);
	if (r < 0)
		return r;
	r = pci_devctl_with_max_read_request(devctl, bytes, &want);
	if (r < 0)
		return r;
	return pci_config_write16(root, address, offset, want);
}

/* The offset of ACS Control and its value, live. */
static int acs_ctrl_read(const char *root, const char *address, size_t *ret_offset,
			 uint16_t *ret_ctrl) {
	uint8_t buf[PCI_CFG_SPACE_EXP_SIZE];
	uint16_t cap, ctrl;
	size_t len;
	int pos, r;

	r = pci_config_read(root, address, buf, sizeof(buf), &len);
	if (r < 0)
		return r;
	pos = pci_config_acs(buf, len, &cap, &ctrl);
	if (pos == -ENOENT || pos == -ENODATA)
		return -EOPNOTSUPP;
	if (pos < 0)
		return pos;
	*ret_offset = (size_t) pos + PCI_ACS_CTRL;
	*ret_ctrl = ctrl;
	return 0;
}

int pci_acs_ctrl_get(const char *root, const char *address, uint16_t *ret) {
	size_t offset;

	return acs_ctrl_read(root, address, &offset, ret);
}

int pci_acs_ctrl_set(const char *root, const char *address, uint16_t ctrl) {
	size_t offset;
	uint16_t have;
	int r;

	r = acs_ctrl_read(root, address, &offset, &have);
	if (r < 0)
		return r;
	return pci_config_write16(root, address, offset, ctrl);
}
