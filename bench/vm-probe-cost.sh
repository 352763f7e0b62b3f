#!/bin/bash
# vm-probe-cost.sh (light VM, through bench/bench-probe.sh) - what rdmad-probe costs at a 1 s
# interval with 16 paths (issue 29: under 0.5% of one core, a few MiB of RSS).
#   Five rxe links on five veth ends joined by a bridge, one subnet (192.0.2.1-5/24), each
#   address sent out of its own end (per-source tables, as route_over_wire does for two).
#   The prober probes four of them in a mesh (12 paths) and each of the four to the fifth, a
#   peer answered by probe-echo (4 paths): 16 paths, a probe a second each.
#   Once every path has been answered, its CPU time (utime + stime) and its RSS and PSS are
#   read over a minute. Prints figures as "# probe-cost: ..." lines; asserts nothing but that
#   the setup worked.
# Under TCG (no KVM here), each instruction costs many host instructions: the CPU share is an
# upper bound, far above what the same binary takes on hardware.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../tests/vm/guest/lib.sh
. "$VM_LIB"

PORT=18700
N=5
SECONDS_MEASURED=${PROBE_COST_SECONDS:-60}
rxe_modules || bail "no RDMA modules"
modprobe bridge || bail "no bridge module"
ip link add br0 type bridge || bail "no bridge"
ip link set br0 up
for conf in all default; do
	sysctl -qw "net.ipv4.conf.$conf.accept_local=1" "net.ipv4.conf.$conf.rp_filter=0" \
		"net.ipv4.conf.$conf.arp_ignore=1" "net.ipv4.conf.$conf.arp_announce=2"
done
for i in $(seq 0 $((N - 1))); do
	a=192.0.2.$((i + 1))
	ip link add "veth$i" type veth peer name "port$i" || bail "no veth$i"
	ip link set "port$i" master br0
	ip link set "port$i" up
	ip link set "veth$i" up
	ip addr add "$a/24" dev "veth$i"
	sysctl -qw "net.ipv4.conf.veth$i.accept_local=1" "net.ipv4.conf.veth$i.rp_filter=0" \
		"net.ipv4.conf.veth$i.arp_ignore=1" "net.ipv4.conf.veth$i.arp_announce=2"
	# arriving on its end: local; leaving from its address: out of its end, over the bridge
	ip rule add pref $((10 + i)) iif "veth$i" lookup local
	ip rule add pref $((30 + i)) from "$a" lookup $((100 + i))
	ip route add 192.0.2.0/24 dev "veth$i" src "$a" table $((100 + i))
	rdma link add "rxe$i" type rxe netdev "veth$i" || bail "cannot add rxe$i"
done
ip rule add pref 100 lookup local
ip rule del pref 0
for i in $(seq 0 $((N - 1))); do
	wait_until 20 has_gid "rxe$i" 1 "$(gid_of_ipv4 "192.0.2.$((i + 1))")" ||
		bail "rxe$i has no IPv4 GID"
done

probe-echo 192.0.2.5 "$PORT" > "$VM_LOGDIR/peer.out" 2>&1 &
peer=$!
wait_until 20 cm_listening "$PORT" || bail "the peer's probe-echo does not listen"
STATE=$VM_LOGDIR/state.json
rdmad-probe --link rxe0/1=192.0.2.1 --link rxe1/1=192.0.2.2 --link rxe2/1=192.0.2.3 \
	--link rxe3/1=192.0.2.4 --mesh --peer 192.0.2.5 --port "$PORT" --interval 1000 \
	--timeout 500 --window 30 --state "$STATE" --metrics "$VM_LOGDIR/probe.prom" \
	> "$VM_LOGDIR/prober.out" 2>&1 &
prober=$!
answered() {
	[ "$(jq -r '[.paths[] | select(.state == "probing" and .sent >= 3)] | length' \
		"$STATE" 2> /dev/null)" = 16 ]
}
check "16 paths (12 in the mesh, 4 to the peer), every one answered" wait_until 180 answered ||
	diag "$(cat "$STATE" "$VM_LOGDIR/prober.out")"

ticks() { awk '{ print $14 + $15 }' "/proc/$prober/stat"; }
uptime_cs() { awk '{ printf "%d", $1 * 100 }' /proc/uptime; } # centiseconds
hz=100 # USER_HZ: the unit of /proc/PID/stat's utime and stime on x86, whatever the kernel's HZ
t0=$(ticks)
w0=$(uptime_cs)
sleep "$SECONDS_MEASURED" # a measurement window, not a wait for a condition
t1=$(ticks)
w1=$(uptime_cs)
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$prober/status")
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$prober/status")
pss=$(awk '/^Pss:/ { print $2 }' "/proc/$prober/smaps_rollup")
cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v cs=$((w1 - w0)) \
	'BEGIN { printf "%.3f", 100 * t / hz / (cs / 100) }')
lost=$(jq -r '[.paths[].lost] | add' "$STATE")
sent=$(jq -r '[.paths[].sent] | add' "$STATE")
diag "probe-cost: 16 paths, a probe a second each, over $(((w1 - w0) / 100)) s: CPU ${cpu}% of one core under TCG ($((t1 - t0)) ticks of 1/$hz s), RSS ${rss} kB (peak ${hwm} kB), PSS ${pss} kB"
diag "probe-cost-raw: cpu_tcg=$cpu"
diag "probe-cost: the last 30 s: $sent probes sent, $lost lost"
diag "probe-cost: p50 of each path (us): $(jq -r '[.paths[] | .p50_usec | floor] | map(tostring) | join(" ")' "$STATE")"
check "the prober still runs" kill -0 "$prober"
# TCG's slowdown, for the host side to scale the CPU share by: the same jq binary, pure CPU
r0=$(uptime_cs)
jq -n 'reduce range(0; 3000000) as $i (0; . + $i)' > /dev/null
diag "probe-cost-raw: ref_vm_seconds=$(awk -v cs=$(($(uptime_cs) - r0)) 'BEGIN { print cs / 100 }')"
kill "$prober" "$peer"
wait "$prober" "$peer" 2> /dev/null
done_testing
