#!/bin/bash
# sriov.sh (light VM, --netdevsim --pcie) - issue 25's function-level keys through rdmad, on the
# kernel's netdevsim (SR-IOV VFs, devlink e-switch) and qemu's e1000e behind a PCIe switch:
#   - rdmactl plan before and after; rdmad sets sriov_numvfs, the e-switch mode and every VF
#     attribute (read back with ip -d -j link show and devlink), clears the ACS P2P redirect
#     bits of the root ports on the route between the two e1000e (no GPU here: the other
#     function declaring pci.upstream-acs: off is the peer; alone, there is no route), and
#     reports the Max_Read_Request qemu never takes as unsupported, never converged (the write
#     itself is in qemu's trace: the host side);
#   - drift: a VF's MAC changed by hand is put back; one changed while the PF is down (which the
#     kernel does not announce) is put back when the PF comes up; an agent that keeps changing
#     it makes the setting contested;
#   - a new count (4 -> 2) goes through 0, as the plan said; a VF made again there keeps the
#     min-rate netdevsim kept for it when only its max-rate is declared (issue 43: it was
#     written as 0); a "driver reload" (netdevsim's device deleted and made again) gets its VFs
#     and their settings back, timed;
#   - a setpci by hand on ACS is put back by the next full reconcile (rdmactl reconcile);
#   - pci.upstream-acs: on sets back what rdmad recorded clearing; under kernel lockdown a write
#     refused with EPERM is unsupported, saying so, never a failure.
# run-vm: host-side
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

# ---- the host side: qemu's trace of config writes -------------------------------------------------
if [ "${VM_SIDE:-guest}" = host ]; then
	T=${VM_PCI_TRACE:-}
	[ -n "${PCIE_NIC:-}" ] && [ -n "${PCIE_NIC_DEVCTL:-}" ] ||
		bail "the guest side handed over no @@VM-HOST addresses"
	check "qemu traced the guest's config writes" test -s "$T" || bail "no trace file '$T'"
	n=$(awk -v a="$PCIE_NIC" -v o="@$PCIE_NIC_DEVCTL" '$3 == a && $4 == o && $6 == "0x5000"' "$T" |
		wc -l)
	check "rdmad wrote Device Control 0x5000 (MRRS 4096) to $PCIE_NIC: $n time(s), the device kept 128" \
		test "$n" -ge 1
	done_testing
fi

# ---- the guest side ---------------------------------------------------------------------------------
LOG=${VM_LOGDIR:-/tmp}/rdmad.log
CONF=/etc/rdmad
for b in rdmad rdmactl udevadm devlink setpci; do
	command -v "$b" > /dev/null || bail "no $b on PATH"
done
uptime_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

check "modprobe psample; insmod netdevsim.ko" \
	sh -c "modprobe psample && insmod /lib/modules/$(uname -r)/extra/netdevsim.ko" || bail "no netdevsim"
check "depmod; modprobe e1000e" sh -c "depmod && modprobe e1000e" || bail "no e1000e"
NSIM=/sys/bus/netdevsim/devices/netdevsim1
check "netdevsim device 1, one port" write /sys/bus/netdevsim/new_device "1 1"
wait_until 20 sh -c "ls $NSIM/net/ | grep -q ." || bail "netdevsim1 has no netdev"
PF=$(ls "$NSIM/net/" | head -n1)
NIC=0000:03:00.0 RP=0000:00:1c.0 NIC2=0000:04:00.0 RP2=0000:00:1d.0
wait_until 20 test -d "/sys/bus/pci/devices/$NIC/net" || bail "the e1000e at $NIC has no netdev"
ETH=$(ls "/sys/bus/pci/devices/$NIC/net/" | head -n1)
diag "netdevsim1's netdev: $PF; the e1000e at $NIC: $ETH"
# The Device Control offset, for the host side: CAP_EXP's offset + 8
exp=$(lspci -s "$NIC" -vv | sed -n 's/.*Capabilities: \[\([0-9a-f]*\)\] Express.*/\1/p')
echo "@@VM-HOST PCIE_NIC=${NIC#0000:}"
echo "@@VM-HOST PCIE_NIC_DEVCTL=$(printf '0x%x' $((0x$exp + 8)))"

