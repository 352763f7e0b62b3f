#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmad at scale (issue 26), on a generated host of LINKS Soft-RoCE links with 16 GIDs each
# (bench/gen-tree.sh), one profile that requires their RoCE v2 GIDs, and a private system-like
# bus with the shipped policy:
#   - start -> running: the first reconcile, made in slices;
#   - RSS and PSS (smaps_rollup) converged and idle, and the mappings that hold most of it;
#   - idle: GetLink + GetAll, Get, Describe() p50/p99 (bench-bus-client);
#   - during back-to-back Reconcile() calls, for SECONDS (none with 0): the loop's worst stall
#     (the slowest of a Ping every millisecond), Get and Describe() p50/p99 (target at 4,096
#     links: stall under 10 ms, Get p99 under 1 ms, Describe p99 under 50 ms), and rdmad's own
#     account of its longest dispatches in that time (the LoopDispatches property);
#   - RSS after all that.
# Prints figures; asserts nothing. The bench-bus benchmark is this at 1,024 links, idle only.
#
#   bench/bench-scale.sh RDMAD BENCH-BUS-CLIENT POLICY [LINKS [SECONDS [CALLS]]]
set -euo pipefail

rdmad=$(realpath "$1")
client=$(realpath "$2")
policy=$(realpath "$3")
n=${4:-4096}
secs=${5:-10}
calls=${6:-500}
here=$(cd "$(dirname "$0")" && pwd)

if [[ -z ${RDMAD_BENCH_NETNS:-} ]]; then
        exec unshare --net env RDMAD_BENCH_NETNS=1 "$0" "$@"
fi

work=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
pid= bus_pid=
cleanup() {
        for p in $pid $bus_pid; do kill "$p" 2> /dev/null && wait "$p" 2> /dev/null; done
        rm -rf "$work"
}
trap cleanup EXIT

"$here/gen-tree.sh" "$work/root" "$n" 16 > /dev/null
mkdir -p "$work/conf" "$work/state"
printf 'gids: {require: [roce-v2-ipv4]}\n' > "$work/conf/50-bench.yaml"
sed -e "s|@SOCKET@|$work/bus|" -e "s|@POLICY@|$policy|" \
        "$here/../tests/dbus/system.conf.in" > "$work/system.conf"
dbus-daemon --config-file="$work/system.conf" --nofork --nopidfile --nosyslog 2> /dev/null &
bus_pid=$!
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
for _ in $(seq 50); do [[ -S $work/bus ]] && break; sleep 0.1; done

state() {
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager State 2> /dev/null
}
memory() { # WHEN
        local rss pss
        rss=$(awk '/^Rss:/ {print $2}' "/proc/$pid/smaps_rollup")
        pss=$(awk '/^Pss:/ {print $2}' "/proc/$pid/smaps_rollup")
        echo "bench scale: $n links: RSS ${rss} kB, PSS ${pss} kB ($1)"
}

t0=$(date +%s%N)
"$rdmad" --root "$work/root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        > "$work/rdmad.log" 2>&1 &
pid=$!
for _ in $(seq 6000); do
        [[ $(state) == 's "running"' ]] && break
        sleep 0.05
done
echo "bench scale: $n links: start -> running $((($(date +%s%N) - t0) / 1000000)) ms"
sleep 1
memory "converged, idle"
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = $6 == "" ? "[anon]" : $6 }
     /^Rss:/ { rss[name] += $2 }
     END { for (k in rss) print rss[k], k }' "/proc/$pid/smaps" | sort -rn | head -5 |
        while read -r kb name; do echo "bench scale: $n links:   ${kb} kB ${name##*/}"; done
"$client" "$calls" | sed "s/^bench bus:/bench scale: $n links:/"
dispatches() {
        busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager LoopDispatches
}
if ((secs > 0)); then
        before=$(dispatches)
        "$client" --during-reconcile "$secs" | sed "s/^bench bus:/bench scale: $n links:/"
        # rdmad's own account (LoopDispatches): its longest dispatches in that time, which the
        # Ping above cannot tell from dbus-daemon relaying a Describe() of megabytes
        awk -v n="$n" -v a="$before" -v b="$(dispatches)" 'BEGIN {
                k = split(a, x, " "); split(b, y, " ")
                for (i = 3; i < k; i += 2) { # pairs: upper bound (us), count
                        d = y[i + 1] - x[i + 1]; total += d
                        low = i > 3 ? x[i - 2] : 0
                        if (d > 0) { top = i; topn = d; toplow = low }
                        if (low >= 10000) over += d
                }
                up = x[top] + 0 > 1e18 ? "unbounded" : sprintf("at most %g ms", x[top] / 1000)
                printf "bench scale: %s links: rdmad loop: longest dispatch during reconciles     over %g ms, %s (%d of %d dispatches; %d over 10 ms)\n",
                        n, toplow / 1000, up, topn, total, over
        }'
fi
sleep 1 # rdmad hands freed pages back once quiet for 100 ms (manager_trim_later())
memory "after the calls"
