#!/bin/bash
# probe-peer.sh (two light VMs on one wire: run-pair.sh, --dcbsim, a private bus) - a remote
# peer, as probe.peers declares it, and whether the two hosts agree on RoCE (issue 44): each VM
# is a host with its own kernel, rdmad managing one rxe link and its own rdmad-probe following
# rdmad, which probes the other host's address and answers the other's probes.
#   side a: 10.77.0.1, side b: 10.77.0.2 (WIRE_SIDE, from run-vm.sh --wire)
#   - this side's path to the peer is answered by the peer's prober: 20 round trips or more;
#   - this side's link answered the peer's probes: 20 or more (the other direction);
#   - the round trip is in the metrics as a "remote" path;
#   - rdmad publishes the link's RoCE facts (RoceFacts) as the kernel has them;
#   - the profiles differ (a: ToS 106, MTU 1500, PFC on 3; b: ToS 96, MTU 9000, PFC on 4; both
#     DSCP 24 and 26 on priority 3): each side reports dscp, pfc and mtu against the other, in
#     its state file, its metrics and rdmactl probe, and 0 for the settings that agree;
#   - b's profile made a's and rdmad reloaded: the mismatches clear on both sides, with the
#     same processes;
#   - issue 45: b plays a fabric that drops DSCP 46 on UDP 4791 (nftables); a's `rdmactl try`
#     of ToS 184 with DSCP 46 on priority 5 and PFC on 3 and 5 loses its probes, rdmad's probe
#     gate rolls it back, and the ToS, DSCP map and PFC read back as before; the probes recover,
#     and a trial of ToS 96 holds the gates and is confirmed.
# The link is rxe on dcbsim0, a netdev with dcbnl ops (PFC, the APP table), cabled to the wire
# NIC by tc: what arrives on the NIC goes up dcbsim0, what dcbsim0 sends leaves by the NIC.
# A network namespace would not do on Debian 12's kernel: rxe's UDP socket lives in the initial
# namespace only, so an rxe link on a netdev moved into another namespace neither sends nor
# receives RoCE. The two sides wait for each other at two points (the mismatches seen, the
# agreement seen) through addresses each adds when it got there, which the other pings.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

[ "${WIRE_SIDE:-}" = a ] || [ "${WIRE_SIDE:-}" = b ] || bail "no WIRE_SIDE (run with run-pair.sh)"
if [ "$WIRE_SIDE" = a ]; then me=10.77.0.1 peer=10.77.0.2; else me=10.77.0.2 peer=10.77.0.1; fi
# the addresses that say "I got there" (10.77.0.1N on side a, 10.77.0.2N on side b), on the
# wire NIC and not on dcbsim0, whose addresses are rxe0's GIDs (the one rdmad publishes stays)
mine=$me theirs=$peer
PORT=18700
KO=/lib/modules/$(uname -r)/extra/dcbsim.ko
rxe_modules || bail "no RDMA modules"
depmod && modprobe -a virtio_pci virtio_net sch_ingress cls_matchall act_mirred ||
	bail "no virtio_net or tc modules" # from the run's archive: depmod first
[ -f "$KO" ] || bail "no $KO: run-vm.sh --dcbsim"
mac=52:54:00:00:01:0$WIRE_SIDE
wait_until 50 sh -c "ip -o link | grep -q $mac" || bail "no NIC with $mac"
dev=$(ip -o link | awk -v m="$mac" '$0 ~ m { sub(":", "", $2); print $2 }')
insmod "$KO" || bail "insmod dcbsim.ko"
# dcbsim0 with the NIC's MAC (a frame for another MAC would be "other host" on it and dropped)
ip link set dcbsim0 address "$mac" || bail "dcbsim0 takes $mac"
{ tc qdisc add dev "$dev" clsact &&
	tc filter add dev "$dev" ingress matchall action mirred ingress redirect dev dcbsim0 &&
	tc qdisc add dev dcbsim0 clsact &&
	tc filter add dev dcbsim0 egress matchall action mirred egress redirect dev "$dev"; } ||
	bail "cannot cable dcbsim0 to $dev with tc"
ip link set "$dev" up
ip link set dcbsim0 up
ip addr add "$me/24" dev dcbsim0
rdma link add rxe0 type rxe netdev dcbsim0 || bail "cannot add rxe0 on dcbsim0"
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 "$me")" || bail "rxe0 has no IPv4 GID"

