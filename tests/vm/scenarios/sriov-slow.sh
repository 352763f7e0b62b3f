#!/bin/bash
# sriov-slow.sh (full VM, --sriov-pci) - issue 43: a write to sriov_numvfs that lasts longer than
# rdmad.service's WatchdogSec, as mlx5's does with many VFs (about a second a VF), never blocks
# rdmad. The sriovsim test module (tests/vm/sriovsim) makes qemu's NVMe controller an Ethernet PF
# with 4 real PCI VFs, and sleeps numvfs_delay_ms (4 s) inside the write for each VF it makes or
# removes: 0 -> 4 lasts 16 s at least, in the kernel, uninterruptibly. rdmad installed with
# `meson install` and run by systemd with the shipped unit (Type=notify), its WatchdogSec=30s
# shortened to 6 s by a drop-in, as an administrator may (the same watchdog, a fifth of the wait:
# the scenario runs in both CI stages), and a Soft-RoCE link rxe0 on the PF's netdev for the
# status rows:
#   - sriov.vfs: 4 reloaded: the journal says the write runs in a worker; sriovsim says its
#     .sriov_configure is at work (configuring 1);
#   - while it is: Get(State) of rxe0/1 answered batch after batch (bus-get-latency, 100 calls a
#     batch, each batch's p50/p99/max printed), the last batch ended while sriovsim still says
#     the write is in progress; Plan() says "in progress"; the unit's STATUS= and rxe0/1's
#     Settings row (the link on the PF's netdev: the function itself carries no RDMA port)
#     say "writing 4 (started N s ago)"; the journal says every 10 s how far it is;
#   - the write outlasted WatchdogSec and rdmad.service is the same process, never restarted,
#     no watchdog timeout in PID 1's journal; rdmad's own count of dispatches over 1 s did not
#     grow meanwhile;
#   - the outcome: sriov.vfs converged at 4, 4 VFs each with a netdev;
#   - systemctl stop during a slow write (4 -> 0): rdmad's process exits at once, saying the
#     worker goes on; the unit stops once the worker has logged the outcome (the kernel cannot
#     interrupt the write), within TimeoutStopSec.
# Times are printed, never judged, but for the lower bound sriovsim sets on the write.
#   RDMAD_BUILD_DIR  the meson build directory to install from (its tests/bus-get-latency too)
#   SRIOVSIM_KO      run-vm.sh --sriov-pci: the test module
# No `set -e`: a failed check is reported and the scenario goes on.
# shellcheck disable=SC2317 # the helpers run through check and wait_until
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

PF=0000:01:00.0 # run-vm.sh --sriov-pci: on root port 00:1e.0, its VFs 01:00.1-01:00.4
P=/sys/bus/pci/devices/$PF
PARAMS=/sys/module/sriovsim/parameters
WATCHDOG_SEC=6 # the drop-in's
DELAY_MS=4000  # a VF: 4 of them outlast the watchdog twice, and the 10 s progress line
LATENCY=${RDMAD_BUILD_DIR:-}/tests/bus-get-latency
L=/org/rdmad1/link/rxe0_2f1

cleanup() { # a slow write left behind would hold the PF past the scenario's end
	[ ! -e "$PARAMS/numvfs_delay_ms" ] || echo 0 > "$PARAMS/numvfs_delay_ms"
}
trap cleanup EXIT

ms_since() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }
configuring() { [ "$(cat "$PARAMS/configuring")" = "$1" ]; } # takes no device lock
links() { find "$P/" -maxdepth 1 -name 'virtfn*' | wc -l; }     # nor does this
prop() { busctl get-property org.rdmad1 "$L" org.rdmad1.Link "$1" 2> /dev/null; }
vfs_row() { # the sriov.vfs row of rxe0/1: DESIRED|CURRENT|RESULT|ERROR
	busctl --json=short get-property org.rdmad1 "$L" org.rdmad1.Link Settings 2> /dev/null |
		jq -r '.data[] | select(.[0] == "sriov.vfs") | "\(.[1])|\(.[2])|\(.[3])|\(.[4])"'
}
unit() { systemctl show -P "$1" rdmad.service; }
journal() { journalctl -q -o cat -u rdmad.service; }
slow_dispatches() { # rdmad's dispatches over 1 s so far (LoopDispatches, its top bucket)
	busctl --json=short get-property org.rdmad1 /org/rdmad1 org.rdmad1.Manager LoopDispatches |
		jq '[.data[] | select(.[0] > 1000000) | .[1]] | add'
}
profile() { # profile VFS: rxe0 on the PF's netdev, the PF with VFS VFs
	cat > /etc/rdmad/50-sriov.yaml.new << YAML
links:
  - {name: rxe0, type: rxe, netdev: $PFNET}
---
match: {netdev: $PFNET}
netdev: {up: true, addresses: [192.0.2.1/24]}
sriov: {vfs: $1}
YAML
	mv /etc/rdmad/50-sriov.yaml.new /etc/rdmad/50-sriov.yaml
}

