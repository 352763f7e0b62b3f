#!/bin/bash
# dcb.sh (light VM, run-vm.sh --dcbsim) - DCB through the kernel's real dcbnl code, on dcbsim
# (tests/vm/dcbsim: a netdev whose IEEE dcbnl ops store what they are given).
# First the kernel facts rdmad's DCB code relies on, with iproute2's dcb and dcbmon (the
# RTNLGRP_DCB listener, also a raw SET that shows the reply's error byte); then rdmad: it sets
# PFC, ETS, the DSCP map and trust and maxrate from a profile, `dcb ... show` reads back
# exactly the declared values, a second pass sends no DCB SET at all, a change by hand is put
# back, an injected driver failure is reported and retried, a port an LLDP agent owns is left
# alone unless qos.owner: rdmad, trust pcp/dscp without apptrust rewrites the DSCP app table,
# the DCBX mode, PFC delay, port buffers and global pause are set, read back through dcbnl and
# ethtool netlink and counted per object, the switch at the far end of a wire dcbsim0 is cabled to
# disagrees with the host in LLDP and rdmad and rdmactl say where (issue 44), and an rxe link on
# dcbsim0 carries ib_write_bw.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

DEV=dcbsim0
PARAMS=/sys/module/dcbsim/parameters
KO=/lib/modules/$(uname -r)/extra/dcbsim.ko

for b in dcb dcbmon rdmad rdmactl udevadm; do
	command -v "$b" > /dev/null || bail "no $b on PATH (run-vm.sh --bin, build-initramfs.sh)"
done
[ -f "$KO" ] || bail "no $KO: run-vm.sh --dcbsim"

uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; } # busybox date has no %N

# dcbmon in the background: monitor_start NAME ... monitor_stop; its log is $MON_LOG
monitor_start() {
	MON_LOG=$VM_LOGDIR/dcbmon-$1.log
	dcbmon "$DEV" > "$MON_LOG" 2>&1 &
	MON_PID=$!
	wait_until 20 grep -q '^dcbmon: listening' "$MON_LOG" || bail "dcbmon did not start: $(cat "$MON_LOG")"
}
monitor_stop() { # the kernel queued the notifications before the SET returned: dcbmon drains
	kill -TERM "$MON_PID"
	wait "$MON_PID"
}
monitor_count() { sed -n 's/^dcbmon: \([0-9]*\) messages$/\1/p' "$MON_LOG"; }

# `dcb ... show` without the trailing blank iproute2 6.1 prints
show() { dcb "$@" | sed 's/ *$//'; }
pfc_show() { show pfc show dev "$DEV" prio-pfc; }
app_show() { show -N app show dev "$DEV" dscp-prio; }

# ---- kernel facts: dcbsim and iproute2's dcb, no rdmad ----------------------------------------
check "insmod dcbsim.ko" insmod "$KO" trace=1
check "dcbsim0 exists" test -e /sys/class/net/$DEV
check "dcbsim0 comes up" ip link set "$DEV" up
is "DCBX mode: host-managed IEEE" "$(show dcbx show dev "$DEV")" "host ieee"
is "PFC starts all off" "$(pfc_show)" "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off"

monitor_start facts
check "dcb pfc set prio-pfc 3:on" dcb pfc set dev "$DEV" prio-pfc 3:on
is "dcb pfc show reads it back" "$(pfc_show)" \
	"prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
is "dcbsim's setpfc was called once" "$(attr $PARAMS/calls_setpfc)" 1
check "dcb app add dscp-prio 26:3" dcb app add dev "$DEV" dscp-prio 26:3
is "dcb app show reads it back" "$(app_show)" "dscp-prio 26:3"
fails_with "the same entry again fails (dcb_ieee_setapp: EEXIST)" "File exists" \
	dcb app add dev "$DEV" dscp-prio 26:3
is "... and the table still has it once" "$(app_show)" "dscp-prio 26:3"
check "dcb app del dscp-prio 26:3" dcb app del dev "$DEV" dscp-prio 26:3
is "the app table is empty again" "$(app_show)" ""
monitor_stop
diag "$(cat "$MON_LOG")"
check "the PFC SET is multicast on RTNLGRP_DCB with the whole IEEE state" \
	grep -q "^RTM_SETDCB IEEE_SET dev=$DEV ets{.*} maxrate{.*} pfc{cap=8 en=0x08 .*} apps{ }" "$MON_LOG"
check "the app DEL too" grep -q "^RTM_SETDCB IEEE_DEL dev=$DEV .*apps{ }" "$MON_LOG"
is "one notification per SET/DEL, failed ones included (4)" "$(monitor_count)" 4

# struct ieee_maxrate is in kbit/s (linux/dcbnl.h, mlx5); iproute2 6.1's dcb passes bytes/s
# instead (newer iproute2 divides by 125, as its dcb_maxrate.c says): 25Gbit is stored as
# 3125000000, 125 times the UAPI value. So `dcb maxrate show` misreads what rdmad writes; its -j output
# is the raw u64, and that is what rdmad's values are checked against below.
# The verdict is what dcbnl reads back, not dcb's exit status: iproute2 6.1's dcb now and then
# exits 1 with the value stored ("Attribute write: Protocol error" once on 6.12, and once on 6.1
# without a word): it perror()s whatever errno holds when the reply's callback stops it
# (fixed upstream later: "if (errno) perror"). Its status and words are diagnostics.
maxrate_set() { # maxrate_set NAME VALUE: dcb maxrate set, its status and stderr as a diag
	dcb maxrate set dev "$DEV" tc-maxrate "$2" > "$VM_LOGDIR/dcb-maxrate-$1.log" 2>&1 ||
		diag "dcb maxrate set tc-maxrate $2 exited $?: $(cat "$VM_LOGDIR/dcb-maxrate-$1.log")"
}
maxrate_set 25g 3:25Gbit
is "dcb maxrate set 3:25Gbit: iproute2 6.1 stores 3125000000 (bytes/s, not the UAPI's kbit/s)" \
	"$(dcb -j maxrate show dev "$DEV" | jq -c .tc_maxrate)" "[0,0,0,3125000000,0,0,0,0]"
maxrate_set all0 all:0
is "dcb maxrate set all:0: all zero again" \
	"$(dcb -j maxrate show dev "$DEV" | jq -c .tc_maxrate)" "[0,0,0,0,0,0,0,0]"