# ---- rdmad, and rdmad-probe following it -------------------------------------------------------
private_bus_start
CONF=/run/rdmad-vm/peer-conf
mkdir -p "$CONF"
profile() { # profile TOS MTU PFC: this side's RoCE settings, and the peer to probe
	cat > "$CONF/50-peer.yaml" << YAML
match: {device: [rxe0]}
roce: {mode: v2, tos: $1}
netdev: {mtu: $2}
qos: {trust: dscp, dscp-map: {24: 3, 26: 3}, pfc: [$3]}
probe: {peers: [$peer], port: $PORT, interval: 200ms, timeout: 1s}
YAML
}
if [ "$WIRE_SIDE" = a ]; then profile 106 1500 3; else profile 96 9000 4; fi
rdmad -v --config-dir "$CONF" > "$VM_LOGDIR/rdmad.log" 2>&1 &
RDMAD=$!
LINKS=/run/rdmad/probe.links
check "rdmad publishes rxe0/1 to probe in $LINKS" \
	within 120 sh -c "[ \"\$(cat $LINKS 2> /dev/null)\" = rxe0/1 ]" ||
	diag "$(tail -n 20 "$VM_LOGDIR/rdmad.log")"
facts() { # the link's RoceFacts, as JSON
	busctl --json=short get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link \
		RoceFacts 2> /dev/null
}
fact() { facts | jq -c ".data[\"$1\"].data"; }
converged() { # the profile applied: rdmad's facts say what it declares
	[ "$(fact tos)" = "$1" ] && [ "$(fact netdev-mtu)" = "$2" ] && [ "$(fact pfc)" = "[$3]" ]
}
if [ "$WIRE_SIDE" = a ]; then want=(106 1500 3); else want=(96 9000 4); fi
check "RoceFacts: ToS ${want[0]}, MTU ${want[1]}, PFC on ${want[2]}" within 120 converged "${want[@]}" ||
	diag "$(facts; tail -n 20 "$VM_LOGDIR/rdmad.log")"
is "RoceFacts: RoCE v2, DSCP trust, the RoCE DSCP on priority 3" \
	"$(fact roce-mode) $(fact trust) $(fact priority)" '"v2" "dscp" 3'
is "RoceFacts: no ECN or CNP facts on dcbsim0 (no such sysfs): absent, not 0" \
	"$(facts | jq -c '.data | [has("ecn-np"), has("ecn-rp"), has("cnp-dscp")]')" '[false,false,false]'
diag "RoceFacts: $(facts)"

mkdir -p /run/rdmad-probe # where rdmactl probe reads the state
STATE=/run/rdmad-probe/state.json
METRICS=$VM_LOGDIR/probe.prom
rdmad-probe --window 60 --state "$STATE" --metrics "$METRICS" --links-file "$LINKS" \
	> "$VM_LOGDIR/prober.out" 2>&1 &
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

# ---- the two hosts disagree -----------------------------------------------------------------
mismatches() { # the settings this side's path reports, sorted, "unknown" before an answer
	jq -r '.paths[0] | if .peer_settings == "known" then ([.mismatches[].setting] | sort | join(","))
		else "unknown" end' "$STATE" 2> /dev/null
}
mismatched() { [ "$(mismatches)" = "dscp,mtu,pfc" ]; }
check "both profiles differ: rxe0/1 -> $peer reports dscp, mtu and pfc" within 120 mismatched ||
	diag "$(mismatches; cat "$STATE"; tail -n 20 "$VM_LOGDIR/prober.out")"
metric() { # metric SETTING: rdmad_probe_peer_mismatch's value for this side's path, or "none"
	awk -v k="rdmad_probe_peer_mismatch{link=\"rxe0/1\",peer=\"$peer\",setting=\"$1\"}" \
		'$1 == k { v = $2 } END { print v == "" ? "none" : v }' "$METRICS"
}
metrics_say() { # metrics_say DSCP MTU PFC PRIORITY ROCE-MODE ECN
	[ "$(metric dscp) $(metric mtu) $(metric pfc) $(metric priority) $(metric roce-mode) $(metric ecn)" = "$*" ]
}
check "... the metrics: 1 for dscp, mtu and pfc, 0 for priority and roce-mode, no ecn (not known)" \
	within 30 metrics_say 1 1 1 0 0 none || diag "$(grep peer_mismatch "$METRICS")"
if [ "$WIRE_SIDE" = a ]; then
	local_dscp="DSCP 26 (ToS 106)" peer_dscp="DSCP 24 (ToS 96)"
	local_mtu="RoCE MTU 1024 (netdev MTU 1500)" peer_mtu="RoCE MTU 4096 (netdev MTU 9000)"
	local_pfc="priority 3: PFC on" peer_pfc="priority 3: PFC off"