# As a kernel with an IOMMU sets it: P2P request, completion redirect and egress control on
acs() { setpci -s "$RP" ECAP_ACS+6.w; }
acs2() { setpci -s "$RP2" ECAP_ACS+6.w; }
acs_on() { setpci -s "$RP" ECAP_ACS+6.w=001d && setpci -s "$RP2" ECAP_ACS+6.w=001d; }
check "setpci ECAP_ACS+6.w=001d on the root ports $RP and $RP2" acs_on

# udevd with no rules relays uevents to rdmad; org.rdmad1 on a private bus with the shipped policy
udevd_start
private_bus_start

mkdir -p "$CONF" /run/rdmad-vm/next
profile() { # profile VFS [DIR]: the declared state, with sriov.vfs VFS; VF0_EXTRA: more fields of
	# VF 0. BARE_PF=1: without the
	# Soft-RoCE link on the PF and without its up state (a PF with no RDMA port, up or down by hand)
	local f=${2:-$CONF}/50-sriov.yaml
	if [ -z "${BARE_PF:-}" ]; then
		cat > "$f" << YAML
# a Soft-RoCE link on the PF, so that the settings show in its status rows
links:
  - {name: rxe0, type: rxe, netdev: $PF}
---
match: {netdev: $PF}
netdev: {up: true}
YAML
	else
		echo "match: {netdev: $PF}" > "$f"
	fi
	cat >> "$f" << YAML
sriov:
  vfs: $1
  eswitch: legacy
  vf:
    - {index: 0, mac: 02:00:00:00:00:10, vlan: 100, qos: 3, vlan-protocol: 802.1ad,
       trust: true, spoof-check: false, link-state: enable${VF0_EXTRA:-}}
    - {index: 1, mac: 02:00:00:00:00:11, max-rate: 1000, min-rate: 100}
---
match: {pci: "$NIC"}
pci:
  max-read-request: 4096
  upstream-acs: off
---
# the other e1000e: its peer (no GPU in this VM), on a root port of its own
match: {pci: "$NIC2"}
pci: {upstream-acs: off}
YAML
}
profile 4

# The NIC alone declares it: no GPU, no other function, no route to shorten
mkdir -p /run/rdmad-vm/alone
printf 'match: {pci: "%s"}\npci: {upstream-acs: off}\n' "$NIC" > /run/rdmad-vm/alone/50-acs.yaml
rdmactl plan --config-dir /run/rdmad-vm/alone > "$VM_LOGDIR/plan-alone.txt" 2>&1
check "plan, $NIC alone declaring upstream-acs: off: unsupported, no route to shorten" \
	grep -Eq "^pci/$NIC +pci\.upstream-acs +off +no peer-to-peer route to shorten: no GPU on this host and no other function declares pci.upstream-acs: off" \
	"$VM_LOGDIR/plan-alone.txt"

plan=$(rdmactl plan 2>&1)
diag "rdmactl plan, before:"
diag "$plan"
echo "$plan" > "$VM_LOGDIR/plan-before.txt"
check "plan: sriov.vf of VFs the same plan makes, pending (not 'does not exist')" \
	sh -c "[ \$(grep -Ec '^netdevsim/netdevsim1 +sriov\.vf +- +vf [01] ' $VM_LOGDIR/plan-before.txt) = 2 ]"
check "plan: sriov.vfs 0 -> 4 on netdevsim/netdevsim1" \
	grep -Eq '^netdevsim/netdevsim1 +sriov\.vfs +0 +4 ' "$VM_LOGDIR/plan-before.txt"
check "plan: the root ports' ACS Control on the route between the e1000e, 0x001d -> 0x0011" \
	sh -c "grep -Eq '^pci/$NIC +pci\.upstream-acs +$RP ACSCtl 0x001d +$RP ACSCtl 0x0011 ' $VM_LOGDIR/plan-before.txt &&
		grep -Eq '^pci/$NIC +pci\.upstream-acs +$RP2 ACSCtl 0x001d +$RP2 ACSCtl 0x0011 ' $VM_LOGDIR/plan-before.txt"
check "plan: Max_Read_Request 128 -> 4096" \
	grep -Eq "^pci/$NIC +pci\.max-read-request +128 +4096 " "$VM_LOGDIR/plan-before.txt"

rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
# Conditions as functions of this shell: a `sh -c` in the light VM is busybox's, whose ip
# applet has no -j.
vfs() { ip -d -j link show "$PF" 2> /dev/null | jq -r '.[0].vfinfo_list // [] | length'; }
vf() { ip -d -j link show "$PF" 2> /dev/null | jq -c ".[0].vfinfo_list[$1]"; }
mac1() { vf 1 | jq -r .address; }
numvfs_is() { [ "$(cat "$NSIM/sriov_numvfs" 2> /dev/null)" = "$1" ] && [ "$(vfs)" = "$1" ]; }
mac1_is() { [ "$(mac1)" = "$1" ]; }
check "rdmad: 4 VFs (sriov_numvfs, read back over RTM_GETLINK)" wait_until 20 numvfs_is 4
check "... and rxe0/1 on $PF converged" wait_until 20 grep -q 'rxe0/1: converged' "$LOG"
# issue 43: the write to sriov_numvfs, which can take seconds, left the event loop
worker_wrote() { grep -Eq ": $1, off the event loop \(worker pid [0-9]+\)" "$LOG"; }
check "... the count written by a worker process, off rdmad's loop (journal)" \
	worker_wrote 'sriov.vfs: writing 4'
v0=$(vf 0) v1=$(vf 1)
diag "vf 0: $v0"
diag "vf 1: $v1"
is "VF 0: mac, vlan, qos, protocol" \
	"$(jq -r '"\(.address) \(.vlan_list[0].vlan) \(.vlan_list[0].qos) \(.vlan_list[0].protocol)"' <<< "$v0")" \
	"02:00:00:00:00:10 100 3 802.1ad"
is "VF 0: trust, spoof check, link state" \
	"$(jq -r '"\(.trust) \(.spoofchk) \(.link_state)"' <<< "$v0")" "true false enable"
is "VF 1: mac and rates (Mbit/s)" \
	"$(jq -r '"\(.address) \(.rate.max_tx) \(.rate.min_tx)"' <<< "$v1")" "02:00:00:00:00:11 1000 100"
is "devlink dev eswitch show: legacy" \
	"$(devlink -j dev eswitch show netdevsim/netdevsim1 | jq -r '.dev[].mode')" legacy
is "ACS Control on $RP and $RP2: P2P redirect cleared (0x0011)" "$(acs) $(acs2)" "0011 0011"

plan=$(rdmactl plan 2>&1)
diag "rdmactl plan, after:"
diag "$plan"
echo "$plan" > "$VM_LOGDIR/plan-after.txt"
is "plan after: only the Max_Read_Request the device does not take is left" \
	"$(grep -Ec '^(netdevsim|pci|rxe0)' "$VM_LOGDIR/plan-after.txt")" 1
check "... it is logged unsupported, with what it reads back" \
	grep -q "pci.max-read-request not applied: $NIC: written, but Max_Read_Request_Size reads back 128" "$LOG"
status=$(rdmactl status --no-pager rxe0/1 2>&1)
diag "$status"
for k in sriov.vfs sriov.eswitch sriov.vf; do
	check "rdmactl status rxe0/1: $k converged" \
		sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^$k .* converged'"
done

# ---- drift, and a contest -------------------------------------------------------------------------
t0=$(uptime_ms)
ip link set "$PF" vf 1 mac 02:00:00:00:00:99
if wait_until 30 mac1_is 02:00:00:00:00:11; then
	pass "VF 1's MAC changed by hand is put back (RTM_NEWLINK on the PF)"
	diag "put back in $(($(uptime_ms) - t0)) ms"
else
	fail "VF 1's MAC changed by hand is put back" "it reads $(mac1)" "$(grep sriov "$LOG" | tail -n 20)"