# The driver's error is a signed byte in the reply's DCB_ATTR_IEEE; the ACK says 0.
write $PARAMS/fail_setpfc 22
is "fail_setpfc=22: the reply carries -EINVAL, the ACK 0" \
	"$(dcbmon --set-pfc "$DEV" 0x20)" "reply-error=-22 ack-error=0"
check "iproute2 6.1's dcb pfc set does not see the failure (exit 0)" \
	dcb pfc set dev "$DEV" prio-pfc 5:on
write $PARAMS/fail_setpfc 0
is "PFC unchanged after the failed SETs" "$(pfc_show)" \
	"prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
is "without the fault: reply 0, ACK 0" "$(dcbmon --set-pfc "$DEV" 0x00)" "reply-error=0 ack-error=0"
is "PFC all off again" "$(pfc_show)" "prio-pfc 0:off 1:off 2:off 3:off 4:off 5:off 6:off 7:off"

# ---- rdmad ---------------------------------------------------------------------------------
LOG=$VM_LOGDIR/rdmad.log
CONF=/etc/rdmad
calls_total() { cat $PARAMS/calls_set* $PARAMS/calls_delapp | awk '{ n += $1 } END { print n }'; }

# udevd with no rules relays the kernel's uevents to rdmad's sd-device monitor (daemon.sh)
udevd_start

# A Soft-RoCE link over dcbsim0, which rdmad creates itself, with the qos: block given
profile() { # profile QOS-LINES (indented by two)
	mkdir -p "$CONF"
	cat > "$CONF/50-dcb.yaml" <<- YAML
		links:
		  - {name: rxe0, type: rxe, netdev: dcbsim0}
		---
		match: {device: rxe0}
		modules: [rdma_ucm]
		netdev:
		  up: true
		  addresses: [192.0.2.1/24]
		gids:
		  require: [roce-v2-ipv4]
		qos:
	YAML
	echo "$1" >> "$CONF/50-dcb.yaml"
}

# The lossless-RoCE recipe
RECIPE="  trust: dscp
  dscp-map: {26: 3, 34: 5, 48: 6}
  ets:
    prio-tc: [0, 0, 0, 3, 0, 0, 6, 0]
    tc-bw:   [40, 0, 0, 60, 0, 0, 0, 0]
    tsa:     [ets, strict, strict, ets, strict, strict, strict, strict]
  maxrate: [0, 0, 0, 25Gbit, 0, 0, 1Gbit, 0]"
profile "$RECIPE
  pfc: [3]"
WANT_PFC="prio-pfc 0:off 1:off 2:off 3:on 4:off 5:off 6:off 7:off"
WANT_PRIO_TC="prio-tc 0:0 1:0 2:0 3:3 4:0 5:0 6:6 7:0"
WANT_TC_BW="tc-bw 0:40 1:0 2:0 3:60 4:0 5:0 6:0 7:0"
WANT_TSA="tc-tsa 0:ets 1:strict 2:strict 3:ets 4:strict 5:strict 6:strict 7:strict"
WANT_MAXRATE="[0,0,0,25000000,0,0,1000000,0]" # kbit/s, raw: see the iproute2 6.1 fact above
WANT_APP="dscp-prio 26:3 34:5 48:6"           # the map is the whole table (34>>3 would be 4)

monitor_start once
rc=0
rdmad --once -v > "$VM_LOGDIR/once.log" 2>&1 || rc=$?
monitor_stop
diag "$(cat "$VM_LOGDIR/once.log")"
is "rdmad --once exits 0" "$rc" 0
check "... with rxe0/1 converged, its DCB settings applied" grep -q 'rxe0/1: converged' "$VM_LOGDIR/once.log"
check "rdmad created rxe0 on dcbsim0" wait_until 20 test -e /sys/class/infiniband/rxe0
is "rxe0 sits on dcbsim0" "$(attr /sys/class/infiniband/rxe0/parent)" "$DEV"
is "dcb pfc show: qos.pfc [3]" "$(pfc_show)" "$WANT_PFC"
is "dcb ets show prio-tc: qos.ets.prio-tc" "$(show ets show dev "$DEV" prio-tc)" "$WANT_PRIO_TC"
is "dcb ets show tc-bw: qos.ets.tc-bw" "$(show ets show dev "$DEV" tc-bw)" "$WANT_TC_BW"
is "dcb ets show tc-tsa: qos.ets.tsa" "$(show ets show dev "$DEV" tc-tsa)" "$WANT_TSA"
is "dcb -j maxrate show: qos.maxrate in kbit/s" \
	"$(dcb -j maxrate show dev "$DEV" | jq -c .tc_maxrate)" "$WANT_MAXRATE"
is "dcb app show: qos.dscp-map with trust dscp" "$(app_show)" "$WANT_APP"
diag "the first pass sent $(monitor_count) DCB SET/DEL messages"

calls=$(calls_total)
monitor_start again
rc=0
rdmad --once -v > "$VM_LOGDIR/once-again.log" 2>&1 || rc=$?
monitor_stop
is "a second rdmad --once exits 0" "$rc" 0
is "... and sends no DCB SET at all (dcbmon on RTNLGRP_DCB counts 0)" "$(monitor_count)" 0
is "... and dcbsim saw no set op" "$(calls_total)" "$calls"

# ---- the daemon: drift put back, a driver failure reported and retried -------------------------
# org.rdmad1 on a private system-like bus with the shipped policy: rdmactl status is where an
# administrator sees what rdmad sees.
private_bus_start
rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
check "rdmad starts and reports rxe0/1 converged" wait_until 20 grep -q 'rxe0/1: converged' "$LOG"
check "rdmactl status: rxe0/1 on dcbsim0 converged" \
	wait_until 20 sh -c "rdmactl status --no-pager | grep -Eq '^rxe0/1 +dcbsim0 .* converged\$'"
check "... its QoS settings converged, PFC as dcb(8) shows it" \
	sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^qos\.pfc +pfc-enabled 3 +pfc-enabled 3 +converged'"
check "... and the trust method used (no apptrust: the DSCP app entries of qos.dscp-map)" \
	sh -c "rdmactl status --no-pager rxe0/1 | grep -q '^qos\.trust .*dscp (DSCP app entries of qos\.dscp-map) .*converged'"

monitor_start drift
dcb pfc set dev "$DEV" prio-pfc 3:off
t0=$(uptime_ms)
if wait_until 20 sh -c "[ \"\$(dcb pfc show dev $DEV prio-pfc | sed 's/ *\$//')\" = '$WANT_PFC' ]"; then
	ms=$(($(uptime_ms) - t0))
	pass "dcb pfc set prio-pfc 3:off by hand is put back ($ms ms)"
	# a figure, not an assertion (the issue's target: within a second)
	diag "PFC drift put back in $ms ms"