else
	local_dscp="DSCP 24 (ToS 96)" peer_dscp="DSCP 26 (ToS 106)"
	local_mtu="RoCE MTU 4096 (netdev MTU 9000)" peer_mtu="RoCE MTU 1024 (netdev MTU 1500)"
	local_pfc="priority 3: PFC off" peer_pfc="priority 3: PFC on"
fi
side_values() { # side_values SETTING: "LOCAL | PEER" from the state file
	jq -r ".paths[0].mismatches[] | select(.setting == \"$1\") | .local + \" | \" + .peer" "$STATE"
}
is "... the state file: dscp here and there" "$(side_values dscp)" "$local_dscp | $peer_dscp"
is "... mtu here and there (rxe's active MTU follows the netdev's)" "$(side_values mtu)" "$local_mtu | $peer_mtu"
is "... pfc on the RoCE priority here and there" "$(side_values pfc)" "$local_pfc | $peer_pfc"
mismatch_column() { # the path's MISMATCH in rdmactl probe's table (columns aligned to the header)
	awk 'NR == 1 { c = index($0, "MISMATCH") }
		NR == 2 && c { v = substr($0, c); sub(/ .*/, "", v); print v }' "$VM_LOGDIR/rdmactl-probe.out"
}
rdmactl probe > "$VM_LOGDIR/rdmactl-probe.out" 2>&1
is "rdmactl probe: exit 0" "$?" 0
is "... its MISMATCH column: dscp,pfc,mtu" "$(mismatch_column)" "dscp,pfc,mtu"
diag "$(cat "$VM_LOGDIR/rdmactl-probe.out")"
diag "$(grep peer_mismatch "$METRICS")"

# ---- b's profile fixed: both agree, without a restart ---------------------------------------
# Each side adds an address once it saw the mismatches; b fixes its profile only when a has too,
# so that a cannot miss them (the ping's deadline bounds a side that never gets there).
sees() { ping -c 1 -W 1 "$1" > /dev/null 2>&1; }
ip addr add "${mine}1/32" dev "$dev"
check "the peer saw the mismatches too (it answers at ${theirs}1)" within 240 sees "${theirs}1"
if [ "$WIRE_SIDE" = b ]; then
	profile 106 1500 3
	kill -HUP "$RDMAD"
	check "b's profile made a's, reloaded: RoceFacts ToS 106, MTU 1500, PFC on 3" \
		within 120 converged 106 1500 3 || diag "$(facts)"
fi
agreed() { [ "$(mismatches)" = "" ]; }
check "rxe0/1 -> $peer: no mismatch left" within 120 agreed ||
	diag "$(mismatches; cat "$STATE"; tail -n 20 "$VM_LOGDIR/prober.out")"
check "... the metrics: 0 for dscp, mtu, pfc, priority and roce-mode" \
	within 30 metrics_say 0 0 0 0 0 none || diag "$(grep peer_mismatch "$METRICS")"
rdmactl probe > "$VM_LOGDIR/rdmactl-probe.out" 2>&1
is "... rdmactl probe's MISMATCH column: none" "$(mismatch_column)" none
is "rdmad-probe is the same process" "$(kill -0 "$prober" 2> /dev/null && echo alive)" alive
diag "$(cat "$VM_LOGDIR/rdmactl-probe.out")"
# the peer still asks and probes: answer until it saw the agreement too. Then b leaves once a
# says it saw b's word (.13), and a only once b is gone: the side that speaks last stays.
ip addr add "${mine}2/32" dev "$dev"
check "the peer saw the agreement too (it answers at ${theirs}2)" within 240 sees "${theirs}2"
# ---- issue 45: a trial that moves RoCE to a class the fabric drops, rolled back by rdmad ------
# b plays a fabric that drops one class: nftables on its input hook drops DSCP 46 (ToS 184) on
# UDP 4791 (on the receiving side: a drop on the sender's own output hook stalls rxe's send
# queue, which no fabric does). a tries ToS 184 with DSCP 46 mapped to priority 5 and PFC on 3
# and 5: its prober follows the ToS, its probes are lost, rdmad's probe gate fails and the
# trial is rolled back; then a good trial (ToS 96, DSCP 24) holds the gates and is confirmed.
if [ "$WIRE_SIDE" = b ]; then
	check "b's fabric: nftables drops DSCP 46 on UDP 4791" nft -f - << 'NFT'
