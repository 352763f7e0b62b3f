#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# CPU time of `rdmactl gids --json` over a generated tree of 1,024 devices x 1 port x 16 GIDs.
# Target: under 50 ms of CPU (user + system). Prints the figure; it is not a pass/fail test.
#
#   bench/bench-gids.sh RDMACTL SYSFS-FLOOR [NDEV [NGID]]
#
# SYSFS-FLOOR (bench/sysfs-floor.c) reads the same GID files and nothing else: the least any
# sysfs-based tool pays on this machine, printed next to rdmactl's figure to make it readable.
# The tree is made in memory (/dev/shm) when possible: sysfs is in memory too.
set -euo pipefail

rdmactl=$1
floor=$2
ndev=${3:-1024}
ngid=${4:-16}
runs=7
tree=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
trap 'rm -rf "$tree"' EXIT

"$(dirname "$0")/gen-tree.sh" "$tree" "$ndev" "$ngid" > /dev/null
"$rdmactl" --root "$tree" gids --json > /dev/null # warm the dentry cache
count=$("$rdmactl" --root "$tree" gids --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')

# CPU time of each run from the kernel's accounting of the child (user + sys), in ms.
samples=()
for _ in $(seq "$runs"); do
        samples+=("$(python3 - "$rdmactl" "$tree" <<'PY'
import os, resource, subprocess, sys
subprocess.run([sys.argv[1], "--root", sys.argv[2], "gids", "--json"],
               stdout=subprocess.DEVNULL, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(round((r.ru_utime + r.ru_stime) * 1000, 1))
PY
)")
done
sorted=$(printf '%s\n' "${samples[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (runs + 1) / 2 ))p")
best=$(echo "$sorted" | head -n1)
read -r files floor_ms < <("$floor" "$tree")
# the shell walk (bench/show-gids-walk.sh), once: it is slow
walk=$(python3 - "$(dirname "$0")/show-gids-walk.sh" "$tree" <<'PY'
import resource, subprocess, sys
out = subprocess.run(["bash", sys.argv[1], sys.argv[2]], stdout=subprocess.PIPE, check=True)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(len(out.stdout.splitlines()), round((r.ru_utime + r.ru_stime) * 1000, 1))
PY
)
read -r walk_count walk_ms <<< "$walk"
echo "bench gids: ${ndev} devices x 1 port x ${ngid} GIDs = ${count} GIDs listed;" \
     "rdmactl gids --json CPU time: median ${median} ms, best ${best} ms over ${runs} runs (target < 50 ms)"
echo "bench gids: floor: open+read+close of the same ${files} GID/type/netdev files alone:" \
     "${floor_ms} ms CPU"
echo "bench gids: show_gids-style shell walk (bench/show-gids-walk.sh, bash builtins):" \
     "${walk_count} GIDs, ${walk_ms} ms CPU"
awk -v r="$median" -v f="$floor_ms" -v w="$walk_ms" 'BEGIN {
        printf "bench gids: ratios: rdmactl / floor %.2f, rdmactl / shell walk %.3f\n",
               (f > 0 ? r / f : 0), (w > 0 ? r / w : 0) }'
