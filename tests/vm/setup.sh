#!/bin/bash
# setup.sh - install the Debian packages the VM test tier needs (Debian 12, as root).
#
# Host side:  qemu (TCG, no KVM needed), apt/dpkg-deb/depmod to unpack the kernel package,
#             cpio to pack the initramfs, xz/zstd/binutils to extract vmlinux from the bzImage,
#             make/gcc-12/libelf1 to build the dcbsim module against the kernel's headers.
# Guest side: the light VM's initramfs is assembled from these host binaries (busybox-static,
#             bash, kmod, iproute2, nft, rdma-core tools, perftest, jq, tcpdump ...); the full VM
#             boots the host's own root (systemd, udev, dbus) read-only over 9p, and runs
#             ansible-playbook from it (ansible.sh; the apt module needs python3-apt).
# Recommends are not needed: the VM is headless (qemu-system-x86 would pull in a GUI).
set -euo pipefail

VM_PACKAGES=(
	qemu-system-x86 cpio kmod xz-utils zstd binutils util-linux coreutils
	make gcc-12 libelf1
	busybox-static bash iproute2 jq tcpdump nftables pciutils ethtool
	rdma-core ibverbs-providers ibverbs-utils perftest rdmacm-utils
	systemd systemd-sysv udev dbus
	ansible-core python3-apt
)

if [ "${1:-}" = "--print" ]; then
	echo "apt-get install -y --no-install-recommends ${VM_PACKAGES[*]}"
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${VM_PACKAGES[@]}"