else
	fail "dcb pfc set prio-pfc 3:off by hand is put back" "PFC: $(pfc_show)"
fi
monitor_stop
is "... with one PFC SET by hand and one by rdmad, nothing else" \
	"$(monitor_count) $(grep -c 'pfc{cap=8 en=0x00' "$MON_LOG") $(grep -c 'pfc{cap=8 en=0x08' "$MON_LOG")" "2 1 1"

# An injected driver failure: the profile asks for PFC on 3 and 4 (a reload) while dcbsim's
# setpfc fails with EINVAL. (A change by hand would fail the same way, so it cannot be the
# trigger.) rdmad must say so with the errno, keep the link failed and retry with backoff,
# and converge once the fault is gone.
WANT_PFC34="prio-pfc 0:off 1:off 2:off 3:on 4:on 5:off 6:off 7:off"
write $PARAMS/fail_setpfc 22
profile "$RECIPE
  pfc: [3, 4]"
kill -HUP "$RDMAD"
check "with fail_setpfc=22, rdmad logs the failed PFC SET with the errno" \
	wait_until 20 grep -q 'rxe0/1: failed to set qos.pfc .*Invalid argument' "$LOG"
check "... the link is failed" wait_until 20 grep -q 'rxe0/1: failed (attempt 1)' "$LOG"
check "... and retried with backoff (attempt 2)" wait_until 20 grep -q 'rxe0/1: failed (attempt 2)' "$LOG"
check "rdmactl status: rxe0/1 failed, qos.pfc failed with the driver's errno" \
	sh -c "rdmactl status --no-pager rxe0/1 > $VM_LOGDIR/status-failed.txt &&
		grep -q '^ *State: failed' $VM_LOGDIR/status-failed.txt &&
		grep -Eq '^qos\.pfc +pfc-enabled 3,4 +pfc-enabled 3 +failed +.*Invalid argument' $VM_LOGDIR/status-failed.txt"
diag "$(cat "$VM_LOGDIR/status-failed.txt")"
is "PFC is unchanged (the driver refused)" "$(pfc_show)" "$WANT_PFC"
converged_before=$(grep -c 'rxe0/1: converged' "$LOG")
write $PARAMS/fail_setpfc 0
check "with the fault cleared, a retry converges" \
	wait_until 20 sh -c "[ \$(grep -c 'rxe0/1: converged' $LOG) -gt $converged_before ]"
is "... and PFC reads back as declared: 3 and 4" "$(pfc_show)" "$WANT_PFC34"
check "rdmactl status: qos.pfc converged again" \
	sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^qos\.pfc +pfc-enabled 3,4 +pfc-enabled 3,4 +converged'"

# The kernel puts the GIDs of a VLAN's addresses into the RDMA port below it; the address event
# is on the VLAN. rdmad must look at that port again: creating the VLAN changes the lower
# netdev (an event rdmad follows), so the address comes once that has settled.
last_reconcile() {
	busctl get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LastReconcileUSec
}
reconciled_since() { [ "$(last_reconcile)" != "$1" ]; }
# the reconcile the VLAN's events start has ended: the address event comes after it
before=$(last_reconcile)
ip link add link "$DEV" name "$DEV.100" type vlan id 100 && ip link set "$DEV.100" up
wait_until 20 reconciled_since "$before" || diag "no reconcile after the VLAN was made"
ip addr add 198.51.100.1/24 dev "$DEV.100"
check "a VLAN's address: its GID appears in Link.Gids (rdmad re-reads the port below)" \
	wait_until 20 sh -c "busctl get-property org.rdmad1 /org/rdmad1/link/rxe0_2f1 org.rdmad1.Link Gids |
		grep -q '\"$DEV.100\" \"198.51.100.1\"'"
ip link del "$DEV.100"

# An LLDP agent (here a loop of dcb(8)) keeps turning PFC on 4 off: rdmad puts it back at most
# 3 times within 60 s (every PFC SET bounces an mlx5 link), then holds off and names the setting
# contested. (Who it was cannot be told: the kernel multicasts a dcbnl SET without the sender's
# netlink port.) A reload first: it forgets earlier writes, so the count starts from nothing.
loaded=$(grep -c 'Loaded' "$LOG")
kill -HUP "$RDMAD"
wait_until 20 sh -c "[ \$(grep -c Loaded $LOG) -gt $loaded ]"
monitor_start contest
# until rdmad holds off (50 s at most): judged by what rdmad did, not by how many reverts a fixed
# time allowed, which a loaded machine makes fewer
end=$(($(uptime_ms) + 50000))
while [ "$(uptime_ms)" -lt "$end" ] && ! grep -q 'qos.pfc reverted 3 times' "$LOG"; do
	[ "$(pfc_show)" = "$WANT_PFC34" ] && dcb pfc set dev "$DEV" prio-pfc 4:off
	sleep 0.1
done
monitor_stop
is "a fight over qos.pfc: rdmad sent 3 PFC SETs, then held off" \
	"$(grep -c 'pfc{cap=8 en=0x18' "$MON_LOG")" 3
check "... the journal says qos.pfc is contested" \
	grep -q 'rxe0/1: qos.pfc reverted 3 times within 60 s by another agent; holding off 10 s' "$LOG"
check "rdmactl status: qos.pfc contested, rxe0/1 degraded" \
	sh -c "rdmactl status --no-pager rxe0/1 > $VM_LOGDIR/status-contested.txt &&
		grep -q '^ *State: degraded' $VM_LOGDIR/status-contested.txt &&
		grep -Eq '^qos\.pfc +pfc-enabled 3,4 +pfc-enabled 3 +contested +reverted 3 times' $VM_LOGDIR/status-contested.txt"
diag "$(cat "$VM_LOGDIR/status-contested.txt")"
check "once the agent stopped, after the hold: PFC on 3 and 4 again" \
	wait_until 15 sh -c "[ \"\$(dcb pfc show dev $DEV prio-pfc | sed 's/ *\$//')\" = '$WANT_PFC34' ]"
diag "$(grep -E 'rxe0/1: (failed|converged)|qos.pfc' "$LOG")"
check "rdmad is still running" kill -0 "$RDMAD"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
unset DBUS_SYSTEM_BUS_ADDRESS

