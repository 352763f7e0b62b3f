#!/bin/bash
# sriov-guard.sh (light VM, --sriov-pci --pcie) - issue 43's guards through the real rdmad, on real
# PCI SR-IOV functions (qemu's NVMe made an Ethernet PF with 4 VFs by sriovsim, under a vIOMMU:
# each VF alone in a DMA-FQ IOMMU group below root port rp3) and qemu's e1000e as the ACS peer:
#   - sriov.vfs: no count change while a VF is in use, up through 0 (2 -> 4, the shape of 4 -> 8:
#     the VFs' totalvfs is 4) and down (4 -> 2 through 0) and to 0 alike. In use: bound to
#     vfio-pci and held as a VM holds it (vfiohold); its netdev in another netns (a pod); its
#     netdev up with an address. Each refusal names the VF and its holder in rdmad's plan and in
#     the status row of rxe0/1 (a Soft-RoCE link on the PF), and rdmad never writes sriov_numvfs (sriovsim's configure_calls stays, the
#     count reads the same), no process sits in D, rdmactl status answers. Once the VF is let
#     go, the declared count is applied (rdmactl reconcile or reload).
#   - pci.upstream-acs: off on the PF (the e1000e on rp2 declaring off too is its peer): refused
#     while a VF below rp3's root complex is bound to vfio-pci in its DMA-FQ group, naming
#     pci=disable_acs_redir=, ACSCtl unchanged on both root ports (setpci), rdmactl preflight's
#     hardware.acs-vfio row says the same; with no vfio function, the route's bits are cleared
#     and recorded, and `on` sets them back.
# No `set -e`: a failed check is reported and the scenario goes on. Every wait is for a condition,
# bounded; the verdict that rdmad did not write is taken after the pass that planned it is done
# (rdmactl reload and reconcile return when it is).
# shellcheck disable=SC2317 # the helpers run through check, wait_until and the trap
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

LOG=${VM_LOGDIR:-/tmp}/rdmad.log
CONF=/etc/rdmad
PF=0000:05:00.0 # run-vm.sh --sriov-pci --pcie: on root port rp3 (00:1e.0), its VFs 05:00.1-05:00.4
RP3=0000:00:1e.0
NIC2=0000:04:00.0 RP2=0000:00:1d.0 # --pcie: the e1000e on a root port of its own (rp2)
P=/sys/bus/pci/devices/$PF
PARAMS=/sys/module/sriovsim/parameters
VF0=0000:05:00.1 VF1=0000:05:00.2
for b in rdmad rdmactl udevadm setpci vfiohold jq; do
	command -v "$b" > /dev/null || bail "no $b on PATH"
done

RDMAD="" holder=""
cleanup() { # nothing this scenario started outlives it (a reader of sriov_numvfs left in D
	# by a write that waits on a holder ends with the write: it cannot be killed)
	[ -z "$holder" ] || kill -TERM "$holder" 2> /dev/null
	[ -z "$RDMAD" ] || kill -TERM "$RDMAD" 2> /dev/null
	udevadm control --exit 2> /dev/null
	ip netns del pod 2> /dev/null
	[ ! -e /run/rdmad-vm/bus.pid ] || kill "$(cat /run/rdmad-vm/bus.pid)" 2> /dev/null
}
trap cleanup EXIT

