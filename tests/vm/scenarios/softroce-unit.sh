#!/bin/bash
# softroce-unit.sh (full VM: run-vm.sh --full) - Soft-RoCE as a user has it: rdmad installed
# with `meson install`, started by systemd with the shipped unit and its sandbox, loads
# rdma_rxe itself (nothing loaded it before) and creates rxe0 and rxe1 from a profile. Then
# RDMA traffic between those two links, through the RDMA CM:
#   - two subnets (veth0 192.0.2.1/24, veth1 198.51.100.1/24): `rdmactl selftest rxe1/1
#     rxe0/1` first fails at step "route" and prints the policy routing to apply; with it
#     applied, it passes, both ways;
#   - one subnet (veth1 moved to 192.0.2.2/24): rping and `ib_write_bw -R` pass.
# The kernel charges a Soft-RoCE link's sockets (its GSI QP's, which carries the CM) to the
# cgroup that sent the NEWLINK; rdmad.service's IPAddressDeny=any drops what they send.
# rdmad sends it from a scope of its own (daemon/scope-newlink.c). To show what that avoids,
# rxe2 is made from a unit with IPAddressDeny=any: its send_err grows, `rdmactl selftest`
# from it to a silent peer returns by itself at step "connect" naming the send errors (the time
# it took, bound to --timeout + 2 s, is printed; the kernel's CM id stays stuck behind it, so
# this part comes last), and preflight has a fail row for it.
#   RDMAD_BUILD_DIR  the meson build directory to install from
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
check "rdma_rxe is not loaded before rdmad starts" test ! -e /sys/module/rdma_rxe
meson_install_rdmad
systemctl daemon-reload
check "the unit as installed still denies IP (IPAddressDeny=any)" \
	sh -c "systemctl show -P IPAddressDeny rdmad.service | grep -Eq '0.0.0.0/0|any'"

# The administrator's netdevs; rdmad does the rest.
veth_pair veth0 veth1 || bail "cannot create veth pair"
mkdir -p /etc/rdmad
cat > /etc/rdmad/60-soft-roce.yaml << 'YAML'
links:
  - {name: rxe0, type: rxe, netdev: veth0}
  - {name: rxe1, type: rxe, netdev: veth1}
---
match: {device: rxe0}
modules: [rdma_ucm]
netdev: {up: true, addresses: [192.0.2.1/24]}
gids: {require: [roce-v2-ipv4]}
---
match: {device: rxe1}
modules: [rdma_ucm]
netdev: {up: true, addresses: [198.51.100.1/24]}
gids: {require: [roce-v2-ipv4]}
YAML
check "systemctl start rdmad" timeout 120 systemctl start rdmad
check "rdmactl wait-online: both links converged with their IPv4 GIDs" \
	logged "$VM_LOGDIR/wait-online.txt" rdmactl wait-online --timeout 120
check "rdmad loaded rdma_rxe" test -e /sys/module/rdma_rxe
is "rdmad created rxe0 on veth0 and rxe1 on veth1" \
	"$(rdma link show | awk '{print $2, $NF}' | sort | tr '\n' ' ')" "rxe0/1 veth0 rxe1/1 veth1 "
check "... and recorded them as its own" \
	sh -c "test -e /run/rdmad/state/links/rxe0 && test -e /run/rdmad/state/links/rxe1"
check "systemd's journal: each NEWLINK went from a scope of its own" \
	wait_until 20 sh -c "journalctl -q -o cat _PID=1 | grep -q 'rdmad: add RDMA link rxe0 (rxe on veth0)' &&
		journalctl -q -o cat _PID=1 | grep -q 'rdmad: add RDMA link rxe1 (rxe on veth1)'"
diag "rdmad's scopes: $(journalctl -q -o cat _PID=1 | grep 'rdmad: add RDMA link' | tr '\n' ';')"

st() { # st NAME ARGS...: rdmactl selftest --json ARGS into $VM_LOGDIR/NAME.json; its exit status
	local name=$1
	shift
	timeout -k 5 120 rdmactl selftest --json --iters 50 --size 4096 "$@" \
		> "$VM_LOGDIR/$name.json" 2> "$VM_LOGDIR/$name.err"
}
j() { jq -r "$2" "$VM_LOGDIR/$1.json" 2> /dev/null; }

