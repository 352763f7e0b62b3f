#!/bin/bash
# /init of the light VM (bash, not busybox ash: ash runs its own ip/modprobe applets ahead of
# $PATH). Sets up what a booted Debian system would have mounted, runs /vm/start (written per
# run by run-vm.sh: the scenario's environment, then guest/run-scenario.sh), powers off.
# No `set -e`: PID 1 must reach the poweroff whatever fails (its exit is a kernel panic).
export PATH=/usr/local/bin:/usr/sbin:/usr/bin HOME=/root TERM=linux
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
# what udev/systemd would add to devtmpfs: bash's <(...) needs /dev/fd
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=755 tmpfs /run
# the rootfs of an initramfs is already a writable tmpfs: /tmp needs no mount of its own
if modprobe configfs; then
	mount -t configfs configfs /sys/kernel/config
fi
hostname vm
ip link set lo up
bash /vm/start
sync
poweroff -f