is "PID 1 is systemd" "$(cat /proc/1/comm)" systemd
[ -x "$LATENCY" ] || bail "no $LATENCY (tests/dbus/bus-get-latency.c, built with the tests)"
check "insmod sriovsim.ko ids=1b36:0010" insmod "$SRIOVSIM_KO" ids=1b36:0010 || bail "no sriovsim"
wait_until 30 sh -c "ls $P/net | grep -q ." || bail "the PF $PF has no netdev"
# systemd-udevd renames eth0 (enp1s0 on 6.12) a moment later: the name is read once udev has
# processed the netdev (its database entry, by ifindex, which a rename keeps; udevadm settle
# alone may return before the event is queued)
IFX=$(cat "$P"/net/*/ifindex)
check "udev processed the PF's netdev (ifindex $IFX): its final name" \
	wait_until 60 test -e "/run/udev/data/n$IFX"
PFNET=$(ls "$P/net")
diag "the PF's netdev: $PFNET; sriov_totalvfs $(cat "$P/sriov_totalvfs")"
meson_install_rdmad
mkdir -p /run/systemd/system/rdmad.service.d
printf '[Service]\nWatchdogSec=%ss\n' "$WATCHDOG_SEC" > /run/systemd/system/rdmad.service.d/watchdog.conf
systemctl daemon-reload

mkdir -p /etc/rdmad
profile 0
check "systemctl start rdmad" timeout 120 systemctl start rdmad
check "rdmactl wait-online: rxe0/1 on $PFNET converged, publishing its GID" \
	logged "$VM_LOGDIR/wait-online.txt" rdmactl wait-online --timeout 120 ||
	diag "$(rdmactl status --no-pager 2>&1)"
pid0=$(unit MainPID)
is "rdmad runs under systemd's watchdog (the drop-in's WatchdogSec=${WATCHDOG_SEC}s: WATCHDOG_USEC)" \
	"$(tr '\0' '\n' < "/proc/$pid0/environ" | grep '^WATCHDOG_USEC=')" "WATCHDOG_USEC=${WATCHDOG_SEC}000000"
restarts0=$(unit NRestarts)
slow0=$(slow_dispatches)

# ---- a write that outlasts the watchdog --------------------------------------------------------
check "numvfs_delay_ms $DELAY_MS" write "$PARAMS/numvfs_delay_ms" $DELAY_MS
profile 4
t0=${EPOCHREALTIME/./}
# SIGHUP: systemctl reload (rdmactl reload, D-Bus Reload()) answers once the new profiles are
# applied, after the write
hup() { kill -HUP "$(unit MainPID)"; }
check "SIGHUP (sriov.vfs: 4)" hup
# (conditions polled on sriovsim's parameters, cheap; the journal read once: journalctl takes
# seconds under TCG)
check "the write is in the kernel, in sriovsim's .sriov_configure (configuring 1)" \
	wait_until 120 configuring 1
WORKER=$(journal | sed -n 's/.*: sriov.vfs: writing 4, off the event loop (worker pid \([0-9]*\)).*/\1/p' | tail -n 1)
check "the journal: it runs in a worker, off the event loop" test -n "$WORKER"
diag "worker pid $WORKER: $(cat "/proc/$WORKER/comm" 2> /dev/null), state $(awk '/^State:/ { print $2 }' "/proc/$WORKER/status" 2> /dev/null)"

# Get(State), a batch after the other, until the write ends; the figures of each
batches=0 answered_during=0
while configuring 1 && [ "$(ms_since "$t0")" -lt 300000 ]; do
	if "$LATENCY" "$L" org.rdmad1.Link State 100 "batch $((batches + 1)), $(links) VFs so far" \
		>> "$VM_LOGDIR/latency.txt" 2>&1; then
		configuring 1 && answered_during=$((answered_during + 1))
	fi
	batches=$((batches + 1))
	if [ "$batches" = 1 ]; then
		row=$(vfs_row)
		status=$(unit StatusText)
		busctl call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Plan > "$VM_LOGDIR/plan.txt" 2>&1
	fi
done
ms=$(ms_since "$t0")
diag "$(cat "$VM_LOGDIR/latency.txt")"
diag "the write: $ms ms from the reload; Get batches meanwhile: $batches"
check "Get(State) answered, batch after batch, while the kernel was in the write ($answered_during of $batches batches ended before it did)" \
	test "$answered_during" -ge 1
diag "Settings' sriov.vfs row during the write: $row"
case $row in
"4|0|pending|writing 4 (started "*" s ago)") pass "Get(Settings) during the write: sriov.vfs pending, 'writing 4 (started N s ago)'" ;;
*) fail "Get(Settings) during the write: sriov.vfs pending, 'writing 4 (started N s ago)'" "got: $row" ;;
esac
diag "STATUS= during the write: $status"
case $status in
*"sriov.vfs of pci/$PF: writing 4 (started "*) pass "the unit's STATUS= says the write is in progress" ;;
*) fail "the unit's STATUS= says the write is in progress" "got: $status" ;;
esac
check "Plan() during the write: sriov.vfs in progress, sriov_numvfs not read" \
	grep -q 'in progress: writing 4 (started [0-9]* s ago); sriov_numvfs is not read until it ends' "$VM_LOGDIR/plan.txt"
