#!/bin/bash
# trial.sh (light VM) - `rdmactl try` on a real kernel (issue 45): rdmad on a private bus with
# the shipped policy, rxe0 on veth0, its ToS set by hand in configfs (no profile manages it).
# A trial of ToS and MTU records the hand values read from the kernel when it begins, and is
# rolled back by `rdmactl rollback`, by its timeout, by the netdev gate when veth0 goes down,
# and at rdmad's next start after a SIGKILL; each time configfs and sysfs read the hand values
# again, and the time from the change (or the decision) to the end of the rollback is printed. A
# confirmed trial is an ordinary profile: after a restart rdmad puts its ToS back over a hand
# write. rdmad and rdmactl come from the build (--bin).
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

LOG=$VM_LOGDIR/rdmad.log
CONF=/run/rdmad-vm/trial-conf
CM=/sys/kernel/config/rdma_cm/rxe0/ports/1
TOS=$CM/default_roce_tos
MTU=/sys/class/net/veth0/mtu
RECORD=/run/rdmad/state/trial/record

for b in rdmad rdmactl udevadm busctl; do
	command -v "$b" > /dev/null || bail "no $b on PATH: run-vm.sh --bin"
done

udevd_start
rxe_modules || bail "no RDMA modules"
veth_pair veth0 veth1 || bail "cannot create veth pair"
ip addr add 192.0.2.1/24 dev veth0
rdma link add rxe0 type rxe netdev veth0 || bail "cannot add rxe0"
wait_until 20 has_gid rxe0 1 "$(gid_of_ipv4 192.0.2.1)" || bail "rxe0 has no IPv4 GID"
modprobe rdma_cm
mkdir -p /sys/kernel/config/rdma_cm/rxe0 || bail "no rdma_cm in configfs"
write "$TOS" 32 || bail "cannot set the ToS by hand"
private_bus_start

mkdir -p "$CONF"
# rdmad manages rxe0, but neither its ToS nor its MTU
cat > "$CONF/50-rxe.yaml" << 'YAML'
match: {device: rxe0}
gids: {require: [roce-v2-ipv4]}
YAML
cat > /run/rdmad-vm/tos.yaml << 'YAML'
match: {device: rxe0}
roce: {mode: v2, tos: 184}
netdev: {mtu: 1400}
YAML

ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; } # busybox date has no %N
state() { busctl get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager "$1" 2> /dev/null; }
# a field of LastTrial ("" when none)
last() { state LastTrial | sed 's/^s "//; s/"$//; s/\\"/"/g' | jq -r "${1} // empty" 2> /dev/null; }
rdmad_start() {
	rdmad -v --config-dir "$CONF" --probe-state /run/rdmad-probe/state.json >> "$LOG" 2>&1 &
	RDMAD=$!
	wait_until 60 sh -c "busctl get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager State 2> /dev/null | grep -q running"
}
applied() { [ "$(attr "$TOS")" = 184 ] && [ "$(attr "$MTU")" = 1400 ]; }
restored() { [ "$(attr "$TOS")" = 32 ] && [ "$(attr "$MTU")" = 1500 ]; }
try() { rdmactl try "$@" /run/rdmad-vm/tos.yaml > "$VM_LOGDIR/try.out" 2>&1; }

check "rdmad runs on the private bus" rdmad_start || diag "$(tail -n 20 "$LOG")"
is "the hand ToS and the MTU before any trial" "$(attr "$TOS") $(attr "$MTU")" "32 1500"

# ---- rdmactl rollback ----
check "rdmactl try: a trial of ToS 184 and MTU 1400" try --timeout 600 ||
	diag "$(cat "$VM_LOGDIR/try.out")"
check "the record holds the hand ToS and the MTU, read from the kernel" \
	sh -c "grep -q '^object rxe0/1 veth0 roce.tos 32$' $RECORD && grep -q '^object rxe0/1 veth0 netdev.mtu 1500$' $RECORD" ||
	diag "$(cat "$RECORD")"
check "the trial is applied: configfs and sysfs read 184 and 1400" wait_until 30 applied
t0=$(ms)
check "rdmactl rollback" logged "$VM_LOGDIR/rollback.out" rdmactl rollback
t1=$(ms)
is "rolled back: configfs reads the hand ToS, sysfs the MTU" "$(attr "$TOS") $(attr "$MTU")" "32 1500"
diag "rdmactl rollback: $((t1 - t0)) ms from the call to the end of the read back (rdmad: $(last .rollback_usec) us)"
check "the record is gone" test ! -e "$RECORD"
check "rdmad logged each object put back and read back" \
	grep -q 'Trial rollback: rxe0/1 roce.tos put back to 32, read back' "$LOG"