# ---- an LLDP agent owns the port: rdmad says so instead of fighting it (qos.owner) ---------------
once() { # once NAME: rdmad --once under dcbmon; sets rc, the log is $VM_LOGDIR/NAME.log
	monitor_start "$1"
	rc=0
	rdmad --once -v > "$VM_LOGDIR/$1.log" 2>&1 || rc=$?
	monitor_stop
}
check "dcb dcbx set lld-managed ieee (a NIC's own LLDP agent)" dcb dcbx set dev "$DEV" lld-managed ieee
profile "$RECIPE
  pfc: [3]"
once lld-managed
is "rdmad --once leaves the port alone: exit 0" "$rc" 0
check "... rxe0/1 degraded (a setting not applied)" grep -q 'rxe0/1: degraded' "$VM_LOGDIR/lld-managed.log"
is "... no DCB SET" "$(monitor_count)" 0
is "... PFC stays 3 and 4" "$(pfc_show)" "$WANT_PFC34"
rdmactl plan > "$VM_LOGDIR/plan-lld.txt" 2>&1
diag "$(cat "$VM_LOGDIR/plan-lld.txt")"
check "rdmactl plan: qos.pfc not applied, naming the LLDP agent and qos.owner" \
	grep -q "rxe0/1 .*qos.pfc .*DCBX is managed by the NIC's LLDP agent (dcbx lld-managed); qos.owner: rdmad overrides" \
	"$VM_LOGDIR/plan-lld.txt"
profile "$RECIPE
  pfc: [3]
  owner: rdmad"
once owner-rdmad
is "with qos.owner: rdmad, rdmad --once converges" "$rc" 0
is "... and PFC is 3 only" "$(pfc_show)" "$WANT_PFC"
is "... in one DCB SET" "$(monitor_count)" 1
check "dcb dcbx set host ieee" dcb dcbx set dev "$DEV" host ieee

check "dcb ets set willing on (lldpad: take DCB from the peer)" dcb ets set dev "$DEV" willing on
profile "$RECIPE
  pfc: [3, 4]"
once willing
is "an ETS willing port is left alone too: no DCB SET" "$(monitor_count)" 0
check "... rdmactl plan says why" sh -c "rdmactl plan | grep -q 'rxe0/1 .*qos.pfc .*ETS is willing: an LLDP agent (lldpad)'"
check "dcb ets set willing off" dcb ets set dev "$DEV" willing off

# ---- trust without apptrust (Linux 6.1): the DSCP app entries are the trust state ------------------
profile "  trust: pcp"
once trust-pcp
is "trust: pcp (no map) converges" "$rc" 0
is "... by removing every DSCP app entry" "$(app_show)" ""
is "... in one DCB DEL" "$(monitor_count)" 1
profile "  trust: dscp"
once trust-dscp
is "trust: dscp (no map) converges" "$rc" 0
want=$(for d in $(seq 0 63); do printf ' %d:%d' "$d" $((d >> 3)); done)
is "... with dscp>>3 for all 64 DSCP values, as mlnx_qos does" "$(app_show)" "dscp-prio$want"
is "... in one DCB SET" "$(monitor_count)" 1
once trust-dscp-again
is "... and a second pass sends nothing" "$(monitor_count) $rc" "0 0"

# ---- a netdev without dcbnl (veth, like a VF): QoS is unsupported there, not a failure ------
veth_pair veth0 veth1 || bail "cannot create veth pair"
cat > "$CONF/60-veth.yaml" << 'YAML'
links:
  - {name: rxe1, type: rxe, netdev: veth0}
---
match: {device: rxe1}
qos:
  pfc: [3]
YAML
once veth
is "rdmad --once with QoS declared on veth0 exits 0" "$rc" 0
check "... rxe1/1 is degraded, not failed" grep -q 'rxe1/1: degraded' "$VM_LOGDIR/veth.log"
check "... rdmactl plan: qos.pfc not applied, with dcbnl's errno" \
	sh -c "rdmactl plan | grep -q 'rxe1/1 .*qos.pfc .*no DCB (dcbnl) on veth0: Operation not supported'"
rm "$CONF/60-veth.yaml"

# ---- the rest of lossless RoCE: DCBX mode, PFC delay, port buffers, global pause --------------
# Each object read back through the kernel itself (dcbmon --get: one dcbnl IEEE_GET; ethtool -a:
# ethtool netlink's PAUSE_GET), and dcbsim's op counters say how often each object was written.
calls() { # calls OP...: dcbsim's calls_OP, space-separated
	local out="" op
	for op in "$@"; do out="$out${out:+ }$(cat $PARAMS/calls_$op)"; done
	echo "$out"
}
since() { # since "BEFORE" "AFTER": the per-op differences
	local -a b=($1) a=($2)
	local out="" i
	for i in "${!a[@]}"; do out="$out${out:+ }$((a[i] - b[i]))"; done
	echo "$out"
}
get_state() { dcbmon --get "$DEV"; }
pause_show() { ethtool -a "$DEV" | awk -F: '/^(Autonegotiate|RX|TX):/ { gsub(/[ \t]/, "", $2); printf "%s%s=%s", n++ ? " " : "", $1, $2 } END { print "" }'; }
lossless_profile() { # lossless_profile DELAY SIZE1: the whole recipe on rxe0's dcbsim0
	mkdir -p "$CONF"
	cat > "$CONF/50-dcb.yaml" <<- YAML
		links:
		  - {name: rxe0, type: rxe, netdev: dcbsim0}
		---
		match: {device: rxe0}
		modules: [rdma_ucm]
		netdev:
		  up: true
		  addresses: [192.0.2.1/24]
		  pause: {autoneg: false, rx: false, tx: false}
		gids:
		  require: [roce-v2-ipv4]
		qos:
		  dcbx: [host, ieee]
		  trust: dscp
		  dscp-map: {26: 3, 48: 6}
		  pfc: [3]
		  pfc-delay: $1
		  buffer:
		    prio-buffer: [0, 0, 0, 1, 0, 0, 0, 0]
		    size: [262144, $2, 0, 0, 0, 0, 0, 0]
	YAML
}
OPS="setdcbx setpfc setbuffer setpause setets setmaxrate setapp delapp"

is "ethtool -a: dcbsim0 starts with global pause on (rx, tx)" "$(pause_show)" \
	"Autonegotiate=off RX=on TX=on"