# ---- two subnets, the policy routing selftest prints -----------------------------------------
rc=0
st two-subnets-lo rxe1/1 rxe0/1 || rc=$?
is "selftest rxe1/1 rxe0/1 without routing: exit 1 at step route" \
	"$rc $(j two-subnets-lo '.result + " " + .step')" "1 fail route"
fix=$(j two-subnets-lo .hint | sed -n 's/^Route each address over the wire with policy routing: \(.*\) (rdmactl(1), selftest)$/\1/p')
diag "selftest's fix: $fix"
check "... its hint gives the commands" test -n "$fix"
check "the hint's commands, applied as printed" logged "$VM_LOGDIR/fix.log" bash -c "$fix"
start=$(date +%s)
rc=0
st two-subnets rxe1/1 rxe0/1 || rc=$?
is "selftest rxe1/1 rxe0/1 on rdmad's links, two subnets: pass" \
	"$rc $(j two-subnets '.result + " " + (.step | tostring)')" "0 pass null" ||
	diag "$(cat "$VM_LOGDIR/two-subnets.json" "$VM_LOGDIR/two-subnets.err")"
diag "two-subnets: $(($(date +%s) - start)) s, $(jq -c '{setup_usec, latency_usec, bandwidth_bps}' "$VM_LOGDIR/two-subnets.json")"
rc=0
st two-subnets-back rxe0/1 rxe1/1 || rc=$?
is "selftest rxe0/1 rxe1/1 (the other way): pass" \
	"$rc $(j two-subnets-back '.result + " " + (.step | tostring)')" "0 pass null"

# ---- one subnet: rping and ib_write_bw over the RDMA CM -----------------------------------------
sed -i 's|198.51.100.1/24|192.0.2.2/24|' /etc/rdmad/60-soft-roce.yaml
check "rxe1 moved to 192.0.2.2/24: systemctl reload rdmad" timeout 60 systemctl reload rdmad
ip addr del 198.51.100.1/24 dev veth1 2> /dev/null
ip route flush table 100
ip route add 192.0.2.1/32 dev veth1 src 192.0.2.2 table 100
ip route add 192.0.2.2/32 dev veth0 src 192.0.2.1 table 100
check "rxe1 has the RoCE v2 GID of 192.0.2.2" \
	wait_until 20 has_gid rxe1 1 "$(gid_of_ipv4 192.0.2.2)"
timeout 60 rping -s -a 192.0.2.1 -p 18600 -C 20 -v > "$VM_LOGDIR/rping-server.log" 2>&1 &
srv=$!
wait_until 20 sh -c "rdma resource show cm_id 2> /dev/null | grep -q 'src-addr 192.0.2.1:18600'" ||
	diag "rping's server does not listen (rdma resource show cm_id)"
timeout 60 rping -c -a 192.0.2.1 -I 192.0.2.2 -p 18600 -C 20 -v > "$VM_LOGDIR/rping-client.log" 2>&1
rc=0
wait "$srv" || rc=$?
# exit statuses say nothing about the traffic (lib.sh, rping_answered); the pings do
is "rping -c rxe1 (192.0.2.2) -> rxe0 (192.0.2.1): 20 pings answered" \
	"$(rping_answered "$VM_LOGDIR/rping-client.log")" 20
is "... rping's server side served 20 pings" "$(rping_served "$VM_LOGDIR/rping-server.log")" 20
[ "$rc" = 0 ] || diag "rping's server exited $rc: $(grep -v 'ping data' "$VM_LOGDIR/rping-server.log" | tr '\n' ' ')"
timeout 60 ib_write_bw -F -d rxe0 -R -n 200 -p 18601 > "$VM_LOGDIR/bw-server.log" 2>&1 &
srv=$!
wait_until 20 sh -c "rdma resource show cm_id 2> /dev/null | grep -q 'src-addr [0-9.]*:18601 '" ||
	diag "ib_write_bw's server does not listen (rdma resource show cm_id)"
