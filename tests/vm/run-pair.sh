#!/bin/bash
# run-pair.sh - two light VMs on one wire (run-vm.sh --wire), each running the same scenario
# with WIRE_SIDE=a or b: two hosts, each with its own kernel, rxe and prober.
#
# Usage: run-pair.sh [RUN-VM OPTIONS] SCENARIO
#   RUN-VM OPTIONS go to both VMs (--bin, --env, --kernel, --timeout, ...); --log FILE keeps each
#   side's console log as FILE.a and FILE.b.
# Output is TAP: side a's results, then side b's, renumbered, each name prefixed by its side,
# and one plan. Exit status 0 when both sides passed every planned test. The two VMs take both
# of run-vm.sh's parallel slots (RDMAD_VM_MAX_PARALLEL, 2): run it alone (meson: is_parallel
# false), or one side would wait for a slot while the other waits for it.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
args=() log=""
while [ $# -gt 1 ]; do
	if [ "$1" = --log ]; then
		log=$2
		shift 2
		continue
	fi
	args+=("$1")
	shift
done
[ $# = 1 ] || { echo "usage: run-pair.sh [RUN-VM OPTIONS] SCENARIO" >&2; exit 2; }
scenario=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

for side in a b; do
	"$HERE/run-vm.sh" ${args[@]+"${args[@]}"} --wire "$dir:$side" \
		--log "${log:-${TMPDIR:-/tmp}/rdmad-vm-pair}.$side" "$scenario" \
		> "$dir/$side.tap" 2>&1 &
	eval "pid_$side=$!"
done
status=0
# shellcheck disable=SC2154 # pid_a and pid_b are set by the eval above
wait "$pid_a" || status=1
# shellcheck disable=SC2154
wait "$pid_b" || status=1

n=0
for side in a b; do
	while IFS= read -r line; do
		case "$line" in
		"ok "[0-9]* | "not ok "[0-9]*)
			n=$((n + 1))
			# "ok 3 - name" -> "ok N - side: name"
			echo "$line" | sed -E "s/^(not ok|ok) [0-9]+( - )?/\\1 $n - $side: /"
			;;
		1..*) ;;
		"Bail out!"*) echo "Bail out! $side: ${line#Bail out! }" ;;
		*) echo "$line" ;;
		esac
	done < "$dir/$side.tap"
done
echo "1..$n"
exit "$status"
