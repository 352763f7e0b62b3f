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
ninja -C "$build" probe/rdmad-probe tests/vm/probe-echo > /dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
"$src/tests/vm/run-vm.sh" --bin "$build/probe/rdmad-probe" --bin "$build/tests/vm/probe-echo" \
	--timeout 600 --log "${TMPDIR:-/tmp}/rdmad-vm-probe-cost.log" "$here/vm-probe-cost.sh" \
	> "$log" 2>&1 || rc=$?
sed -n 's/^# probe-cost: /bench-probe: /p' "$log"
# The same jq computation here: how much slower TCG ran it, to scale the VM's CPU share by.
# An estimate: the prober's time is mostly system calls and the kernel's rxe, jq's is user code.
cpu_tcg=$(sed -n 's/^# probe-cost-raw: cpu_tcg=//p' "$log")
ref_vm=$(sed -n 's/^# probe-cost-raw: ref_vm_seconds=//p' "$log")
if [ -n "$cpu_tcg" ] && [ -n "$ref_vm" ]; then
	t0=$EPOCHREALTIME
	jq -n 'reduce range(0; 3000000) as $i (0; . + $i)' > /dev/null
	ref_host=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	awk -v c="$cpu_tcg" -v v="$ref_vm" -v h="$ref_host" 'BEGIN {
		f = v / h
		printf "bench-probe: TCG ran a jq reference %.1fx slower than this host (%.2f s, %.2f s): the prober'"'"'s CPU share scaled by it, %.3f%% of one core (an estimate)\n", f, v, h, c / f
	}'
fi
if [ "$rc" != 0 ]; then
	grep -E '^(not ok|Bail out)' "$log" || true
	echo "bench-probe: the measurement did not run (log: ${TMPDIR:-/tmp}/rdmad-vm-probe-cost.log)"
fi
exit "$rc"
