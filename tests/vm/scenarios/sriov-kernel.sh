#!/bin/bash
# sriov-kernel.sh (light VM, --netdevsim) - the SR-IOV kernel behaviour rdmad's device-level keys
# (issue 25: sriov.vfs, sriov.vf, sriov.eswitch) will be built on, asserted on netdevsim, the
# kernel's own device simulator (Debian does not build it: tests/vm/build-module.sh builds it
# from linux-source of the VM kernel's version):
#   - sriov_numvfs: 0 -> 4 -> 0 -> 2, and EBUSY for 4 -> 2 (the write-0-first rule networkd has);
#     netdevsim has no sriov_totalvfs
#   - the VF attributes through RTM_SETLINK IFLA_VFINFO_LIST (ip link set ... vf N ...), read
#     back from the PF's RTM_GETLINK with RTEXT_FILTER_VF (ip -d -j link show)
#   - devlink eswitch mode legacy <-> switchdev; VF rates refused in switchdev (EOPNOTSUPP)
#   - what a hand write to sriov_numvfs announces: no uevent for the PF
# No `set -e`: a failed check is reported and the scenario goes on.
set -uo pipefail
# shellcheck source-path=SCRIPTDIR source=../guest/lib.sh
. "$VM_LIB"

KO=/lib/modules/$(uname -r)/extra/netdevsim.ko
check "modprobe psample; insmod netdevsim.ko" sh -c "modprobe psample && insmod $KO" ||
	bail "no netdevsim"
check "netdevsim device 1 with one port (new_device)" \
	sh -c 'echo "1 1" > /sys/bus/netdevsim/new_device'
DEV=/sys/bus/netdevsim/devices/netdevsim1
wait_until 20 sh -c "ls $DEV/net/ | grep -q ." || bail "netdevsim1 has no netdev"
PF=$(ls "$DEV/net/" | head -n1)
diag "netdevsim1's netdev: $PF"
ip link set "$PF" up

vfs() { ip -d -j link show "$PF" | jq -r '[.[0].vfinfo_list // [] | length] | .[0]'; }
vf() { ip -d -j link show "$PF" | jq -c ".[0].vfinfo_list[$1]"; }

# ---- sriov_numvfs ---------------------------------------------------------------------------
# A PCI function has both sriov_totalvfs and sriov_numvfs (drivers/pci/iov.c); netdevsim's bus
# device only the second: rdmad must not need the first to set the count.
is "netdevsim1 has sriov_numvfs, and no sriov_totalvfs (a PCI function has both)" \
	"$(test -w "$DEV/sriov_numvfs" && echo yes) $(test -e "$DEV/sriov_totalvfs" && echo yes || echo no)" \
	"yes no"
is "sriov_numvfs starts at 0" "$(cat "$DEV/sriov_numvfs")" 0
udevadm monitor --kernel > /tmp/uevents.log 2>&1 &
mon=$!
wait_until 20 grep -q '^KERNEL - ' /tmp/uevents.log
check "echo 4 > sriov_numvfs" write "$DEV/sriov_numvfs" 4
is "... the PF lists 4 VFs (RTM_GETLINK with RTEXT_FILTER_VF)" "$(vfs)" 4
fails_with "echo 2 > sriov_numvfs with 4 enabled: EBUSY (0 must be written first)" \
	"Device or resource busy" sh -c "echo 2 > $DEV/sriov_numvfs"
check "echo 0, then 2" sh -c "echo 0 > $DEV/sriov_numvfs && echo 2 > $DEV/sriov_numvfs"
is "... 2 VFs" "$(vfs)" 2
# Absence, without a sleep: uevents arrive in order, so once a marker made after the writes has
# come, any uevent of theirs would have come before it.
ip link add nsmark type dummy
wait_until 20 grep -q '/nsmark (net)' /tmp/uevents.log
kill "$mon"
ip link del nsmark
is "a write to sriov_numvfs sends no uevent for the PF (rdmad cannot wait for one)" \
	"$(grep -c "netdevsim1 (netdevsim)" /tmp/uevents.log)" 0
diag "uevents during the numvfs writes: $(grep -c '^KERNEL' /tmp/uevents.log)"

# ---- VF attributes ----------------------------------------------------------------------------
check "ip link set vf 1 mac 02:00:00:00:01:01 vlan 100 qos 3 spoofchk off trust on state enable" \
	ip link set "$PF" vf 1 mac 02:00:00:00:01:01 vlan 100 qos 3 spoofchk off trust on state enable
check "ip link set vf 1 max_tx_rate 1000 min_tx_rate 100 (Mbit/s)" \
	ip link set "$PF" vf 1 max_tx_rate 1000 min_tx_rate 100
v=$(vf 1)
diag "vf 1: $v"
is "... read back: mac, vlan, qos" \
	"$(jq -r '"\(.address) \(.vlan_list[0].vlan // .vlan) \(.vlan_list[0].qos // .qos)"' <<< "$v")" \
	"02:00:00:00:01:01 100 3"
is "... spoofchk, trust, link state" \
	"$(jq -r '"\(.spoofchk) \(.trust) \(.link_state)"' <<< "$v")" "false true enable"
is "... rates" "$(jq -r '"\(.rate.max_tx) \(.rate.min_tx)"' <<< "$v")" "1000 100"
check "echo 0 > sriov_numvfs; echo 2" \
	sh -c "echo 0 > $DEV/sriov_numvfs && echo 2 > $DEV/sriov_numvfs"
is "netdevsim keeps VF 1's MAC across numvfs 0 (a real driver may not: rdmad writes them again)" \
	"$(vf 1 | jq -r .address)" "02:00:00:00:01:01"
# so a VF a plan makes may start with settings of its own: what rdmad writes with a declared
# max-rate is the min-rate the kernel reports then (issue 43), not 0
is "... and its rates (max, min)" "$(vf 1 | jq -r '"\(.rate.max_tx) \(.rate.min_tx)"')" "1000 100"

# ---- devlink eswitch --------------------------------------------------------------------------
is "devlink dev eswitch show: legacy" \
	"$(devlink -j dev eswitch show netdevsim/netdevsim1 | jq -r '.dev[].mode')" legacy
check "devlink dev eswitch set mode switchdev" \
	devlink dev eswitch set netdevsim/netdevsim1 mode switchdev
is "... switchdev" "$(devlink -j dev eswitch show netdevsim/netdevsim1 | jq -r '.dev[].mode')" \
	switchdev
fails_with "a VF rate in switchdev mode: EOPNOTSUPP" "Operation not supported" \
	ip link set "$PF" vf 0 max_tx_rate 500
check "devlink dev eswitch set mode legacy" devlink dev eswitch set netdevsim/netdevsim1 mode legacy

# ---- the device deleted and made again (a driver reload) ---------------------------------------
check "del_device 1, new_device 1 1" \
	sh -c 'echo 1 > /sys/bus/netdevsim/del_device && echo "1 1" > /sys/bus/netdevsim/new_device'
wait_until 20 sh -c "ls $DEV/net/ | grep -q ."
is "... comes back with sriov_numvfs 0: the VFs are rdmad's to make again" \
	"$(cat "$DEV/sriov_numvfs")" 0

done_testing