check "dcb dcbx set lld-managed cee (the NIC's agent, CEE)" dcb dcbx set dev "$DEV" lld-managed cee
check "dcb pfc set prio-pfc all:off" dcb pfc set dev "$DEV" prio-pfc all:off
lossless_profile 7 131072
# A driver that will not give the port to the host (ice or bnxt while their firmware agent
# runs answer SDCBX with 1): qos.dcbx fails, and the other DCB objects are left to the agent.
write $PARAMS/fail_setdcbx 22
before=$(calls $OPS)
once dcbx-refused
write $PARAMS/fail_setdcbx 0
is "setdcbx refused: rdmad --once exits 2; one DCBX attempt and the pause write, no other DCB write" \
	"$rc $(since "$before" "$(calls $OPS)")" "2 1 0 0 1 0 0 0 0"
check "... qos.dcbx failed, saying the driver refused the mode" \
	grep -q 'rxe0/1: failed to set qos.dcbx to host ieee .*the driver refused DCBX mode host ieee' \
	"$VM_LOGDIR/dcbx-refused.log"
check "... qos.pfc not applied: the NIC's agent still manages DCB" \
	grep -q "rxe0/1: qos.pfc not applied: dcbsim0: DCBX is still managed by the NIC's LLDP agent" \
	"$VM_LOGDIR/dcbx-refused.log"
check "ethtool -A dcbsim0 rx on tx on (pause as it was)" ethtool -A "$DEV" rx on tx on
rdmactl plan > "$VM_LOGDIR/plan-lossless.txt" 2>&1
diag "$(cat "$VM_LOGDIR/plan-lossless.txt")"
check "rdmactl plan: qos.dcbx lld-managed cee -> host ieee, then PFC, delay and buffer as changes" \
	sh -c "grep -Eq '^rxe0/1 +qos\.dcbx +lld-managed cee +host ieee ' $VM_LOGDIR/plan-lossless.txt &&
		grep -Eq '^rxe0/1 +qos\.pfc-delay +delay 0 +delay 7 ' $VM_LOGDIR/plan-lossless.txt &&
		grep -Eq '^rxe0/1 +qos\.buffer\.size +buffer-size 0:0 .* +buffer-size 0:262144 1:131072 ' $VM_LOGDIR/plan-lossless.txt &&
		grep -Eq '^rxe0/1 +netdev\.pause\.rx +on +off ' $VM_LOGDIR/plan-lossless.txt"
before=$(calls $OPS)
once lossless
after=$(calls $OPS)
is "the whole recipe from a port the NIC's agent had: rdmad --once exits 0" "$rc" 0
check "... rxe0/1 converged" grep -q 'rxe0/1: converged' "$VM_LOGDIR/lossless.log"
state=$(get_state)
diag "IEEE_GET: $state"
check "IEEE_GET: DCBX host ieee (0x09)" sh -c "echo '$state' | grep -q ' dcbx=0x09'"
check "IEEE_GET: PFC on 3 with delay 7" sh -c "echo '$state' | grep -q ' pfc{cap=8 en=0x08 delay=7}'"
check "IEEE_GET: priority 3 in buffer 1, buffers 256 KiB and 128 KiB" \
	sh -c "echo '$state' | grep -q ' buffer{total=0 prio2buffer=0,0,0,1,0,0,0,0 size=262144,131072,0,0,0,0,0,0}'"
is "ethtool -a: global pause off" "$(pause_show)" "Autonegotiate=off RX=off TX=off"
writes=$(since "$before" "$after")
diag "writes per object (dcbx pfc buffer pause ets maxrate app-add app-del): $writes"
is "one write per object: DCBX, PFC with its delay, buffer, pause (writes of setdcbx setpfc setbuffer setpause setets setmaxrate setapp delapp: $writes)" \
	"$(echo "$writes" | cut -d' ' -f1-4)" "1 1 1 1"

before=$(calls $OPS)
once lossless-again
is "converged: a second rdmad --once writes nothing (every dcbsim op count unchanged)" \
	"$(since "$before" "$(calls $OPS)") $rc" "0 0 0 0 0 0 0 0 0"
is "... and no DCB SET on RTNLGRP_DCB" "$(monitor_count)" 0

lossless_profile 10 131072
before=$(calls $OPS)
once delay-10
is "qos.pfc-delay 7 -> 10: only the PFC object is written, once" \
	"$(since "$before" "$(calls $OPS)") $rc" "0 1 0 0 0 0 0 0 0"
check "... IEEE_GET: delay 10, PFC still on 3" sh -c "dcbmon --get $DEV | grep -q ' pfc{cap=8 en=0x08 delay=10}'"

lossless_profile 10 65536
before=$(calls $OPS)
once buffer-64k
is "qos.buffer.size of buffer 1 -> 64 KiB: only the buffer object is written, once" \
	"$(since "$before" "$(calls $OPS)") $rc" "0 0 1 0 0 0 0 0 0"
check "... IEEE_GET: the new size, the priority map kept" \
	sh -c "dcbmon --get $DEV | grep -q ' buffer{total=0 prio2buffer=0,0,0,1,0,0,0,0 size=262144,65536,'"

check "ethtool -A dcbsim0 rx on tx on (by hand)" ethtool -A "$DEV" rx on tx on
rdmactl preflight rxe0/1 > "$VM_LOGDIR/preflight-pause.txt" 2>&1
diag "$(grep -E 'netdev.pause|qos.pfc' "$VM_LOGDIR/preflight-pause.txt")"
check "rdmactl preflight warns: global pause on with PFC on priority 3, naming the fix" \
	grep -Eq "^warn +netdev\.pause +rxe0/1 +global pause is on on dcbsim0 \(rx on, tx on\) while PFC is on for priorities \[3\]" \
	"$VM_LOGDIR/preflight-pause.txt"
write $PARAMS/fail_setpause 22
once pause-refused
check "with fail_setpause=22, rdmad logs the refused pause write with the errno" \
	grep -q 'rxe0/1: failed to set netdev.pause.rx .*ethtool -A rx off tx off: Invalid argument' \
	"$VM_LOGDIR/pause-refused.log"
is "... rdmad --once exits 2 (not converged), pause left as it was" "$rc $(pause_show)" \
	"2 Autonegotiate=off RX=on TX=on"
write $PARAMS/fail_setpause 0
once pause-back
is "without the fault, rdmad --once puts global pause back off" "$(pause_show) $rc" \
	"Autonegotiate=off RX=off TX=off 0"
