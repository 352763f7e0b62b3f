#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# D-Bus Get while an sriov_numvfs write is in progress (issue 43). A write to sriov_numvfs takes as
# long as the PF's driver needs to probe the new VFs (mlx5: about a second a VF); rdmad carries
# it out in a worker process and goes on answering. Fixture tier: the mlx5-dual-vf fixture, its
# netdevs as veth in a private network namespace, a private system-like bus with the shipped
# policy; the write to mlx5_1's PF's sriov_numvfs is held until the benchmark lets go
# (RDMAD_TEST_FAULTS "PATH hold FIFO", rdmad(8)), as the kernel holds it while it probes.
#   - Get(State) of mlx5_1/1 p50/p99/max, CALLS of them (2,000 unless given), rdmad idle;
#   - the same while the write is in progress, and how long the write was held in all;
#   - rdmad's own account of its dispatches over 10 ms meanwhile (LoopDispatches).
# Prints figures; asserts nothing. (The VM tier's figure, a write the kernel itself holds for
# longer than WatchdogSec, is tests/vm/scenarios/sriov-slow.sh.)
#
#   bench/bench-sriov-write.sh RDMAD BUS-GET-LATENCY POLICY [CALLS]
set -euo pipefail

rdmad=$(realpath "$1")
latency=$(realpath "$2")
policy=$(realpath "$3")
calls=${4:-2000}
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..

if [[ -z ${RDMAD_BENCH_NETNS:-} ]]; then
        exec unshare --net env RDMAD_BENCH_NETNS=1 "$0" "$@"
fi

work=$(mktemp -d -p /dev/shm 2> /dev/null || mktemp -d)
pid= bus_pid=
cleanup() { # errexit off: a failed step here must not skip the kills below
        set +e
        : > "$work/faults"
        [[ -p $work/hold && -z ${held:-} ]] && timeout 5 cat "$work/hold" > /dev/null 2>&1
        for p in $pid $bus_pid; do kill "$p" 2> /dev/null && wait "$p" 2> /dev/null; done
        rm -rf "$work"
}
trap cleanup EXIT

cp -a "$src/tests/fixtures/mlx5-dual-vf" "$work/root"
mkdir -p "$work/conf" "$work/state" "$work/root/sys/kernel/config/rdma_cm/mlx5_1/ports/1"
echo 'RoCE v2' > "$work/root/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_mode"
echo 0 > "$work/root/sys/kernel/config/rdma_cm/mlx5_1/ports/1/default_roce_tos"
ip link set lo up
for i in 0 1; do
        ip link add "ens1f${i}np$i" type veth peer name "peer$i"
        ip link set "ens1f${i}np$i" up
done
printf 'match: {device: mlx5_0}\nnetdev: {mtu: 4000}\n' > "$work/conf/50-mlx5_0.yaml"
printf 'match: {device: mlx5_1}\nnetdev: {mtu: 4000}\n' > "$work/conf/50-mlx5_1.yaml"
: > "$work/faults"
sed -e "s|@SOCKET@|$work/bus|" -e "s|@POLICY@|$policy|" \
        "$src/tests/dbus/system.conf.in" > "$work/system.conf"
dbus-daemon --config-file="$work/system.conf" --nofork --nopidfile --nosyslog 2> /dev/null &
bus_pid=$!
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$work/bus
for _ in $(seq 50); do [[ -S $work/bus ]] && break; sleep 0.1; done

bc() { busctl --timeout=60 --address="$DBUS_SYSTEM_BUS_ADDRESS" "$@"; }
L1=/org/rdmad1/link/mlx5_5f1_2f1
until_true() { # COMMAND...: 60 s at most
        for _ in $(seq 600); do "$@" && return 0; sleep 0.1; done
        echo "bench sriov-write: gave up waiting for: $*" >&2
        return 1
}
converged() { [[ $(bc get-property org.rdmad1 "$L1" org.rdmad1.Link State 2> /dev/null) == 's "converged"' ]]; }
writing() { grep -q 'sriov.vfs: writing 8, off the event loop' "$work/rdmad.log"; }
slow_dispatches() { # dispatches over 10 ms so far (LoopDispatches: the last 7 buckets)
        bc --json=short get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LoopDispatches |
                jq '[.data[] | select(.[0] > 10000) | .[1]] | add'
}

RDMAD_TEST_FAULTS=$work/faults "$rdmad" --root "$work/root" --config-dir "$work/conf" \
        --state-dir "$work/state" --bus > "$work/rdmad.log" 2>&1 &
pid=$!
until_true converged
"$latency" "$L1" org.rdmad1.Link State "$calls" "bench sriov-write: idle" |
        sed 's/: Get/:                                  Get/'

mkfifo "$work/hold"
echo "sys/bus/pci/devices/0000:3b:00.1/sriov_numvfs hold $work/hold" > "$work/faults"
printf 'match: {device: mlx5_1}\nnetdev: {mtu: 4000}\nsriov: {vfs: 8}\n' > "$work/conf/50-mlx5_1.yaml"
slow0=$(slow_dispatches 2> /dev/null || echo 0)
t0=$(date +%s%N)
kill -HUP "$pid"
until_true writing
"$latency" "$L1" org.rdmad1.Link State "$calls" \
        "bench sriov-write: while an sriov_numvfs write is in progress"
: > "$work/faults"
timeout 60 cat "$work/hold" > /dev/null
held=$((($(date +%s%N) - t0) / 1000000))
until_true converged
echo "bench sriov-write: the write held $held ms in all; rdmad's dispatches over 10 ms meanwhile:" \
        "$(($(slow_dispatches 2> /dev/null || echo 0) - slow0))"
