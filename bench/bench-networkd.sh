#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# systemd-networkd's footprint beside rdmad's (issue 26: rdmad's RSS at 4,096 links below
# networkd's): networkd started on this machine in a private network and mount namespace with
# LINKS veth links (no dummy module here) and no .network file, measured once it has enumerated them and gone idle.
# RSS and PSS from smaps_rollup, as bench-scale.sh reads rdmad's. Prints figures; asserts
# nothing. Needs root (unshare) and the systemd package's /lib/systemd/systemd-networkd.
#
#   bench/bench-networkd.sh [LINKS]
set -euo pipefail

n=${1:-16}
networkd=${NETWORKD:-/lib/systemd/systemd-networkd}

if [[ ! -x $networkd ]]; then
        echo "bench networkd: $networkd is not installed: no figure"
        exit 0
fi
if [[ -z ${RDMAD_BENCH_NETNS:-} ]]; then
        exec unshare --net --mount --propagation private env RDMAD_BENCH_NETNS=1 "$0" "$@"
fi

# its runtime directory private to this namespace, owned as networkd asks
mount -t tmpfs tmpfs /run/systemd
install -d -o systemd-network -g systemd-network /run/systemd/netif
mount -t sysfs sysfs /sys # this namespace's links in /sys/class/net
log=/run/systemd/networkd.log
for ((i = 0; i < n; i += 2)); do echo "link add nd$i type veth peer name nd$((i + 1))"; done | ip -b -
ip link set lo up

SYSTEMD_LOG_LEVEL=debug SYSTEMD_LOG_TARGET=console "$networkd" > "$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2> /dev/null; wait "$pid" 2> /dev/null || true' EXIT
cpu() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
for _ in $(seq 600); do
        grep -q 'Enumeration completed' "$log" && break
        kill -0 "$pid" 2> /dev/null || { echo "bench networkd: it exited: $(tail -n 3 "$log")"; exit 0; }
        sleep 0.1
done
# idle: its CPU time unchanged over a second
a=$(cpu)
for _ in $(seq 120); do
        sleep 1
        b=$(cpu)
        [[ $a == "$b" ]] && break
        a=$b
done
links=$(grep -c '^nd[0-9]*: Saved new link' "$log" || true)
waiting=$(grep -c '^nd[0-9]*: .*waiting for device initialization' "$log" || true)
rss=$(awk '/^Rss:/ { print $2 }' "/proc/$pid/smaps_rollup")
pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup")
echo "bench networkd: $n links ($links enumerated, $waiting waiting for udev): RSS $rss kB, PSS $pss kB (idle; $($networkd --version | head -n 1))"
