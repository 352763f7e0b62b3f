#!/bin/bash
# fetch-kernel.sh - fetch and unpack the pinned Debian kernel for the VM test tier.
#
# The kernel package is downloaded with `apt-get download` and unpacked with `dpkg-deb -x`: it
# is never installed on the host. The unpacked tree is cached, so a second run is instant and
# needs neither apt nor the network.
#
# Usage: fetch-kernel.sh [--headers] [--source]
#   --headers   also the kernel's headers, for building test modules (tests/vm/dcbsim): the
#               linux-headers-$kver package of the same version and the linux-headers-*/
#               linux-kbuild-* packages it depends on, unpacked the same way
#   --source    also the sources of the in-tree test modules Debian does not build
#               (drivers/net/netdevsim: CONFIG_NETDEVSIM is not set in 6.1 nor 6.12), out of
#               linux-source-<major.minor> of the kernel's exact version, in source/
# Prints the kernel directory on stdout (progress goes to stderr). That directory holds:
#   kver              the kernel release (uname -r), e.g. 6.1.0-57-amd64
#   vmlinuz           the bzImage
#   vmlinux           the uncompressed ELF; qemu boots it through its PVH entry, which skips
#                     ~4 s of in-guest xz decompression under TCG (absent if extraction failed)
#   root/             the unpacked package: root/lib/modules/$kver with modules.dep (depmod -b;
#                     the .deb ships none, its postinst would generate it)
#   package           "<package>=<version>" that was unpacked
#   headers/build     (--headers) the kernel build directory for `make -C ... M=DIR modules`;
#                     it needs make and gcc-12 on the host (the Debian kernel's compiler)
#   source/drivers/net/netdevsim  (--source) the netdevsim sources of this kernel
# Env:
#   RDMAD_VM_CACHE          cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdmad-vm)
#   RDMAD_VM_KERNEL         which pinned kernel (default 6.1; see the pins below). meson's
#                           -Dvm-kernel=6.12 sets it for every VM test (run-vm.sh --kernel)
#   RDMAD_VM_KERNEL_PKG     kernel package (default: the pin)
#   RDMAD_VM_KERNEL_VERSION its version (default: the pin)
set -euo pipefail

# The pins: the kernels the VM tier is proven on.
#   6.1   Debian 12's own kernel (bookworm-security), the default, from the host's apt sources
#   6.12  Debian 13's kernel series as Debian 12 has it in bookworm-backports (built with
#         Debian 12's gcc-12, so its headers build dcbsim here). The host's sources stay as
#         they are: bookworm-backports is read from a private apt list in the cache, for the
#         download only. That list is the host's own entry of bookworm (else of the host's
#         own release, for a Debian 13 host) with only its suite changed (apt-source.sh):
#         the same mirror, proxy or snapshot URI, components and options as the host's apt.
# When a pin leaves the archive, the script falls back to the newest package of the same
# series (FALLBACK, a basic regular expression over apt's package names) and says so; move the pin forward then.
KERNEL=${RDMAD_VM_KERNEL:-6.1}
case "$KERNEL" in
6.1)
	PIN_PKG=linux-image-6.1.0-57-amd64-unsigned
	PIN_VERSION=6.1.192-3
	FALLBACK=
	SUITE= ;;
6.12)
	PIN_PKG=linux-image-6.12.95+deb12-amd64-unsigned
	PIN_VERSION=6.12.95-1~bpo12+1
	FALLBACK='linux-image-6.12.*+deb12-amd64-unsigned'
	SUITE=bookworm-backports ;;
*)
	echo "fetch-kernel: error: RDMAD_VM_KERNEL=$KERNEL: the pinned kernels are 6.1 and 6.12" >&2
	exit 2 ;;
esac

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${RDMAD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdmad-vm}
PKG=${RDMAD_VM_KERNEL_PKG:-$PIN_PKG}
VERSION=${RDMAD_VM_KERNEL_VERSION:-$PIN_VERSION}
# apt's options for this kernel's source: none (the host's sources), or a private list
APT=()

