#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# build-deb.sh OUTDIR - build rdmad's Debian package from this tree and check it with lintian.
#
# The tracked files as they are in the work tree (committed or not; untracked files and build
# directories stay out) are copied to a temporary directory, where `dpkg-buildpackage -us -uc
# -b` builds them: it writes ../*.deb next to the source tree, which therefore is not this
# checkout. lintian checks the result; any error (E:) fails the build, warnings are printed.
# OUTDIR gets the .deb, build.log and lintian.txt, and stdout the .deb's path (the only line
# on stdout; progress and lintian's output go to stderr).
#
# Cached: the key is a hash of the copied tree (contents, modes, symlinks) and of the host's
# installed packages (dpkg status), as run-vm.sh keys its images; with an unchanged key the
# second run only hashes the tree (~1 s). Needs the Build-Depends of debian/control, dpkg-dev,
# debhelper and lintian (.ci/packages).
set -euo pipefail

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$(realpath -m "$1")
src=$(cd "$(dirname "$0")/../.." && pwd)
log() { echo "build-deb: $*" >&2; }
die() { log "$*"; exit 1; }

for tool in git dpkg-buildpackage dpkg-parsechangelog dh lintian; do
	command -v "$tool" > /dev/null ||
		die "$tool is not installed (apt-get install dpkg-dev debhelper lintian git)"
done

cd "$src"
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
upstream=${version%-*}
project=$(sed -n "s/^ *version *: *'\([^']*\)'.*/\1/p" meson.build | head -n 1)
[ "$upstream" = "$project" ] ||
	die "debian/changelog has $version, meson.build's project version is $project: add a changelog entry"
arch=$(dpkg --print-architecture)
deb=rdmad_${version}_$arch.deb

mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/rdmad-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One archive of the tracked files that exist (a deleted one is left out), normalized so that
# its hash depends on their contents, modes and symlink targets only.
git ls-files -z | while IFS= read -r -d '' f; do
	if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
done | tar --null --no-recursion --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	--format=gnu -cf "$work/tree.tar" -T -
key=$( { sha256sum < "$work/tree.tar"; stat -c %Y /var/lib/dpkg/status; } | sha256sum | cut -c1-16)

if [ -f "$out/$deb" ] && [ -f "$out/lintian.txt" ] && [ "$(cat "$out/key" 2> /dev/null)" = "$key" ]; then
	log "cached: $out/$deb (key $key)"
	sed 's/^/lintian: /' "$out/lintian.txt" >&2
	echo "$out/$deb"
	exit 0
fi

rm -f "$out/key" "$out/$deb"
tree=$work/rdmad-$upstream
mkdir "$tree"
# -m: the files get the time of extraction, not the archive's 1970 (only the hash needs a
# fixed one); dh_builddeb clamps them to the changelog's date (SOURCE_DATE_EPOCH).
tar -xmf "$work/tree.tar" -C "$tree"
SECONDS=0
log "dpkg-buildpackage -us -uc -b in $tree (log: $out/build.log)"
# A build started from meson test inherits its environment: MESON_TESTTHREADS would set the
# inner meson test's parallelism; dh sets its own.
if ! (cd "$tree" && env -u MESON_TESTTHREADS dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1; then
	tail -n 40 "$out/build.log" >&2
	die "dpkg-buildpackage failed (full log: $out/build.log)"
fi
log "built in $SECONDS s"
[ -f "$work/$deb" ] || die "dpkg-buildpackage made no $deb (see $out/build.log)"

SECONDS=0
# The .changes covers the .deb and the .buildinfo. Exit status 0 or 1 (errors), decided
# below from the tags: lintian's own failure (2) still fails.
# lintian unpacks and reads what it checks: not as root (it says so) when we can help it.
as_user=()
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 755 "$work"
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent)
fi
rc=0
${as_user[@]+"${as_user[@]}"} lintian --display-info --fail-on none \
	"$work/rdmad_${version}_$arch.changes" > "$out/lintian.txt" 2>&1 || rc=$?
sed 's/^/lintian: /' "$out/lintian.txt" >&2
log "lintian took $SECONDS s"
[ "$rc" -eq 0 ] || die "lintian failed to run (exit $rc)"
if grep -q '^E: ' "$out/lintian.txt"; then
	die "lintian reports errors"
fi

cp "$work/$deb" "$out/$deb"
echo "$key" > "$out/key"
echo "$out/$deb"
