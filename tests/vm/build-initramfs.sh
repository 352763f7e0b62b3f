#!/bin/bash
# build-initramfs.sh - pack an initramfs (uncompressed newc cpio) for the VM test tier.
#
# Usage: build-initramfs.sh [OPTIONS] OUT
#   --variant light   (default) bash as /init, busybox for the small tools, the host's RDMA
#                     userspace (iproute2 ip/rdma/dcb/tc/devlink, ibverbs-utils, perftest,
#                     rdmacm-utils, kmod, jq, tcpdump, udevadm, dbus-daemon, busctl) with their ldd libraries and
#                     the dlopen()ed rxe provider, the RDMA module closure of the kernel, and
#                     the guest side of the harness (tests/vm/guest, at /vm/guest)
#   --variant full    only what it takes to mount the host root over 9p and switch_root to the
#                     host's systemd (kmod, 9p/virtio/overlay modules, guest/init-full.sh)
#   --extra-only      leave out the variant's base: the archive holds only what --bin/--file/
#                     --add name. The kernel unpacks concatenated cpio archives in order, so
#                     `cat base.cpio extra.cpio` adds a run's files to a cached base image.
#   --kernel-dir DIR  unpacked kernel (default: what fetch-kernel.sh prints)
#   --bin PATH        an executable (e.g. the freshly built rdmactl), at its own path, with the
#                     libraries ldd lists (libasan/libubsan of a sanitizer build too)
#   --file PATH       a file or directory, at its own path
#   --add SRC:DST     a file, at DST
#   --module NAME     a module of the kernel with its dependency closure, at its own path under
#                     /usr/lib/modules/$kver. In the base image it is in modules.dep; with
#                     --extra-only it is not (the base's modules.dep stays what it was): the
#                     guest runs `depmod` before `modprobe NAME`
#
# Host files keep their path, under its /usr name: the host has a merged /usr (Debian 12), and
# so does the image (/bin, /sbin, /lib, /lib64 are symlinks into /usr). An appended archive
# therefore never holds a directory where the base has a symlink.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)

# The RDMA stack for Soft-RoCE; their dependency closure comes along. rdma_rxe needs the
# crypto "crc32" shash, loaded by request_module() at `rdma link add` time and missing from
# modules.dep: without crc32_generic/crc32_pclmul the add fails with ENOENT.
LIGHT_MODULES=(rdma_rxe rdma_ucm rdma_cm ib_uverbs ib_umad configfs veth dummy 8021q
	crc32_generic crc32_pclmul nf_tables nfnetlink psample sch_netem bridge)
FULL_MODULES=(virtio_pci 9pnet_virtio 9p overlay)

# host commands for the light VM (their packages: setup.sh)
LIGHT_BINS="bash kmod ip rdma dcb tc devlink ibv_devinfo ibv_devices ibv_rc_pingpong ib_write_bw
	ib_send_bw ib_read_bw rping ucmatose udevadm tcpdump jq timeout dbus-daemon busctl nft ethtool"
LIGHT_OPTIONAL_BINS="strace"
FULL_BINS="kmod"

variant=light extra_only=0 kdir="" out=""
bins=() files=() adds=() modules=()
while [ $# -gt 0 ]; do
	case "$1" in
	--variant) variant=$2; shift ;;
	--extra-only) extra_only=1 ;;
	--kernel-dir) kdir=$2; shift ;;
	--bin) bins+=("$2"); shift ;;
	--file) files+=("$2"); shift ;;
	--add) adds+=("$2"); shift ;;
	--module) modules+=("$2"); shift ;;
	-h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	-*) echo "build-initramfs: unknown option $1" >&2; exit 2 ;;
	*) out=$1 ;;
	esac
	shift
done
die() { echo "build-initramfs: $*" >&2; exit 1; }
[ -n "$out" ] || { echo "usage: build-initramfs.sh [OPTIONS] OUT (see --help)" >&2; exit 2; }
case "$variant" in light|full) ;; *) die "bad variant $variant" ;; esac

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/rdmad-initramfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT

copy_list=() # host paths copied to their own (/usr) path
elfs=()      # executables and libraries whose ldd libraries come along

