#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# bench/bench-probe.sh BUILD-DIR: what rdmad-probe costs with 16 paths at a 1 s interval (CPU
# share of one core, RSS, PSS), measured in the light VM on Soft-RoCE (bench/vm-probe-cost.sh)
# over a minute. BUILD-DIR is a build with the VM tier (-Dvm-tests=true, the default); its
# rdmad-probe and probe-echo are built first. Prints "bench-probe: ..." lines; asserts nothing
# but that the setup worked (exit 1 otherwise). About 3 minutes on 2 cores.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
build=$(realpath -m "${1:-$src/build}")
ninja -C "$build" tools/rdmad-probe tests/vm/probe-echo > /dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
"$src/tests/vm/run-vm.sh" --bin "$build/tools/rdmad-probe" --bin "$build/tests/vm/probe-echo" \
	--timeout 600 --log "${TMPDIR:-/tmp}/rdmad-vm-probe-cost.log" "$here/vm-probe-cost.sh" \
	> "$log" 2>&1 || rc=$?
sed -n 's/^# probe-cost: /bench-probe: /p' "$log"
if [ "$rc" != 0 ]; then
	grep -E '^(not ok|Bail out)' "$log" || true
	echo "bench-probe: the measurement did not run (log: ${TMPDIR:-/tmp}/rdmad-vm-probe-cost.log)"
fi
exit "$rc"
