#!/bin/bash
# firewall.sh (light VM) - security.roce-allow-from on a real kernel: rxe0 on veth0 (192.0.2.1),
# rxe1 on veth1 with two addresses (192.0.2.2, allowed; 192.0.2.3, not), the pair routed over
# the wire (route_over_wire). The running rdmad makes its table inet rdmad; rping from the
# allowed address passes, from the other one it fails (bounded); an administrator's table
# added before is byte-identical after; deleting rdmad's table or flushing the ruleset makes
# rdmad put its table back within seconds (NFNLGRP_NFTABLES); removing the key and reloading
# removes the table, and rping from the other address passes again.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

CONF=/etc/rdmad

for b in rdmad rdmactl nft; do
	command -v "$b" > /dev/null || bail "no $b on PATH: run-vm.sh --bin, nft from the host"
done
modprobe -a nf_tables nfnetlink || bail "no nf_tables"
rxe_pair
ip addr add 192.0.2.3/24 dev veth1
wait_until 20 has_gid rxe1 1 "$(gid_of_ipv4 192.0.2.3)" || bail "rxe1 has no GID for 192.0.2.3"
route_over_wire veth0 192.0.2.1 veth1 192.0.2.2
ip route add 192.0.2.3/32 dev veth0 src 192.0.2.1 table 100
# what reaches veth0 on the RoCE port, for the whole run: the wire's side of each verdict
tcpdump -Z root -l -n -i veth0 udp dst port 4791 > "$VM_LOGDIR/veth0.pcap.txt" 2> "$VM_LOGDIR/tcpdump.err" &
TCPDUMP=$!
wait_until 20 grep -q "listening on" "$VM_LOGDIR/tcpdump.err" || bail "tcpdump on veth0 does not start"

# rping_from SRC: rdma_cm rxe1 (bound to SRC) -> rxe0, 3 pings, the client given 15 s; passes
# when all 3 were answered. Judged by the pings, not rping's exit status (lib.sh, rping_answered:
# its teardown can fail after a complete exchange).
rping_from() {
	local server rc=0
	rping -s -a 192.0.2.1 -C 3 > "$VM_LOGDIR/rping-server.log" 2>&1 &
	server=$!
	wait_until 20 cm_listening 7174 || diag "rping's server does not listen"
	timeout 15 rping -c -a 192.0.2.1 -I "$1" -C 3 -v > "$VM_LOGDIR/rping-$1.log" 2>&1 || rc=$?
	echo "$rc" > "$VM_LOGDIR/rping-$1.rc"
	kill "$server" 2> /dev/null
	wait "$server" 2> /dev/null
	[ "$(rping_answered "$VM_LOGDIR/rping-$1.log")" -eq 3 ]
}
# roce_from SRC: UDP 4791 packets from SRC that reached veth0 in this run. tcpdump sees a packet
# as it arrives, before netfilter's input hook: a packet rdmad's chain dropped is counted too.
roce_from() {
	grep -c "IP $1\.[0-9]* > 192\.0\.2\.1\.4791: UDP" "$VM_LOGDIR/veth0.pcap.txt"
}
roce_grew() { [ "$(roce_from "$1")" -gt "$2" ]; }
# rping_refused SRC: none of the pings answered, while SRC's RoCE packets did reach veth0: the
# drop is rdmad's rule, not a route or a link that carried nothing
rping_refused() {
	local before
	before=$(roce_from "$1")
	rping_from "$1"
	[ "$(rping_answered "$VM_LOGDIR/rping-$1.log")" -eq 0 ] || return 1
	wait_until 20 roce_grew "$1" "$before" || {
		diag "no RoCE packet from $1 reached veth0"
		return 1
	}
}
# the ruleset without rdmad's table, as JSON
others() {
	nft -j list ruleset | jq -S 'del(.nftables[] | select(.table.name == "rdmad" or
		.chain.table == "rdmad" or .rule.table == "rdmad"))'
}
table_present() { nft list table inet rdmad > /dev/null 2>&1; }
table_absent() { ! table_present; }