fi
# ---- a VF changed by hand while its PF is down ----------------------------------------------------
# The kernel announces `ip link set PF vf ...` with RTM_NEWLINK on the PF only while the PF is up
# (do_setlink() -> netdev_state_change(), which notifies nothing for a down netdev). The PF coming
# up is an event of its own: rdmad re-reads the PF's VFs then and puts the change back. For this
# part the profile leaves the PF's up state alone, so that it stays down, and declares no
# Soft-RoCE link on it: an event on a link's netdev is a full pass for that alone, an event on a
# PF without one is a full pass because the PF has VFs (manager-dirty.c), the path under test.
mac0() { vf 0 | jq -r .address; }
mac0_is() { [ "$(mac0)" = "$1" ]; }
reloads() { grep -c 'Loaded' "$LOG"; }
reloaded_past() { [ "$(reloads)" -gt "$1" ]; }
runs() { grep -c 'reconcile: [0-9]* passes' "$LOG"; }
ran_past() { [ "$(runs)" -gt "$1" ]; }
loaded=$(reloads)
BARE_PF=1 profile 4
kill -HUP "$RDMAD"
check "reload: no link on $PF, its up state not declared" wait_until 20 reloaded_past "$loaded"
no_rxe0() { ! rdma link show 2> /dev/null | grep -q '^link rxe0/'; }
check "... rxe0 deleted" wait_until 30 no_rxe0
n=$(runs)
ip link set "$PF" down
# rdmad has seen it (a reconcile ran after it) and then settled (a full pass, waited for)
check "$PF down by hand: rdmad looked at it (a reconcile ran)" wait_until 20 ran_past "$n"
check "... rdmactl reconcile (a full pass) done" logged "$VM_LOGDIR/reconcile-down.log" rdmactl reconcile
is "... $PF stays down" "$(ip -j link show "$PF" | jq -r '.[0].flags | index("UP") != null')" false
# What the kernel announces meanwhile, between two marks: lo's MTU set to a new value until
# `ip monitor link` shows it (it may not listen yet at the first).
MARK=0
mark_seen() {
	MARK=$((MARK + 1))
	ip link set lo mtu $((60000 + MARK))
	wait_until 2 grep -q ": lo: .* mtu $((60000 + MARK)) " "$VM_LOGDIR/monitor-down.txt"
}
ip -o monitor link > "$VM_LOGDIR/monitor-down.txt" 2>&1 &
MON=$!
check "ip monitor link: listening (a mark seen)" wait_until 20 mark_seen
from=$(wc -l < "$VM_LOGDIR/monitor-down.txt")
ip link set "$PF" vf 0 mac 02:00:00:00:00:98
is "VF 0's MAC changed by hand while $PF is down" "$(mac0)" 02:00:00:00:00:98
check "ip monitor link: the end mark seen" wait_until 20 mark_seen
kill "$MON"
wait "$MON" 2> /dev/null
ip link set lo mtu 65536
tail -n +$((from + 1)) "$VM_LOGDIR/monitor-down.txt" > "$VM_LOGDIR/monitor-between.txt"
diag "ip monitor link, between the marks:"
diag "$(sed 's/\\ */ /g' "$VM_LOGDIR/monitor-between.txt" | cut -c1-140)"
check "the kernel announced nothing on $PF for it (no RTM_NEWLINK between the marks)" \
	sh -c "! grep -q ': $PF: ' $VM_LOGDIR/monitor-between.txt"
is "... and rdmad left it (no event, no pass): VF 0's MAC still reads the hand's" "$(mac0)" 02:00:00:00:00:98
t0=$(uptime_ms)
ip link set "$PF" up
if wait_until 30 mac0_is 02:00:00:00:00:10; then
	pass "$PF up: VF 0's MAC changed while it was down is put back"
	diag "put back $(($(uptime_ms) - t0)) ms after $PF came up"
else
	fail "$PF up: VF 0's MAC changed while it was down is put back" "it reads $(mac0)" \
		"$(grep -E 'sriov|reconcile' "$LOG" | tail -n 20)"
fi
converged=$(grep -c 'rxe0/1: converged' "$LOG")
profile 4
kill -HUP "$RDMAD"
check "reload: rxe0 on $PF again, converged" \
	wait_until 30 sh -c "[ \$(grep -c 'rxe0/1: converged' $LOG) -gt $converged ]"

# A reload forgets earlier writes: the count of reverts starts from nothing.
loaded=$(grep -c 'Loaded' "$LOG")
kill -HUP "$RDMAD"
wait_until 20 sh -c "[ \$(grep -c Loaded $LOG) -gt $loaded ]"
# The agent goes on until rdmad calls it a contest, for 50 s at most: three put-backs within the
# contest's 60 s window, however long each takes here (2.8 s plain, 3.3-6 s under ASan on a
# loaded machine, where a fixed 8 s of agent saw only two).
contested() { grep -q 'rxe0/1: sriov.vf reverted 3 times within 60 s by another agent' "$LOG"; }
end=$(($(uptime_ms) + 50000))
while [ "$(uptime_ms)" -lt "$end" ] && ! contested; do
	[ "$(mac1)" = 02:00:00:00:00:11 ] && ip link set "$PF" vf 1 mac 02:00:00:00:00:99
	sleep 0.2
