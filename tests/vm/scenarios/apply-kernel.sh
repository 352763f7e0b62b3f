#!/bin/bash
# apply-kernel.sh (light VM) - the kernel-global apply backends (libkmod module loading,
# RDMA netlink NEWLINK/DELLINK and netns mode) driven directly through librdmad, with the
# error paths a running daemon rarely meets (blacklisted and missing modules, the crc32
# dependency of rdma_rxe, EEXIST/ENODEV, removing only links rdmad created). The program
# (tests/unit/apply/test-apply-kernel.c, built by meson, passed with --bin) prints the TAP.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

command -v test-apply-kernel > /dev/null || bail "no test-apply-kernel on PATH: run-vm.sh --bin"
modprobe veth || bail "no veth"
veth_pair veth0 veth1 || bail "cannot create veth pair"
exec test-apply-kernel