check "... and rdmactl preflight says so: global pause off, PFC governs" \
	sh -c "rdmactl preflight rxe0/1 | grep -Eq '^ok +netdev\.pause +rxe0/1 +global pause is off on dcbsim0: PFC \(priorities \[3\]\) governs'"

# A netdev without pause parameters: veth (no get_pauseparam)
veth_pair veth2 veth3 || bail "cannot create veth pair"
cat > "$CONF/60-veth.yaml" << 'YAML'
links:
  - {name: rxe2, type: rxe, netdev: veth2}
---
match: {device: rxe2}
netdev:
  pause: {rx: false, tx: false}
YAML
once veth-pause
check "netdev.pause on a veth: unsupported, with the reason" \
	sh -c "rdmactl plan | grep -q 'rxe2/1 .*netdev.pause.rx .*veth2 has no pause parameters (the driver has no get_pauseparam)'"
check "... rxe2/1 degraded, not failed" grep -q 'rxe2/1: degraded' "$VM_LOGDIR/veth-pause.log"
rm "$CONF/60-veth.yaml"

# The kernel announces no DCBX change: SDCBX is answered to its sender only.
monitor_start dcbx
check "dcb dcbx set host cee" dcb dcbx set dev "$DEV" host cee
monitor_stop
is "... and RTNLGRP_DCB carries no message for it" "$(monitor_count)" 0
is "... dcbmon --get reads host cee (0x05)" \
	"$(dcbmon --get "$DEV" | sed -n 's/.* dcbx=\(0x[0-9a-f]*\).*/\1/p')" 0x05
check "dcb dcbx set host ieee (back)" dcb dcbx set dev "$DEV" host ieee

# The daemon: a pause change by hand is announced on ethtool's monitor group and put back; a
# DCBX change is announced nowhere, and is found with the next DCB event on the netdev.
private_bus_start dbus-2.log
rdmad -v > "$VM_LOGDIR/rdmad-lossless.log" 2>&1 &
RDMAD=$!
check "rdmad starts, rxe0/1 converged" wait_until 20 grep -q 'rxe0/1: converged' "$VM_LOGDIR/rdmad-lossless.log"
before=$(calls setpause)
ethtool -A "$DEV" tx on
t0=$(uptime_ms)
if wait_until 20 sh -c "[ \"\$(ethtool -a $DEV | awk '/^TX:/ { print \$2 }')\" = off ]"; then
	pass "ethtool -A dcbsim0 tx on by hand is put back ($(($(uptime_ms) - t0)) ms)"
else
	fail "ethtool -A dcbsim0 tx on by hand is put back" "$(ethtool -a "$DEV")"
fi
is "... by one pause write of rdmad's (and the one by hand)" "$(since "$before" "$(calls setpause)")" 2
dcb dcbx set dev "$DEV" host cee
dcb pfc set dev "$DEV" prio-pfc 3:off
check "DCBX host cee, then PFC 3 off by hand: with the DCB event, rdmad puts back PFC and DCBX host ieee" \
	wait_until 20 sh -c "dcbmon --get $DEV | grep -q ' pfc{cap=8 en=0x08 .* dcbx=0x09'"
diag "$(grep -E 'rxe0/1: ' "$VM_LOGDIR/rdmad-lossless.log" | tail -5)"