done
check "an agent that keeps changing it: the journal says sriov.vf is contested" contested
check "rdmactl status: sriov.vf contested" \
	sh -c "rdmactl status --no-pager rxe0/1 | grep -Eq '^sriov\.vf .*contested'"
check "once the agent stopped, after the hold: VF 1's MAC put back" \
	wait_until 60 mac1_is 02:00:00:00:00:11

# ---- a new count goes through 0 -----------------------------------------------------------------
diag "$(grep -E 'sriov|contest' "$LOG" | tail -n 30)"
# VF 0's min-rate by hand, which no profile declares; netdevsim keeps it across sriov_numvfs 0.
# The next profile declares VF 0's max-rate only: the kernel takes both at once, and the VF is
# made by the same plan (through 0), so the min-rate to write with it is known only then.
check "ip link set $PF vf 0 min_tx_rate 10 (by hand)" ip link set "$PF" vf 0 min_tx_rate 10
VF0_EXTRA=", max-rate: 500"
profile 2 /run/rdmad-vm/next
rdmactl plan --config-dir /run/rdmad-vm/next > "$VM_LOGDIR/plan-2.txt" 2>&1
diag "$(cat "$VM_LOGDIR/plan-2.txt")"
check "plan: 4 -> 0 first, saying it destroys the VFs, then 0 -> 2" \
	sh -c "grep -Eq 'sriov\.vfs +4 +0 \(first: destroys the 4 VFs, to make 2\)' $VM_LOGDIR/plan-2.txt &&
		grep -Eq 'sriov\.vfs +0 +2 ' $VM_LOGDIR/plan-2.txt"
profile 2
kill -HUP "$RDMAD"
check "reload: 2 VFs" wait_until 20 numvfs_is 2
check "... through 0, as planned (journal)" \
	sh -c "grep -q 'sriov.vfs 4 -> 0 (first: destroys the 4 VFs, to make 2)' $LOG &&
		grep -q 'sriov.vfs 0 -> 2' $LOG"
check "... each write by a worker" eval "worker_wrote 'sriov.vfs: writing 0' && worker_wrote 'sriov.vfs: writing 2'"
rate0_is() { [ "$(vf 0 | jq -r '"\(.rate.max_tx) \(.rate.min_tx)"')" = "$1" ]; }
if wait_until 20 rate0_is "500 10"; then
	pass "VF 0, made again by that plan: max-rate 500 as declared, the min-rate it had (10) kept"
else
	fail "VF 0, made again by that plan: max-rate 500 as declared, the min-rate it had (10) kept" \
		"vf 0: $(vf 0)" "$(grep -E 'sriov.vf' "$LOG" | tail -n 10)"
fi

# ---- "driver reload": the device deleted and made again -------------------------------------------
check "netdevsim1 deleted" write /sys/bus/netdevsim/del_device 1
wait_until 20 test ! -e "$NSIM"
t0=$(uptime_ms)
check "... and made again" write /sys/bus/netdevsim/new_device "1 1"
back() { numvfs_is 2 && mac1_is 02:00:00:00:00:11 && [ "$(vf 0 | jq -r '.vlan_list[0].vlan')" = 100 ]; }
if wait_until 30 back; then
	pass "re-created: its 2 VFs and their settings are back"
	diag "netdevsim re-create to VFs and settings back: $(($(uptime_ms) - t0)) ms"
else
	fail "re-created: its 2 VFs and their settings are back" \
		"numvfs $(cat $NSIM/sriov_numvfs 2>&1), vf 0 $(vf 0), vf 1 $(vf 1)" \
		"$(grep -E 'sriov|netdevsim' "$LOG" | tail -n 30)"
fi

