#!/bin/bash
# build-module.sh - build a test module for the VM kernel, out of the source tree:
#   dcbsim     tests/vm/dcbsim (ours: DCB without DCB hardware)
#   sriovsim   tests/vm/sriovsim (ours: qemu's NVMe SR-IOV functions as an Ethernet PF and VFs)
#   devlinksim tests/vm/devlinksim (ours: a devlink instance with a runtime parameter)
#   netdevsim  the kernel's own drivers/net/netdevsim (SR-IOV VFs, devlink eswitch), which
#              Debian does not build (CONFIG_NETDEVSIM is not set), from linux-source of the VM
#              kernel's exact version (fetch-kernel.sh --source)
#
# Fetches the VM kernel and its headers (fetch-kernel.sh --headers: Debian's
# linux-headers-$kver, unpacked into the cache, never installed), builds NAME.ko with kbuild
# (`make -C <headers> M=<copy of the sources> modules`) and caches it under a key of its sources
# and the kernel, so that an unchanged module costs nothing and a changed one is rebuilt.
# Parallel callers build it once.
#
# Usage: build-module.sh NAME
# Prints the path of the cached NAME.ko on stdout (progress and kbuild output: stderr).
# Needs make and gcc-12 (the Debian kernel's compiler, .kernelvariables) and libelf1 (objtool).
# Env: RDMAD_VM_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdmad-vm), RDMAD_VM_KERNEL
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDMAD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdmad-vm}
NAME=${1:-}

log() { echo "build-module: $*" >&2; }
die() { log "error: $*"; exit 1; }

for tool in make gcc-12; do
	command -v "$tool" > /dev/null || die "$tool is not installed: run tests/vm/setup.sh (as root)"
done

case "$NAME" in
dcbsim|sriovsim|devlinksim)
	kdir=$("$HERE/fetch-kernel.sh" --headers) || die "could not fetch the kernel headers"
	SRC=$HERE/$NAME
	make_vars=() ;;
netdevsim)
	kdir=$("$HERE/fetch-kernel.sh" --headers --source) ||
		die "could not fetch the kernel headers and sources"
	SRC=$kdir/source/drivers/net/netdevsim
	make_vars=(CONFIG_NETDEVSIM=m) ;;
*)
	die "usage: build-module.sh dcbsim|sriovsim|devlinksim|netdevsim" ;;
esac
key=$( { cat "$SRC"/*.[ch] "$SRC"/Kbuild "$SRC"/Makefile "$0" "$kdir/package" 2> /dev/null || :; } |
	sha256sum | cut -c1-16)
kver=$(cat "$kdir/kver")
out=$CACHE/$NAME/$kver/$key/$NAME.ko

if [ ! -f "$out" ]; then
	mkdir -p "$CACHE/$NAME"
	exec {lock}> "$CACHE/$NAME/.lock"
	flock "$lock"
	if [ ! -f "$out" ]; then
		tmp=$(mktemp -d "$CACHE/$NAME/.build.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		cp -r "$SRC"/. "$tmp/"
		rm -f "$tmp/complete"
		log "building $NAME.ko for $kver"
		# no BTF for a test module: 6.12's kbuild would need pahole (dwarves) for it
		make -s -C "$kdir/headers/build" M="$tmp" "${make_vars[@]}" \
			CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2 ||
			die "kbuild failed for $SRC (output above)"
		vermagic=$(modinfo -F vermagic "$tmp/$NAME.ko")
		[ "${vermagic%% *}" = "$kver" ] ||
			die "$NAME.ko has vermagic '$vermagic', the VM kernel is $kver"
		rm -rf "${CACHE:?}/$NAME/$kver" # older builds for this kernel
		mkdir -p "$(dirname "$out")"
		mv "$tmp/$NAME.ko" "$out"
	fi
	exec {lock}>&-
fi
echo "$out"
