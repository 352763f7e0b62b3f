/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* The Applier, the context the apply backends share, and the ActionOutcome they fill
 * (applier.c). */

#include "plan.h"

typedef enum ApplyResult {
	APPLY_CHANGED,	   /* written, and read back as desired */
	APPLY_UNCHANGED,   /* already as desired when looked at again: nothing written */
	APPLY_UNSUPPORTED, /* this host or this root cannot do it (said in message) */
	APPLY_FAILED,	   /* error and message say what and where */
	_APPLY_RESULT_MAX,
	_APPLY_RESULT_INVALID = -EINVAL,
} ApplyResult;
DECLARE_STRING_TABLE_LOOKUP(apply_result, ApplyResult)

typedef struct ActionOutcome {
	ApplyResult result;
	int error;     /* negative errno for APPLY_FAILED, else 0 */
	char *message; /* for UNSUPPORTED and FAILED: names the file, request or object */
} ActionOutcome;

void action_outcome_done(ActionOutcome *o);

/* The context the backends share: the root, where rdmad remembers what it created, and the
 * sockets and library handles opened on first use. */
typedef struct Applier Applier;

/* root: "/" or a fixture tree; state_dir: where the Soft-RoCE links rdmad created are
 * remembered (normally /run/rdmad/state), created if missing. */
int applier_new(const char *root, const char *state_dir, Applier **ret);
Applier *applier_free(Applier *a);
DEFINE_TRIVIAL_CLEANUP_FUNC(Applier *, applier_free)

/* Who sends a NEWLINK (apply_soft_device()). The kernel charges the sockets of the device it
 * makes to the cgroup of the task that sends it, for the device's lifetime: rxe's QPs each
 * have a UDP socket (rxe_qp_init_req()), the GSI QP's among them, made while NEWLINK registers
 * the device (ib_mad's port open), and every packet of that QP leaves through it. So a
 * service whose cgroup filters IP (IPAddressDeny=) or accounts it must send the NEWLINK from
 * another cgroup, or every RDMA CM exchange on the link is dropped. fn does that (rdmad: a
 * child moved into a scope of its own); it returns 0 or the kernel's -errno. Without one the
 * NEWLINK is sent from this process. */
typedef int (*applier_newlink_t)(const char *name, const char *type, const char *netdev,
				 void *userdata);
void applier_set_newlink(Applier *a, applier_newlink_t fn, void *userdata);

/* Tests only: under a fixture root, a write to a file named in fault_file fails. Each line is
 * "PATH ERRNO" (PATH relative to the root, ERRNO one of EBUSY EINVAL ENOENT EIO EPERM ENODEV
 * EAGAIN EOPNOTSUPP); the file is read again at every write, so that a test can clear a fault
 * while rdmad runs, and a missing file injects nothing. rdmad sets it from $RDMAD_TEST_FAULTS
 * with --root. On the real root it is refused (-EPERM) and never consulted. */
int applier_set_fault_file(Applier *a, const char *fault_file);
/* The injected error (negative errno) for a write to path (relative to the root), or 0. */
int applier_write_fault(const Applier *a, const char *path);
/* Tests only, from the same file: a line "PATH hold FIFO" makes a write of text to PATH hand
 * text to the FIFO first. Opening a FIFO for writing blocks until a reader opens it: the test
 * decides how long the write takes, as the kernel does with sriov_numvfs (a FIFO cannot stand
 * for the file itself: rdmad's observers read with O_NONBLOCK, which finds a FIFO empty). 0, or
 * the error the FIFO gave. */
int applier_write_hold(const Applier *a, const char *path, const char *text);

/* For the backends. */
const char *applier_root(const Applier *a) _pure_;
int applier_rootfd(const Applier *a) _pure_;
const char *applier_state_dir(const Applier *a) _pure_;
/* Fill ret; message formatted. Returns 0 (or -ENOMEM). */
int outcome_set(ActionOutcome *ret, ApplyResult result, int error, const char *format, ...)
	_printf_(4, 5);