# someone else's table, there first
nft -f - << 'NFT' || bail "nft -f (the administrator's table)"
table inet admin {
	chain input {
		type filter hook input priority filter; policy accept;
		tcp dport 22 accept
		ip saddr 198.51.100.0/24 drop
	}
}
NFT
others > "$VM_LOGDIR/before.json"
check "nft -j list ruleset shows the administrator's table" \
	grep -q '"name": "admin"' "$VM_LOGDIR/before.json"
check "before rdmad: rping from 192.0.2.3 passes (nothing filters it yet)" rping_from 192.0.2.3

mkdir -p "$CONF"
cat > "$CONF/50-fw.yaml" << 'YAML'
match: {device: rxe0}
security: {roce-allow-from: [192.0.2.2]}
YAML
check "rdmactl check accepts the profile" rdmactl check
check "rdmactl plan shows the chain to make, with what is there" \
	grep -q "security.roce-allow-from.*absent (no table inet rdmad).*udp/4791 from 192.0.2.2/32, others dropped" \
	<<< "$(rdmactl --no-pager plan 2>&1)"

rdmad -v > "$VM_LOGDIR/rdmad.log" 2>&1 &
RDMAD=$!
check "rdmad makes table inet rdmad" wait_until 20 table_present
is "... holding veth0's chain: UDP 4791 from 192.0.2.2 accepted, the rest dropped" \
	"$(nft list table inet rdmad)" "table inet rdmad {
	chain veth0 {
		type filter hook input priority filter - 10; policy accept;
		iifname \"veth0\" ip saddr 192.0.2.2 udp dport 4791 accept
		iifname \"veth0\" udp dport 4791 drop
	}
}"
check "rdmactl plan: nothing pending" rdmactl --no-pager plan --exit-code
check "rping from 192.0.2.2 (allowed) passes" rping_from 192.0.2.2
check "rping from 192.0.2.3 (not allowed) fails within 15 s" rping_refused 192.0.2.3
diag "rping -c -I 192.0.2.3: exit $(cat "$VM_LOGDIR/rping-192.0.2.3.rc") (124: timed out)," \
	"$(grep -c '^ping data' "$VM_LOGDIR/rping-192.0.2.3.log") pings answered"
others > "$VM_LOGDIR/after.json"
check "the rest of the ruleset is byte-identical (nft -j list ruleset without rdmad's table)" \
	cmp -s "$VM_LOGDIR/before.json" "$VM_LOGDIR/after.json"

writes() { grep -c 'security.roce-allow-from .* -> ' "$VM_LOGDIR/rdmad.log"; }
nft delete table inet rdmad
check "nft delete table inet rdmad: rdmad puts it back" wait_until 20 table_present
check "... and rping from 192.0.2.3 is refused again" rping_refused 192.0.2.3
nft flush ruleset
check "nft flush ruleset: rdmad puts its table back" wait_until 20 table_present
sleep 3
is "three writes in all (made, put back twice): its own changes do not feed back" "$(writes)" 3

# the key removed, the profiles reloaded: the table goes
cat > "$CONF/50-fw.yaml" << 'YAML'
match: {device: rxe0}
gids: {require: [roce-v2-ipv4]}
YAML
kill -HUP "$RDMAD"
check "the key removed and rdmad reloaded: table inet rdmad is removed" wait_until 20 table_absent
check "rping from 192.0.2.3 passes again" rping_from 192.0.2.3
kill "$RDMAD"
wait "$RDMAD" 2> /dev/null
kill "$TCPDUMP"
check "rdmad logged the removal" grep -q 'security.roce-allow-from table inet rdmad .* -> table inet rdmad: absent' "$VM_LOGDIR/rdmad.log"
done_testing