log() { echo "fetch-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }

kernel_dir() { echo "$CACHE/kernel/${1}_${2}"; }
is_complete() { [ -f "$(kernel_dir "$1" "$2")/complete" ]; }

# The private apt list of a kernel from another suite: its own sources, package lists and
# state in $CACHE/apt/$KERNEL, updated once a day at most (under the download lock), and at
# once when the host's entry changed (another mirror). The entry is the host's own Debian
# archive with SUITE for its suite (apt-source.sh), in the host entry's format: sources.list
# for a one-line entry, parts/host.sources for a deb822 stanza.
private_apt() {
	local d=$CACHE/apt/$KERNEL codename entry file
	[ -n "$SUITE" ] || return 0
	mkdir -p "$d/lists/partial" "$d/parts"
	# shellcheck source=/dev/null
	codename=$( (. /etc/os-release && echo "${VERSION_CODENAME:-}") 2> /dev/null || true)
	# the release SUITE belongs to first, then the host's own: any Debian mirror has both
	# shellcheck disable=SC2086 # no codename, no second suite
	entry=$("$HERE/apt-source.sh" /etc/apt "$SUITE" "${SUITE%%-*}" $codename) ||
		die "no Debian archive in the host's apt sources to take $SUITE from (see above)"
	file=$d/parts/host.sources
	[[ $entry != deb\ * ]] || file=$d/sources.list
	if [ "$(cat "$file" 2> /dev/null)" != "$entry" ]; then
		rm -f "$d/sources.list" "$d/parts/host.sources" "$d/lists/"*_* 2> /dev/null
		printf '%s\n' "$entry" > "$file"
	fi
	touch "$d/sources.list"
	APT=(-o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/parts"
		-o "Dir::State::Lists=$d/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
		-o APT::Sandbox::User=root)
	if [ -z "$(find "$d/lists" -maxdepth 1 -name '*_Packages*' -mtime -1 2> /dev/null)" ]; then
		log "apt-get update of the private list in $d: ${entry//$'\n'/; }"
		apt-get "${APT[@]}" update -q >&2 || die "apt-get update of $SUITE failed"
	fi
}

# versions of a package that apt can download, newest first
archive_versions() { apt-cache "${APT[@]}" madison "$1" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}'; }

# The newest kernel of the pin's series: for 6.1 the unsigned twin of the image
# linux-image-amd64 depends on; for another series the newest package matching FALLBACK.
fallback_kernel() {
	local signed
	if [ -n "$FALLBACK" ]; then
		PKG=$(apt-cache "${APT[@]}" pkgnames linux-image- | grep -x "$FALLBACK" | sort -V | tail -n1)
		[ -n "$PKG" ] || die "apt knows no $FALLBACK in $SUITE"
	else
		signed=$(apt-cache depends linux-image-amd64 2>/dev/null |
			awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
		[ -n "$signed" ] || die "apt knows no linux-image-amd64 (run apt-get update)"
		PKG=$signed-unsigned
	fi
	VERSION=$(archive_versions "$PKG" | head -n1)
	[ -n "$VERSION" ] || die "$PKG is not in the archive (run apt-get update)"
}

# Uncompressed vmlinux out of a bzImage, using the x86 boot protocol header (>= 2.08):
# the payload starts at (setup_sects + 1) * 512 + payload_offset and is payload_length bytes
# long; all formats but gzip carry the decompressed size as 4 trailing bytes.
extract_vmlinux() { # extract_vmlinux BZIMAGE OUT
	local img=$1 out=$2 setup_sects offset length magic decompress
	u8() { od -An -tu1 -j "$1" -N1 "$img" | tr -d ' '; }
	u32() { od -An -tu4 -j "$1" -N4 "$img" | tr -d ' '; }
	setup_sects=$(u8 $((0x1f1)))
	[ "$setup_sects" -ne 0 ] || setup_sects=4
	offset=$(( (setup_sects + 1) * 512 + $(u32 $((0x248))) ))
	length=$(u32 $((0x24c)))
	magic=$(od -An -tx1 -j "$offset" -N4 "$img" | tr -d ' ')
	case "$magic" in
	fd377a58) decompress="xz -dc" ;;
	28b52ffd) decompress="zstd -dcq" ;;
	1f8b*) decompress="gzip -dc"; length=$((length + 4)) ;;
	*) log "unknown payload compression (magic $magic)"; return 1 ;;
	esac
	tail -c +"$((offset + 1))" "$img" | head -c "$((length - 4))" | $decompress > "$out"
	readelf -h "$out" > /dev/null 2>&1 || { log "payload is not an ELF file"; return 1; }
	# XEN_ELFNOTE_PHYS32_ENTRY (18): the PVH entry point qemu -kernel needs for an ELF kernel
	readelf -n "$out" | grep -q 'Xen .* (0x00000012)' || { log "vmlinux has no PVH entry"; return 1; }
}