check "and leaves the hand value alone afterwards" sh -c "sleep 1; [ \"\$(cat $TOS)\" = 32 ]"

# ---- a device whose rdma_cm group nobody made: its ToS is in the kernel all the same ----
rdma link add rxe1 type rxe netdev veth1 || bail "cannot add rxe1"
check "rxe1 has no rdma_cm group in configfs" test ! -e /sys/kernel/config/rdma_cm/rxe1
printf 'match: {device: rxe1}\nroce: {tos: 96}\n' > /run/rdmad-vm/rxe1.yaml
check "a trial of rxe1's ToS: rdmad makes the group to read the value before" \
	sh -c "rdmactl try --timeout 600 /run/rdmad-vm/rxe1.yaml > $VM_LOGDIR/try1.out 2>&1 &&
		grep -q '^object rxe1/1 veth1 roce.tos 0$' $RECORD" ||
	diag "$(cat "$VM_LOGDIR/try1.out")"
check "... applied (96), rolled back to the kernel's 0" sh -c \
	"timeout 30 sh -c 'until [ \$(cat /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_tos) = 96 ]; do sleep 0.1; done' &&
		rdmactl rollback > /dev/null && [ \$(cat /sys/kernel/config/rdma_cm/rxe1/ports/1/default_roce_tos) = 0 ]"
rdma link delete rxe1

# ---- timeout ----
check "a trial with a 3 s timeout" try --timeout 3
t0=$(ms)
check "not confirmed: rolled back by its timeout" wait_until 60 sh -c \
	"[ \"\$(busctl get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LastTrial)\" != \"\$0\" ] && [ \"\$(cat $TOS)\" = 32 ]" \
	"$(state LastTrial)"
is "LastTrial says timeout, everything restored" "$(last .reason) $(last '.not_restored | length')" "timeout 0"
check "configfs and sysfs read the values before" restored

# ---- the netdev gate ----
check "a trial, then veth0 is set down" try --timeout 600
wait_until 30 applied
t0=$(ms)
ip link set veth0 down
check "the netdev gate fails and the trial is rolled back" wait_until 60 sh -c \
	"[ \"\$(cat $TOS)\" = 32 ] && [ \"\$(cat $MTU)\" = 1500 ]"
t1=$(ms)
is "LastTrial names the gate and what it saw" "$(last .gate): $(last .seen)" \
	"netdev: veth0 is down (up before the trial)"
diag "netdev gate: $((t1 - t0)) ms from veth0 down to the hand values read back (the gates are looked at every second)"
ip link set veth0 up

# ---- SIGKILL while pending ----
check "a trial, then rdmad is killed (SIGKILL)" try --timeout 600
wait_until 30 applied
kill -KILL "$RDMAD"
wait "$RDMAD" 2> /dev/null
check "killed: the trial's values and the record stay" sh -c "[ -e $RECORD ] && [ \"\$(cat $TOS)\" = 184 ]"
t0=$(ms)
check "rdmad starts again" rdmad_start
check "... and rolls the trial back from the record" wait_until 60 sh -c \
	"[ \"\$(cat $TOS)\" = 32 ] && [ \"\$(cat $MTU)\" = 1500 ] && [ ! -e $RECORD ]"
t1=$(ms)
is "LastTrial says restart" "$(last .reason)" restart
diag "restart: $((t1 - t0)) ms from rdmad's start to the values read back and the record removed"

# ---- confirm, and a restart ----
check "a trial, confirmed" sh -c "rdmactl try --timeout 600 /run/rdmad-vm/tos.yaml > /dev/null && rdmactl confirm"
check "the file is a profile in $CONF, the record gone" sh -c "cmp -s $CONF/tos.yaml /run/rdmad-vm/tos.yaml && [ ! -e $RECORD ]"
check "rdmactl status shows the last trial, confirmed" \
	sh -c "rdmactl status --no-pager | grep -q '^Last trial: confirmed, written to $CONF'" ||
	diag "$(rdmactl status --no-pager 2>&1 | tail -5)"
wait_until 30 applied
kill "$RDMAD"
wait "$RDMAD" 2> /dev/null
write "$TOS" 32
rdmad_start
check "after a restart rdmad puts the confirmed ToS back over a hand write" wait_until 30 applied
is "LastTrial kept over the restart: confirmed" "$(last .outcome)" confirmed
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
done_testing
