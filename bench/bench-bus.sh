#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# org.rdmad1's latency and throughput on a generated host of 1,024 Soft-RoCE links (16 GIDs
# each), rdmad on a private system-like bus with the shipped policy:
#   - GetLink + the link's properties, p50/p99 (target: p99 under 1 ms for one link);
#   - Describe() of the whole host, p50/p99;
#   - calls per second one client gets answered.
# Prints figures; asserts nothing.
#
#   bench/bench-bus.sh RDMAD BENCH-BUS-CLIENT POLICY [LINKS]
set -euo pipefail

rdmad=$(realpath "$1")
client=$(realpath "$2")
policy=$(realpath "$3")
n=${4:-1024}
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

"$rdmad" --root "$work/root" --config-dir "$work/conf" --state-dir "$work/state" --bus \
        > "$work/rdmad.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
        [[ $(busctl --address="$DBUS_SYSTEM_BUS_ADDRESS" get-property org.rdmad1 /org/rdmad1 \
                org.rdmad1.Manager State 2> /dev/null) == 's "running"' ]] && break
        sleep 0.1
done
echo "bench bus: rdmad RSS before the run: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")"
"$client" 2000
echo "bench bus: rdmad RSS after the run: $(awk '/VmRSS/ {print $2, $3}' "/proc/$pid/status")"