add_path() { # add_path PATH: a file, or a directory with everything below it
	local p=$1
	case "$p" in /bin/*|/sbin/*|/lib/*|/lib64/*) p=/usr$p ;; esac
	if [ -d "$p" ]; then
		mapfile -t -O "${#copy_list[@]}" copy_list < <(find "$p" ! -type d)
	else
		copy_list+=("$p")
	fi
}
add_elf() { add_path "$1"; elfs+=("$1"); }
add_bin() { # add_bin NAME [optional]: a host command by name
	local path
	path=$(command -v "$1") || {
		[ "${2:-}" = optional ] && return 0
		die "$1 is not installed (tests/vm/setup.sh)"
	}
	add_elf "$path"
}

copy_all() { # copy everything listed, plus the libraries of every ELF, in one cpio pass
	local lib
	if [ "${#elfs[@]}" -gt 0 ]; then
		# "lib => /path (addr)" and "/lib64/ld-linux-x86-64.so.2 (addr)"; ldd fails for
		# files that are not dynamic executables (scripts): those have no libraries
		while read -r lib; do add_path "$lib"; done < <(ldd "${elfs[@]}" 2> /dev/null |
			awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// && $2 ~ /^\(/ { print $1 }' || true)
	fi
	[ "${#copy_list[@]}" -gt 0 ] || return 0
	printf '%s\n' "${copy_list[@]}" | sed 's|^/||' | sort -u |
		(cd / && cpio -pdmL --quiet "$ROOT")
}

copy_module_files() { # copy_module_files MODULE...: their dependency closure, no index
	local kver
	kver=$(cat "$kdir/kver")
	for m in "$@"; do
		modprobe -d "$kdir/root" -S "$kver" --show-depends "$m" ||
			die "the kernel in $kdir has no module $m"
	done | awk -v root="$kdir/root/" '$1 == "insmod" && index($2, root) == 1 {
		print substr($2, length(root) + 1) }' |
		sort -u | (cd "$kdir/root" && cpio -pdmL --quiet "$ROOT/usr")
}

copy_modules() { # copy_modules MODULE...: their dependency closure, then depmod
	local kver
	kver=$(cat "$kdir/kver")
	copy_module_files "$@"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		cp "$kdir/root/lib/modules/$kver/$f" "$ROOT/usr/lib/modules/$kver/"
	done
	depmod -b "$ROOT/usr" "$kver"
}

base() {
	local b libdir
	if [ "$variant" = light ]; then
		for b in $LIGHT_BINS; do add_bin "$b"; done
		for b in $LIGHT_OPTIONAL_BINS; do add_bin "$b" optional; done
		# libibverbs dlopen()s its provider, glibc dlopen()s libgcc_s for thread
		# cancellation (rping aborts without it), and rdmad and rdmactl dlopen() libkmod
		# and libnftables (lib/basic/dlopen-util.c): ldd sees none of them
		libdir=$(dirname "$(ldd /bin/bash | awk '$1 ~ /^libc\.so/ { print $3 }')")
		for b in "$libdir"/libibverbs/librxe-rdmav*.so "$libdir/libgcc_s.so.1" \
			"$libdir/libkmod.so.2" "$libdir/libnftables.so.1"; do
			[ -e "$b" ] || die "missing $b (tests/vm/setup.sh)"
			add_elf "$b"
		done
		add_path /etc/libibverbs.d/rxe.driver
		add_path /etc/iproute2
		add_path /bin/busybox
	else
		for b in $FULL_BINS; do add_bin "$b"; done
		add_path /bin/busybox
	fi
}

base_layout() { # after the copies: merged-/usr symlinks, init, tool links
	local a name links=()
	mkdir -p "$ROOT"/{usr/bin,usr/sbin,usr/lib,usr/lib64,etc,proc,sys,dev,run,tmp,root,mnt}
	chmod 1777 "$ROOT/tmp"
	for d in bin sbin lib lib64; do ln -s "usr/$d" "$ROOT/$d"; done
	echo "root:x:0:0:root:/root:/bin/bash" > "$ROOT/etc/passwd"
	echo "root:x:0:" > "$ROOT/etc/group"
	if [ "$variant" = light ]; then
		install -m 755 "$HERE/guest/init-light.sh" "$ROOT/init"
		mkdir -p "$ROOT/vm"
		cp -r "$HERE/guest" "$ROOT/vm/guest"
		copy_modules "${LIGHT_MODULES[@]}" ${modules[@]+"${modules[@]}"}
	else
		install -m 755 "$HERE/guest/init-full.sh" "$ROOT/init"
		copy_modules "${FULL_MODULES[@]}" ${modules[@]+"${modules[@]}"}
	fi
	for name in modprobe insmod rmmod lsmod modinfo depmod; do
		ln -s ../bin/kmod "$ROOT/usr/sbin/$name"
	done
	# busybox for everything else, never in front of a real binary (PATH has sbin first)
	for a in $(busybox --list-full); do
		name=${a##*/}
		[ -e "$ROOT/usr/bin/$name" ] || [ -e "$ROOT/usr/sbin/$name" ] || [ -L "$ROOT/$a" ] ||
			links+=("$ROOT/$a")
	done
	# one process for ~270 links (perl-base is Essential on Debian)
	perl -e 'for (@ARGV) { symlink("/usr/bin/busybox", $_) or die "$_: $!\n" }' "${links[@]}"
}

if [ "$extra_only" = 0 ] || [ "${#modules[@]}" -gt 0 ]; then
	[ -n "$kdir" ] || kdir=$("$HERE/fetch-kernel.sh")
fi
[ "$extra_only" = 0 ] || [ "${#modules[@]}" -eq 0 ] || copy_module_files "${modules[@]}"
[ "$extra_only" = 1 ] || base
for b in ${bins[@]+"${bins[@]}"}; do
	[ -x "$b" ] || die "--bin $b is not an executable"
	add_elf "$(realpath "$b")"
done
for f in ${files[@]+"${files[@]}"}; do add_path "$(realpath "$f")"; done
copy_all
for a in ${adds[@]+"${adds[@]}"}; do
	mkdir -p "$ROOT$(dirname "${a#*:}")"
	cp "${a%%:*}" "$ROOT${a#*:}"
done
[ "$extra_only" = 1 ] || base_layout

# raw cpio: gunzip in the guest costs more under TCG (~0.7 s) than loading the bigger file
(cd "$ROOT" && find . -mindepth 1 | LC_ALL=C sort |
	cpio -o -H newc --quiet --reproducible) > "$out.tmp"
mv "$out.tmp" "$out"
