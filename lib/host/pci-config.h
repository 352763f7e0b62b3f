/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* PCI configuration space, through sysfs (<root>/sys/bus/pci/devices/<address>/config), for
 * pci.max-read-request (the Device Control register of the PCI Express capability) and
 * pci.upstream-acs (the ACS Control register of the ports between a function and its root
 * complex). The parsers work on a copy of the space (no I/O) and are tested on buffers laid out
 * as real devices lay them out; the register names are the kernel's (linux/pci_regs.h).
 *
 * Reading: past its first 64 bytes (128 for a CardBus bridge), the kernel gives a function's
 * config space only to a reader with CAP_SYS_ADMIN; to anyone else a read returns those 64
 * bytes and then EOF, without an error (pci_read_config()). Every function has 256 bytes at
 * least, so a read that stops at 64 or 128 is that, and is reported as -EPERM: the
 * capabilities are past the header, and a short copy would read as "no PCIe capability".
 *
 * Writing: one 16-bit register at a time, read-modify-write, root only (and refused under
 * kernel lockdown). The kernel puts the saved Device Control back after a reset or a resume
 * (pci_restore_state()), so what is written here can be undone behind rdmad's back: the
 * daemon reads it again rather than trust that it stays. Written by apply-function.c, read by
 * the observer (host-function.c), as soft-device-record.c is. */

#include <linux/pci_regs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

/* The ACS Control bits pci.upstream-acs: off clears, where the port implements them:
 *   P2P Request Redirect (RR) and P2P Completion Redirect (CR): they send peer-to-peer
 *     requests, and the completions of peer-to-peer reads, up to the root complex instead of
 *     across the switch, which is the slowdown the key exists to remove (NCCL, GPUDirect RDMA).
 *   P2P Egress Control (EC): it blocks or redirects P2P requests to the ports its Egress
 *     Control Vector names, and which of the two it does depends on RR (PCIe r6.0, sec. 6.12.3):
 *     with RR clear, the requests it redirected until then are blocked as ACS Violations, so
 *     clearing RR alone would turn a slow path into a broken one.
 * and those it keeps, unlike NCCL's "setpci ECAP_ACS+0x6.w=0000", which clears them all:
 *   Source Validation (SV), Translation Blocking (TB): checks on a request's requester ID and
 *     address type, which redirect nothing; the kernel sets TB on purpose (untrusted or
 *     external-facing ports, ATS off), and clearing it would let such a device through.
 *   Upstream Forwarding (UF): applies to traffic already redirected, which the cleared RR/CR
 *     no longer make; it routes nothing peer-to-peer by itself.
 *   Direct Translated P2P (DT): it sends ATS-translated requests directly, past RR and EC:
 *     it only ever shortens the path.
 *   The enhanced controls (bits 7..12, with ACS Enhanced Capability): they govern I/O
 *     requests and requests to the switch ports' own memory, not to peer devices. */
#define PCI_CONFIG_ACS_P2P_BITS (PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC)

/* --- Parsers over a copy of config space: buf[0..len), little endian as sysfs gives it --- */

/* The offset of the standard capability id (PCI_CAP_ID_*), walking from the header's pointer
 * (0x34; 0x14 for a CardBus bridge). The list is the device's and is not trusted: a pointer
 * into the 64-byte header, or more entries than the 48 that fit in 0x40..0xff (a loop), is
 * -EBADMSG. -ENOENT: not in the list, no list (Status bit 4 clear), or an all-ones entry;
 * -ENODATA: the list goes past len (a buffer cut short: see above). */
int pci_config_find_cap(const uint8_t *buf, size_t len, uint8_t id);
/* The offset of the extended capability id (PCI_EXT_CAP_ID_*), walking from 0x100 by the
 * 12-bit next pointers. A pointer below 0x100, or more entries than fit in 0x100..0xfff (a
 * loop), is -EBADMSG. -ENOENT: not in the list, or no extended capabilities (a header of 0, or
 * all ones as a conventional PCI function reads); -ENODATA: len does not reach it (a 256-byte
 * space, as the kernel gives for a function whose extended space it cannot reach). */
int pci_config_find_ext_cap(const uint8_t *buf, size_t len, uint16_t id);

/* The PCI Express capability's device/port type (its Capabilities register, bits 7:4):
 * PCI_EXP_TYPE_ENDPOINT, PCI_EXP_TYPE_ROOT_PORT, PCI_EXP_TYPE_UPSTREAM, PCI_EXP_TYPE_DOWNSTREAM,
 * ... ; -ENOENT: not a PCI Express function; as pci_config_find_cap() otherwise. */
int pci_config_port_type(const uint8_t *buf, size_t len);

/* Max_Read_Request_Size, in bytes: 128 << Device Control bits 14:12. The encodings 6 and 7 are
 * reserved; they read as 8192 and 16384, as the kernel's pcie_get_readrq() reads them: sizes
 * no profile can ask for, so that a planner writes what it wants over them. -ENOENT: no PCIe
 * capability; -EBADMSG: its Device Control would lie past the 256-byte standard space. */
int pci_config_max_read_request(const uint8_t *buf, size_t len, unsigned *ret);
/* Device Control devctl with Max_Read_Request_Size set to bytes (128, 256, ... 4096), every
 * other bit as it was. -EINVAL for any other size. */
int pci_devctl_with_max_read_request(uint16_t devctl, unsigned bytes, uint16_t *ret);

