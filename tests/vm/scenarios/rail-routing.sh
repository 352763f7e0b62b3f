#!/bin/bash
# rail-routing.sh (light VM) - netdev.rail-routing on a real kernel: two Soft-RoCE rails in one
# subnet (veth0 192.0.2.1/24, veth2 192.0.2.2/24, the peer of each in a namespace of its own as
# 192.0.2.100), a profile declaring rail-routing on both. rdmad gives each its table,
# ip rules and sysctls; traffic from each address leaves by its own rail; a converged second
# pass sends no rule or route change; an address added later gets its rule from the running
# daemon (address event); removing the key removes rdmad's rules and routes only and puts the
# sysctls back.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

CONF=/etc/rdmad
STATE=/run/rdmad/state/rails

for b in rdmad rdmactl; do
	command -v "$b" > /dev/null || bail "no $b on PATH: run-vm.sh --bin"
done
rxe_modules || bail "no RDMA modules"
modprobe veth
ip netns add far || bail "ip netns add"
ip link add veth0 type veth peer name veth1 && ip link add veth2 type veth peer name veth3 ||
	bail "veth pairs"
ip link set veth1 netns far
# the far end of each rail in a namespace of its own, both 192.0.2.100 (no bridge module in
# the light VM)
ip netns add far2 || bail "ip netns add"
ip link set veth3 netns far2
for ns in far:veth1 far2:veth3; do
	ip -n "${ns%%:*}" link set lo up && ip -n "${ns%%:*}" link set "${ns#*:}" up &&
		ip -n "${ns%%:*}" addr add 192.0.2.100/24 dev "${ns#*:}" || bail "far end ${ns#*:}"
done

declare -A before
for nd in veth0 veth2; do
	for s in arp_ignore arp_announce rp_filter; do
		before[$nd.$s]=$(cat /proc/sys/net/ipv4/conf/$nd/$s)
	done
done
T0=$((10000 + $(cat /sys/class/net/veth0/ifindex)))
T2=$((10000 + $(cat /sys/class/net/veth2/ifindex)))

mkdir -p "$CONF"
cat > "$CONF/50-rails.yaml" << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth2}
---
match: {device: rxe0}
netdev: {up: true, addresses: [192.0.2.1/24]}
---
match: {device: rxe1}
netdev: {up: true, addresses: [192.0.2.2/24]}
YAML
cat > "$CONF/60-rail-routing.yaml" << 'YAML'
match: {device: "rxe*"}
netdev: {rail-routing: true}
YAML

rc=0
rdmad --once -v > "$VM_LOGDIR/once.log" 2>&1 || rc=$?
is "rdmad --once converges (exit 0)" "$rc" 0 || diag "$(cat "$VM_LOGDIR/once.log")"
rules=$(ip -4 rule show priority 32000)
check "ip rule from 192.0.2.1 lookup $T0 (10000 + veth0's ifindex)" \
	grep -qx "32000:	from 192.0.2.1 lookup $T0" <<< "$rules"
check "ip rule from 192.0.2.2 lookup $T2" grep -qx "32000:	from 192.0.2.2 lookup $T2" <<< "$rules"
is "table $T0: the connected route via veth0 from .1, nothing else" \
	"$(ip route show table "$T0")" "192.0.2.0/24 dev veth0 proto 211 scope link src 192.0.2.1 "
is "table $T2: via veth2 from .2" \
	"$(ip route show table "$T2")" "192.0.2.0/24 dev veth2 proto 211 scope link src 192.0.2.2 "
for nd in veth0 veth2; do
	is "$nd: arp_ignore=1 arp_announce=2 rp_filter=2" \
		"$(cat /proc/sys/net/ipv4/conf/$nd/{arp_ignore,arp_announce,rp_filter} | xargs)" "1 2 2"
done
check "ip route get 192.0.2.100 from 192.0.2.2 leaves by veth2" \
	grep -q "dev veth2" <<< "$(ip route get 192.0.2.100 from 192.0.2.2)"
check "ip route get 192.0.2.100 from 192.0.2.1 leaves by veth0" \
	grep -q "dev veth0" <<< "$(ip route get 192.0.2.100 from 192.0.2.1)"
