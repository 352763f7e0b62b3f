#!/bin/bash
# build-dcbsim.sh - build the dcbsim test module (tests/vm/dcbsim) for the VM kernel.
#
# Fetches the VM kernel and its headers (fetch-kernel.sh --headers: Debian's
# linux-headers-$kver, unpacked into the cache, never installed), builds dcbsim.ko out of the
# source tree with kbuild (`make -C <headers> M=<copy of dcbsim/> modules`) and caches it
# under a key of its sources and the kernel, so that an unchanged module costs nothing and a
# changed one is rebuilt. Parallel callers build it once.
#
# Usage: build-dcbsim.sh
# Prints the path of the cached dcbsim.ko on stdout (progress and kbuild output: stderr).
# Needs make and gcc-12 (the Debian kernel's compiler, .kernelvariables) and libelf1 (objtool).
# Env: RDMAD_VM_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdmad-vm)
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDMAD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdmad-vm}
SRC=$HERE/dcbsim

log() { echo "build-dcbsim: $*" >&2; }
die() { log "error: $*"; exit 1; }

for tool in make gcc-12; do
	command -v "$tool" > /dev/null || die "$tool is not installed: run tests/vm/setup.sh (as root)"
done

kdir=$("$HERE/fetch-kernel.sh" --headers) || die "could not fetch the kernel headers"
key=$( { cat "$SRC/dcbsim.c" "$SRC/Kbuild" "$0" "$kdir/package"; } | sha256sum | cut -c1-16)
kver=$(cat "$kdir/kver")
out=$CACHE/dcbsim/$kver/$key/dcbsim.ko

if [ ! -f "$out" ]; then
	mkdir -p "$CACHE/dcbsim"
	exec {lock}> "$CACHE/dcbsim/.lock"
	flock "$lock"
	if [ ! -f "$out" ]; then
		tmp=$(mktemp -d "$CACHE/dcbsim/.build.XXXXXX")
		trap 'rm -rf "$tmp"' EXIT
		cp "$SRC/dcbsim.c" "$SRC/Kbuild" "$tmp/"
		log "building dcbsim.ko for $kver"
		# no BTF for a test module: 6.12's kbuild would need pahole (dwarves) for it
		make -s -C "$kdir/headers/build" M="$tmp" CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2 ||
			die "kbuild failed for $SRC/dcbsim.c (output above)"
		vermagic=$(modinfo -F vermagic "$tmp/dcbsim.ko")
		[ "${vermagic%% *}" = "$kver" ] ||
			die "dcbsim.ko has vermagic '$vermagic', the VM kernel is $kver"
		rm -rf "${CACHE:?}/dcbsim/$kver" # older builds for this kernel
		mkdir -p "$(dirname "$out")"
		mv "$tmp/dcbsim.ko" "$out"
	fi
	exec {lock}>&-
fi
echo "$out"
