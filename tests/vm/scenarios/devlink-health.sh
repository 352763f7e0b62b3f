#!/bin/bash
# devlink-health.sh (light VM, --netdevsim) - issue 46's health and firmware parts on the kernel's
# netdevsim, whose `dummy` health reporter breaks through debugfs (health/break_health) and fails
# its recovery while health/fail_recover is set, and whose `dev info` gives fw.mgmt 10.20.30,
# running and stored:
#   - the firmware in rdmactl metrics (rdmad_firmware_info) and preflight (hardware.firmware-pending);
#   - the reporter broken with fail_recover set: the write fails (the kernel counted the error
#     and the recovery failed), and the error is seen in rdmactl metrics, rdmactl preflight and
#     rdmad's Describe() within 2 s of the write (each timed, side by side), the
#     DevlinkHealthChanged signal and a journal line naming the netdev;
#   - a failed recovery (`devlink health recover` while fail_recover holds): still in error,
#     nothing new told; then recovered by hand, seen healthy everywhere;
#   - with auto-recover (fail_recover off), one write counts an error and its recovery: rdmad
#     tells both;
#   - the device deleted: its reporters leave rdmad's table (the device's DEL).
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

LOG=${VM_LOGDIR:-/tmp}/rdmad.log
for b in rdmad rdmactl devlink busctl jq; do
	command -v "$b" > /dev/null || bail "no $b on PATH"
done
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

check "modprobe psample; insmod netdevsim.ko" \
	sh -c "modprobe psample && insmod /lib/modules/$(uname -r)/extra/netdevsim.ko" || bail "no netdevsim"
check "netdevsim device 1, one port" write /sys/bus/netdevsim/new_device "1 1"
NSIM=/sys/bus/netdevsim/devices/netdevsim1
wait_until 20 sh -c "ls $NSIM/net/ | grep -q ." || bail "netdevsim1 has no netdev"
PF=$(ls "$NSIM/net/" | head -n1)
DL=netdevsim/netdevsim1
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
H=/sys/kernel/debug/netdevsim/netdevsim1/health
test -e "$H/break_health" || bail "no $H/break_health"
diag "netdevsim1's netdev: $PF"

# ---- the kernel's facts ----------------------------------------------------------------------
show() { devlink -j health show "$DL" reporter dummy | jq -c '.health[][]'; }
diag "devlink health show: $(devlink -j health show "$DL" | jq -c .)"
is "devlink health: dummy healthy, 0 errors, 0 recovers, auto_recover on" \
	"$(show | jq -r '"\(.state) \(.error) \(.recover) \(.auto_recover)"')" "healthy 0 0 true"
is "devlink dev info: fw.mgmt 10.20.30 running and stored" \
	"$(devlink -j dev info "$DL" | jq -r '.info[].versions | "\(.running."fw.mgmt") \(.stored."fw.mgmt")"')" \
	"10.20.30 10.20.30"

# ---- rdmad on a private bus --------------------------------------------------------------------
udevd_start
private_bus_start
mkdir -p /etc/rdmad
rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
describe() { busctl --json=short call org.rdmad1 /org/rdmad1 org.rdmad1.Manager Describe |
	jq -r '.data[0]'; }