rx=$(ip -n far2 -s -j link show veth3 | jq '.[0].stats64.rx.packets')
check "ping from 192.0.2.2 is answered" ping -c 1 -W 5 -I 192.0.2.2 192.0.2.100
check "... by the far end of veth2" \
	test "$(ip -n far2 -s -j link show veth3 | jq '.[0].stats64.rx.packets')" -gt "$rx"
check "rdmad recorded veth0's table and the sysctls it changed" \
	grep -qx "table $T0" "$STATE/veth0"
check "rdmactl plan: nothing pending" rdmactl --no-pager plan --exit-code

# converged: the second pass changes no rule or route (rtnetlink multicasts every change)
ip monitor rule route > "$VM_LOGDIR/monitor.log" 2>&1 &
MON=$!
sleep 0.3
rc=0
rdmad --once -v > "$VM_LOGDIR/again.log" 2>&1 || rc=$?
sleep 0.3
kill "$MON"
wait "$MON" 2> /dev/null
is "a second --once converges (exit 0)" "$rc" 0
# (the kernel's own route events, such as an IPv6 link-local address's, are not rdmad's)
is "... with no rule or route change on the wire" \
	"$(grep -cE '^(Deleted )?32000:|proto 211|table 100[0-9][0-9] ' "$VM_LOGDIR/monitor.log")" 0 ||
	diag "$(cat "$VM_LOGDIR/monitor.log")"
check "... and no rail-routing change logged" sh -c "! grep -q 'rail-routing.* -> ' $VM_LOGDIR/again.log"

# the running daemon: an address added later gets its rule (address events trigger reconciles)
rdmad -v > "$VM_LOGDIR/rdmad.log" 2>&1 &
RDMAD=$!
check "rdmad starts and reports the links converged" \
	wait_until 20 grep -q 'rxe1/1: converged' "$VM_LOGDIR/rdmad.log"
ip addr add 192.0.2.12/24 dev veth2
rule_present() { ip -4 rule show priority 32000 | grep -qx "32000:	from $1 lookup $2"; }
check "an address added later gets its rule" wait_until 20 rule_present 192.0.2.12 "$T2"
check "ip route get 192.0.2.100 from 192.0.2.12 leaves by veth2" \
	grep -q "dev veth2" <<< "$(ip route get 192.0.2.100 from 192.0.2.12)"
kill "$RDMAD"
wait "$RDMAD" 2> /dev/null

# someone else's rule at rdmad's priority, and a route of theirs in rdmad's table, stay
ip rule add from 192.0.2.77 lookup 4242 priority 32000
ip route add 198.51.100.0/24 dev veth0 table "$T0"
rm "$CONF/60-rail-routing.yaml"
rc=0
rdmad --once -v > "$VM_LOGDIR/removed.log" 2>&1 || rc=$?
is "the key removed: --once converges (exit 0)" "$rc" 0 || diag "$(cat "$VM_LOGDIR/removed.log")"
is "only someone else's rule is left at priority 32000" \
	"$(ip rule show priority 32000)" "32000:	from 192.0.2.77 lookup 4242"
is "no route of rdmad's is left" "$(ip route show table all proto 211)" ""
is "the administrator's route in table $T0 stays" \
	"$(ip route show table "$T0")" "198.51.100.0/24 dev veth0 scope link "
for nd in veth0 veth2; do
	is "$nd: sysctls put back" \
		"$(cat /proc/sys/net/ipv4/conf/$nd/{arp_ignore,arp_announce,rp_filter} | xargs)" \
		"${before[$nd.arp_ignore]} ${before[$nd.arp_announce]} ${before[$nd.rp_filter]}"
done
check "the records are gone" test -z "$(ls -A "$STATE" 2> /dev/null)"
check "ip route get 192.0.2.100 from 192.0.2.2: the main table again" \
	grep -q "192.0.2.100" <<< "$(ip route get 192.0.2.100 from 192.0.2.2)"
rc=0
rdmad --once -v > "$VM_LOGDIR/after.log" 2>&1 || rc=$?
is "... and a pass after that has nothing to do" "$(grep -c 'rail-routing' "$VM_LOGDIR/after.log")" 0
done_testing
