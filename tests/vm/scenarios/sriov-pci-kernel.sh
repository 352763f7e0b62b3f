#!/bin/bash
# sriov-pci-kernel.sh (light VM, --sriov-pci) - the kernel behaviour issue 43's guards are built on,
# on real PCI SR-IOV functions: qemu's NVMe controller (4 VFs) on a root port under a vIOMMU,
# made an Ethernet PF and VFs with netdevs by the sriovsim test module (tests/vm/sriovsim):
#   - the PF and its VFs read class 0x020000 (rdmad observes class 0x02 only) and have netdevs;
#     sriov_numvfs 0 -> 4 makes virtfn0..3; 4 -> 2 is EBUSY (so 4 -> 8 goes through 0), 5 ERANGE
#   - each VF is in an IOMMU group of its own, translated (DMA-FQ); bound to vfio-pci, its group
#     has a /dev/vfio/N node
#   - a VF held as a VM holds it (vfiohold: the container, the group and the device's fd):
#     writing 0 waits in vfio_unregister_group_dev until the holder closes, and even SIGKILL
#     does not end the writer; an open group fd alone holds nothing
#   - a write in progress holds the PF's device lock: reading sriov_numvfs blocks (D), counting
#     the virtfn links does not
#   - numvfs_delay_ms: a write takes N x that at least (the times printed)
#   - a VF's netdev moves to another netns; its function then has no net/ entry in the initial
#     netns, and numvfs 0 takes the netdev out of that netns without waiting for anyone
# No `set -e`: a failed check is reported and the scenario goes on. Every wait is for a condition,
# bounded; the times are printed, never asserted, except for the lower bound numvfs_delay_ms sets.
# shellcheck disable=SC2317 # the helpers run through check, wait_until and the trap
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

PF=0000:01:00.0 # run-vm.sh --sriov-pci: on root port 00:1e.0, its VFs 01:00.1-01:00.4
P=/sys/bus/pci/devices/$PF
PARAMS=/sys/module/sriovsim/parameters
VF0=0000:01:00.1 VF1=0000:01:00.2

holder="" writer=""
cleanup() { # nothing this scenario started outlives it: a held write is released first
	[ ! -e "$PARAMS/numvfs_hold" ] || echo 0 > "$PARAMS/numvfs_hold"
	[ -z "$holder" ] || kill "$holder" 2> /dev/null
	[ -z "$writer" ] || kill "$writer" 2> /dev/null
	ip netns del pod 2> /dev/null
}
trap cleanup EXIT

ms_since() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }
driver_of() { local d; d=$(readlink "/sys/bus/pci/devices/$1/driver") && basename "$d" || echo none; }
group_of() { basename "$(readlink "/sys/bus/pci/devices/$1/iommu_group")"; }
netdevs_of() { ls "/sys/bus/pci/devices/$1/net" 2> /dev/null; }
vfs() { local l; for l in "$P"/virtfn*; do [ -e "$l" ] && basename "$(readlink -f "$l")"; done; }
links() { find "$P/" -maxdepth 1 -name 'virtfn*' | wc -l; } # the links only, no attribute read
state_of() { awk '/^State:/ { print $2 }' "/proc/$1/status" 2> /dev/null; }
gone() { [ ! -e "/proc/$1" ] || [ "$(state_of "$1")" = Z ]; } # exited (a zombie until waited)
in_kernel() { # in_kernel PID FUNCTION: PID sleeps with FUNCTION on its kernel stack
	grep -q "\] $2+" "/proc/$1/stack"
}
in_dmesg() { dmesg | grep -q "$1"; }
state_is() { [ "$(state_of "$1")" = "$2" ]; }
killed_in_vfio() { # PID got a signal in vfio_unregister_group_dev, and still waits there
	in_dmesg "($1) blocked until device is released" && state_is "$1" D &&
		in_kernel "$1" vfio_unregister_group_dev
}
blocked_reading() { # PID, a reader of sriov_numvfs, waits for the PF's device lock
	in_kernel "$1" sriov_numvfs_show && state_is "$1" D
}
configuring() { [ "$(cat "$PARAMS/configuring")" = "$1" ]; }
# write_bg FILE VALUE: the write in a background subshell, its status in /tmp/write.rc when it
# returns; $writer is the process that writes
write_bg() {
	rm -f /tmp/write.rc
	(
		write "$1" "$2"
		echo $? > /tmp/write.rc
	) 2> /tmp/write.err &
	writer=$!
}
write_timed() { # write_timed NAME FILE VALUE: check the write, print its time
	local t0=${EPOCHREALTIME/./} rc=0
	check "$1" write "$2" "$3" || rc=$?
	diag "$1: $(ms_since "$t0") ms"
	return "$rc"
}
use_vfio() { # use_vfio VF: unbind it from sriovsim and bind it to vfio-pci
	echo "$1" > /sys/bus/pci/drivers/sriovsim/unbind &&
		echo vfio-pci > "/sys/bus/pci/devices/$1/driver_override" &&
		echo "$1" > /sys/bus/pci/drivers_probe
}