dummy_is() { # dummy_is STATE ERRORS RECOVERIES: as Describe() shows it
	[ "$(describe | jq -r '.devlink_health[] | select(.device == "'$DL'" and .reporter == "dummy") |
		"\(.state) \(.errors) \(.recoveries)"')" = "$*" ]
}
check "rdmad reads the reporters at start: Describe() has dummy healthy 0 0" \
	within 20 dummy_is healthy 0 0
diag "Describe().devlink_health: $(describe | jq -c .devlink_health)"
# rdmactl monitor prints DevlinkHealthChanged; its "Following rdmad" once its matches are in place
rdmactl monitor > "$VM_LOGDIR/monitor.log" 2> "$VM_LOGDIR/monitor.err" &
MON=$!
wait_until 20 grep -q '^Following rdmad' "$VM_LOGDIR/monitor.err" ||
	bail "rdmactl monitor did not start: $(cat "$VM_LOGDIR/monitor.err")"

metric() { rdmactl metrics | grep -F "$1"; }
STATE='rdmad_devlink_health_state{device="'$DL'",reporter="dummy",netdev="'$PF'"}'
ERRORS='rdmad_devlink_health_errors_total{device="'$DL'",reporter="dummy",netdev="'$PF'"}'
RECOV='rdmad_devlink_health_recoveries_total{device="'$DL'",reporter="dummy",netdev="'$PF'"}'
check "metrics: rdmad_firmware_info of $DL: no PSID, 10.20.30 running and stored" \
	metric 'rdmad_firmware_info{device="'$DL'",psid="",running="10.20.30",stored="10.20.30"} 1'
metrics_are() { # metrics_are STATE ERRORS RECOVERIES: dummy's series
	local m
	m=$(rdmactl metrics) && grep -Fxq "$STATE $1" <<< "$m" && grep -Fxq "$ERRORS $2" <<< "$m" &&
		grep -Fxq "$RECOV $3" <<< "$m"
}
check "metrics: dummy healthy (0), 0 errors, 0 recoveries" metrics_are 0 0 0
row() { # row CHECK SUBJECT: "status seen" of a preflight row
	rdmactl preflight --json | jq -r '.[] | select(.check == "'$1'" and .subject == "'$2'") |
		"\(.status) \(.seen)"'
}
pre=$(row hardware.firmware-pending "$DL")
diag "preflight hardware.firmware-pending $DL: $pre"
check "preflight: hardware.firmware-pending ok, fw.mgmt 10.20.30 the stored version" \
	grep -q "^ok $DL ($PF) runs fw.mgmt 10.20.30, the stored version" <<< "$pre"
pre=$(row hardware.health "$DL/dummy")
diag "preflight hardware.health $DL/dummy: $pre"
check "preflight: hardware.health ok, dummy healthy" grep -q "^ok reporter dummy of $DL ($PF) is healthy" <<< "$pre"
diag "metrics before break_health:"
diag "$(rdmactl metrics | grep -E '^rdmad_(devlink|firmware)')"

# ---- broken, its recovery failing --------------------------------------------------------------
# The signal is timed from the write to its line in rdmactl monitor's output (a grep of a file:
# the poll costs nothing beside the VM's one CPU). rdmactl metrics and preflight read devlink
# when they run, so the first run started after the write must show the error: asserted, and
# its time from the write printed (under TCG most of it is the tool's own run).
sig() { # sig STATE ERRORS RECOVERIES: rdmactl monitor printed a DevlinkHealthChanged of dummy
	grep -q " $DL health dummy: $1, $2 errors, $3 recoveries\$" "$VM_LOGDIR/monitor.log"
}
metric_error() { rdmactl metrics | grep -Fxq "$STATE 1"; }
preflight_fail() { [ "$(row hardware.health "$DL/dummy" | cut -d' ' -f1)" = fail ]; }
bus_error() { dummy_is error 1 0; }
check "echo 1 > health/fail_recover" write "$H/fail_recover" 1
T0=$(uptime_ms)
fails_with "echo 1 > health/break_health: the recovery fails (EINVAL), the error is held" \
	"Invalid argument" sh -c "echo 1 > $H/break_health"
check "DevlinkHealthChanged: $DL dummy error 1 0" wait_until 20 sig error 1 0
ms=$(($(uptime_ms) - T0))
diag "break_health seen on D-Bus (DevlinkHealthChanged) after $ms ms"
check "the error is told on D-Bus within 2 s of the write ($ms ms)" test "$ms" -le 2000
t=$(uptime_ms)
check "the first rdmactl metrics after the write shows dummy in error (1)" metric_error
diag "break_health seen in rdmactl metrics $(($(uptime_ms) - T0)) ms after the write (its run: $(($(uptime_ms) - t)) ms)"
t=$(uptime_ms)
check "the first rdmactl preflight after the write fails hardware.health" preflight_fail
diag "break_health seen in rdmactl preflight $(($(uptime_ms) - T0)) ms after the write (its run: $(($(uptime_ms) - t)) ms)"
check "Describe(): dummy error 1 0" bus_error
is "devlink health: dummy error, 1 error, 0 recovers" \
	"$(show | jq -r '"\(.state) \(.error) \(.recover)"')" "error 1 0"
diag "metrics after break_health:"
diag "$(rdmactl metrics | grep -E '^rdmad_(devlink|firmware)')"
pre=$(row hardware.health "$DL/dummy")
diag "preflight hardware.health $DL/dummy: $pre"
check "preflight: hardware.health fails: in error, 1 errors, 0 recoveries" \
	grep -q "^fail reporter dummy of $DL ($PF) is in error: 1 errors, 0 recoveries" <<< "$pre"
preflight_fails() { ! rdmactl preflight > /dev/null 2>&1; }
check "rdmactl preflight exits 1 (a check fails)" preflight_fails
check "journal line: reporter dummy of $DL ($PF): error, 1 errors, 0 recoveries" \
	grep -q "devlink health reporter dummy of $DL ($PF): error, 1 errors, 0 recoveries" "$LOG"

# a recovery by hand while fail_recover holds: refused, nothing changes, nothing is sent
fails_with "devlink health recover while fail_recover holds: refused" "Invalid argument" \
	devlink health recover "$DL" reporter dummy
is "... still error, 1 error, 0 recovers" "$(show | jq -r '"\(.state) \(.error) \(.recover)"')" \
	"error 1 0"
check "... metrics: still in error" metric_error

# ---- recovered -------------------------------------------------------------------------------
check "echo 0 > health/fail_recover" write "$H/fail_recover" 0
T0=$(uptime_ms)
check "devlink health recover" devlink health recover "$DL" reporter dummy
check "DevlinkHealthChanged: $DL dummy healthy 1 1" wait_until 20 sig healthy 1 1
diag "recovery told on D-Bus $(($(uptime_ms) - T0)) ms after devlink health recover"
check "Describe(): dummy healthy, 1 error, 1 recovery" within 20 dummy_is healthy 1 1
check "metrics: healthy (0), 1 error, 1 recovery" metrics_are 0 1 1
check "preflight: hardware.health ok again" \
	grep -q "^ok reporter dummy of $DL ($PF) is healthy: 1 errors, 1 recoveries" \
	<<< "$(row hardware.health "$DL/dummy")"
check "journal line: healthy, 1 errors, 1 recoveries" \
	grep -q "devlink health reporter dummy of $DL ($PF): healthy, 1 errors, 1 recoveries" "$LOG"

# ---- auto-recover: one write, an error and its recovery ----------------------------------------
check "echo 1 > health/break_health with auto-recover: the write succeeds" write "$H/break_health" 1
is "devlink health: healthy, 2 errors, 2 recovers" \
	"$(show | jq -r '"\(.state) \(.error) \(.recover)"')" "healthy 2 2"
both_told() { sig error 2 1 && sig healthy 2 2; }
check "DevlinkHealthChanged: the error (2 1), then the recovery (2 2)" wait_until 20 both_told
check "Describe(): healthy 2 2" within 20 dummy_is healthy 2 2

# the device removed: its reporters go with it, and the kernel says nothing of them but the
# device's DEL, which drops them from rdmad's table
no_dummy() { [ -z "$(describe | jq -r '.devlink_health[]? | select(.device == "'$DL'") | .reporter')" ]; }
check "echo 1 > del_device" write /sys/bus/netdevsim/del_device 1
check "Describe(): no reporter of $DL left once the device is gone" within 20 no_dummy

check "rdmad is still running" kill -0 "$RDMAD"
kill "$MON"
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
done_testing