table inet fabric {
	chain in {
		type filter hook input priority 0; policy accept;
		udp dport 4791 ip dscp 46 counter drop
	}
}
NFT
fi
ip addr add "${mine}4/32" dev "$dev"
check "the peer is at the trials (it answers at ${theirs}4)" within 240 sees "${theirs}4"
ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; } # busybox date has no %N
last() { # a field of rdmad's LastTrial (JSON), "" when none
	busctl get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LastTrial 2> /dev/null |
		sed 's/^s "//; s/"$//; s/\\"/"/g' | jq -r "${1} // empty" 2> /dev/null
}
CM=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
qos_now() { # the ToS (configfs), the DSCP map and PFC (dcbnl, dcb's display of both)
	echo "tos $(cat "$CM"); $(dcb app show dev dcbsim0 dscp-prio); $(dcb pfc show dev dcbsim0 prio-pfc)"
}
if [ "$WIRE_SIDE" = a ]; then
	cat > /run/rdmad-vm/bad.yaml << 'YAML'
match: {device: [rxe0]}
roce: {tos: 184}
qos: {dscp-map: {24: 3, 26: 3, 46: 5}, pfc: [3, 5]}
YAML
	before=$(qos_now)
	diag "before the trial: $before"
	t0=$(ms)
	rdmactl try --wait --timeout 120 /run/rdmad-vm/bad.yaml > "$VM_LOGDIR/try-bad.out" 2>&1
	rc=$?
	t1=$(ms)
	is "a trial of ToS 184 (DSCP 46, dropped by the fabric): rdmactl try --wait exits 1" "$rc" 1
	diag "$(cat "$VM_LOGDIR/try-bad.out")"
	is "... rolled back by the probe gate" "$(last .reason) $(last .gate)" "gate probe"
	diag "the gate saw: $(last .seen)"
	is "... ToS, DSCP map and PFC read back as before the trial" "$(qos_now)" "$before"
	is "... nothing left unrestored" "$(last '.not_restored | length')" 0
	diag "from rdmactl try to the end of the rollback: $((t1 - t0)) ms (rdmad's rollback: $(last .rollback_usec) us)"
	diag "rdmad's journal of the trial: $(grep -i 'trial' "$VM_LOGDIR/rdmad.log" | tr '\n' '|')"
	n=$(answers)
	more() { [ "$(answers)" -ge $((n + 10)) ] 2> /dev/null; }
	check "the probes recover: 10 more round trips answered" within 120 more ||
		diag "$(jq -c '.paths[0]' "$STATE")"
	cat > /run/rdmad-vm/good.yaml << 'YAML'
match: {device: [rxe0]}
roce: {tos: 96}
YAML
	check "a trial of ToS 96 (DSCP 24, carried): rdmactl try --wait exits 0" \
		logged "$VM_LOGDIR/try-good.out" rdmactl try --wait --timeout 120 /run/rdmad-vm/good.yaml
	check "... confirmed into rdmad's profile directory" \
		logged "$VM_LOGDIR/confirm.out" rdmactl confirm --to "$CONF"
	is "... the ToS is 96 in configfs, the file a profile" "$(cat "$CM") $(cat "$CONF/good.yaml" | grep -c 'tos: 96')" "96 1"
fi
ip addr add "${mine}5/32" dev "$dev"
check "the peer is past the trials (it answers at ${theirs}5)" within 300 sees "${theirs}5"
if [ "$WIRE_SIDE" = b ]; then
	dropped=$(nft -j list table inet fabric | jq '[.nftables[] | .rule? // empty | .expr[] | .counter? // empty | .packets] | add')
	check "b's fabric dropped a's probes of DSCP 46 ($dropped packets)" test "${dropped:-0}" -gt 0
	nft delete table inet fabric
fi
if [ "$WIRE_SIDE" = a ]; then
	ip addr add "${mine}3/32" dev "$dev"
	within 60 eval "! sees ${theirs}2" || diag "b still answers at ${theirs}2 after 60 s"
else
	within 60 sees "${theirs}3" || diag "a did not say it saw b's word within 60 s"
fi
diag "prober's log: $(grep -c . "$VM_LOGDIR/prober.out") lines; $(grep -E 'differs|agree' "$VM_LOGDIR/prober.out" | tr '\n' ';')"

kill "$prober"
wait_until 20 eval "! kill -0 $prober 2> /dev/null" || kill -9 "$prober"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
done_testing
