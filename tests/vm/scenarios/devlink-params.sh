#!/bin/bash
# devlink-params.sh (light VM, --netdevsim --devlinksim) - issue 46's devlink.params and devlink.reload through
# rdmad, on the kernel's netdevsim, whose only parameters are driverinit ones (max_macs u32,
# test1 bool) and whose debugfs shows the values in effect (devlink shows the driverinit ones):
#   - rdmactl check refuses an unknown name and a wrong type with file:line:col;
#   - reload: never: rdmad writes the driverinit values (read back with devlink) and shows them
#     pending until reload (plan, status), also after rdmad restarts; debugfs still has the old
#     ones; a value changed by hand is put back (PARAM_NEW on devlink's config group, no
#     reconcile asked for);
#   - reload: allowed: one driver_reinit brings both into effect (debugfs), timed; the netdev
#     it re-creates gets its declared MTU back, and the rxe link on it is made again with its
#     ToS (read back from the kernel); the plan is empty after;
#   - dont_allow_reload: the reload is refused with the kernel's extack ("User forbid the reload
#     for testing purposes") in the journal and status, and not tried again;
#   - fail_reload: the reload removes the ports and fails, reported; a later successful reload
#     (by hand) brings them back and rdmad applies the links again;
#   - what shares the device: with port 1's netdev of a 2-port device in a namespace "pod",
#     the reload is refused naming it (plan, status), not tried after two reconciles (debugfs
#     unchanged, the pod's netdev still there); moved back, the next reconcile reloads.
#   - a runtime parameter (--devlinksim's test_runtime, devlink platform/devlinksim): planned,
#     written once, read back; changed by hand, put back (timed); no set more after (the
#     module's count of set calls).
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

LOG=${VM_LOGDIR:-/tmp}/rdmad.log
CONF=/etc/rdmad
for b in rdmad rdmactl udevadm devlink rdma jq; do
	command -v "$b" > /dev/null || bail "no $b on PATH"
done
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

check "modprobe psample; insmod netdevsim.ko" \
	sh -c "modprobe psample && insmod /lib/modules/$(uname -r)/extra/netdevsim.ko" || bail "no netdevsim"
check "rdma_rxe loads" modprobe rdma_rxe || bail "no rdma_rxe"
mount -t debugfs none /sys/kernel/debug 2> /dev/null
NSIM=/sys/bus/netdevsim/devices/netdevsim1
DBG=/sys/kernel/debug/netdevsim/netdevsim1
DL=netdevsim/netdevsim1
check "netdevsim device 1, one port" write /sys/bus/netdevsim/new_device "1 1"
wait_until 20 sh -c "ls $NSIM/net/ | grep -q ." || bail "netdevsim1 has no netdev"
PF=$(ls "$NSIM/net/" | head -n1)
diag "netdevsim1's netdev: $PF"
test -r "$DBG/max_macs" || bail "no netdevsim debugfs at $DBG"

# devlink's view: the driverinit value; debugfs: the one in effect
dl() { devlink -j dev param show "$DL" name "$1" | jq -r ".param[\"$DL\"][0].values[0].value"; }
eff() { cat "$DBG/$1"; }
is "devlink: max_macs 32, test1 true (netdevsim's defaults)" "$(dl max_macs) $(dl test1)" "32 true"
is "debugfs: in effect the same" "$(eff max_macs) $(eff test1)" "32 Y"

# ---- rdmactl check ---------------------------------------------------------------------------------
mkdir -p /run/rdmad-vm/bad
cat > /run/rdmad-vm/bad/50-bad.yaml << 'YAML'
match: {driver: netdevsim}
devlink:
  params:
    - {name: max_macs, value: many, cmode: driverinit}
    - {name: flow_steering_mode, value: smfs}
YAML
rdmactl check /run/rdmad-vm/bad/50-bad.yaml > "$VM_LOGDIR/check-bad.txt" 2>&1
diag "$(cat "$VM_LOGDIR/check-bad.txt")"
check "rdmactl check: max_macs's wrong type at its value's line:col" \
	grep -q "50-bad.yaml:4:[0-9]*: .*max_macs expects a u32, got 'many'" "$VM_LOGDIR/check-bad.txt"