driver_of() { local d; d=$(readlink "/sys/bus/pci/devices/$1/driver") && basename "$d" || echo none; }
group_of() { basename "$(readlink "/sys/bus/pci/devices/$1/iommu_group")"; }
netdev_of() { ls "/sys/bus/pci/devices/$1/net" 2> /dev/null; }
links() { find "$P/" -maxdepth 1 -name 'virtfn*' | wc -l; } # the links only: never blocks
calls() { cat "$PARAMS/configure_calls"; }                 # reading it takes no device lock
configuring() { cat "$PARAMS/configuring"; }
# sriov_numvfs read in the background: a write in progress (rdmad's, waiting for a holder) would
# leave a reader in D for as long as it lasts. Its value, or "blocked" after 20 s.
exited() { [ ! -e "/proc/$1" ] || [ "$(state_of "$1")" = Z ]; } # a zombie until waited
numvfs_read() {
	local reader
	rm -f /tmp/numvfs.out
	cat "$P/sriov_numvfs" > /tmp/numvfs.out 2>&1 &
	reader=$!
	if wait_until 20 exited "$reader"; then
		wait "$reader" 2> /dev/null
		reader=""
		cat /tmp/numvfs.out
	else
		echo blocked
	fi
}
numvfs_is() { [ "$(links)" = "$1" ] && [ "$(numvfs_read)" = "$1" ]; }
state_of() { # the state field of /proc/PID/stat: the one after the last ')'
	local s
	read -r s < "/proc/$1/stat" 2> /dev/null || return 1
	s=${s##*) }
	echo "${s%% *}"
}
in_d() { # the processes in D, "PID comm" each (bash builtins only: no process of its own)
	local f s c
	for f in /proc/[0-9]*/stat; do
		read -r s < "$f" 2> /dev/null || continue
		c=${s#*(} c=${c%)*} s=${s##*) }
		[ "${s%% *}" != D ] || echo "${f//[^0-9]/} $c"
	done
}
none_in_d() { [ -z "$(in_d)" ]; }
use_vfio() { # use_vfio VF: unbind it from sriovsim, bind it to vfio-pci
	echo "$1" > /sys/bus/pci/drivers/sriovsim/unbind &&
		echo vfio-pci > "/sys/bus/pci/devices/$1/driver_override" &&
		echo "$1" > /sys/bus/pci/drivers_probe
}
use_sriovsim() { # use_sriovsim VF: from vfio-pci back to sriovsim
	echo "$1" > /sys/bus/pci/drivers/vfio-pci/unbind &&
		echo > "/sys/bus/pci/devices/$1/driver_override" &&
		echo "$1" > /sys/bus/pci/drivers_probe &&
		[ "$(driver_of "$1")" = sriovsim ]
}
acs() { setpci -s "$1" ECAP_ACS+6.w; }
acs_both() { [ "$(acs "$RP3") $(acs "$RP2")" = "$1" ]; }

# ---- the host: vfio, sriovsim, the e1000e, ACS as the kernel set it ---------------------------
check "depmod; modprobe vfio-pci vfio_iommu_type1 e1000e" \
	sh -c "depmod && modprobe -a vfio-pci vfio_iommu_type1 e1000e" || bail "no vfio-pci or e1000e"
check "insmod sriovsim.ko ids=1b36:0010" insmod "$SRIOVSIM_KO" ids=1b36:0010 || bail "no sriovsim"
is "$PF: sriovsim's, class 0x020000, sriov_totalvfs 4, sriov_numvfs 0" \
	"$(driver_of $PF) $(cat "$P/class") $(cat "$P/sriov_totalvfs") $(cat "$P/sriov_numvfs")" \
	"sriovsim 0x020000 4 0"
wait_until 20 test -d "/sys/bus/pci/devices/$NIC2/net" || bail "the e1000e at $NIC2 has no netdev"
is "$RP3 ($PF's port) and $RP2 ($NIC2's): ACSCtl 001d at boot (the kernel enables SV RR CR UF under an IOMMU)" \
	"$(acs $RP3) $(acs $RP2)" "001d 001d"
is "... $PF is below $RP3, in an IOMMU group translated by the vIOMMU (DMA-FQ)" \
	"$(basename "$(readlink -f "$P/..")") $(cat "/sys/kernel/iommu_groups/$(group_of $PF)/type")" \
	"$RP3 DMA-FQ"

# udevd with no rules relays uevents to rdmad; org.rdmad1 on a private bus with the shipped policy
udevd_start
private_bus_start

mkdir -p "$CONF"
PFNET=$(netdev_of $PF)
profile() { # profile VFS ACS: the PF's sriov.vfs, and pci.upstream-acs of the PF and its peer
	cat > "$CONF/50-guard.yaml" << YAML
# a Soft-RoCE link on the PF, so that its function's settings show in the link's status rows
links:
  - {name: rxe0, type: rxe, netdev: $PFNET}
---
# the PF by its netdev: a profile that matches the link's netdev gives the link's status rows
match: {netdev: $PFNET}
netdev: {up: true}
sriov: {vfs: $1}
pci: {upstream-acs: $2}
---
# the PF's peer-to-peer peer (no GPU here): the e1000e on rp2
match: {pci: "$NIC2"}
pci: {upstream-acs: $2}
YAML
}
reload() { timeout 60 rdmactl reload > "$VM_LOGDIR/reload.log" 2>&1; }
reconcile() { timeout 60 rdmactl reconcile > "$VM_LOGDIR/reconcile.log" 2>&1; }
status_answers() { timeout 30 rdmactl status --no-pager rxe0/1 > "$VM_LOGDIR/status.txt" 2>&1; }

profile 2 keep
rdmad -v > "$LOG" 2>&1 &
RDMAD=$!
check "rdmad: sriov.vfs 2 on $PF (sriov_numvfs and the virtfn links)" within 60 numvfs_is 2
VF0NET=$(netdev_of $VF0) VF1NET=$(netdev_of $VF1)
diag "the VFs' netdevs: $VF0=$VF0NET $VF1=$VF1NET; IOMMU groups $(group_of $VF0) $(group_of $VF1)"

# refused NAME COUNT HOLDER VERB: the count COUNT declared while a VF is in use is refused,
# naming the VF and HOLDER (a regex), VERB "going through 0" or "going to 0"; nothing written.
# rdmactl reload returns once the pass with the new profile is done: what rdmad would write, it
# has written then.
refused() {
	local name=$1 want=$2 holder=$3 verb=$4 have c0 d
	have=$(links) c0=$(calls)
	profile "$want" keep
	check "$name: sriov.vfs $want declared: rdmactl reload (the pass done)" reload
	d=$(rdmactl plan --json 2> "$VM_LOGDIR/plan.err" | jq -r --arg l rxe0/1 \
		'.[] | select(.link == $l and .setting == "sriov.vfs") | "\(.current) \(.desired) \(.unsupported)"')
	if [[ "$d" =~ ^$have\ $want\ $verb\ destroys\ the\ VFs\ in\ use:\ .*VF\ $holder ]]; then
		pass "... $have -> $want refused in rdmad's plan, naming the VF and what holds it"
		diag "$d"
	else
		fail "... $have -> $want refused in rdmad's plan, naming the VF and what holds it" \
			"plan: '$d'" "want: '$have $want $verb destroys the VFs in use: ...VF $holder'"
	fi
	is "... rdmad never wrote sriov_numvfs: configure_calls $c0, configuring 0, $have virtfn links" \
		"$(calls) $(configuring) $(links)" "$c0 0 $have"
	is "... sriov_numvfs reads $have (no write in progress: it returns)" "$(numvfs_read)" "$have"
	# a task passes through D now and then (a kworker flushing): none that stays
	d=$(in_d)
	if within 10 none_in_d; then
		pass "... no process in D"
		[ -z "$d" ] || diag "in D a moment: $d"
	else
		fail "... no process in D" "in D: $(in_d | paste -sd' ')"
	fi
	if status_answers; then
		pass "... rdmad answers: rdmactl status"
		if grep -Eq "^sriov\.vfs .*unsupported +$verb destroys the VFs in use: .*VF $holder" \
			"$VM_LOGDIR/status.txt"; then
			pass "... rxe0/1's sriov.vfs row: unsupported, naming the VF"
		else
			fail "... rxe0/1's sriov.vfs row: unsupported, naming the VF" "$(cat "$VM_LOGDIR/status.txt")"
		fi
	else
		fail "... rdmad answers: rdmactl status" "$(cat "$VM_LOGDIR/status.txt")"
	fi
	reconcile
	is "... rdmactl reconcile (a full pass): refused again, configure_calls $c0" "$(calls)" "$c0"
}
# applied NAME COUNT: the count applied once the VF is let go
applied() {
	local c0
	c0=$(calls)
	profile "$2" keep
	check "$1: rdmactl reload applies sriov.vfs $2" reload
	check "... $2 VFs" within 30 numvfs_is "$2"
	diag "configure_calls $c0 -> $(calls); journal: $(grep 'sriov\.vfs' "$LOG" | tail -n 2 | paste -sd'|')"
}

# ---- 1. a VF bound to vfio-pci and held as a VM holds it ----------------------------------------
check "$VF0 bound to vfio-pci" use_vfio $VF0
check "vfiohold $VF0: the container, its group and its device's fd" hold $VF0
refused "vfio-pci" 4 "$VF0 is bound to vfio-pci" "going through 0"
refused "vfio-pci" 0 "$VF0 is bound to vfio-pci" "going to 0"
check "vfiohold stops on SIGTERM, released" release
check "$VF0 given back to sriovsim" use_sriovsim $VF0
c0=$(calls)
check "rdmactl reconcile with the VF let go" reconcile
check "... the declared 0 applied" within 30 numvfs_is 0
is "... one write to sriov_numvfs (configure_calls +1)" "$(calls)" $((c0 + 1))
applied "back to 2" 2
VF0NET=$(netdev_of $VF0) VF1NET=$(netdev_of $VF1)

# ---- 2. a VF's netdev in another network namespace (a pod) --------------------------------------
to_pod() { ip netns add pod && ip link set "$1" netns pod; } # iproute2's ip: bash, not sh -c
check "ip netns add pod; ip link set $VF1NET netns pod" to_pod "$VF1NET"
refused "netns" 4 "$VF1 has its netdev in another network namespace" "going through 0"
refused "netns" 0 "$VF1 has its netdev in another network namespace" "going to 0"
check "$VF1NET moved back from the pod" ip -n pod link set "$VF1NET" netns 1
applied "netns: back from the pod" 4
VF0NET=$(netdev_of $VF0)

# ---- 3. a VF's netdev up with an address ----------------------------------------------------------
addr_up() { ip addr add 192.0.2.10/24 dev "$1" && ip link set "$1" up; }
check "ip addr add 192.0.2.10/24 dev $VF0NET; up" addr_up "$VF0NET"
refused "address" 2 "$VF0 has its netdev $VF0NET up with 192\.0\.2\.10" "going through 0"
refused "address" 0 "$VF0 has its netdev $VF0NET up with 192\.0\.2\.10" "going to 0"
check "the address removed ($VF0NET stays up, with its IPv6 link-local one at most)" \
	ip addr del 192.0.2.10/24 dev "$VF0NET"
has_ll() { ip -6 addr show dev "$1" scope link | grep -q 'inet6 fe80:'; }
check "... $VF0NET keeps the IPv6 link-local address the kernel gave it (an address nobody gave it)" \
	wait_until 20 has_ll "$VF0NET"
diag "$VF0NET: $(ip -br addr show dev "$VF0NET")"
# 4 -> 2 goes through 0: VF0, up with its link-local address alone, is not in use
applied "address: removed, sriov.vfs 2 through 0" 2
applied "... back to 4" 4

# ---- 4. pci.upstream-acs: off with a VF bound to vfio-pci below rp3 --------------------------------
acs_plan() { # the plan's pci.upstream-acs rows, "LINK|CURRENT|DESIRED|NOT APPLIED" each
	rdmactl plan --json 2> /dev/null | jq -r '.[] | select(.setting == "pci.upstream-acs") |
		"\(.link)|\(.current)|\(.desired)|\(.unsupported // "")"'
}
check "$VF0 bound to vfio-pci again" use_vfio $VF0
G=$(group_of $VF0)
is "... in IOMMU group $G of its own, DMA-FQ, below $RP3" \
	"$(ls "/sys/kernel/iommu_groups/$G/devices") $(cat "/sys/kernel/iommu_groups/$G/type") $(basename "$(readlink -f /sys/bus/pci/devices/$VF0/..)")" \
	"$VF0 DMA-FQ $RP3"
check "vfiohold $VF0" hold $VF0
c0=$(calls)
profile 4 off
check "upstream-acs: off declared: rdmactl reload (the pass done)" reload
acs_plan > "$VM_LOGDIR/plan-acs.txt"
diag "$(cat "$VM_LOGDIR/plan-acs.txt")"
for rp in $RP3 $RP2; do
	for link in "pci/$NIC2" rxe0/1; do
		check "plan: $link: $rp ACSCtl 0x001d -> 0x0011 refused: $VF0 bound to vfio-pci in group $G (DMA-FQ), pci=disable_acs_redir=$rp" \
			grep -Eq "^$link\|$rp ACSCtl 0x001d\|$rp ACSCtl 0x0011\|port $rp: $VF0 is bound to vfio-pci in IOMMU group $G \(DMA-FQ\).*pci=disable_acs_redir=$rp on the kernel command line" \
			"$VM_LOGDIR/plan-acs.txt"
	done
done
is "ACSCtl unchanged on $RP3 and $RP2 (setpci)" "$(acs $RP3) $(acs $RP2)" "001d 001d"
is "... no record of bits cleared (/run/rdmad/state/acs)" "$(ls -A /run/rdmad/state/acs 2> /dev/null)" ""
is "... and sriov.vfs left alone: configure_calls $c0, 4 VFs" "$(calls) $(links)" "$c0 4"
if status_answers; then
	pass "... rdmad answers: rdmactl status"
	if grep -Eq "^pci\.upstream-acs .*unsupported +port $RP3: $VF0 is bound to vfio-pci" "$VM_LOGDIR/status.txt"; then
		pass "... rxe0/1's pci.upstream-acs row: unsupported, naming $VF0 (not converged)"
	else
		fail "... rxe0/1's pci.upstream-acs row: unsupported, naming $VF0 (not converged)" \
			"$(cat "$VM_LOGDIR/status.txt")"
	fi
else
	fail "... rdmad answers: rdmactl status" "$(cat "$VM_LOGDIR/status.txt")"
fi

# ---- 5. rdmactl preflight says the same -----------------------------------------------------------
preflight_rows() { # hardware.acs-vfio rows: "SUBJECT|STATUS|FIX" each
	rdmactl preflight --json 2> /dev/null | jq -r '.[] | select(.check == "hardware.acs-vfio") |
		"\(.subject)|\(.status)|\(.fix)"'
}
preflight_rows > "$VM_LOGDIR/preflight-acs.txt"
diag "$(rdmactl preflight 2>&1 | grep -E 'acs-vfio')"
is "rdmactl preflight: one hardware.acs-vfio row per port, two" "$(wc -l < "$VM_LOGDIR/preflight-acs.txt")" 2
for rp in $RP3 $RP2; do
	check "rdmactl preflight: hardware.acs-vfio warns for $rp, with pci=disable_acs_redir=$rp" \
		grep -q "^$rp|warn|clear it at boot: pci=disable_acs_redir=$rp on the kernel command line" \
		"$VM_LOGDIR/preflight-acs.txt"
done

# ---- no vfio function left: off clears the route's bits; on sets them back ------------------------
check "vfiohold stops on SIGTERM, released" release
check "$VF0 given back to sriovsim" use_sriovsim $VF0
check "rdmactl reconcile with no vfio-pci function" reconcile
check "upstream-acs: off: RR and CR cleared on $RP3 and $RP2 (0x0011)" wait_until 30 acs_both "0011 0011"
is "... recorded" "$(cd /run/rdmad/state/acs 2> /dev/null && grep -H . -- * | paste -sd' ')" \
	"$RP2:cleared 0x000c $RP3:cleared 0x000c"
is "rdmactl preflight: no hardware.acs-vfio row then" "$(preflight_rows)" ""
profile 4 on
check "upstream-acs: on: rdmactl reload" reload
check "... the bits set back on both root ports (0x001d)" wait_until 30 acs_both "001d 001d"
is "... the records dropped" "$(ls -A /run/rdmad/state/acs 2> /dev/null)" ""

# ---- the end: rdmad stopped, the VFs and sriovsim gone -------------------------------------------
check "rdmad is still running" kill -0 "$RDMAD"
kill -TERM "$RDMAD"
wait "$RDMAD"
is "rdmad stops on SIGTERM with status 0" "$?" 0
RDMAD=""
check "echo 0 > sriov_numvfs; rmmod sriovsim" sh -c "echo 0 > $P/sriov_numvfs && rmmod sriovsim"
done_testing