# ---- the switch, through LLDP (issue 44): a far end that plays the switch port -----------------
# dcbsim0 cabled to a wire: a veth pair with dcbsim0's MAC, the frames lw0 receives delivered as
# dcbsim0's (tc mirred ingress) and what dcbsim0 sends put out of lw0; the far end lw1 in a
# namespace of its own runs its own lldpd (its own control socket), whose custom TLVs are the
# switch port's IEEE 802.1Qaz ETS, PFC and Application Priority and the 802.3 maximum frame
# size (tcpdump decodes them: the oracle for what it sends). The host's lldpd listens on
# dcbsim0 (an exact -I makes lldpd take a virtual netdev as a port); rdmad and rdmactl ask it.
if command -v lldpd > /dev/null && command -v lldpcli > /dev/null; then
	t_lldp=$(uptime_ms)
	# lldpd's privilege separation: its user, its chroot, and lldpcli where lldpd runs it
	grep -q '^_lldpd:' /etc/group || echo '_lldpd:x:112:' >> /etc/group
	grep -q '^_lldpd:' /etc/passwd || echo '_lldpd:x:104:112::/run/lldpd:/bin/false' >> /etc/passwd
	mkdir -p /run/lldpd /usr/sbin
	[ -x /usr/sbin/lldpcli ] || ln -s "$(command -v lldpcli)" /usr/sbin/lldpcli
	SW="ip netns exec sw"
	SWCLI="$SW lldpcli -u /run/lldpd-sw.socket"
	# (functions, not sh -c: busybox's sh runs its own ip applet)
	wire_up() {
		ip netns add sw &&
			ip link add lw0 address "$(cat /sys/class/net/$DEV/address)" type veth peer name lw1 netns sw &&
			ip link set lw0 up && $SW ip link set lw1 up
	}
	cable() { # (the modules come in run-vm.sh --dcbsim's extra archive: depmod first)
		depmod && modprobe -a sch_ingress cls_matchall act_mirred &&
			tc qdisc add dev lw0 clsact &&
			tc filter add dev lw0 ingress matchall action mirred ingress redirect dev "$DEV" &&
			tc qdisc add dev "$DEV" clsact &&
			tc filter add dev "$DEV" egress matchall action mirred egress redirect dev lw0
	}
	check "a wire: lw0 with dcbsim0's MAC, lw1 in netns sw" wire_up
	check "dcbsim0 cabled to lw0 (tc mirred both ways)" cable
	# (each output to a file first: under pipefail, grep -q ending the pipe early is a SIGPIPE)
	preflight_has() { rdmactl preflight rxe0/1 > "$VM_LOGDIR/preflight-lldp.txt" 2>&1; grep -Eq "$1" "$VM_LOGDIR/preflight-lldp.txt"; }
	# the host's lldpd first: nothing on the wire yet, and preflight says so
	lldpd -I "$DEV" > "$VM_LOGDIR/lldpd-host.log" 2>&1
	check "the host's lldpd answers on /run/lldpd.socket" wait_until 20 lldpcli show configuration
	check "no switch yet: rdmactl preflight says lldpd hears no neighbour on dcbsim0" \
		preflight_has "^warn +fabric\.switch +rxe0/1 +lldpd hears no LLDP neighbour on $DEV"
	$SW lldpd -u /run/lldpd-sw.socket -I lw1 > "$VM_LOGDIR/lldpd-sw.log" 2>&1
	check "the switch's lldpd answers on its socket" wait_until 20 $SWCLI show configuration
	# the switch port: PFC on 3 and 4; DSCP 26 -> priority 4, 48 -> 6; ETS priority 3 in
	# TC 3 at 60% (as the host's, below); maximum frame size 1500
	swtlv() { $SWCLI configure lldp custom-tlv replace oui "$1" subtype "$2" oui-info "$3" > /dev/null; }
	sw_tlvs() {
		$SWCLI configure lldp tx-interval 1 > /dev/null &&
			swtlv 00,80,c2 11 08,18 && swtlv 00,80,c2 12 00,85,00,1a,c5,00,30 &&
			swtlv 00,80,c2 9 00,00,03,00,60,28,00,00,3c,00,00,00,00,02,00,00,02,00,00,00,00 &&
			swtlv 00,12,0f 4 05,dc
	}
	check "the switch port's TLVs configured (custom-tlv)" sw_tlvs
	$SW lldpcli -u /run/lldpd-sw.socket resume > /dev/null 2>&1
	lldpcli resume > /dev/null 2>&1
	# what goes on the wire, decoded by tcpdump
	timeout 20 $SW tcpdump -Z root -i lw1 -c 1 -vv -Q out ether proto 0x88cc > "$VM_LOGDIR/lldp-wire.txt" 2>&1
	diag "$(grep -E 'tcpdump|Subtype|Priority: |Value|MTU size' "$VM_LOGDIR/lldp-wire.txt")"
	check "tcpdump: the switch sends PFC (subtype 11) on 3 and 4" sh -c "
		grep -A4 'Priority Flow Control Configuration Subtype (11)' $VM_LOGDIR/lldp-wire.txt |
			grep -Eq 'Value *: 0  0  0  1  1  0  0  0'"
	check "tcpdump: ... Application Priority (subtype 12) DSCP 26 -> 4, 48 -> 6" sh -c "
		grep -q 'Priority: 4, RES: 0, Sel: 5, Protocol ID: 26' $VM_LOGDIR/lldp-wire.txt &&
		grep -q 'Priority: 6, RES: 0, Sel: 5, Protocol ID: 48' $VM_LOGDIR/lldp-wire.txt"
	check "tcpdump: ... ETS Configuration (subtype 9), max frame size (802.3 subtype 4) 1500" sh -c "
		grep -q 'ETS Configuration Subtype (9)' $VM_LOGDIR/lldp-wire.txt &&
		grep -q 'MTU size 1500' $VM_LOGDIR/lldp-wire.txt"
	heard() {
		lldpcli -f keyvalue show neighbors > "$VM_LOGDIR/lldp-heard.txt" 2>&1
		grep -q "lldp.$DEV.unknown-tlvs.unknown-tlv=08,18" "$VM_LOGDIR/lldp-heard.txt"
	}
	check "the host's lldpd hears the switch on dcbsim0, 802.1Qaz as unknown TLVs" wait_until 20 heard
	lldpcli -f keyvalue show neighbors details > "$VM_LOGDIR/lldp-neighbors.txt" 2>&1
	# the host's lldpd every second too: it ages its neighbours out on its transmit timer
	host_tx_1s() {
		lldpcli configure lldp tx-interval 1 > /dev/null &&
			lldpcli show configuration > "$VM_LOGDIR/lldp-host-config.txt" 2>&1 &&
			grep -q 'Transmit delay: 1$' "$VM_LOGDIR/lldp-host-config.txt"
	}
	check "the host's lldpd transmits (and ages its neighbours) every second" host_tx_1s
	SWMAC=$(ip -n sw -o link show lw1 | sed -n 's|.* link/ether \([0-9a-f:]*\) .*|\1|p')
	diag "the switch port's MAC (its chassis and port id): $SWMAC"

	# rdmad: ToS 106 (DSCP 26) on priority 3, PFC on 3, ETS as the switch's, MTU 1500
	lossless_profile 10 65536
	cat >> "$CONF/50-dcb.yaml" <<- YAML
		  ets:
		    prio-tc: [0, 0, 0, 3, 0, 0, 6, 0]
		    tc-bw:   [40, 0, 0, 60, 0, 0, 0, 0]
		    tsa:     [ets, strict, strict, ets, strict, strict, strict, strict]
		roce:
		  tos: 106
	YAML
	loaded=$(grep -c Loaded "$VM_LOGDIR/rdmad-lossless.log")
	kill -HUP "$RDMAD"
	wait_until 20 sh -c "[ \$(grep -c Loaded $VM_LOGDIR/rdmad-lossless.log) -gt $loaded ]" ||
		diag "rdmad did not reload"
	# rdmad re-reads lldpd at each reconcile, and lldpd's notification of a changed neighbour
	# makes one: no rdmactl reconcile here (docs/fabric-lldp.md)
	sw_status() { # sw_status PATTERN: rdmactl status has PATTERN (a grep -E)
		rdmactl status --no-pager > "$VM_LOGDIR/status-switch.txt" 2>&1
		grep -Eq "$1" "$VM_LOGDIR/status-switch.txt"
	}
	# (one line, all three: the status follows the reload and each TLV lldpd hears, in any order)
	check "rdmactl status: rxe0/1's switch port, its chassis and port id, disagrees on pfc" \
		within 30 sw_status "^  rxe0/1 <-> switch mac $SWMAC.* port mac $SWMAC: pfc: host PFC on 3, switch PFC on 3,4; app-priority: .*; max-frame: "
	diag "$(grep -A3 'Switch ports' "$VM_LOGDIR/status-switch.txt")"
	check "... app-priority: DSCP 26 on 3 here, on 4 there" grep -q \
		'app-priority: host DSCP 26 -> priority 3, switch DSCP 26 -> priority 4' "$VM_LOGDIR/status-switch.txt"
	check "... max-frame: frames of 1518 against 1500" grep -q \
		'max-frame: host netdev MTU 1500 (frames of 1518 bytes), switch maximum frame size 1500' "$VM_LOGDIR/status-switch.txt"
	check "... and not on ETS (priority 3 in TC 3, 60% on both)" sh -c "! grep -q 'ets:' $VM_LOGDIR/status-switch.txt"
	check "rdmad logged each disagreement" \
		grep -q "rxe0/1: switch mac $SWMAC port mac $SWMAC disagrees on pfc" "$VM_LOGDIR/rdmad-lossless.log"
	rdmactl metrics > "$VM_LOGDIR/metrics-switch.txt" 2>&1
	diag "$(grep '^rdmad_fabric_switch_mismatch' "$VM_LOGDIR/metrics-switch.txt")"
	for s in pfc:1 app-priority:1 max-frame:1 ets:0 cnp-priority:0; do
		is "metric rdmad_fabric_switch_mismatch{setting=\"${s%:*}\"}" "$(grep "^rdmad_fabric_switch_mismatch{.*setting=\"${s%:*}\"}" \
			"$VM_LOGDIR/metrics-switch.txt" | grep -c "link=\"rxe0/1\",chassis=\"mac $SWMAC\",port=\"mac $SWMAC\".* ${s#*:}\$")" 1
	done
	rdmactl preflight rxe0/1 > "$VM_LOGDIR/preflight-switch.txt" 2>&1
	diag "$(grep fabric "$VM_LOGDIR/preflight-switch.txt")"
	check "rdmactl preflight: fabric.switch names the switch and what it advertises" \
		grep -Eq "^ok +fabric\.switch +rxe0/1 +switch mac $SWMAC .*on $DEV advertises PFC on 3,4 .*DSCP 26 -> priority 4, DSCP 48 -> priority 6; ETS TC0 40% TC3 60% \(priority 3 in TC 3\); maximum frame size 1500; 3 disagreements" \
		"$VM_LOGDIR/preflight-switch.txt"
	check "... fabric.pfc fails with both sides" grep -Eq \
		"^fail +fabric\.pfc +rxe0/1 +$DEV has PFC on 3; switch mac $SWMAC .* has PFC on 3,4" "$VM_LOGDIR/preflight-switch.txt"
	check "... fabric.app-priority fails" grep -Eq "^fail +fabric\.app-priority +rxe0/1 " "$VM_LOGDIR/preflight-switch.txt"
	check "... fabric.max-frame fails" grep -Eq "^fail +fabric\.max-frame +rxe0/1 " "$VM_LOGDIR/preflight-switch.txt"

	# fixed: PFC on the host's side (the profile), the DSCP map and frame size on the switch's,
	# after rdmad's reconcile of the profile: only lldpd's notification says the switch changed
	sed -i 's/^  pfc: \[3\]$/  pfc: [3, 4]/' "$CONF/50-dcb.yaml"
	kill -HUP "$RDMAD"
	check "the profile fixed (PFC on 3 and 4): rdmactl status says so, the switch's two remain" \
		within 30 sw_status "^  rxe0/1 <-> switch mac $SWMAC.* port mac $SWMAC: app-priority: .*; max-frame: "
	check "rdmad is subscribed to lldpd's notifications" grep -q 'lldpd: subscribed' "$VM_LOGDIR/rdmad-lossless.log"
	swtlv 00,80,c2 12 00,65,00,1a,c5,00,30
	swtlv 00,12,0f 4 23,f0
	check "fixed, rdmactl status: rxe0/1's switch port agrees" \
		within 30 sw_status "^  rxe0/1 <-> switch mac $SWMAC.*: agrees \(PFC on 3,4"
	diag "$(grep -A2 'Switch ports' "$VM_LOGDIR/status-switch.txt")"
	check "... rdmad logged that it agrees now" \
		grep -q 'rxe0/1: the switch port agrees with the link now' "$VM_LOGDIR/rdmad-lossless.log"
	rdmactl metrics > "$VM_LOGDIR/metrics-fixed.txt" 2>&1
	is "... every rdmad_fabric_switch_mismatch 0" \
		"$(grep '^rdmad_fabric_switch_mismatch{link="rxe0/1"' "$VM_LOGDIR/metrics-fixed.txt" | grep -c ' 0$')" 5
	rdmactl preflight rxe0/1 > "$VM_LOGDIR/preflight-fixed.txt" 2>&1
	check "... rdmactl preflight: fabric.switch ok, 0 disagreements, no other fabric row" sh -c "
		grep -Eq '^ok +fabric\.switch +rxe0/1 .*maximum frame size 9200; 0 disagreements' $VM_LOGDIR/preflight-fixed.txt &&
		[ \$(grep -c fabric $VM_LOGDIR/preflight-fixed.txt) = 1 ]"

	# no lldpd at all (a neighbour's going is aged out on lldpd's timers, tens of seconds under
	# TCG: the unit tests have that row): rdmad's notifications end, it looks again
	kill $(pidof lldpd) # the host's and the switch's
	check "lldpd stopped: rdmactl preflight says it is not running" within 30 \
		preflight_has "^warn +fabric\.switch +rxe0/1 +lldpd is not running \(/run/lldpd.socket: "
	no_switch() {
		rdmactl status --no-pager > "$VM_LOGDIR/status-noswitch.txt" 2>&1 &&
			! grep -q 'Switch ports' "$VM_LOGDIR/status-noswitch.txt"
	}
	check "... and rdmactl status lists no switch port (rdmad saw lldpd go)" within 30 no_switch
	check "... rdmad said so" grep -q "lldpd's notifications stopped" "$VM_LOGDIR/rdmad-lossless.log"
	tc qdisc del dev "$DEV" clsact
	ip link del lw0
	ip netns del sw
	diag "the LLDP part took $(($(uptime_ms) - t_lldp)) ms"
else
	pass "# SKIP no lldpd and lldpcli on PATH (run-vm.sh --bin; .ci/packages has lldpd)"
fi
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
unset DBUS_SYSTEM_BUS_ADDRESS

# ---- data path: rxe0 over dcbsim0 (which drops what it sends: rxe loops local traffic back) ---
gid=$(gid_index rxe0 1 "$(gid_of_ipv4 192.0.2.1)")
timeout 60 ib_write_bw -F -d rxe0 -x "$gid" -n 100 -p 18515 > "$VM_LOGDIR/bw-server.log" 2>&1 &
server=$!
wait_until 20 tcp_listening 18515 || diag "ib_write_bw's server does not listen"
timeout 60 ib_write_bw -F -d rxe0 -x "$gid" -n 100 -p 18515 192.0.2.1 > "$VM_LOGDIR/bw-client.log" 2>&1
check "ib_write_bw over rxe0 on dcbsim0 (loopback): 100 writes" \
	bw_completed "$VM_LOGDIR/bw-client.log" 100
wait "$server" || diag "ib_write_bw's server exited $?"
done_testing