check "rdmactl check: a name netdevsim has not, at its entry (file:line:col)" \
	grep -q "50-bad.yaml:5:[0-9]*: .*netdevsim has no parameter flow_steering_mode" "$VM_LOGDIR/check-bad.txt"

udevd_start
private_bus_start

mkdir -p "$CONF"
profile() { # profile MAX_MACS RELOAD
	cat > "$CONF/50-devlink.yaml" << YAML
modules: [rdma_ucm]
links:
  - {name: rxe0, type: rxe, netdev: $PF}
---
match: {netdev: $PF}
netdev: {up: true, mtu: 2000}
roce: {tos: 106}
devlink:
  params:
    - {name: max_macs, value: $1, cmode: driverinit}
    - {name: test1, value: false}
  reload: $2
YAML
}
profile 64 never
rdmactl plan > "$VM_LOGDIR/plan-before.txt" 2>&1
diag "rdmactl plan, before:"
diag "$(cat "$VM_LOGDIR/plan-before.txt")"
check "plan: devlink.params max_macs=32 -> 64 (driverinit)" \
	grep -Eq "^$DL +devlink\.params +max_macs=32 +max_macs=64 \(driverinit\)" "$VM_LOGDIR/plan-before.txt"
check "plan: devlink.reload pending until reload (never)" \
	grep -Eq "devlink\.reload .*pending until reload: max_macs=64 test1=false" "$VM_LOGDIR/plan-before.txt"

rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
dl_is() { [ "$(dl max_macs) $(dl test1)" = "$1" ]; }
check "rdmad wrote the driverinit values: devlink reads back max_macs 64, test1 false" \
	wait_until 20 dl_is "64 false"
rxe_on() { rdma link show rxe0/1 2> /dev/null | grep -q "netdev $PF"; }
check "... rxe0 on $PF" wait_until 20 rxe_on
is "... not in effect (debugfs): 32 Y" "$(eff max_macs) $(eff test1)" "32 Y"
check "... rdmad's record of them, pending" \
	grep -qx "pending max_macs=64" "/run/rdmad/state/devlink/netdevsim+netdevsim1"
status_has() { rdmactl status --no-pager rxe0/1 2> /dev/null | grep -Eq "$1"; }
check "rdmactl status: devlink.reload pending until reload" \
	wait_until 20 status_has "^devlink\.reload .*pending until reload: max_macs=64 test1=false"
diag "$(rdmactl status --no-pager rxe0/1 2>&1)"

# a value changed by hand: put back, with no reconcile asked (PARAM_NEW on the config group)
check "devlink dev param set max_macs 16 (by hand)" \
	devlink dev param set "$DL" name max_macs value 16 cmode driverinit
check "... put back to 64 by rdmad (devlink's notification)" wait_until 20 dl_is "64 false"
rdmactl plan > "$VM_LOGDIR/plan-never.txt" 2>&1
check "... the plan still shows them pending until reload" \
	grep -Eq "devlink\.reload .*pending until reload: max_macs=64 test1=false" "$VM_LOGDIR/plan-never.txt"

# what is pending outlives rdmad: its record is under /run
kill "$RDMAD"
wait "$RDMAD"
rdmad -v >> "$LOG" 2>&1 &
RDMAD=$!
check "rdmad restarted: still pending until reload (its record)" \
	wait_until 20 status_has "^devlink\.reload .*pending until reload: max_macs=64 test1=false"

# ---- reload: allowed --------------------------------------------------------------------------------
ifindex=$(cat "/sys/class/net/$PF/ifindex")
profile 64 allowed
t0=$(uptime_ms)
kill -HUP "$RDMAD"
eff_is() { [ "$(eff max_macs) $(eff test1)" = "$1" ]; }
check "reload: allowed: in effect after one reload (debugfs 64 N)" wait_until 30 eff_is "64 N"
t1=$(uptime_ms)
diag "reload: from SIGHUP to the values in effect: $((t1 - t0)) ms"
diag "$(grep -E 'devlink\.reload' "$LOG")"
is "... one reload (journal)" "$(grep -c 'devlink.reload pending: .* -> reload' "$LOG")" 1
check "... run off the event loop (worker)" \
	grep -Eq "devlink\.reload: reloading \(driver_reinit\) for max_macs=64 test1=false, off the event loop" "$LOG"