# ---- the PF before sriovsim ---------------------------------------------------------------
is "01:00.0 is qemu's NVMe (1b36:0010, class 0x010802) with no driver: nvme is not loaded" \
	"$(cat "$P/vendor"):$(cat "$P/device") $(cat "$P/class") $(driver_of $PF) $(lsmod | grep -c '^nvme ')" \
	"0x1b36:0x0010 0x010802 none 0"
is "... SR-IOV capable: sriov_totalvfs 4, sriov_numvfs 0" \
	"$(cat "$P/sriov_totalvfs") $(cat "$P/sriov_numvfs")" "4 0"
is "... in an IOMMU group of its own, translated by the vIOMMU (type DMA-FQ)" \
	"$(ls "/sys/kernel/iommu_groups/$(group_of $PF)/devices") $(cat "/sys/kernel/iommu_groups/$(group_of $PF)/type")" \
	"$PF DMA-FQ"

# ---- sriovsim: an Ethernet PF ---------------------------------------------------------------
# the image's extra modules are not in its modules.dep yet (build-initramfs.sh --module)
vfio_modules() { depmod && modprobe -a vfio-pci vfio_iommu_type1; }
check "depmod; modprobe vfio-pci vfio_iommu_type1" vfio_modules ||
	bail "no vfio-pci"
check "insmod sriovsim.ko ids=1b36:0010" insmod "$SRIOVSIM_KO" ids=1b36:0010 || bail "no sriovsim"
is "the PF: driver sriovsim, class 0x020000, one netdev" \
	"$(driver_of $PF) $(cat "$P/class") $(netdevs_of $PF | wc -l)" "sriovsim 0x020000 1"
PFNET=$(netdevs_of $PF)
diag "the PF's netdev: $PFNET"
is "ethtool -i $PFNET: driver sriovsim, bus-info $PF" \
	"$(ethtool -i "$PFNET" | awk '/^(driver|bus-info):/ { printf "%s ", $2 }')" "sriovsim $PF "

# ---- sriov_numvfs 0 -> 4 ------------------------------------------------------------------------
write_timed "echo 4 > sriov_numvfs" "$P/sriov_numvfs" 4
is "virtfn0..3 link to 01:00.1-01:00.4; sriov_numvfs reads 4" "$(vfs | tr '\n' ' ')$(cat "$P/sriov_numvfs")" \
	"0000:01:00.1 0000:01:00.2 0000:01:00.3 0000:01:00.4 4"
got="" want=""
for v in $(vfs); do
	got+="$(cat "/sys/bus/pci/devices/$v/class") $(driver_of "$v") $(netdevs_of "$v" | wc -l) "
	want+="0x020000 sriovsim 1 "
done
is "every VF: class 0x020000, driver sriovsim, one netdev" "$got" "$want"
diag "the VFs' netdevs: $(for v in $(vfs); do echo -n "$v=$(netdevs_of "$v") "; done)"
got="" groups=""
for v in $(vfs); do
	g=$(group_of "$v")
	groups+="$g "
	got+="$(ls "/sys/kernel/iommu_groups/$g/devices")=$(cat "/sys/kernel/iommu_groups/$g/type") "
done
diag "the VFs' IOMMU groups: $groups"
is "every VF alone in its IOMMU group, type DMA-FQ" "$got" \
	"$(for v in $(vfs); do echo -n "$v=DMA-FQ "; done)"
is "... four groups, none the PF's" "$(echo "$groups $(group_of $PF)" | tr ' ' '\n' | sort -u | grep -c .)" 5
fails_with "echo 2 with 4 VFs: EBUSY (0 first, so 4 -> 8 destroys the 4)" "Device or resource busy" \
	write "$P/sriov_numvfs" 2