unpack() { # unpack PKG VERSION: download and unpack into the cache
	local pkg=$1 version=$2 dir tmp deb kver
	dir=$(kernel_dir "$pkg" "$version")
	tmp=$(mktemp -d "$CACHE/kernel/.unpack.XXXXXX")
	chmod 755 "$tmp"
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	log "downloading $pkg=$version"
	# APT::Sandbox::User=root: the cache directory need not be readable by the _apt user
	(cd "$tmp" && apt-get "${APT[@]}" download -q -o APT::Sandbox::User=root "$pkg=$version" >&2)
	deb=$(echo "$tmp"/*.deb)
	[ -f "$deb" ] || die "apt-get download $pkg=$version produced no .deb"
	dpkg-deb -x "$deb" "$tmp/root"
	rm -f "$deb"
	kver=$(basename "$(echo "$tmp"/root/lib/modules/*)")
	[ -f "$tmp/root/boot/vmlinuz-$kver" ] || die "$pkg has no /boot/vmlinuz-$kver"
	depmod -b "$tmp/root" "$kver"
	echo "$kver" > "$tmp/kver"
	echo "$pkg=$version" > "$tmp/package"
	ln -s "root/boot/vmlinuz-$kver" "$tmp/vmlinuz"
	if ! extract_vmlinux "$tmp/vmlinuz" "$tmp/vmlinux"; then
		log "warning: no vmlinux, the runner boots the bzImage (~4 s slower)"
		rm -f "$tmp/vmlinux"
	fi
	touch "$tmp/complete"
	rm -rf "$dir"
	mv "$tmp" "$dir"
	trap - EXIT
	log "unpacked $kver into $dir"
}

# The headers of the unpacked kernel in DIR: linux-headers-$kver of the kernel's version plus
# its linux-* dependencies (-common, linux-kbuild-*), pinned to that same version (one source
# package), in DIR/headers. The arch package's Makefile includes the -common one by an absolute
# /usr/src path: it is pointed at the unpacked copy.
unpack_headers() { # unpack_headers DIR
	local dir=$1 kver version pkg tmp deb deps
	kver=$(cat "$dir/kver")
	version=$(cut -d= -f2 "$dir/package")
	pkg=linux-headers-$kver
	deps=$(apt-cache "${APT[@]}" show "$pkg=$version" 2> /dev/null | sed -n 's/^Depends: //p' | head -n1 |
		tr ',' '\n' | awk '$1 ~ /^linux-(headers|kbuild)-/ { print $1 }')
	[ -n "$deps" ] || die "apt knows no $pkg=$version (run apt-get update)"
	tmp=$(mktemp -d "$dir/.headers.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	log "downloading $pkg=$version and ${deps//$'\n'/ }"
	# shellcheck disable=SC2046 # one package per word
	(cd "$tmp" && apt-get "${APT[@]}" download -q -o APT::Sandbox::User=root "$pkg=$version" \
		$(for d in $deps; do echo "$d=$version"; done) >&2)
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
		rm -f "$deb"
	done
	[ -f "$tmp/root/usr/src/$pkg/Makefile" ] || die "$pkg has no /usr/src/$pkg/Makefile"
	sed -i "s|^include /usr/src/|include $dir/headers/root/usr/src/|" "$tmp/root/usr/src/$pkg/Makefile"
	ln -s "root/usr/src/$pkg" "$tmp/build"
	touch "$tmp/complete"
	rm -rf "$dir/headers"
	mv "$tmp" "$dir/headers"
	trap - EXIT
	log "unpacked the headers of $kver into $dir/headers"
}

# The subtrees of linux-source-<major.minor>=<version> that the test modules need, in DIR/source:
# the .deb holds one tarball, /usr/src/linux-source-X.Y.tar.xz; only those paths are unpacked.
SOURCE_TREES=(drivers/net/netdevsim)
unpack_source() { # unpack_source DIR
	local dir=$1 version pkg tmp tarball
	version=$(cut -d= -f2 "$dir/package")
	pkg=linux-source-$(cut -d. -f1,2 "$dir/kver")
	tmp=$(mktemp -d "$dir/.source.XXXXXX")
	# shellcheck disable=SC2064 # expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	log "downloading $pkg=$version (for ${SOURCE_TREES[*]})"
	(cd "$tmp" && apt-get "${APT[@]}" download -q -o APT::Sandbox::User=root "$pkg=$version" >&2) ||
		die "apt-get download $pkg=$version failed"
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './usr/src/*.tar.xz'
	rm -f "$tmp"/*.deb
	tarball=$(echo "$tmp"/usr/src/linux-source-*.tar.xz)
	[ -f "$tarball" ] || die "$pkg has no /usr/src/linux-source-*.tar.xz"
	mkdir -p "$tmp/source"
	tar -xJf "$tarball" -C "$tmp/source" --strip-components=1 \
		$(for t in "${SOURCE_TREES[@]}"; do echo "${pkg}/$t"; done) ||
		die "$tarball lacks ${SOURCE_TREES[*]}"
	rm -rf "$tmp/usr"
	touch "$tmp/source/complete"
	rm -rf "$dir/source"
	mv "$tmp/source" "$dir/source"
	rm -rf "$tmp"
	trap - EXIT
	log "unpacked ${SOURCE_TREES[*]} of $pkg=$version into $dir/source"
}

main() {
	local headers=0 source=0 dir arg
	for arg; do
		case "$arg" in
		--headers) headers=1 ;;
		--source) source=1 ;;
		*) die "unknown argument $arg (--headers, --source)" ;;
		esac
	done
	# fast path: the pinned (or requested) kernel is already unpacked
	dir=$(kernel_dir "$PKG" "$VERSION")
	if is_complete "$PKG" "$VERSION" && { [ "$headers" = 0 ] || [ -f "$dir/headers/complete" ]; } &&
		{ [ "$source" = 0 ] || [ -f "$dir/source/complete" ]; }; then
		echo "$dir"
		return
	fi
	mkdir -p "$CACHE/kernel"
	# one download at a time: parallel test runs wait here for the first one
	exec {lock}> "$CACHE/kernel/.lock"
	flock "$lock"
	private_apt
	if ! is_complete "$PKG" "$VERSION"; then
		if ! archive_versions "$PKG" | grep -qxF "$VERSION"; then
			local pinned="$PKG=$VERSION"
			fallback_kernel
			log "warning: $pinned is not in the archive (any more); falling back to" \
				"$PKG=$VERSION, the kernel linux-image-amd64 depends on." \
				"Update PIN_PKG/PIN_VERSION in $0."
		fi
		is_complete "$PKG" "$VERSION" || unpack "$PKG" "$VERSION"
	fi
	dir=$(kernel_dir "$PKG" "$VERSION")
	if [ "$headers" = 1 ] && [ ! -f "$dir/headers/complete" ]; then
		unpack_headers "$dir"
	fi
	if [ "$source" = 1 ] && [ ! -f "$dir/source/complete" ]; then
		unpack_source "$dir"
	fi
	exec {lock}>&-
	echo "$dir"
}

main "$@"
