#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# rdmad's figures on generated hosts (fixture tier: a generated sysfs tree, its netdevs as veth
# in a private network namespace):
#   - event -> converged for one link (its MTU changed behind rdmad's back), on 16 and on
#     LINKS links, 1,024 unless given (target: the latter within 2x of the former);
#   - RSS with LINKS links (target: under 8 MiB);
#   - wakeups of the idle, converged daemon over IDLE seconds (target: none);
#   - rdmad's longest dispatches on LINKS links from start to idle, its first reconcile and
#     the storm of events its own MTU writes make included (rdmad -v logs each over 10 ms;
#     target: none).
# Prints figures; asserts nothing.
#
#   bench/bench-daemon.sh RDMAD [IDLE-SECONDS [LINKS]]
set -euo pipefail

rdmad=$(realpath "$1")
idle=${2:-60}
big=${3:-1024}
here=$(cd "$(dirname "$0")" && pwd)

if [[ -z ${RDMAD_BENCH_NETNS:-} ]]; then
        exec unshare --net env RDMAD_BENCH_NETNS=1 "$0" "$@"
fi

work=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
pid=
cleanup() {
        [[ -n $pid ]] && kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
        rm -rf "$work"
}
trap cleanup EXIT

now_us() { echo $(( $(date +%s%N) / 1000 )); }

# One host of N links, converged; leaves rdmad running as $pid.
start_host() {
        local n=$1
        [[ -n $pid ]] && kill "$pid" && wait "$pid" 2> /dev/null || true
        pid=
        rm -rf "$work/root" "$work/conf"
        "$here/gen-tree.sh" "$work/root" "$n" 4 > /dev/null
        mkdir -p "$work/conf"
        printf 'netdev: {mtu: 4000}\n' > "$work/conf/50-bench.yaml"
        ip -o link show | sed -n 's/^[0-9]*: \(veth[0-9]*\)@.*/link del \1/p' | ip -batch - || true
        for i in $(seq 0 $((n - 1))); do echo "link add veth$i type veth peer name p$i"; done |
                ip -batch -
        for i in $(seq 0 $((n - 1))); do echo "link set veth$i up"; done | ip -batch -
        "$rdmad" --root "$work/root" --config-dir "$work/conf" --state-dir "$work/state" -v \
                > "$work/rdmad-$n.log" 2>&1 &
        pid=$!
        for _ in $(seq 600); do
                [[ $(ip -o link show | grep -c 'veth[0-9]*@.*mtu 4000') -eq $n ]] && break
                sleep 0.1
        done
        if [[ $(ip -o link show | grep -c 'veth[0-9]*@.*mtu 4000') -ne $n ]]; then
                echo "bench daemon: $n links did not converge" >&2
                return 1
        fi
        # ... and quiet: its own MTU writes are events too, and the reconcile they start looks
        # at every link again; an event measured while that one runs waits for it. Quiet is
        # rdmad's CPU time unchanged over a second.
        local a b
        a=$(cpu)
        for _ in $(seq 120); do
                sleep 1
                b=$(cpu)
                [[ $a == "$b" ]] && return 0
                a=$b
        done
        echo "bench daemon: $n links: rdmad never went quiet" >&2
}
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }

# Median over 7 runs of: change a link's MTU, wait until rdmad has put it back. A different
# link each time: the same setting reverted again and again within a minute is contested, and
# rdmad holds off from it (lib/apply/contest.h). A run that is not put back within 10 s counts as
# 10000 ms rather than hang the benchmark.
event_latency() {
        local samples=() t0 t1 i
        for i in $(seq 0 6); do
                sleep 0.3
                t0=$(now_us)
                ip link set "veth$i" mtu 1500
                for _ in $(seq 100000); do
                        ip -o link show "veth$i" | grep -q 'mtu 4000' && break
                        (( $(now_us) - t0 > 10000000 )) && break
                done
                t1=$(now_us)
                samples+=($(( (t1 - t0) / 1000 )))
        done
        printf '%s\n' "${samples[@]}" | sort -n | sed -n 4p
}

start_host 16
small=$(event_latency)
rss16=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
start_host "$big"
large=$(event_latency)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
echo "bench daemon: event -> converged for one link: ${small} ms on 16 links, ${large} ms on" \
     "$big links, ratio $(awk -v a="$large" -v b="$small" 'BEGIN { printf "%.2f", a / b }')" \
     "(median of 7; includes the 100 ms debounce; target: $big within 2x of 16)"
echo "bench daemon: RSS with $big links: ${rss} kB (16 links: ${rss16} kB; target < 8 MiB)"

sleep 1
switches() { awk '/ctxt_switches/ {s += $2} END {print s}' "/proc/$pid/status"; }
before=$(switches)
sleep "$idle"
after=$(switches)
echo "bench daemon: idle and converged for ${idle} s: $((after - before)) wakeups (target: 0)"
# "loop: one dispatch took W ms (C ms on the CPU)": wall and rdmad's own CPU time
awk -v n="$big" '/loop: one dispatch took/ {
             for (i = 1; i < NF; i++)
                     if ($i == "took") { w = $(i + 1) + 0; c1 = substr($(i + 3), 2) + 0 }
             c++; if (w > max) { max = w; cpu = c1 } }
     END { longest = c ? sprintf(", the longest %.1f ms (%.1f ms of it on the CPU)", max, cpu) : ""
           printf "bench daemon: rdmad loop on %d links, start to idle: ", n
           printf "%d dispatches over 10 ms%s", c, longest
           print " (target: none)" }' "$work/rdmad-$big.log"