fails_with "echo 5 (above sriov_totalvfs): ERANGE" "Numerical result out of range" \
	write "$P/sriov_numvfs" 5

# ---- a VF's netdev in another netns (a pod) ------------------------------------------------
VF1NET=$(netdevs_of $VF1)
to_pod() { ip netns add pod && ip link set "$1" netns pod; }
check "ip netns add pod; ip link set $VF1NET netns pod" to_pod "$VF1NET"
is "then the VF has no net/ entry in the initial netns (sysfs shows a netns's own netdevs)" \
	"$(netdevs_of $VF1 | wc -l) $(test -e "/sys/class/net/$VF1NET" && echo listed || echo absent)" "0 absent"
is "... the pod's sysfs has it under the VF" "$(ip netns exec pod ls "/sys/bus/pci/devices/$VF1/net")" "$VF1NET"

# ---- vfio-pci ----------------------------------------------------------------------------
check "$VF0: unbound from sriovsim, driver_override vfio-pci, drivers_probe" use_vfio $VF0
G=$(group_of $VF0)
is "$VF0 is vfio-pci's, without a netdev" "$(driver_of $VF0) $(netdevs_of $VF0 | wc -l)" "vfio-pci 0"
check "its group $G has the node /dev/vfio/$G" test -c "/dev/vfio/$G"

# the group's fd alone (no device fd): nothing waits for it
check "vfiohold --group $VF0: the group's fd open" hold --group $VF0
t0=${EPOCHREALTIME/./}
write_bg "$P/sriov_numvfs" 0
if wait_until 60 test -e /tmp/write.rc; then
	is "with only the group's fd open, echo 0 returns: nothing holds the VF" "$(cat /tmp/write.rc)" 0
else
	fail "with only the group's fd open, echo 0 returns: nothing holds the VF" \
		"not returned in 60 s: $(cat "/proc/$writer/stack" 2> /dev/null)"
fi
diag "echo 0 > sriov_numvfs, the group's fd open: $(ms_since "$t0") ms"
check "... the holder closes" release
wait "$writer" 2> /dev/null
writer=""
is "... the VF in the pod went with it: the pod has no $VF1NET, sriov_numvfs 0" \
	"$(ip -n pod -o link show | grep -c "$VF1NET") $(cat "$P/sriov_numvfs")" "0 0"

# the device's fd too, as a VM holds it
write_timed "echo 4 > sriov_numvfs" "$P/sriov_numvfs" 4
check "$VF0 bound to vfio-pci again" use_vfio $VF0
check "vfiohold $VF0: the container, the group and the device's fd open, as a VM's" hold $VF0
t0=${EPOCHREALTIME/./}
write_bg "$P/sriov_numvfs" 0
check "echo 0 > sriov_numvfs waits in vfio_unregister_group_dev while the holder lives" \
	wait_until 60 in_kernel "$writer" vfio_unregister_group_dev
check "... vfio-pci asks the user to let go ('blocked until released by user')" \
	wait_until 30 in_dmesg "vfio-pci $VF0: No device request channel registered, blocked until released by user"
check "... the writer sleeps interruptibly (S) until it gets a signal" \
	wait_until 30 state_is "$writer" S
cat "$P/sriov_numvfs" > /tmp/read.out 2>&1 &
reader=$!
check "... reading sriov_numvfs meanwhile blocks (D in sriov_numvfs_show: the PF's device lock)" \
	wait_until 30 blocked_reading "$reader"
is "... counting virtfn links does not: 3 (VF0's link goes first, VF1-3 wait behind it)" \
	"$(timeout 10 find "$P/" -maxdepth 1 -name 'virtfn*' | wc -l)" 3
check "kill -KILL the writer" kill -KILL "$writer"
check "... it is not ended: the kernel says it waits ('blocked until device is released'), D, in vfio_unregister_group_dev" \
	wait_until 30 killed_in_vfio "$writer"
check "the holder closes" release
check "then the writer ends (SIGKILL, on its way out of the write)" wait_until 60 gone "$writer"
wait "$writer" 2> /dev/null
st=$?
diag "echo 0 > sriov_numvfs with $VF0 held, until the holder closed: $(ms_since "$t0") ms (writer's status $st)"
writer=""
is "... the write was done: sriov_numvfs 0, $VF0 gone" \
	"$(cat "$P/sriov_numvfs") $(test -e "/sys/bus/pci/devices/$VF0" && echo present || echo gone)" "0 gone"
