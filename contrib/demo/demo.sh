#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The demo: what rdmad does, on a copy of contrib/demo/host (a dual-port ConnectX-6 Dx with two
# VFs), its netdevs stand-in veths in a private network namespace. Nothing of this host is
# read or changed. Needs root (unshare -n).
#
#   contrib/demo/demo.sh [BUILDDIR]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../../build}")

if [[ -z ${RDMAD_DEMO_NETNS:-} ]]; then
        exec unshare --net env RDMAD_DEMO_NETNS=1 "$0" "$build"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -a "$here/host" "$work/host"
# shellcheck source=../../tests/netns-mirror.sh
. "$here/../../tests/netns-mirror.sh"
ip link set lo up
for sys in "$work"/host/sys/class/net/*; do
        [[ ${sys##*/} == lo ]] || netns_mirror "$work/host" "${sys##*/}"
done

rdmactl() { "$build/tools/rdmactl" --root "$work/host" "$@"; }

echo "\$ rdmactl links"
rdmactl links
echo
echo "\$ rdmactl plan"
rdmactl plan
echo
echo "\$ rdmad --once        # converge, then exit: 0 converged, 2 not converged"
rc=0
"$build/daemon/rdmad" --root "$work/host" --state-dir "$work/state" --once 2>&1 |
        sed 's/^<[0-9]>//' || rc=${PIPESTATUS[0]}
echo
echo "\$ rdmactl plan"
rdmactl plan
exit "$rc"
