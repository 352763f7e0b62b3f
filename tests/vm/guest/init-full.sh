#!/bin/busybox sh
# shellcheck shell=dash
# /init of the full VM: the host's root (9p, read-only) under a tmpfs overlay, the unpacked
# kernel's modules (2nd 9p share) at /lib/modules/$(uname -r), then switch_root to the
# host's systemd as PID 1. The kernel command line (run-vm.sh) carries systemd.run=<start>,
# which runs the scenario through guest/run-scenario.sh and powers off when it exits.
# Programs are called by path: busybox ash would run its own applets (modprobe) first.
fail() {
	echo "@@VM-INIT-FAIL $*"
	/usr/bin/busybox poweroff -f
}
/usr/bin/busybox mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
/usr/sbin/modprobe -a virtio_pci 9pnet_virtio 9p overlay || fail "modprobe 9p/overlay"
mkdir -p /lower /rw /newroot
opts=trans=virtio,version=9p2000.L,msize=512000,cache=loose
mount -t 9p -o "ro,$opts" hostroot /lower || fail "mount host root"
mount -t tmpfs -o mode=755,size=512m tmpfs /rw
mkdir -p /rw/upper /rw/work
mount -t overlay overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work /newroot ||
	fail "mount overlay"
kver=$(uname -r)
mkdir -p "/newroot/usr/lib/modules/$kver"
mount -t 9p -o "ro,$opts" modules "/newroot/usr/lib/modules/$kver" || fail "mount modules"
# host mounts below / that are not ours stay out of sight
mount -t tmpfs -o size=1m tmpfs /newroot/mnt

# The container this harness may run in leaves /.dockerenv: systemd would detect "docker",
# run in container mode and ignore systemd.* on the kernel command line.
rm -f /newroot/.dockerenv /newroot/run/.containerenv
# Docker's images also have a /usr/sbin/policy-rc.d that exits 101 ("start no service"), which
# invoke-rc.d and deb-systemd-invoke obey: a package installed in the VM (deb.sh) would be
# enabled but never started, as on no real host.
rm -f /newroot/usr/sbin/policy-rc.d
# Debian's tmpfiles.d/tmp.conf ("D /tmp") would empty /tmp at boot, i.e. white out the host's
# whole /tmp through 9p (45 s measured); an empty file of that name in /etc overrides it, and
# host paths under /tmp (build trees, run-vm.sh's run directory) stay visible.
mkdir -p /newroot/etc/tmpfiles.d
: > /newroot/etc/tmpfiles.d/tmp.conf
# Nothing the host enabled for itself (timers, databases, gettys, time sync) belongs in the
# test VM; the VM has no NIC anyway. Removing in the overlay only hides them.
sysd=/newroot/etc/systemd/system
rm -rf "$sysd/multi-user.target.wants" "$sysd/timers.target.wants" "$sysd/getty.target.wants"
for u in systemd-timesyncd.service systemd-pstore.service serial-getty@ttyS0.service \
	getty@tty1.service; do
	ln -sf /dev/null "$sysd/$u"
done

umount /sys /proc
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot /lib/systemd/systemd