/* The ACS extended capability: its offset; its Capability (cap + 4) and Control (cap + 6)
 * registers in ret_cap and ret_ctrl. Errors as pci_config_find_ext_cap(); -EBADMSG also when
 * the capability's 8 bytes would not fit in 4096. */
int pci_config_acs(const uint8_t *buf, size_t len, uint16_t *ret_cap, uint16_t *ret_ctrl);
/* ACS Control ctrl with PCI_CONFIG_ACS_P2P_BITS cleared, but only those the ACS Capability cap
 * says the port implements. The control bit of a feature the port lacks is hardwired to 0 by
 * the spec; should a port read 1 there all the same, a write could not clear it, and a value
 * computed with it cleared would never read back (never converge): it is written back as
 * read, as reserved bits are. Every other bit is kept. */
uint16_t pci_acs_ctrl_p2p_off(uint16_t cap, uint16_t ctrl) _const_;

/* What rdmad reads in one function's config space. Owns nothing: no destructor. */
typedef struct PciFunctionConfig {
	int port_type;		    /* PCI_EXP_TYPE_*, -1: not PCI Express (no PCIe capability) */
	unsigned max_read_request;  /* bytes, 0: not PCI Express */
	bool has_acs;		    /* an ACS extended capability, in the space that was read */
	uint16_t acs_cap, acs_ctrl; /* its Capability and Control registers, when has_acs */
} PciFunctionConfig;

/* Fill *ret from buf[0..len). -ENODEV: the space reads all ones (Vendor ID 0xffff: the function
 * is gone, powered off or in reset); -ENODATA: len < 64; -EBADMSG: a capability list that does
 * not hold together. An extended space that is not there (len 256) is no ACS, not an error:
 * the kernel cannot reach it either. */
int pci_function_config_parse(const uint8_t *buf, size_t len, PciFunctionConfig *ret);

/* --- I/O under root ("/" or a fixture tree, as root_path() joins them) --- */

/* Whether s names a PCI function as the kernel does, "%04x:%02x:%02x.%d": a domain of 4 to 8
 * lowercase hex digits (VMD domains are 10000 and up), bus, device 00..1f, function 0..7.
 * Anything else (a "../", a glob) is never put into a path. */
bool pci_address_valid(const char *s) _pure_;

/* Read up to size bytes of the function's config space from offset 0 into buf: the length read
 * in *ret_len (the file is 256 or 4096 bytes, or less than size). -EPERM: it stopped at 64 or
 * 128 bytes, as without CAP_SYS_ADMIN (see the top); -EIO: another short read (a fixture cut
 * short); -EINVAL: not a PCI address; -errno from open() and pread() (-ENOENT: no such
 * function). */
int pci_config_read(const char *root, const char *address, uint8_t *buf, size_t size,
		    size_t *ret_len);
/* Write the 16-bit register at offset (even, below 4096) with value, as one 2-byte pwrite(),
 * little endian: the kernel makes it one config word write. -EINVAL: a bad address or offset;
 * -EIO: the kernel took fewer bytes (offset past the function's space); -errno (-EACCES not
 * root, -EPERM kernel lockdown). */
int pci_config_write16(const char *root, const char *address, size_t offset, uint16_t value);

/* The PCI functions above address on its way to its root complex, nearest first: the
 * components of the realpath of <root>/sys/bus/pci/devices/<address> above it that are PCI
 * addresses, up to the first that is not (pci0000:00, or a VMD domain's pci10000:e0: its own
 * root complex). The same walk works for /sys and for a fixture tree whose devices/ entries
 * are relative symlinks into its sys/devices. None: an allocated empty list. They are root
 * ports, switch ports and PCI bridges alike; the caller tells them apart by port type. */
int pci_upstream_bridges(const char *root, const char *address, char ***ret);
/* The components of the real path of <root><rel> (a sysfs link: /sys/bus/pci/devices/ADDR,
 * /sys/class/net/NETDEV/device), top first. -errno of realpath(). */
int sysfs_link_components(const char *root, const char *rel, char ***ret);
/* Those of a PCI function, /sys/bus/pci/devices/ADDRESS: -EINVAL if address is not one. */
int pci_function_components(const char *root, const char *address, char ***ret);
/* From such components, a function's: its bridges as pci_upstream_bridges() gives them, and
 * its root complex's directory, the component above the first PCI address ("pci0000:10"; NULL
 * when there is none). */
int pci_bridges_from_components(char *const *components, char ***ret);
const char *pci_root_complex_from_components(char *const *components) _pure_;

/* pci_config_read() of the whole space (4096 bytes) and pci_function_config_parse(). */
int pci_function_config_read(const char *root, const char *address, PciFunctionConfig *ret);

/* The live Max_Read_Request_Size of address, and a read-modify-write of its Device Control
 * that sets it (bytes as pci_devctl_with_max_read_request() takes them). -EOPNOTSUPP: not a
 * PCI Express function; otherwise as pci_config_read() and pci_config_write16(). */
int pci_max_read_request_get(const char *root, const char *address, unsigned *ret);
int pci_max_read_request_set(const char *root, const char *address, unsigned bytes);
/* The live ACS Control register of address, and a write of ctrl to it. -EOPNOTSUPP: no ACS
 * capability in its (readable) config space; otherwise as above. */
int pci_acs_ctrl_get(const char *root, const char *address, uint16_t *ret);
int pci_acs_ctrl_set(const char *root, const char *address, uint16_t ctrl);