# ---- setpci by hand: no event; the next full reconcile puts it back ---------------------------------
setpci -s "$RP" ECAP_ACS+6.w=001d
check "rdmactl reconcile puts ACS Control back (0x0011)" \
	sh -c "rdmactl reconcile > $VM_LOGDIR/reconcile.log 2>&1; [ \"\$(setpci -s $RP ECAP_ACS+6.w)\" = 0011 ]"

# ---- switchdev: the e-switch mode through devlink; a VF rate is refused there -----------------
eswitch_is() { [ "$(devlink -j dev eswitch show netdevsim/netdevsim1 | jq -r '.dev[].mode')" = "$1" ]; }
sed -i -e 's/eswitch: legacy/eswitch: switchdev/' -e 's/max-rate: 1000,/max-rate: 2000,/' \
	"$CONF/50-sriov.yaml"
kill -HUP "$RDMAD"
check "sriov.eswitch: switchdev: devlink dev eswitch show says so" wait_until 20 eswitch_is switchdev
check "... changed by a worker (journal)" \
	worker_wrote 'sriov.eswitch: changing the e-switch mode to switchdev'
check "... and VF 1's new max-rate, refused in switchdev (EOPNOTSUPP): unsupported, saying why" \
	wait_until 20 sh -c "rdmactl status --no-pager rxe0/1 |
		grep -Eq '^sriov\.vf .* unsupported +eth[0-9]+ refuses vf 1 max_tx_rate 2000Mbps \(EOPNOTSUPP.*switchdev mode drivers refuse VF rates'"
diag "$(rdmactl status --no-pager rxe0/1 2>&1 | grep -E '^(SETTING|sriov)')"
is "... VF 1 keeps the rate it had" "$(vf 1 | jq -r .rate.max_tx)" 1000

# ---- upstream-acs: on ----------------------------------------------------------------------------
# rdmad recorded the bits it cleared (RR and CR: the root ports have no EC) before it wrote them
is "rdmad's records of the ACS bits it cleared" \
	"$(cd /run/rdmad/state/acs && grep -H . -- * | paste -sd' ')" \
	"$RP:cleared 0x000c $RP2:cleared 0x000c"
sed -i 's/upstream-acs: off/upstream-acs: on/' "$CONF/50-sriov.yaml"
kill -HUP "$RDMAD"
acs_both() { [ "$(acs) $(acs2)" = "$1" ]; }
check "upstream-acs: on: the bits set back on both root ports (0x001d)" wait_until 20 acs_both "001d 001d"
check "... and the records dropped" wait_until 20 sh -c "[ -z \"\$(ls -A /run/rdmad/state/acs)\" ]"
# what rdmad did not clear is not its to set: RR cleared by hand stays cleared
setpci -s "$RP2" ECAP_ACS+6.w=0000:0004
rdmactl reconcile > "$VM_LOGDIR/reconcile-on.log" 2>&1
is "... RR cleared by hand on $RP2 after that: left as it is (no record)" "$(acs2)" 0019
setpci -s "$RP2" ECAP_ACS+6.w=001d

# ---- kernel lockdown: config space writes refused --------------------------------------------------
# Last: lockdown cannot be undone. integrity (what Secure Boot turns on) refuses config space
# writes with EPERM: reported as unsupported, with the reason, not as a failure to retry.
sed -i 's/upstream-acs: on/upstream-acs: off/' "$CONF/50-sriov.yaml"
mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
check "echo integrity > /sys/kernel/security/lockdown" write /sys/kernel/security/lockdown integrity
kill -HUP "$RDMAD"
refused() { grep -q "pci.upstream-acs not applied: $RP: the kernel refuses config space writes (EPERM: kernel lockdown" "$LOG"; }
check "under lockdown, upstream-acs: off: unsupported, EPERM and lockdown named (journal)" wait_until 20 refused
diag "$(grep -E 'pci\.' "$LOG" | tail -n 6)"
is "... ACS Control unchanged (0x001d) on both root ports" "$(acs) $(acs2)" "001d 001d"
is "... never logged as a failure" "$(grep -c 'failed to set pci.upstream-acs' "$LOG")" 0

check "rdmad is still running" kill -0 "$RDMAD"
workers() { grep -lx rdmad-worker /proc/[0-9]*/comm 2> /dev/null | wc -l; }
is "... every worker it started is gone (reaped)" "$(workers)" 0
kill "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
kill "$(cat /run/rdmad-vm/bus.pid)"
done_testing