timeout 60 ib_write_bw -F -d rxe1 -R -n 200 -p 18601 192.0.2.1 > "$VM_LOGDIR/bw-client.log" 2>&1
check "ib_write_bw -R (rdma_cm) rxe1 -> rxe0: 200 writes" bw_completed "$VM_LOGDIR/bw-client.log" 200
wait "$srv" || diag "ib_write_bw's server exited $?"
diag "ib_write_bw: $(grep -A1 'BW average' "$VM_LOGDIR/bw-client.log" | tail -1)"
rc=0
st one-subnet rxe1/1 rxe0/1 || rc=$?
is "selftest rxe1/1 rxe0/1, one subnet: pass" \
	"$rc $(j one-subnet '.result + " " + (.step | tostring)')" "0 pass null"
counters() { rdmactl counters "$1" | awk -v c="hw_counters/$2" '$3 == c { print $4 }'; }
is "rxe0 and rxe1 counted no send error" "$(counters rxe0/1 send_err) $(counters rxe1/1 send_err)" "0 0"
check "preflight: no fail row (rdmactl preflight)" \
	logged "$VM_LOGDIR/preflight-ok.txt" rdmactl preflight

# ---- what rdmad avoids: a link made from a cgroup that denies IP --------------------------------
# The silent peer: 203.0.113.2 in a namespace of its own, with no RDMA device.
veth_pair veth2 veth3 || bail "cannot create a second veth pair"
ip netns add silent
ip link set veth3 netns silent
ip -n silent addr add 203.0.113.2/24 dev veth3
ip -n silent link set veth3 up
ip addr add 203.0.113.1/24 dev veth2
check "rxe2 on veth2 made from a unit with IPAddressDeny=any" \
	systemd-run --wait --quiet --collect -p IPAddressDeny=any rdma link add rxe2 type rxe netdev veth2
wait_until 20 has_gid rxe2 1 "$(gid_of_ipv4 203.0.113.1)" || diag "rxe2 has no IPv4 GID"
# rdmactl must return on its own: the kernel holds the test's CM id for as long as the REQ's
# send never completes (cm_destroy_id_wait_timeout), and the old rdmactl waited in
# rdma_destroy_id() until SIGKILL. The guard below is 6 times --timeout: rdmactl's own exit
# status proves it returned by itself; how long it took (its bound is --timeout + 2 s after
# the last progress, here the route resolved) is a figure for the log, not a verdict, since
# TCG's speed here depends on the host's load.
start=$(date +%s%N)
rc=0
timeout -k 5 30 rdmactl selftest --json --timeout 5 rxe2/1 203.0.113.2:7472 \
	> "$VM_LOGDIR/filtered.json" 2> "$VM_LOGDIR/filtered.err" || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
diag "selftest --timeout 5 from rxe2 to a silent peer: rc $rc after $ms ms (bound 7000 ms after the route): $(cat "$VM_LOGDIR/filtered.json")"
diag "... its test process left to the kernel: $(pgrep -c -f 'rdmactl selftest --json --timeout 5 rxe2/1' || echo 0) still held; cm_destroy_id_wait_timeout in dmesg: $(dmesg | grep -c cm_destroy_id_wait_timeout)"
is "... returned by itself (not the guard): exit 1, failed at step connect" "$rc $(j filtered '.result + " " + .step')" "1 fail connect"
check "... names the send errors of rxe2 and the likely cause" \
	sh -c "jq -e '.hint | test(\"send_err\") and test(\"IPAddressDeny\")' $VM_LOGDIR/filtered.json > /dev/null"
check "rxe2's send_err grows (the kernel drops its CM packets)" \
	sh -c "[ \"\$(cat /sys/class/infiniband/rxe2/ports/1/hw_counters/send_err)\" -gt 0 ]"
rc=0
rdmactl preflight --json > "$VM_LOGDIR/preflight.json" 2> "$VM_LOGDIR/preflight.err" || rc=$?
is "rdmactl preflight: exit 1" "$rc" 1
check "... a fail row for rxe2's failing sends that names the filtered socket" \
	sh -c "jq -e '[.[] | select(.subject == \"rxe2/1\" and .status == \"fail\" and
		(.seen | test(\"send_err\")) and (.fix | test(\"IPAddressDeny\")))] | length == 1' \
		$VM_LOGDIR/preflight.json > /dev/null"
check "... and none for rxe0 or rxe1" \
	sh -c "jq -e '[.[] | select((.subject == \"rxe0/1\" or .subject == \"rxe1/1\") and .status == \"fail\")] | length == 0' \
		$VM_LOGDIR/preflight.json > /dev/null"
ip netns del silent
done_testing