check "the write outlasted WatchdogSec: more than $WATCHDOG_SEC s (sriovsim sleeps 4 x $DELAY_MS ms in it)" \
	test "$ms" -gt "${WATCHDOG_SEC}000"
check "the journal says how far it is, every 10 s: the VFs the kernel made so far" \
	sh -c "journalctl -q -o cat -u rdmad.service | grep -Eq ': sriov.vfs: still writing 4 \(started [0-9]+ s ago\); [0-4] VFs? so far'"
diag "$(journal | grep -E 'sriov.vfs' | tail -n 8)"
is "rdmad.service: the same process, never restarted" "$(unit MainPID) $(unit NRestarts)" "$pid0 $restarts0"
check "... no watchdog timeout in PID 1's journal" \
	sh -c "! journalctl -q -o cat _PID=1 | grep -qi 'rdmad.service: watchdog timeout'"
is "... rdmad's dispatches over 1 s: none more" "$(slow_dispatches)" "$slow0"
check "the outcome: sriov.vfs converged at 4" \
	wait_until 120 sh -c "[ \"\$(busctl --json=short get-property org.rdmad1 $L org.rdmad1.Link Settings |
		jq -r '.data[] | select(.[0] == \"sriov.vfs\") | .[2] + \" \" + .[3]')\" = '4 converged' ]"
is "... 4 VFs, each with a netdev" \
	"$(links) $(for v in "$P"/virtfn*; do ls "$v/net" 2> /dev/null | wc -l; done | tr -d '\n')" "4 1111"

# ---- systemctl stop during a slow write -----------------------------------------------------------
profile 0
check "SIGHUP (sriov.vfs: 0, 4 x $DELAY_MS ms again)" hup
check "... its worker is in the write" wait_until 120 configuring 1
MAIN=$(unit MainPID)
WORKER=$(journal | sed -n 's/.*sriov.vfs: writing 0, off the event loop (worker pid \([0-9]*\)).*/\1/p' | tail -n 1)
t0=${EPOCHREALTIME/./}
systemctl stop --no-block rdmad
check "systemctl stop: rdmad's main process exits at once, while the write goes on" \
	wait_until 30 sh -c "! kill -0 $MAIN 2> /dev/null && [ \"\$(cat $PARAMS/configuring)\" = 1 ]"
diag "rdmad's process gone $(ms_since "$t0") ms after the stop; the worker $WORKER: $(awk '/^State:/ { print $2 }' "/proc/$WORKER/status" 2> /dev/null)"
check "... saying the worker goes on, the kernel cannot interrupt it" \
	sh -c "journalctl -q -o cat -u rdmad.service | grep -q 'sriov.vfs: still writing 0 in worker pid $WORKER, which the kernel cannot interrupt'"
check "the unit stops once the worker is done (within TimeoutStopSec)" \
	wait_until 120 sh -c "[ \"\$(systemctl show -P ActiveState rdmad.service)\" = inactive ]"
diag "the unit inactive $(ms_since "$t0") ms after the stop; its result: $(unit Result)"
is "... sriov_numvfs 0: the write was done" "$(cat "$P/sriov_numvfs")" 0
check "... the worker logged the outcome itself" \
	sh -c "journalctl -q -o cat -u rdmad.service | grep -q ': sriov.vfs 0 after rdmad stopped (worker pid $WORKER): changed'" ||
	diag "$(journalctl -q -o short-monotonic -n 30 2>&1)"
diag "$(journal | tail -n 6)"
check "numvfs_delay_ms 0" write "$PARAMS/numvfs_delay_ms" 0
done_testing