check "... the blocked reader returns" wait_until 30 gone "$reader"
wait "$reader" 2> /dev/null
is "... with the count after the write: 0" "$(cat /tmp/read.out)" 0

# ---- a write in progress holds the PF's device lock ---------------------------------------------
check "numvfs_hold 1" write "$PARAMS/numvfs_hold" 1
write_bg "$P/sriov_numvfs" 4
check "... the write is in sriovsim's .sriov_configure (configuring 1)" \
	wait_until 30 configuring 1
cat "$P/sriov_numvfs" > /tmp/read.out 2>&1 &
reader=$!
check "reading sriov_numvfs meanwhile blocks (D in sriov_numvfs_show)" \
	wait_until 30 blocked_reading "$reader"
is "counting virtfn links does not: 0, while the write and the read still wait" \
	"$(timeout 10 find "$P/" -maxdepth 1 -name 'virtfn*' | wc -l) $(cat $PARAMS/configuring) $(gone "$reader" || echo waiting)" \
	"0 1 waiting"
check "numvfs_hold 0" write "$PARAMS/numvfs_hold" 0
check "... the write returns" wait_until 30 test -e /tmp/write.rc
wait "$writer" 2> /dev/null
writer=""
check "... the reader returns" wait_until 30 gone "$reader"
wait "$reader" 2> /dev/null
is "... the write succeeded, and the reader got the count after it: 4" "$(cat /tmp/write.rc) $(cat /tmp/read.out)" "0 4"

# ---- numvfs_delay_ms: a slow write, as mlx5's (~1 s a VF) -------------------------------------
DELAY=1000
check "numvfs_delay_ms $DELAY" write "$PARAMS/numvfs_delay_ms" $DELAY
t0=${EPOCHREALTIME/./}
check "echo 0 > sriov_numvfs (4 VFs)" write "$P/sriov_numvfs" 0
ms=$(ms_since "$t0")
diag "echo 0 > sriov_numvfs (4 VFs), numvfs_delay_ms $DELAY: $ms ms"
check "... took 4 x $DELAY ms at least" test "$ms" -ge $((4 * DELAY))
t0=${EPOCHREALTIME/./}
write_bg "$P/sriov_numvfs" 4
seen=""
while [ ! -e /tmp/write.rc ] && [ "$(ms_since "$t0")" -lt 120000 ]; do
	n=$(links)
	[[ " $seen " == *" $n "* ]] || seen+=" $n"
	sleep 0.1
done
ms=$(ms_since "$t0")
wait "$writer" 2> /dev/null
writer=""
diag "echo 4 > sriov_numvfs, numvfs_delay_ms $DELAY: $ms ms; virtfn counts seen meanwhile:$seen"
is "echo 4 > sriov_numvfs returned 0" "$(cat /tmp/write.rc 2> /dev/null)" 0
check "... took 4 x $DELAY ms at least" test "$ms" -ge $((4 * DELAY))
check "numvfs_delay_ms 0" write "$PARAMS/numvfs_delay_ms" 0
write_timed "echo 0 > sriov_numvfs" "$P/sriov_numvfs" 0

# ---- VFs no driver probes ----------------------------------------------------------------------
check "sriov_drivers_autoprobe 0" write "$P/sriov_drivers_autoprobe" 0
write_timed "echo 2 > sriov_numvfs" "$P/sriov_numvfs" 2
is "VFs made with autoprobe 0: class 0x020000 all the same, no driver, no netdev" \
	"$(for v in $(vfs); do echo -n "$(cat "/sys/bus/pci/devices/$v/class") $(driver_of "$v") $(netdevs_of "$v" | wc -l) "; done)" \
	"0x020000 none 0 0x020000 none 0 "
check "sriov_drivers_autoprobe 1" write "$P/sriov_drivers_autoprobe" 1

# ---- the PF let go ------------------------------------------------------------------------------
check "rmmod sriovsim with 2 VFs" rmmod sriovsim
is "... the VFs are gone, the PF has no driver and qemu's class again (0x010802), no netdev" \
	"$(links) $(driver_of $PF) $(cat "$P/class") $(netdevs_of $PF | wc -l)" "0 none 0x010802 0"
done_testing