check "... its time in the journal" grep -Eq "devlink\.reload .*reloaded in [0-9.]+ s" "$LOG"
diag "$(grep -Eo 'reloaded in [0-9.]+ s' "$LOG" | head -n1)"
new_netdev() { [ -e "/sys/class/net/$PF/ifindex" ] && [ "$(cat "/sys/class/net/$PF/ifindex")" != "$ifindex" ]; }
check "... the port re-created: $PF of another ifindex" wait_until 20 new_netdev
mtu_is() { [ "$(cat "/sys/class/net/$PF/mtu")" = "$1" ]; }
check "... its MTU back to 2000" wait_until 30 mtu_is 2000
check "... rxe0 made again on it" wait_until 30 rxe_on
TOS=/sys/kernel/config/rdma_cm/rxe0/ports/1/default_roce_tos
tos_is() { [ "$(cat "$TOS" 2> /dev/null)" = 106 ]; }
check "... with its ToS (configfs reads back 106)" wait_until 30 tos_is
check "... rdmad's record dropped" wait_until 10 sh -c "! test -e /run/rdmad/state/devlink/netdevsim+netdevsim1"
rdmactl plan > "$VM_LOGDIR/plan-after.txt" 2>&1
diag "rdmactl plan, after:"
diag "$(cat "$VM_LOGDIR/plan-after.txt")"
is "... nothing left to do for the device (plan)" \
	"$(grep -Ec '^(netdevsim|rxe0)' "$VM_LOGDIR/plan-after.txt")" 0

# ---- dont_allow_reload: refused, reported, not tried again -----------------------------------------
check "echo Y > dont_allow_reload" write "$DBG/dont_allow_reload" Y
profile 128 allowed
kill -HUP "$RDMAD"
refused() { grep -q "User forbid the reload for testing purposes" "$LOG"; }
check "the reload refused, with the kernel's extack (journal)" wait_until 30 refused
diag "$(grep -E 'devlink\.reload' "$LOG" | tail -n 3)"
check "... in rdmactl status" \
	wait_until 20 status_has "^devlink\.reload .*User forbid the reload for testing purposes"
rdmactl reconcile > /dev/null 2>&1
rdmactl reconcile > /dev/null 2>&1
is "... not tried again (two reconciles later, one refusal in the journal)" \
	"$(grep -c 'failed to set devlink.reload' "$LOG")" 1
rdmactl plan > "$VM_LOGDIR/plan-refused.txt" 2>&1
check "... rdmactl plan says the last reload failed, and why" \
	grep -Eq "devlink\.reload .*the last reload failed: netdevsim: User forbid the reload for testing purposes" \
	"$VM_LOGDIR/plan-refused.txt"
is "... max_macs 128 written, not in effect (devlink 128, debugfs 64)" "$(dl max_macs) $(eff max_macs)" "128 64"

# ---- fail_reload: the ports removed, reported; back after a successful reload ----------------------
check "echo N > dont_allow_reload; echo Y > fail_reload" \
	sh -c "echo N > $DBG/dont_allow_reload && echo Y > $DBG/fail_reload"
profile 256 allowed
kill -HUP "$RDMAD"
failed() { [ "$(grep -c 'failed to set devlink.reload' "$LOG")" = 2 ]; }
check "the reload fails (journal)" wait_until 30 failed
diag "$(grep -E 'failed to set devlink.reload' "$LOG" | tail -n 1)"
gone() { ! ls "$NSIM/net/" 2> /dev/null | grep -q .; }
check "... and the ports are gone" wait_until 20 gone
check "echo N > fail_reload; devlink dev reload by hand" \
	sh -c "echo N > $DBG/fail_reload && devlink dev reload $DL"
check "... the port back" wait_until 20 sh -c "ls $NSIM/net/ | grep -q ."
PF=$(ls "$NSIM/net/" | head -n1)
check "... rdmad applies its MTU again (2000)" wait_until 30 mtu_is 2000
check "... and makes rxe0 on it again" wait_until 30 rxe_on
is "... 256 in effect (debugfs)" "$(eff max_macs)" 256
rdmactl plan > "$VM_LOGDIR/plan-recovered.txt" 2>&1
is "... nothing left to do (plan)" "$(grep -Ec '^(netdevsim|rxe0)' "$VM_LOGDIR/plan-recovered.txt")" 0

