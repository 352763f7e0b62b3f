#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Cold start: the first reconcile of a host that is already as declared (`rdmad --once` on a
# generated tree of LINKS Soft-RoCE links with 16 GIDs each, one profile that only requires
# their RoCE v2 GIDs), against the least any tool pays to read what it reads: strace lists the
# files and directories rdmad opens, and `sysfs-floor --list` opens and reads those alone. CPU
# time (user + sys), median of 5 each. Target: rdmad within 3x of the floor.
# Prints figures; asserts nothing.
#
#   bench/bench-cold.sh RDMAD SYSFS-FLOOR [LINKS]
set -euo pipefail

rdmad=$(realpath "$1")
floor=$(realpath "$2")
n=${3:-4096}
here=$(cd "$(dirname "$0")" && pwd)

if [[ -z ${RDMAD_BENCH_NETNS:-} ]]; then
        exec unshare --net env RDMAD_BENCH_NETNS=1 "$0" "$@"
fi
work=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
trap 'rm -rf "$work"' EXIT

"$here/gen-tree.sh" "$work/root" "$n" 16 > /dev/null
mkdir -p "$work/conf" "$work/state"
printf 'gids: {require: [roce-v2-ipv4]}\n' > "$work/conf/50-bench.yaml"
once=("$rdmad" --once --root "$work/root" --config-dir "$work/conf" --state-dir "$work/state")
"${once[@]}" > /dev/null 2>&1 || true # warm the dentry cache; rdmad's records exist from now on

# What rdmad opens: with -y strace shows each new fd's path after " = N<".
strace -f -y -qq -e trace=openat,open -o "$work/trace" "${once[@]}" > /dev/null 2>&1 || true
sed -n 's/.* = [0-9]*<\(.*\)>$/\1/p' "$work/trace" > "$work/files"
opened=$(wc -l < "$work/files")

cpu_ms() { # CPU time of one run of the command, in ms
        python3 - "$@" <<'PY'
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round((r.ru_utime + r.ru_stime) * 1000, 1))
PY
}
median() { sort -n | sed -n 3p; }
rdmad_ms=$(for _ in 1 2 3 4 5; do cpu_ms "${once[@]}"; done | median)
floor_ms=$(for _ in 1 2 3 4 5; do "$floor" --list "$work/files" | cut -d' ' -f2; done | median)
ratio=$(awk -v a="$rdmad_ms" -v b="$floor_ms" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
echo "bench cold: first reconcile of a converged host, $n links: rdmad --once ${rdmad_ms} ms CPU;" \
     "reading the $opened files and directories it opens, alone: ${floor_ms} ms; ratio ${ratio}x" \
     "(target: at most 3x)"
