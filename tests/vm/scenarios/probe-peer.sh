#!/bin/bash
# probe-peer.sh (two light VMs on one wire: run-pair.sh) - a remote peer, as probe.peers
# declares it: each VM is a host with its own kernel, one rxe link on its virtio NIC and its
# own rdmad-probe, which probes the other host's address and answers the other's probes.
#   side a: 10.77.0.1, side b: 10.77.0.2 (WIRE_SIDE, from run-vm.sh --wire)
#   - this side's path to the peer is answered by the peer's prober: 20 round trips or more;
#   - this side's link answered the peer's probes: 20 or more (the other direction);
#   - the round trip is in the metrics as a "remote" path.
# A network namespace would not do on Debian 12's kernel: rxe's UDP socket lives in the initial
# namespace only, so an rxe link on a netdev moved into another namespace neither sends nor
# receives RoCE.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

[ "${WIRE_SIDE:-}" = a ] || [ "${WIRE_SIDE:-}" = b ] || bail "no WIRE_SIDE (run with run-pair.sh)"
if [ "$WIRE_SIDE" = a ]; then me=10.77.0.1 peer=10.77.0.2; else me=10.77.0.2 peer=10.77.0.1; fi
PORT=18700
rxe_modules || bail "no RDMA modules"
depmod && modprobe -a virtio_pci virtio_net || bail "no virtio_net" # from the run's archive: depmod first
mac=52:54:00:00:01:0$WIRE_SIDE
wait_until 50 sh -c "ip -o link | grep -q $mac" || bail "no NIC with $mac"
dev=$(ip -o link | awk -v m="$mac" '$0 ~ m { sub(":", "", $2); print $2 }')
ip link set "$dev" up
ip addr add "$me/24" dev "$dev"
rdma link add rxe0 type rxe netdev "$dev" || bail "cannot add rxe0 on $dev"
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 "$me")" || bail "rxe0 has no IPv4 GID"

STATE=$VM_LOGDIR/state.json
METRICS=$VM_LOGDIR/probe.prom
rdmad-probe --link "rxe0/1=$me" --peer "$peer" --port "$PORT" --interval 200 --timeout 1000 \
	--window 60 --state "$STATE" --metrics "$METRICS" > "$VM_LOGDIR/prober.out" 2>&1 &
prober=$!
count() { # count FILTER: a number the state file's FILTER gives, 0 without one
	local n
	n=$(jq -r "$1" "$STATE" 2> /dev/null)
	echo "${n:-0}"
}
answers() { # the round trips of this side's path to the peer, from the metrics
	awk -v p="$peer" '$1 ~ "^rdmad_probe_rtt_seconds_count[{]" && index($1, "peer=\"" p "\"") {
		print $2 }' "$METRICS" 2> /dev/null
}
enough() { [ "$(answers)" -ge 20 ] 2> /dev/null; }
# both VMs boot at once, but TCG may give one a head start of many seconds: a deadline
check "rxe0/1 -> $peer: the peer's prober answered 20 probes or more" within 240 enough ||
	diag "$(cat "$STATE" "$VM_LOGDIR/prober.out")"
answered() { [ "$(count '[.links[] | .answered] | add')" -ge 20 ]; }
check "rxe0/1 answered 20 of the peer's probes or more (the other direction)" \
	within 240 answered || diag "$(cat "$STATE")"
is "the path is a remote one in the metrics" \
	"$(grep -c "^rdmad_probe_sent_total{link=\"rxe0/1\",peer=\"$peer\",kind=\"remote\"}" "$METRICS")" 1
diag "rxe0/1 -> $peer: $(jq -c '.paths[0] | {state, sent, lost, p50_usec, clock}' "$STATE")"
diag "$(grep 'rdmad_probe_rtt_seconds_\(sum\|count\)' "$METRICS")"
# The peer may still be counting this side's answers: keep answering until it says it has its
# own (its path shows on this side as answered requests), bounded.
within 60 sh -c "[ \"\$(jq -r '[.links[] | .answered] | add' '$STATE')\" -ge 40 ]" ||
	diag "the peer stopped probing early"
kill "$prober"
wait_until 20 eval "! kill -0 $prober 2> /dev/null" || kill -9 "$prober"
done_testing
