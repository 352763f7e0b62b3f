#!/bin/bash
# run-pair.sh - two light VMs on one wire (run-vm.sh --wire), each running the same scenario
# with WIRE_SIDE=a or b: two hosts, each with its own kernel, rxe and prober.
#
# Usage: run-pair.sh [RUN-VM OPTIONS] SCENARIO
#   RUN-VM OPTIONS go to both VMs (--bin, --env, --kernel, --timeout, ...); --log FILE keeps each
#   side's console log as FILE.a and FILE.b.
# Output is TAP: side a's results, then side b's, renumbered, each name prefixed by its side,
# and one plan. Exit status 0 when both sides passed every planned test. The two VMs boot
# together: the pair takes two of run-vm.sh's parallel slots (RDMAD_VM_MAX_PARALLEL, 2) before
# either starts and holds them for both (RDMAD_VM_SLOT_HELD), so that one side never runs its
# scenario alone while the other waits for a slot that another test holds (seen on a shared
# host: side b booted 9 minutes after side a, whose peer never answered). meson runs it alone
# all the same (is_parallel false).
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

# two slots at once, or none: a slot taken alone is given back before the next try, so two pairs
# (or a pair and single VMs) never hold one each while waiting for the other
CACHE=${RDMAD_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/rdmad-vm}
MAX_PARALLEL=${RDMAD_VM_MAX_PARALLEL:-2}
mkdir -p "$CACHE/slots"
held=()
while [ "${#held[@]}" -lt 2 ]; do
	held=()
	for ((i = 0; i < MAX_PARALLEL && ${#held[@]} < 2; i++)); do
		exec {fd}> "$CACHE/slots/$i"
		if flock -n "$fd"; then held+=("$fd"); else exec {fd}>&-; fi
	done
	if [ "${#held[@]}" -lt 2 ]; then
		for fd in ${held[@]+"${held[@]}"}; do exec {fd}>&-; done
		held=()
		sleep 1
	fi
done
export RDMAD_VM_SLOT_HELD=1

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