# ---- what shares the device: a pod's netdev on a port (the reload guard) -------------------------
# A reload re-creates the device's ports: a netdev a pod holds would come back in this namespace.
# netdevsim2 has 2 ports; port 1's netdev goes into a namespace "pod". devlink names a port's
# netdev only in its own namespace, so rdmad refuses the reload, naming the port, and keeps the
# value pending; once the netdev is back the next reconcile reloads.
NSIM2=/sys/bus/netdevsim/devices/netdevsim2
DBG2=/sys/kernel/debug/netdevsim/netdevsim2
DL2=netdevsim/netdevsim2
check "netdevsim device 2, two ports" write /sys/bus/netdevsim/new_device "2 2"
two_netdevs() { [ "$(ls "$NSIM2/net/" 2> /dev/null | wc -l)" = 2 ]; }
check "... both netdevs" wait_until 20 two_netdevs
port_netdev() { devlink -j port show "$DL2/$1" | jq -r ".port[\"$DL2/$1\"].netdev // empty"; }
G0=$(port_netdev 0)
G1=$(port_netdev 1)
diag "netdevsim2's port 0: $G0, port 1: $G1"
to_pod() { ip netns add pod && ip link set "$1" netns pod; } # iproute2's ip: bash, not sh -c
check "ip netns add pod; ip link set $G1 netns pod" to_pod "$G1"
no_netdev() { [ -z "$(port_netdev 1)" ] && [ "$(devlink -j port show "$DL2/1" | jq -r ".port[\"$DL2/1\"].type")" = eth ]; }
check "... devlink names no netdev for port 1 (type eth)" within 20 no_netdev
eff2() { cat "$DBG2/max_macs"; }
is "... max_macs in effect: 32 (debugfs)" "$(eff2)" 32
cat > "$CONF/60-guard.yaml" << YAML
links:
  - {name: rxe1, type: rxe, netdev: $G0}
---
match: {netdev: $G0}
netdev: {up: true}
devlink:
  params:
    - {name: max_macs, value: 48, cmode: driverinit}
  reload: allowed
YAML
kill -HUP "$RDMAD"
dl2_is() { [ "$(devlink -j dev param show "$DL2" name max_macs | jq -r ".param[\"$DL2\"][0].values[0].value")" = "$1" ]; }
check "max_macs 48 written (devlink reads back 48)" within 30 dl2_is 48
HELD="port 1's netdev is in another network namespace \(a pod's\); a reload re-creates it in this one: move it back, then rdmactl reconcile"
status1_has() { # the whole status first: grep -q stops early, and pipefail would see the SIGPIPE
	local out
	out=$(rdmactl status --no-pager rxe1/1 2> /dev/null)
	grep -Eq "$1" <<< "$out"
}
check "rdmactl status: the reload refused, naming port 1's netdev in the pod" \
	within 30 status1_has "^devlink\.reload .*$HELD"
diag "$(rdmactl status --no-pager rxe1/1 2>&1 | grep -E 'devlink')"
rdmactl plan > "$VM_LOGDIR/plan-held.txt" 2>&1
check "rdmactl plan: the reload refused, naming it" \
	grep -Eq "devlink\.reload +reload \(driver_reinit\) +$HELD" "$VM_LOGDIR/plan-held.txt"
diag "rdmactl plan, held:"
diag "$(cat "$VM_LOGDIR/plan-held.txt")"
rdmactl reconcile > /dev/null 2>&1
rdmactl reconcile > /dev/null 2>&1
is "... two reconciles later, no reload tried (journal)" \
	"$(grep -c "reloading (driver_reinit) for max_macs=48" "$LOG")" 0
is "... max_macs 48 not in effect (debugfs 32)" "$(eff2)" 32
check "... the pod's netdev still there (ip -n pod link show $G1)" ip -n pod link show "$G1"
check "... still refused (rdmactl status)" status1_has "^devlink\.reload .*$HELD"
check "ip -n pod link set $G1 netns 1 (the pod lets go)" ip -n pod link set "$G1" netns 1
rdmactl reconcile > /dev/null 2>&1
eff2_is() { [ "$(eff2)" = "$1" ]; }
check "... the next reconcile reloads: max_macs 48 in effect (debugfs)" wait_until 30 eff2_is 48
is "... one reload (journal)" "$(grep -c "reloading (driver_reinit) for max_macs=48" "$LOG")" 1
check "... both ports back in this namespace" wait_until 20 two_netdevs
G0=$(port_netdev 0)
rxe1_on() { rdma link show rxe1/1 2> /dev/null | grep -q "netdev $G0"; }
check "... rxe1 made again on $G0" wait_until 30 rxe1_on
rdmactl plan > "$VM_LOGDIR/plan-released.txt" 2>&1
diag "rdmactl plan, released:"
diag "$(cat "$VM_LOGDIR/plan-released.txt")"
is "... nothing left to do for netdevsim2 (plan)" "$(grep -Ec "^($DL2|rxe1)|devlink\.reload" "$VM_LOGDIR/plan-released.txt")" 0
rm -f "$CONF/60-guard.yaml"
kill -HUP "$RDMAD"
guard_stop() { write /sys/bus/netdevsim/del_device 2 && ip netns del pod; }
check "netdevsim device 2 removed, the pod's namespace deleted" guard_stop
# ---- end of the reload guard ------------------------------------------------------------------------

# ---- a runtime parameter (devlinksim): written once, put back when changed by hand --------------
# netdevsim has only driverinit parameters; devlinksim (--devlinksim) has test_runtime, a u32 of
# cmode runtime whose set op stores the value and counts its calls (calls_set).
DLS=platform/devlinksim
CALLS=/sys/module/devlinksim/parameters/calls_set
check "insmod devlinksim.ko" insmod "/lib/modules/$(uname -r)/extra/devlinksim.ko"
wait_until 20 test -e /sys/class/net/devlinksim0 || bail "devlinksim has no netdev"
rt() { devlink -j dev param show "$DLS" name test_runtime |
	jq -r ".param[\"$DLS\"][0].values[] | select(.cmode == \"runtime\") | .value"; }
is "devlink: test_runtime 0 (devlinksim's default)" "$(rt)" 0
cat > "$CONF/60-devlinksim.yaml" << 'YAML'
match: {netdev: devlinksim0}
devlink:
  params:
    - {name: test_runtime, value: 7, cmode: runtime}
YAML
# --config-dir: the plan from the host itself, before rdmad is told (rdmad's would lack it)
rdmactl --config-dir "$CONF" plan > "$VM_LOGDIR/plan-runtime.txt" 2>&1
diag "$(grep -E "^$DLS" "$VM_LOGDIR/plan-runtime.txt")"
check "plan: devlink.params test_runtime=0 -> 7 (runtime)" \
	grep -Eq "^$DLS +devlink\.params +test_runtime=0 +test_runtime=7" "$VM_LOGDIR/plan-runtime.txt"
kill -HUP "$RDMAD"
rt_is() { [ "$(rt)" = "$1" ]; }
check "rdmad wrote test_runtime 7 (devlink reads it back)" within 30 rt_is 7
rdmactl reconcile > /dev/null 2>&1
is "... with one set (devlinksim's calls_set, after a reconcile)" "$(cat "$CALLS")" 1
t0=$(uptime_ms)
check "devlink dev param set test_runtime 9 cmode runtime (by hand)" \
	devlink dev param set "$DLS" name test_runtime value 9 cmode runtime
check "... put back to 7 by rdmad (PARAM_NEW on devlink's config group)" within 30 rt_is 7
t1=$(uptime_ms)
diag "runtime drift: from the hand write to 7 read back: $((t1 - t0)) ms"
rdmactl reconcile > /dev/null 2>&1
rdmactl reconcile > /dev/null 2>&1
is "... one set by hand, one by rdmad: none more (calls_set 3, two reconciles later)" \
	"$(cat "$CALLS")" 3
rdmactl plan > "$VM_LOGDIR/plan-runtime-after.txt" 2>&1
is "... nothing left to do for $DLS (plan)" "$(grep -Ec "^$DLS" "$VM_LOGDIR/plan-runtime-after.txt")" 0
rm "$CONF/60-devlinksim.yaml"

check "rdmad is still running" kill -0 "$RDMAD"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
done_testing
