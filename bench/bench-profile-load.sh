#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# How long `rdmactl check` takes to refuse the worst profiles we know (issue 16): the largest a
# file may be (4 MiB) of deep nesting, 500,000 modules, 40,000 unknown keys, 40,000 duplicate
# keys, a million nodes, and 10 MiB files (refused by size); then the loader alone, in memory,
# at 2.5, 5 and 10 MiB (bench-profile-load): linear means the figure doubles with the size.
# Target: about a second each, under the 30 s WatchdogSec= a reload runs within. Prints
# figures; not pass/fail.
#
#   bench/bench-profile-load.sh RDMACTL BENCH-PROFILE-LOAD GEN-BAD-PROFILES
set -euo pipefail

rdmactl=$1
loader=$2
generator=$3
dir=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
trap 'chmod -R u+rwx "$dir"; rm -rf "$dir"' EXIT

python3 "$generator" "$dir" > /dev/null
echo "bench profile-load: rdmactl check (wall, CPU user+sys, peak RSS), best of 3:"
for c in deep-flow-4mib deep-flow-map-4mib deep-block-4mib size-500k-modules-dup \
        size-40k-unknown-keys dup-40k-keys size-1m-nodes alias-billion-laughs \
        alias-anchor-flood size-10mib-nesting size-10mib-modules; do
        python3 - "$rdmactl" "$dir/$c.yaml" "$c" <<'PY'
import os, resource, subprocess, sys, time
best = None
for _ in range(3):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen([sys.argv[1], "check", sys.argv[2]], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    cpu = ru.ru_utime + ru.ru_stime
    run = (wall, cpu, ru.ru_maxrss // 1024, os.waitstatus_to_exitcode(status))
    best = run if best is None or run < best else best
size = os.path.getsize(sys.argv[2]) / 1048576
print("  %-24s %5.1f MiB  %6.0f ms  %6.0f ms CPU  %4d MiB  exit %d" % (
    sys.argv[3], size, best[0] * 1000, best[1] * 1000, best[2], best[3]))
PY
done
echo "bench profile-load: profile_load_string() in memory, past the file size limit:"
"$loader" | sed 's/^/  /'
